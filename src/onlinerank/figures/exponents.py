"""Local exponents of OnlineRank's regret in T, n and k at the large end of each grid (findings
beyond.exponent.* of claims.json: local log-log slope, 95% parametric bootstrap widened by the
truncation estimate), next to the local exponent of Corollary 3.2's bound on the same grid
(theory §3.2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..plotting import tight_layout
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings


@figure(
    "exponents",
    tables=("claims",),
    claims=("beyond.exponent.T", "beyond.exponent.n", "beyond.exponent.k"),
    caption="Local exponents of the regret in T, n and k at the large end of each grid (95% "
    "bootstrap widened by the truncation estimate) against the bound's local exponents.",
)
def plot_exponents(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """The cells of the findings beyond.exponent.* (rows of the claims document) as intervals
    against the bound's local exponent (theory §3.2)."""
    # lazy: matplotlib loads where a figure is drawn, not where the catalog is read
    from matplotlib.figure import Figure

    claims = {c["id"]: c for c in tables["claims"]}
    present = [
        (v, claims[f"beyond.exponent.{v}"])
        for v in ("T", "n", "k")
        if claims.get(f"beyond.exponent.{v}", {}).get("cells")
    ]
    nrows = max([len(c["cells"]) for _, c in present] + [8])
    fig = Figure(figsize=(5.6 * max(1, len(present)), 1.2 + 0.24 * nrows))
    axes = fig.subplots(1, max(1, len(present)), squeeze=False)
    colors = {"FAIL": "#d62728", "INCONCLUSIVE": "#ff7f0e", "PASS": "#1f77b4"}
    for ax, (v, c) in zip(axes.flat, present, strict=False):
        cells = sorted(c["cells"], key=lambda x: x["cell"])
        y = np.arange(len(cells))
        for yy, x in zip(y, cells, strict=True):
            est, ref = x["params"]["estimate"], x["params"]["reference"]
            lo, hi = x["params"]["ci"]
            col = colors[x["verdict"]]
            ax.plot([lo, hi], [yy, yy], color=col, lw=1.2)
            ax.scatter([est], [yy], color=col, s=14, zorder=3)
            ax.scatter([ref], [yy], marker="|", color="k", s=40, zorder=4)
        tol = c["cells"][0]["threshold"]
        ax.set_yticks(y, [x["cell"].split(" (")[0] for x in cells], fontsize=5.5)
        ax.set_xlabel(
            f"exponent of regret in {v} (local slope at the two largest {v})\n"
            f"| = the bound's local exponent; finding holds when within ±{tol:g}",
            fontsize=7.5,
        )
        ax.set_title(f"regret ∝ {v}^b at the top of each grid", fontsize=9)
    if not present:
        axes.flat[0].text(0.5, 0.5, "no grid with >= 3 values", ha="center")
    fig.suptitle(
        "Local exponents of OnlineRank's regret (findings beyond.exponent.*): 95% bootstrap widened by "
        "the truncation estimate\nblue = finding holds, orange = undecided, red = does not hold",
        fontsize=9,
    )
    tight_layout(fig, rect=(0, 0.02, 1, 1 - 0.8 / fig.get_figheight()))  # 0.8 in for the title
    return fig
