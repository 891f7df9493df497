"""Exact worst-case expected regret of OnlineRank (dynamic program over all sequences, tiny n)
against T, with Theorem 3.1 (paper form and sharp form at the same eta) (theory §3.4)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np

from ..plotting import plain_log_axis, tight_layout
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings


@figure(
    "worst_case",
    tables=("worst_case",),
    claims=("thm3.1.worst_case", "beyond.any_eta"),
    caption="Exact worst case over all feedback sequences (dynamic program) for tiny n, at several "
    "learning rates, against the sharp bound at the same rate.",
)
def plot_worst_case(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """The DP's worst case per (family, n, k) and η against the sharp bound (theory §3.4)."""
    # lazy: matplotlib loads where a figure is drawn, not where the catalog is read
    from matplotlib.figure import Figure

    rows = tables["worst_case"]
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["family"], r["n"], r["k"])].append(r)
    keys = sorted(groups)
    fig = Figure(figsize=(3.6 * len(keys) + 0.5, 3.8))
    axes = fig.subplots(1, len(keys), squeeze=False)
    for ax, key in zip(axes.flat, keys, strict=True):
        fam, n, k = key
        rs = groups[key]
        for f in sorted({r["eta_factor"] for r in rs}):
            sub = sorted((r for r in rs if r["eta_factor"] == f), key=lambda r: r["T"])
            T = np.array([r["T"] for r in sub], float)
            line = ax.plot(
                T, [r["value"] for r in sub], "o-", ms=3, label=f"exact worst case, η = {f:g}·η_p"
            )[0]
            ax.plot(
                T,
                [r["bound_sharp"] for r in sub],
                "--",
                color=line.get_color(),
                lw=0.9,
                label=f"sharp bound at {f:g}·η_p",
            )
        sub = sorted((r for r in rs if r["eta_factor"] == 1.0), key=lambda r: r["T"])
        if sub:
            ax.plot(
                [r["T"] for r in sub],
                [r["bound_thm31"] for r in sub],
                "k-",
                lw=1.2,
                label=r"Thm 3.1: $n\sqrt{TM\ln 2}$",
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        plain_log_axis(ax)
        ax.set_xlabel("horizon T")
        ax.set_ylabel("max over sequences of E[regret]")
        ax.set_title(f"{'single' if k == 1 else f'{k}-choice'}, n={n}")
        ax.legend(fontsize=6)
    fig.suptitle("Exact worst case over all feedback sequences (dynamic program) vs Theorem 3.1")
    tight_layout(fig, rect=(0, 0.02, 1, 1))
    return fig
