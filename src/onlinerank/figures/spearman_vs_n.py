"""Spearman: regret vs n (log-log) at the largest T of the grid, per adversary and learner, with
the Spearman bound and an n^3 reference (a symmetric-log y axis where some mean regret is <= 0)
(theory §3.2, the Spearman corollary)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .. import bounds as B
from ..plotting import learner_style, plain_log_axis, regret_yscale, tight_layout
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings


@figure(
    "spearman_vs_n",
    tables=("sim_spearman",),
    claims=("sec5.spearman", "beyond.exponent.spearman"),
    caption="Rank aggregation: regret versus n with the n^3 sqrt(T) bound.",
)
def plot_spearman_vs_n(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """Regret vs n at the largest T per adversary with the Spearman bound (theory §3.2)."""
    # lazy: matplotlib loads where a figure is drawn, not where the catalog is read
    from matplotlib.figure import Figure

    rows = [
        r
        for r in tables["sim_spearman"]
        if r["family"] == "spearman" and r["metric"] == "regret" and r["t"] == r["T"]
    ]
    learners = config.learner_dicts()
    Tmax = max(r["T"] for r in rows)
    rows = [r for r in rows if r["T"] == Tmax]
    advs = sorted({r["adversary"] for r in rows})
    fig = Figure(figsize=(3.6 * len(advs) + 0.5, 3.9))
    axes = fig.subplots(1, len(advs), squeeze=False)
    for ax, adv in zip(axes.flat, advs, strict=True):
        by: dict[str, list[dict]] = defaultdict(list)
        for r in rows:
            if r["adversary"] == adv:
                by[r["learner"]].append(r)
        # the bound is elementwise in n (annotated for one n)
        ns = cast(Any, np.array(sorted({r["n"] for r in rows if r["adversary"] == adv}), float))
        ax.plot(ns, B.spearman_bound(ns, Tmax), "k-", label="Spearman bound")
        for lab, rs in sorted(by.items()):
            rs.sort(key=lambda r: r["n"])
            st = learner_style(learners[lab], lab)
            n = np.array([r["n"] for r in rs], float)
            m = np.array([r["mean"] for r in rs])
            se = np.nan_to_num(np.array([r["sem"] for r in rs]))
            fit = n.size >= 2 and bool(np.all(m > 0))  # a log-log slope needs positive means
            slope = np.polyfit(np.log(n), np.log(m), 1)[0] if fit else float("nan")
            ax.errorbar(
                n,
                m,
                yerr=1.96 * se,
                marker=st["marker"],
                ls=st["ls"],
                color=st["color"],
                mfc=st["mfc"],
                capsize=2,
                label=f"{st['label']} (slope {slope:.2f})",
            )
        ax.plot(
            ns,
            B.spearman_bound(ns[0], Tmax) * (ns / ns[0]) ** 3 * 0.3,
            "k:",
            lw=0.8,
            label="∝ n³ (reference)",
        )
        ax.set_xscale("log")
        regret_yscale(ax, [r["mean"] for rs in by.values() for r in rs], B.spearman_bound(ns, Tmax))
        plain_log_axis(ax, "x")
        ax.set_xlabel("number of items n")
        ax.set_ylabel("E[regret] (pairwise loss = −ρ regret)")
        ax.set_title(f"{adv}, T={Tmax}", fontsize=9)
        ax.legend(fontsize=6)
    fig.suptitle("Spearman rank aggregation: regret vs n (95% intervals)")
    tight_layout(fig, rect=(0, 0.02, 1, 1))
    return fig
