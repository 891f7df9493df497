"""Histogram of one item's frequency over Monte Carlo sequences of the random adversary against
the Binomial(T, k/n) pmf (sampled: the histogram; exact: the pmf) (theory §4.1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..plotting import tight_layout
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings


@figure(
    "lower_frequencies",
    tables=("lower_frequencies",),
    claims=("thm3.3.binomial",),
    caption="Monte Carlo frequency of one item under the random adversary against the Binomial (T, k/n) law.",
)
def plot_lower_frequencies(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """The frequency histogram against the Binomial(T, k/n) pmf (theory §4.1)."""
    # lazy: matplotlib loads where a figure is drawn, not where the catalog is read
    from matplotlib.figure import Figure

    rs = tables["lower_frequencies"]
    x = np.array([r["x"] for r in rs])
    r0 = rs[0]
    fig = Figure(figsize=(6.4, 4.0))
    ax = fig.subplots()
    ax.bar(x, [r["freq"] for r in rs], 1.0, color="#9ecae1", label=f"Monte Carlo ({r0['reps']} sequences)")
    ax.plot(
        x, [r["pmf"] for r in rs], "k-", lw=1.3, label=f"Binomial(T={r0['T']}, k/n={r0['k']}/{r0['n']}) pmf"
    )
    ax.set_xlabel("frequency f(u) of item u = 0")
    ax.set_ylabel("probability")
    ax.set_title(
        f"Item frequency under the random adversary (n={r0['n']}, k={r0['k']}, T={r0['T']})\n"
        f"regret from these frequencies: MC {r0['regret_mc_mean']:.2f} ± "
        f"{1.96 * r0['regret_mc_sem']:.2f} vs exact {r0['regret_exact']:.2f}",
        fontsize=9,
    )
    ax.legend()
    tight_layout(fig, rect=(0, 0.02, 1, 1))
    return fig
