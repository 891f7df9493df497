"""The learner's expected Spearman correlation r_s with the Mallows centre over time (exact from
the learner's marginals; FPL's from Monte Carlo), per cell with a Mallows adversary
(theory §3.2, the Spearman corollary)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np

from ..plotting import learner_style, plain_log_axis, tight_layout
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings


@figure(
    "spearman_correlation",
    tables=("sim_spearman",),
    claims=("sec5.spearman",),
    caption="Expected Spearman correlation of the learner's ranking with the Mallows centre over time.",
)
def plot_spearman_correlation(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """E[r_s] with the Mallows centre against the round, per Mallows cell at its largest T
    (theory §3.2)."""
    # lazy: matplotlib loads where a figure is drawn, not where the catalog is read
    from matplotlib.figure import Figure

    rows = [r for r in tables["sim_spearman"] if r["metric"] == "spearman_centre"]
    learners = config.learner_dicts()
    advs = {lab: s.as_dict() for lab, s in config.adversaries.items()}
    panels: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        panels[(r["adversary"], r["n"], r["T"])].append(r)
    keys = [k for k in sorted(panels) if k[2] == max(kk[2] for kk in panels if kk[:2] == k[:2])]
    if not keys:
        keys = sorted(panels)
    ncol = min(4, max(1, len(keys)))
    nrow = int(np.ceil(len(keys) / ncol)) if keys else 1
    fig = Figure(figsize=(3.5 * ncol + 0.4, 3.1 * nrow + 0.8))
    axes = fig.subplots(nrow, ncol, squeeze=False)
    for ax, key in zip(axes.flat, keys, strict=False):
        adv, n, T = key
        by: dict[str, list[dict]] = defaultdict(list)
        for r in panels[key]:
            by[r["learner"]].append(r)
        for lab, rs in sorted(by.items()):
            rs.sort(key=lambda r: r["t"])
            st = learner_style(learners[lab], lab)
            t = np.array([r["t"] for r in rs], float)
            m = np.array([r["mean"] for r in rs])
            se = np.nan_to_num(np.array([r["sem"] for r in rs]))
            ax.plot(
                t, m, marker=st["marker"], ls=st["ls"], color=st["color"], mfc=st["mfc"], label=st["label"]
            )
            ax.fill_between(t, m - 1.96 * se, m + 1.96 * se, color=st["color"], alpha=0.18, lw=0)
        ax.set_xscale("log")
        plain_log_axis(ax, "x")
        ax.set_ylim(-0.1, 1.02)
        ax.set_xlabel("round t")
        ax.set_ylabel(r"E[Spearman $r_s$] with the centre")
        extra = ", ".join(f"{k}={v}" for k, v in advs[adv].items() if k not in ("name", "centre"))
        # two lines: a switching adversary's parameters do not fit a quarter of the width on one
        ax.set_title(f"{adv} ({extra})\nn={n}, T={T}", fontsize=7.5)
    for ax in axes.flat[len(keys) :]:
        ax.set_visible(False)
    if keys:
        axes.flat[0].legend(fontsize=6.5, loc="lower right")
    fig.suptitle("Rank aggregation: how fast the learner finds the Mallows centre (95% bands)")
    tight_layout(fig, rect=(0, 0.02, 1, 1))
    return fig
