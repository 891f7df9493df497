"""The paper's route (§4.4): alpha + beta + gamma (an upper bound on E[L*]) for several j, against
the exact E[L*]; and the implied regret lower bound against the exact regret and kappa(j)
(theory §4.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..plotting import tight_layout
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings


@figure(
    "lower_abg",
    tables=("lower_abg",),
    claims=("beyond.lower_route",),
    caption="The paper's alpha + beta + gamma route: the implied regret lower bound against the "
    "exact values.",
)
def plot_lower_abg(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """alpha + beta + gamma per j against E[L*], and the implied regret bound (theory §4.4)."""
    # lazy: matplotlib loads where a figure is drawn, not where the catalog is read
    from matplotlib.figure import Figure

    rs = sorted(tables["lower_abg"], key=lambda r: r["j"])
    j = np.array([r["j"] for r in rs])
    n, k, T = rs[0]["n"], rs[0]["k"], rs[0]["T"]
    fig = Figure(figsize=(9.5, 3.8))
    a1, a2 = fig.subplots(1, 2)
    alpha = np.array([r["alpha"] for r in rs])
    beta = np.array([r["beta"] for r in rs])
    gamma = np.array([r["gamma"] for r in rs])
    w = 0.6 * np.min(np.diff(j)) if j.size > 1 else 0.4
    a1.bar(j, alpha, w, label=r"$\alpha$ (x ≤ μ−jσ)", color="#c6dbef")
    a1.bar(j, beta, w, bottom=alpha, label=r"$\beta$ (|x−μ| < jσ)", color="#6baed6")
    a1.bar(j, gamma, w, bottom=alpha + beta, label=r"$\gamma$ (x > μ+jσ)", color="#08519c")
    best = rs[0]["exact_best_loss_position"]
    a1.axhline(best, color="#d62728", lw=1.5, label=r"exact $E[L_T(\pi^*)]$")
    a1.axhline(rs[0]["alg_loss"], color="k", ls="--", lw=1, label=r"$E[L_T(\mathrm{Alg})]$")
    lo = min(alpha.min(), best) * 0.97
    a1.set_ylim(lo, max((alpha + beta + gamma).max(), rs[0]["alg_loss"]) * 1.005)
    a1.set_xlabel("j (width of the middle band in σ)")
    a1.set_ylabel("loss")
    a1.set_title(r"$\alpha+\beta+\gamma \geq E[L_T(\pi^*)]$" + f"  (n={n}, k={k}, T={T})")
    a1.legend(fontsize=7)
    a2.plot(j, [r["regret_lower"] for r in rs], "o-", label=r"route: $E L_{alg} - (\alpha+\beta+\gamma)$")
    a2.plot(
        j,
        [r["regret_clt"] for r in rs],
        "s--",
        mfc="none",
        label=r"CLT form $\frac{1}{2} n(n-1)\sigma\,\kappa(j)$",
    )
    a2.axhline(rs[0]["exact_regret"], color="#2ca02c", lw=2, label="exact regret")
    a2.set_xlabel("j")
    a2.set_ylabel("regret lower bound")
    a2.set_title("Implied regret lower bound vs exact")
    a2.legend(fontsize=7)
    tight_layout(fig, rect=(0, 0.02, 1, 1))
    return fig
