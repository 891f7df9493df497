"""Claims on running time (Abstract and Section 4 of the paper, theory §2.1-2.3 and §3.3): OnlineRank's
round is O(n log n), PermELearn's Sinkhorn sweep quadratic, PermELearn's round far slower.

The runtime table holds ``runtime.repeats`` separate timings per learner, n and part (each the
median over its rounds).  A statistic is computed from the per-n medians of the repeats; its
interval is the percentile interval of the same statistic over random draws of one repeat per
timed point (:func:`onlinerank.timing_fits.repeat_exponent`, :func:`onlinerank.timing_fits.repeat_ratio`),
at the claim's Bonferroni level over its cells.  Wall clock on the machine of the run: the
verdicts are about that machine."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from .common import sampler_of
from .registry import Context, claim, make_cell
from .stats import bonferroni_z

RUNTIME = ("learner", "name", "n", "part", "repeat", "seconds_per_round", "sweeps_per_round")

#: bootstrap draws of every timing interval
DRAWS = 4000


def _fit_min_n(ctx: Context) -> int:
    """``runtime.fit_min_n`` of the typed settings (the schema's default unless the config names
    it): the timing claims use the timed points with n at least this."""
    runtime = ctx.settings.runtime
    if runtime is None:
        raise KeyError("runtime")  # the timing claims run only with a runtime section
    return runtime.fit_min_n


def _repeats(ctx: Context, label: str, part: str) -> dict[int, list[dict]]:
    """The rows of (learner label, part) at n >= runtime.fit_min_n, by n (sorted), repeats in order."""
    nmin = _fit_min_n(ctx)
    by: dict[int, list[dict]] = defaultdict(list)
    for r in ctx.table("runtime"):
        if r["learner"] == label and r["part"] == part and r["n"] >= nmin:
            by[int(r["n"])].append(r)
    return {n: sorted(by[n], key=lambda r: r["repeat"]) for n in sorted(by)}


def _secs(rows: list[dict]) -> np.ndarray:
    return np.array([r["seconds_per_round"] for r in rows], float)


def _level(ctx: Context, cells: int) -> float:
    return bonferroni_z(cells, ctx.alpha)[1]


def _method(what: str, reps: set[int], level: float) -> str:
    r = "/".join(str(x) for x in sorted(reps))
    return (
        f"{r} timing repeats per n, each the median seconds over its rounds; value: {what} of the per-n "
        f"medians of the repeats; interval: {level:.2%} percentile interval of {DRAWS} {what}s to one "
        "repeat per n drawn at random (bootstrap over repeats)"
    )


def _exponent_cells(ctx: Context, name: str, part: str, excess: bool, note) -> list[dict]:
    from ..timing_fits import repeat_exponent

    labels = sorted({r["learner"] for r in ctx.table("runtime") if r["name"] == name})
    series = [(lab, _repeats(ctx, lab, part)) for lab in labels]
    series = [(lab, by) for lab, by in series if len(by) >= 2]
    level = _level(ctx, len(series))
    out = []
    for lab, by in series:
        ns = list(by)
        fit = repeat_exponent(ns, [_secs(by[n]) for n in ns], ctx.rng(lab, part), level, DRAWS, excess)
        out.append(
            make_cell(
                ctx,
                f"{lab}, n in {min(ns)}..{max(ns)}",
                {"learner": lab, "n": ns},
                fit["estimate"],
                fit["lo"],
                fit["hi"],
                method=_method("least-squares fit", {len(by[n]) for n in ns}, level),
                reps=min(len(by[n]) for n in ns),
                note=note(lab, ns, by),
            )
        )
    return out


def _spread(ns, by) -> str:
    """The spread of the repeats at each n: max / min."""
    return ", ".join(f"{float(np.max(_secs(by[n])) / np.min(_secs(by[n]))):.2f}" for n in ns)


@claim(
    id="sec4.runtime",
    section="paper",
    kind="data",
    paper_ref="Abstract and Section 4 (running time)",
    title="OnlineRank runs in O(n log n) time per round (not quadratic)",
    statement="OnlineRank draws a ranking with QuickSort or Plackett–Luce in O(n log n) per round, "
    "improving on the quadratic running time of earlier methods.",
    statistic="exponent of (seconds per round)/(n ln n) in n: least-squares slope of log(t/(n ln n)) on "
    "log n over n ≥ fit_min_n (≤ 0 for an O(n log n) round; 1 − 1/ln n ≈ 0.85-0.9 for a quadratic one)",
    direction="<=",
    threshold="runtime.onlinerank_max_excess_exponent",
    test="wall clock, runtime.repeats timings per n; the slope of the per-n medians, with the "
    "percentile interval of slopes fitted to one repeat per n drawn at random (bootstrap over "
    "repeats, Bonferroni over the samplers)",
    reads={"runtime": RUNTIME},
    about="OnlineRank (each configured sampler)",
)
def runtime_onlinerank(ctx: Context) -> list[dict]:
    from ..timing_fits import fit_exponent

    def note(lab, ns, by):
        med = [float(np.median(_secs(by[n]))) for n in ns]
        return (
            f"exponent of seconds per round {fit_exponent(ns, med):.2f}; repeat spread max/min "
            f"{_spread(ns, by)}"
        )

    return _exponent_cells(ctx, "onlinerank", "round", True, note)


@claim(
    id="beyond.runtime.permelearn",
    section="beyond",
    kind="data",
    paper_ref="Section 4 (PermELearn's running time; theory §3.3)",
    title="PermELearn's Sinkhorn sweep is quadratic in n",
    statement="Each Sinkhorn sweep of PermELearn is two n×n matrix–vector products, so its time grows "
    "like n² (theory §3.3: HW needs Sinkhorn balancing and a matrix decomposition).",
    statistic="exponent of seconds per Sinkhorn sweep in n: least-squares slope of log t on log n over "
    "n ≥ fit_min_n",
    direction=">=",
    threshold="runtime.permelearn_min_exponent",
    test="wall clock, runtime.repeats timings per n; the slope of the per-n medians, with the "
    "percentile interval of slopes fitted to one repeat per n drawn at random (bootstrap over repeats)",
    reads={"runtime": RUNTIME},
    about="PermELearn",
)
def runtime_sweep(ctx: Context) -> list[dict]:
    from ..timing_fits import fit_exponent

    def note(lab, ns, by):
        upd = _repeats(ctx, lab, "update")
        e_upd = fit_exponent(list(upd), [float(np.median(_secs(v))) for v in upd.values()])
        sweeps = ", ".join(f"{float(np.mean([r['sweeps_per_round'] for r in by[n]])):.2f}" for n in ns)
        return (
            f"per-round update exponent {e_upd:.2f}; sweeps per update {sweeps}; repeat spread max/min "
            f"{_spread(ns, by)}"
        )

    return _exponent_cells(ctx, "permelearn", "sweep", False, note)


@claim(
    id="beyond.runtime.speedup",
    section="beyond",
    kind="data",
    paper_ref="Section 4 (running time)",
    title="OnlineRank's round is much faster than PermELearn's",
    statement="At every timed n ≥ fit_min_n, PermELearn's round takes at least the configured factor "
    "longer than OnlineRank's (Plackett–Luce).",
    statistic="PermELearn seconds per round / OnlineRank (PL) seconds per round (ratio of the medians of "
    "the repeats)",
    direction=">=",
    threshold="runtime.speedup",
    test="wall clock, runtime.repeats timings per n of each learner; percentile interval of the ratio of "
    "one repeat of each drawn at random (bootstrap over repeats, Bonferroni over the n).  Where "
    "PermELearn's whole Birkhoff draw is too slow to time, its round is timed as the update plus the "
    "first step of the draw (or the update alone), a lower bound, so the interval is [lower, ∞)",
    reads={"runtime": RUNTIME},
    about="OnlineRank (Plackett–Luce) and PermELearn",
)
def runtime_speedup(ctx: Context) -> list[dict]:
    from ..timing_fits import repeat_ratio

    rt = ctx.table("runtime")
    pl: dict[int, list[dict]] = defaultdict(list)
    pe: dict[int, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for r in rt:
        if (
            r["part"] == "round"
            and r["name"] == "onlinerank"
            and sampler_of(ctx, r["learner"]) == "plackett-luce"
        ):
            pl[int(r["n"])].append(r)
        elif r["name"] == "permelearn":
            pe[int(r["n"])][r["part"]].append(r)
    nmin = _fit_min_n(ctx)
    points = []
    for n in sorted(set(pl) & set(pe)):
        part = next((p for p in ("round", "round_lower", "update") if p in pe[n]), None)
        if n >= nmin and part is not None:
            points.append((n, part))
    level = _level(ctx, len(points))
    out = []
    for n, part in points:
        num, den = _secs(pe[n][part]), _secs(pl[n])
        fit = repeat_ratio(num, den, ctx.rng(str(n)), level, DRAWS)
        what = {"round": "whole round", "round_lower": "update + first Birkhoff step (lower bound)"}.get(
            part, "update only (lower bound)"
        )
        out.append(
            make_cell(
                ctx,
                f"n={n}",
                {"n": n, "permelearn_part": part},
                fit["estimate"],
                fit["lo"],
                fit["hi"] if part == "round" else math.inf,
                method=f"{len(num)}/{len(den)} timing repeats (PermELearn/OnlineRank), each the median "
                f"seconds over its rounds; value: ratio of the medians of the repeats; interval: "
                f"{level:.2%} percentile interval of {DRAWS} ratios of one repeat of each drawn at random "
                f"(bootstrap over repeats){'' if part == 'round' else ', upper end ∞'}; PermELearn: {what}",
                reps=min(len(num), len(den)),
                note=f"OnlineRank (PL) {np.median(den):.3g} s; PermELearn {part} {np.median(num):.3g} s "
                "(medians)",
            )
        )
    return out
