"""Heat map of mean regret / Theorem 3.1 bound (sharp form at the learner's eta) over (n, T),
one panel per family, for the adversary that reaches the largest ratio in that family
(theory §3.2)."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np

from .. import bounds as B
from ..plotting import tight_layout
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings


@figure(
    "regret_ratio_heatmap",
    tables=("sim_upper", "bounds_upper"),
    claims=("thm3.1",),
    caption="Mean regret over the Theorem 3.1 bound on (n, T), for the adversary reaching the "
    "largest ratio in each feedback family.",
)
def plot_regret_ratio_heatmap(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """Regret over the sharp bound on (n, T) for the hardest adversary of each family
    (theory §3.2)."""
    # lazy: matplotlib loads where a figure is drawn, not where the catalog is read
    from matplotlib.figure import Figure

    rows = [dict(r) for r in tables["sim_upper"] if r["metric"] == "regret" and r["t"] == r["T"]]
    for r in rows:
        r["ratio"] = r["mean"] / float(B.theorem31_sharp(r["n"], r["T"], r["M"], r["eta"]))
    fams: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        fams[(r["family"], r["k"])].append(r)
    keys = sorted(fams)
    fig = Figure(figsize=(4.0 * len(keys) + 0.6, 3.7))
    axes = fig.subplots(1, len(keys), squeeze=False)
    for ax, key in zip(axes.flat, keys, strict=True):
        rs = fams[key]
        best_adv = max(
            {r["adversary"] for r in rs}, key=lambda a: max(r["ratio"] for r in rs if r["adversary"] == a)
        )
        cell: dict[tuple, list[float]] = defaultdict(list)
        for r in rs:
            if r["adversary"] == best_adv:
                cell[(r["n"], r["T"])].append(r["ratio"])
        ns = sorted({n for n, _ in cell})
        Ts = sorted({T for _, T in cell})
        Z = np.full((len(ns), len(Ts)), np.nan)
        for (n, T), v in cell.items():
            Z[ns.index(n), Ts.index(T)] = max(v)
        im = ax.imshow(
            Z, origin="lower", aspect="auto", cmap="viridis", vmin=0, vmax=max(0.6, float(np.nanmax(Z)))
        )
        for i in range(len(ns)):
            for j in range(len(Ts)):
                if not math.isnan(Z[i, j]):
                    ax.text(
                        j,
                        i,
                        f"{Z[i, j]:.2f}",
                        ha="center",
                        va="center",
                        fontsize=7,
                        color="white" if Z[i, j] < 0.35 else "black",
                    )
        ax.set_xticks(range(len(Ts)), [f"{T:g}" for T in Ts], rotation=45)
        ax.set_yticks(range(len(ns)), [str(n) for n in ns])
        ax.set_xlabel("horizon T")
        ax.set_ylabel("items n")
        fam, k = key
        ax.set_title(
            f"{fam}" + (f" k={k}" if fam == "kchoice" else "") + f": {best_adv} adversary", fontsize=9
        )
        fig.colorbar(im, ax=ax, shrink=0.85, label="regret / bound")
    fig.suptitle(
        "Hardest adversary per family: mean exact regret / Theorem 3.1 bound "
        r"($\binom{n}{2}\ln 2/\eta+\eta TM/2$, max over learners)",
        fontsize=9,
    )
    tight_layout(fig, rect=(0, 0.02, 1, 0.95))
    return fig
