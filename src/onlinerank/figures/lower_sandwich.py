"""The sandwich per (n, k), log-log: Theorem 3.1 (paper's and optimal eta), the worst regret
found for OnlineRank in the upper-bound experiments, the exact random-adversary regret, and the
explicit lower bounds (a) Hölder, (b) sharp-rate, (c) Berry–Esseen; upper/lower ratio annotated
(theory §4.3, §4.5)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np

from ..plotting import plain_log_axis, tight_layout
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings


def _worst_found(sim_upper: list[dict]) -> dict[tuple, dict]:
    """(n, k) -> T -> the largest mean OnlineRank regret at t = T over the upper-bound runs of
    single and k-choice feedback."""
    worst: dict[tuple, dict] = defaultdict(dict)
    for r in sim_upper:
        if r["metric"] == "regret" and r["t"] == r["T"] and r["family"] in ("single", "kchoice"):
            key = (r["n"], r["k"])
            worst[key][r["T"]] = max(worst[key].get(r["T"], 0.0), r["mean"])
    return worst


def _sandwich_panel(ax, rs: list[dict], worst: dict, key: tuple, upper_lower_ratio: float) -> None:
    """One (n, k) panel: Theorem 3.1 at η_p and η*, the worst regret found, the exact regret of
    the random adversary and the lower bounds (a), (b), (c) vs T, with the upper/lower ratio at
    the largest T."""
    rs = sorted(rs, key=lambda r: r["T"])
    T = np.array([r["T"] for r in rs], float)

    def col(name: str) -> np.ndarray:
        return np.array([r[name] for r in rs])

    ax.plot(T, col("thm31_paper"), "k-", label=r"Thm 3.1, $\eta_p$: $n\sqrt{TM\ln2}$")
    ax.plot(T, col("thm31_optimal"), "k--", lw=1, label=r"Thm 3.1 at $\eta^*$")
    if worst.get(key):
        wT = sorted(worst[key])
        ax.plot(
            wT,
            [worst[key][t] for t in wT],
            "o-",
            color="#9467bd",
            ms=3,
            label="worst OnlineRank regret found (upper-bound runs)",
        )
    ax.plot(T, col("exact"), color="#2ca02c", lw=2, label="exact regret, random adversary")
    for name, st, lab in (
        ("sharp", "-.", "(b) sharp-rate"),
        ("holder", ":", "(a) Hölder"),
        ("berry_esseen", (0, (1, 3)), "(c) Berry–Esseen"),
    ):
        v = col(name)
        ok = v > 0
        ax.plot(T[ok], v[ok], ls=st, color="#ff7f0e", lw=1.1, label=f"lower bound {lab}")
    ratio = rs[-1]["thm31_optimal"] / rs[-1]["exact"]
    ax.text(
        0.97,
        0.05,
        f"upper/lower at T={rs[-1]['T']:g}:\n{ratio:.4f} (limit 2√(π ln 2)={upper_lower_ratio:.4f})",
        transform=ax.transAxes,
        ha="right",
        va="bottom",
        fontsize=6.5,
        bbox={"facecolor": "white", "alpha": 0.8, "lw": 0},
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_axis(ax, "x")
    ax.set_xlabel("horizon T (rounds)")
    ax.set_ylabel("regret (pairwise loss)")
    ax.set_title(f"n={key[0]}, k={key[1]}")


@figure(
    "lower_sandwich",
    tables=("lower_curves", "sim_upper"),
    claims=("beyond.upper_lower_ratio", "thm3.3.lower"),
    caption="Theorem 3.1, the worst OnlineRank regret found, the exact random-adversary regret and "
    "the explicit lower bounds (a), (b), (c).",
)
def plot_lower_sandwich(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """Upper bound, worst regret found, exact regret and explicit lower bounds per (n, k)
    (theory §4.3, §4.5)."""
    # lazy: matplotlib (and SciPy, for the exact sums) load where a figure is drawn, not where the
    # catalog is read
    from matplotlib.figure import Figure

    from ..lowerbound import UPPER_LOWER_RATIO

    worst = _worst_found(tables["sim_upper"])
    by_nk: dict[tuple, list[dict]] = defaultdict(list)
    for r in tables["lower_curves"]:
        by_nk[(r["n"], r["k"])].append(r)
    keys = sorted(by_nk)
    ncol = min(4, len(keys))
    nrow = int(np.ceil(len(keys) / ncol))
    fig = Figure(figsize=(3.4 * ncol + 0.4, 3.0 * nrow + 1.0))
    axes = fig.subplots(nrow, ncol, squeeze=False)
    for ax, key in zip(axes.flat, keys, strict=False):
        _sandwich_panel(ax, by_nk[key], worst, key, UPPER_LOWER_RATIO)
    for ax in axes.flat[len(keys) :]:
        ax.set_visible(False)
    h, lab = axes.flat[0].get_legend_handles_labels()
    fig.legend(h, lab, loc="lower center", ncol=4, frameon=False, fontsize=7)
    fig.suptitle("Upper and lower bounds on expected regret (single choice k=1, k-subsets k>1)")
    tight_layout(fig, rect=(0, 0.09 if nrow == 1 else 0.05, 1, 1))
    return fig
