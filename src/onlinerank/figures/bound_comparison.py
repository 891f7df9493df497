"""(Baseline bound / Theorem 3.1) / the paper's claimed factor for Hedge over n!, FPL and PermELearn,
one panel per family and sweep (over n at fixed k, or over k at fixed n for k-choice), log x axis.
The table's values at T = ceil(T_factor n ln n) are the markers; the exact infimum c over the
paper's whole domain (n >= 2, 1 <= k <= n/2, T >= 1; onlinerank.asymptotics, the verdicts of the
claims sec4.* and sec5.*) is a thin solid line, the limit L as n -> oo (along the k and T where the
infimum lies) a dashed line.  Ω(claimed factor) holds iff c > 0 (theory §3.3)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np

from ..cited_bounds import CITED_BOUNDS
from ..plotting import LEARNER_COLORS, plain_log_axis, tight_layout
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings

FAMILIES = ["single", "kchoice", "subset", "spearman"]
#: each cited baseline's legend (its declaration's label)
NAMES = {m: cited.label for m, cited in CITED_BOUNDS.items()}


def panels_of(rows: list[dict]) -> tuple[list[tuple], dict[tuple, list[dict]]]:
    """(family, sweep, fixed k or n) -> rows, in the order single, k-choice, subset, Spearman
    (theory §3.3)."""
    panels: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        panels[(r["family"], r["sweep"], r["n"] if r["sweep"] == "k" else r["k"])].append(r)
    keys = sorted(panels, key=lambda k: (FAMILIES.index(k[0]), k[1] == "k", k[2]))
    return keys, panels


@figure(
    "bound_comparison",
    tables=("bound_comparison",),
    claims=("sec4.hedge", "sec4.fpl", "sec4.permelearn", "sec5.fpl", "sec5.permelearn"),
    caption="Each baseline's regret bound over Theorem 3.1's, divided by the factor the paper claims, "
    "versus n (and k) at T = T_factor n ln n, with the exact infimum c over the paper's domain "
    "(solid) and the limit as n grows (dashed): the Omega statements hold iff c > 0.",
)
def plot_bound_comparison(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """Each baseline's bound over Theorem 3.1's over the claimed factor, with the exact infimum
    and the limit (theory §3.3)."""
    # lazy: matplotlib loads where a figure is drawn, not where the catalog is read; SymPy too
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    from ..asymptotics import decide

    if config.bound_comparison is None:
        raise KeyError("bound_comparison")  # the figure is made only with a bound_comparison section
    t_factor = config.bound_comparison.T_factor
    keys, panels = panels_of(tables["bound_comparison"])
    ncol = min(3, len(keys))
    nrow = -(-len(keys) // ncol)
    fig = Figure(figsize=(4.1 * ncol + 0.4, 3.5 * nrow + 1.0))
    axes = fig.subplots(nrow, ncol, squeeze=False)
    for ax, key in zip(axes.flat, keys, strict=False):
        fam, sweep, fixed = key
        top = 0.0
        for m in CITED_BOUNDS:
            rs = sorted((r for r in panels[key] if r["method"] == m), key=lambda r: r[sweep])
            if not rs:
                continue
            res = decide(m, fam)
            c = LEARNER_COLORS[m]
            x = np.array([r[sweep] for r in rs], float)
            y = np.array([r["ratio_over_claimed"] for r in rs])
            ax.plot(x, y, "o-", color=c, ms=3.5, label=f"{NAMES[m]}: {rs[0]['claimed']}")
            ax.axhline(res.c, color=c, lw=0.9, ls="-", alpha=0.8)
            ax.axhline(res.limit, color=c, lw=1.0, ls="--", alpha=0.8)
            top = max(top, float(y.max()), res.limit)
        ax.set_xscale("log")
        plain_log_axis(ax, "x")
        ax.set_ylim(0, 1.12 * top)
        ax.set_xlabel("number of items n" if sweep == "n" else "items chosen per round k")
        ax.set_ylabel("(bound / Theorem 3.1) / claimed factor")
        where = {"kchoice": f", k={fixed}" if sweep == "n" else f", n={fixed}, k ≤ n/2"}.get(fam, "")
        ax.set_title(f"{fam}{where}", fontsize=9)
        ax.legend(fontsize=6, loc="best")
    for ax in axes.flat[len(keys) :]:
        ax.set_visible(False)
    styles = [
        Line2D([], [], color="0.3", marker="o", ms=3.5, label=f"table: T = ⌈{t_factor:g} n ln n⌉"),
        Line2D([], [], color="0.3", lw=0.9, label="c = exact infimum over n ≥ 2, k ≤ n/2, T ≥ 1"),
        Line2D([], [], color="0.3", lw=1.0, ls="--", label="L = limit as n → ∞ (at the minimising k, T → ∞)"),
    ]
    fig.legend(handles=styles, loc="upper center", ncol=3, fontsize=7.5, bbox_to_anchor=(0.5, 0.955))
    fig.suptitle(
        "How much weaker the baselines' guarantees are, over the paper's claimed factor (Ω iff c > 0)"
    )
    tight_layout(fig, rect=(0, 0.02, 1, 0.93))
    return fig
