"""Per-round running time vs n (log-log) for every timed learner: the median of the timing repeats
with bars from the fastest to the slowest repeat, and the fitted exponent of the medians; the
reference slopes n log n and n^2 are drawn through the first fitted point.  Where PermELearn's
whole Birkhoff draw is too slow to time, its round is a lower bound (update + the first step of the
draw), drawn hollow.  Right panel: PermELearn's time per Sinkhorn sweep.  Wall-clock data
(theory §2.1, §3.3)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

import numpy as np

from ..plotting import learner_style, plain_log_axis, tight_layout
from ..timing_fits import excess_exponent, fit_exponent
from .base import figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..settings import Settings


def _series(rows: list[dict], part: str) -> dict[str, list[tuple[Any, np.ndarray]]]:
    """learner label -> (n, seconds of every repeat at that n) of one ``part``, sorted by n."""
    by: dict[str, dict[Any, list]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r["part"] == part:
            by[r["learner"]][r["n"]].append(r["seconds_per_round"])
    return {lab: sorted((n, np.array(v)) for n, v in ns.items()) for lab, ns in by.items()}


def _draw_part(
    ax: Axes, rows: list[dict], part: str, learners: dict, nmin: int, hollow: bool = False, suffix: str = ""
) -> None:
    """Every learner's median seconds of one ``part`` vs n, bars from the fastest to the slowest
    timing, with the exponent fitted over n ≥ ``nmin`` (and, for whole rounds, the exponent of
    t / (n ln n): the statistic of claim sec4.runtime) in the legend."""
    for lab, pts in sorted(_series(rows, part).items()):
        n = np.array([p[0] for p in pts], float)
        med = np.array([np.median(p[1]) for p in pts])
        lo = np.array([p[1].min() for p in pts])
        hi = np.array([p[1].max() for p in pts])
        st = learner_style(learners[lab], lab)
        big = n >= nmin
        e = fit_exponent(n[big], med[big]) if big.sum() >= 2 else float("nan")
        x = f", of t/(n ln n) {excess_exponent(n[big], med[big]):.2f}" if e == e and part == "round" else ""
        ax.errorbar(
            n,
            med,
            yerr=(med - lo, hi - med),
            marker=st["marker"],
            ls=":" if hollow else st["ls"],
            color=st["color"],
            mfc="none" if hollow else st["mfc"],
            capsize=2,
            elinewidth=0.8,
            label=st["label"] + suffix + (f": slope {e:.2f}{x} (n ≥ {nmin})" if e == e else ""),
        )


def _references(ax: Axes, rows: list[dict], parts: tuple[str, ...], nmin: int) -> None:
    """The curves ∝ n log n and ∝ n², through the fastest median at the smallest n ≥ ``nmin``."""
    pts = [r for r in rows if r["part"] in parts and r["n"] >= nmin]
    if not pts:
        return
    x = np.array(sorted({r["n"] for r in pts}), float)
    first: dict[tuple, list[float]] = defaultdict(list)
    for r in pts:
        if r["n"] == x[0]:
            first[(r["learner"], r["part"])].append(r["seconds_per_round"])
    base = min(float(np.median(v)) for v in first.values())
    ax.plot(x, base * (x * np.log(x)) / (x[0] * np.log(x[0])), "k:", lw=1, label="∝ n log n")
    ax.plot(x, base * (x / x[0]) ** 2, "k--", lw=1, label="∝ n²")


@figure(
    "runtime",
    tables=("runtime",),
    claims=("sec4.runtime", "beyond.runtime.permelearn", "beyond.runtime.speedup"),
    caption="Wall-clock time per round versus n (median of the timing repeats, bars from the "
    "fastest to the slowest) with fitted exponents, and PermELearn's time per Sinkhorn sweep.",
)
def plot_runtime(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """Seconds per round, per update and per Sinkhorn sweep against n, with fitted exponents
    (theory §2.1, §3.3)."""
    # lazy: matplotlib loads where a figure is drawn, not where the catalog is read
    from matplotlib.figure import Figure

    rows = tables["runtime"]
    timing = config.runtime
    if timing is None:
        raise KeyError("runtime")  # the figure is made only with a runtime section
    nmin, learners = timing.fit_min_n, config.learner_dicts()
    fig = Figure(figsize=(15, 6.6))
    axes = fig.subplots(1, 3)
    _draw_part(axes[0], rows, "round", learners, nmin)
    _draw_part(
        axes[0], rows, "round_lower", learners, nmin, hollow=True, suffix=" ≥ update + 1st Birkhoff step"
    )
    _references(axes[0], rows, ("round", "round_lower"), nmin)
    axes[0].set_title("whole round (loss + update + sampled ranking)", fontsize=9)
    _draw_part(axes[1], rows, "update", learners, nmin)
    _references(axes[1], rows, ("update",), nmin)
    axes[1].set_title("update only (exact expected loss + update)", fontsize=9)
    _draw_part(axes[2], rows, "sweep", learners, nmin)
    _references(axes[2], rows, ("sweep",), nmin)
    axes[2].set_title("PermELearn: one Sinkhorn sweep (update time / sweeps)", fontsize=9)
    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
        plain_log_axis(ax, "x")
        ax.set_xlabel("number of items n")
        ax.set_ylabel("seconds (one replicate)")
        # below the axes: no data hidden
        ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=1)
    repeats = max((r["repeat"] for r in rows), default=0) + 1
    processes = len({r["process"] for r in rows})
    fig.suptitle(
        f"Running time per round (wall clock, this machine): median of {repeats} timings "
        f"({processes} processes × {repeats // max(processes, 1)} repeats), bars from the fastest to "
        "the slowest timing"
    )
    tight_layout(fig, rect=(0, 0.02, 1, 1))
    return fig
