"""h_c(n) vs n for several c (k = 1): the smallest T0 with exact regret >= c n^{3/2} sqrt(T) for
all T >= T0 (theory §4.5 d), with the explicit Hölder h(n) = n/2 and least-squares lines."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np

from ..plotting import tight_layout
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings


@figure(
    "lower_hc",
    tables=("lower_hc",),
    claims=("beyond.h_c",),
    caption="h_c(n): the smallest horizon from which the exact regret exceeds c n^{3/2} sqrt(T) for "
    "good, for several c, against the explicit h(n) = n/2.",
)
def plot_lower_hc(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """h_c(n) against n with a line through the origin per c (theory §4.5 d)."""
    # lazy: matplotlib loads where a figure is drawn, not where the catalog is read
    from matplotlib.figure import Figure

    rows = [r for r in tables["lower_hc"] if r["h_c"] >= 0]
    by_c: dict[float, list[dict]] = defaultdict(list)
    for r in rows:
        by_c[r["c"]].append(r)
    fig = Figure(figsize=(6.2, 4.2))
    ax = fig.subplots()
    for c, rs in sorted(by_c.items()):
        rs.sort(key=lambda r: r["n"])
        n = np.array([r["n"] for r in rs], float)
        h = np.array([r["h_c"] for r in rs], float)
        line = ax.plot(n, h, "o", ms=4, label=f"c={c:g}")[0]
        slope = float(np.sum(n * h) / np.sum(n * n))
        ax.plot(n, slope * n, "-", lw=0.8, color=line.get_color(), label=f"fit h ≈ {slope:.3f}·n")
    nn = np.array(sorted({r["n"] for r in rows}), float)
    ax.plot(nn, nn / 2, "k--", lw=1, label="explicit h(n)=n/2 (c=1/16, Hölder)")
    ax.set_xlabel("number of items n")
    ax.set_ylabel(r"$h_c(n)$ (rounds)")
    ax.set_title(r"Smallest horizon from which exact regret $\geq c\,n^{3/2}\sqrt{T}$ (k=1)")
    ax.legend(fontsize=7, ncol=2)
    tight_layout(fig, rect=(0, 0.02, 1, 1))
    return fig
