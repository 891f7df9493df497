"""Claims on running time (Abstract and Section 4 of the paper, theory §2.1-2.3 and §3.3): OnlineRank's
round is O(n log n), PermELearn's Sinkhorn sweep quadratic, PermELearn's round far slower.

The runtime table holds, per learner, n and part, ``runtime.repeats`` separate timings (each the
median over its rounds) from each of ``runtime.processes`` fresh processes.  Each process gives
the statistic from its own per-n medians; the value is the mean over the processes and the
interval the Student-t interval of that mean with processes − 1 degrees of freedom (a
random-effects interval over processes: :func:`onlinerank.timing_fits.process_exponent`,
:func:`onlinerank.timing_fits.process_ratio`), at the claim's Bonferroni level over its cells, so
that it holds the run-to-run variation one process cannot show.  Wall clock on the machine of the
run: the verdicts are about that machine, and no seed enters them."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from ..timing_fits import fit_exponent, process_exponent, process_ratio
from .common import is_paper_algorithm, sampler_of
from .registry import Context, claim, make_cell
from .stats import bonferroni_z

RUNTIME = ("learner", "name", "n", "part", "process", "repeat", "seconds_per_round", "sweeps_per_round")


def _fit_min_n(ctx: Context) -> int:
    """``runtime.fit_min_n`` of the typed settings (the schema's default unless the config names
    it): the timing claims use the timed points with n at least this."""
    runtime = ctx.settings.runtime
    if runtime is None:
        raise KeyError("runtime")  # the timing claims run only with a runtime section
    return runtime.fit_min_n


def _repeats(ctx: Context, label: str, part: str) -> dict[int, list[dict]]:
    """The rows of (learner label, part) at n >= runtime.fit_min_n, by n (sorted), in the order of
    process and repeat."""
    nmin = _fit_min_n(ctx)
    by: dict[int, list[dict]] = defaultdict(list)
    for r in ctx.table("runtime"):
        if r["learner"] == label and r["part"] == part and r["n"] >= nmin:
            by[int(r["n"])].append(r)
    return {n: sorted(by[n], key=lambda r: (r["process"], r["repeat"])) for n in sorted(by)}


def _secs(rows: list[dict]) -> np.ndarray:
    return np.array([r["seconds_per_round"] for r in rows], float)


def _processes(rows: list[dict]) -> dict[int, np.ndarray]:
    """The seconds of ``rows`` by timing process."""
    by: dict[int, list[dict]] = defaultdict(list)
    for r in rows:
        by[int(r["process"])].append(r)
    return {p: _secs(by[p]) for p in sorted(by)}


def _level(ctx: Context, cells: int) -> float:
    return bonferroni_z(cells, ctx.alpha)[1]


def _method(what: str, fit: dict, reps: str) -> str:
    return (
        f"{fit['processes']} timing processes × {reps} repeats per n, each repeat the median seconds "
        f"over its rounds; value: mean over the processes of the {what} of each process's per-n "
        f"medians; interval: {fit['level']:.2%} Student-t interval of that mean with {fit['df']} "
        "degrees of freedom (random effects over processes)"
    )


def _per_process(fit: dict) -> str:
    return ", ".join(f"{v:.3g}" for v in fit["per_process"])


def _sinkhorn_learners(ctx: Context) -> set[str]:
    """The labels of the timed learners that balance by Sinkhorn sweeps (PermELearn, theory
    §3.3): those whose timing counters report sweeps, which gives them the part ``sweep``
    (:meth:`~onlinerank.learners.base.Learner.timing_counters`)."""
    return {r["learner"] for r in ctx.table("runtime") if r["part"] == "sweep"}


def _exponent_cells(ctx: Context, labels: set[str], part: str, excess: bool, note) -> list[dict]:
    series = [(lab, _repeats(ctx, lab, part)) for lab in sorted(labels)]
    series = [(lab, by) for lab, by in series if len(by) >= 2]
    level = _level(ctx, len(series))
    out = []
    for lab, by in series:
        ns = list(by)
        per = [_processes(by[n]) for n in ns]
        procs = sorted(set.intersection(*(set(p) for p in per)))
        fit = process_exponent(ns, [[p[i] for p in per] for i in procs], level, excess)
        reps = "/".join(str(x) for x in sorted({len(p[i]) for p in per for i in procs}))
        out.append(
            make_cell(
                ctx,
                f"{lab}, n in {min(ns)}..{max(ns)}",
                {"learner": lab, "n": ns, "processes": fit["per_process"]},
                fit["estimate"],
                fit["lo"],
                fit["hi"],
                method=_method("least-squares fit", fit, reps),
                reps=fit["processes"],
                note=f"per process {_per_process(fit)}; " + note(lab, ns, by),
            )
        )
    return out


def _spread(ns, by) -> str:
    """The spread of all timings (every process and repeat) at each n: max / min."""
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
    test="wall clock, runtime.processes fresh processes (runtime.concurrent at a time) of "
    "runtime.repeats timings per n; the mean over the processes of the slope of each process's "
    "per-n medians, with its Student-t interval over the processes (random effects; Bonferroni "
    "over the samplers)",
    reads={"runtime": RUNTIME},
    about="OnlineRank (each configured sampler)",
)
def runtime_onlinerank(ctx: Context) -> list[dict]:
    def note(lab, ns, by):
        med = [float(np.median(_secs(by[n]))) for n in ns]
        return (
            f"exponent of seconds per round {fit_exponent(ns, med):.2f} (medians of all timings); "
            f"spread max/min {_spread(ns, by)}"
        )

    labels = {r["learner"] for r in ctx.table("runtime") if is_paper_algorithm(ctx, r["learner"])}
    return _exponent_cells(ctx, labels, "round", True, note)


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
    test="wall clock, runtime.processes fresh processes (runtime.concurrent at a time) of "
    "runtime.repeats timings per n; the mean over the processes of the slope of each process's "
    "per-n medians, with its Student-t interval over the processes (random effects)",
    reads={"runtime": RUNTIME},
    about="PermELearn",
)
def runtime_sweep(ctx: Context) -> list[dict]:
    def note(lab, ns, by):
        upd = _repeats(ctx, lab, "update")
        e_upd = fit_exponent(list(upd), [float(np.median(_secs(v))) for v in upd.values()])
        sweeps = ", ".join(f"{float(np.mean([r['sweeps_per_round'] for r in by[n]])):.2f}" for n in ns)
        return (
            f"per-round update exponent {e_upd:.2f}; sweeps per update {sweeps}; spread max/min "
            f"{_spread(ns, by)}"
        )

    return _exponent_cells(ctx, _sinkhorn_learners(ctx), "sweep", False, note)


@claim(
    id="beyond.runtime.speedup",
    section="beyond",
    kind="data",
    paper_ref="Section 4 (running time)",
    title="OnlineRank's round is much faster than PermELearn's",
    statement="At every timed n ≥ fit_min_n, PermELearn's round takes at least the configured factor "
    "longer than OnlineRank's (Plackett–Luce).",
    statistic="PermELearn seconds per round / OnlineRank (PL) seconds per round (in each timing process "
    "the ratio of the medians of its repeats; their geometric mean)",
    direction=">=",
    threshold="runtime.speedup",
    test="wall clock, runtime.processes fresh processes (runtime.concurrent at a time) of "
    "runtime.repeats timings per n of each learner; the geometric mean over the processes of the "
    "ratio of each process's medians, with the Student-t interval of the mean log ratio over the "
    "processes (random effects, Bonferroni over the n).  Where PermELearn's whole Birkhoff draw "
    "is too slow to time, its round is timed as the update plus the first step of the draw (or "
    "the update alone), a lower bound, so the interval is [lower, ∞)",
    reads={"runtime": RUNTIME},
    about="OnlineRank (Plackett–Luce) and PermELearn",
)
def runtime_speedup(ctx: Context) -> list[dict]:
    rt = ctx.table("runtime")
    sinkhorn = _sinkhorn_learners(ctx)
    pl: dict[int, list[dict]] = defaultdict(list)
    pe: dict[int, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for r in rt:
        if (
            r["part"] == "round"
            and is_paper_algorithm(ctx, r["learner"])
            and sampler_of(ctx, r["learner"]) == "plackett-luce"
        ):
            pl[int(r["n"])].append(r)
        elif r["learner"] in sinkhorn:
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
        num, den = _processes(pe[n][part]), _processes(pl[n])
        procs = sorted(set(num) & set(den))
        fit = process_ratio([num[p] for p in procs], [den[p] for p in procs], level)
        what = {"round": "whole round", "round_lower": "update + first Birkhoff step (lower bound)"}.get(
            part, "update only (lower bound)"
        )
        reps = "/".join(str(x) for x in sorted({len(num[p]) for p in procs} | {len(den[p]) for p in procs}))
        out.append(
            make_cell(
                ctx,
                f"n={n}",
                {"n": n, "permelearn_part": part, "processes": fit["per_process"]},
                fit["estimate"],
                fit["lo"],
                fit["hi"] if part == "round" else math.inf,
                method=f"{fit['processes']} timing processes × {reps} repeats of each learner, each repeat "
                "the median seconds over its rounds; value: geometric mean over the processes of the ratio "
                f"of each process's medians (PermELearn/OnlineRank); interval: {fit['level']:.2%} "
                f"Student-t interval of the mean log ratio with {fit['df']} degrees of freedom (random "
                f"effects over processes){'' if part == 'round' else ', upper end ∞'}; PermELearn: {what}",
                reps=fit["processes"],
                note=f"per process {_per_process(fit)}; OnlineRank (PL) {np.median(_secs(pl[n])):.3g} s; "
                f"PermELearn {part} {np.median(_secs(pe[n][part])):.3g} s (medians of all timings)",
            )
        )
    return out
