"""E[regret] / (n^{3/2} sqrt(kT)) vs T against the random adversary: exact curve, asymptote and
its corrected form, the limit constant, and Monte Carlo points of every learner (95% intervals)
(theory §4.2, §4.3)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np

from ..plotting import plain_log_axis, tight_layout
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings


MARKERS = "os^vDP*X"


def _monte_carlo_points(ax, sim: list[dict], n: int, k: int, c) -> None:
    """Every learner's Monte Carlo mean regret at (n, k), normalised, with 95% intervals
    (learners offset along T so that their bars do not overlap)."""
    pts: dict[str, list[dict]] = defaultdict(list)
    for r in sim:
        if r["n"] == n and r["k"] == k:
            pts[r["learner"]].append(r)
    for j, (lab, ps) in enumerate(sorted(pts.items())):
        ps.sort(key=lambda r: r["T"])
        Tp = np.array([p["T"] for p in ps], float)
        s = n**1.5 * np.sqrt(k * Tp)
        m = np.array([p["mean"] for p in ps]) / s
        e = 1.96 * np.array([p["sem"] for p in ps]) / s
        ax.errorbar(
            Tp * (1 + 0.06 * j),
            m,
            yerr=e,
            fmt=MARKERS[j % len(MARKERS)],
            color=c,
            mfc="none",
            ms=4,
            capsize=2,
            lw=0.8,
            label=f"n={n}: MC {lab}",
        )


def _normalized_limit(n: int, k: int) -> float:
    """The limit of the normalised exact regret as T → ∞ (theory §4.3)."""
    return float(np.sqrt((n - 1) * (n - k)) / (2 * np.sqrt(np.pi) * n))


def _k_panel(ax, curves: list[dict], sim: list[dict], k: int, colors: list) -> None:
    """One k: per n, the exact normalised regret, its asymptote and corrected asymptote, the
    limit, and the Monte Carlo means."""
    by_n: dict[int, list[dict]] = defaultdict(list)
    for r in curves:
        if r["k"] == k:
            by_n[r["n"]].append(r)
    for i, (n, rs) in enumerate(sorted(by_n.items())):
        rs.sort(key=lambda r: r["T"])
        T = np.array([r["T"] for r in rs], float)
        sc = np.array([r["scale"] for r in rs])
        c = colors[i % len(colors)]
        ax.plot(T, [r["exact"] for r in rs] / sc, color=c, lw=1.6, label=f"n={n}: exact")
        ax.plot(T, [r["asymptotic"] for r in rs] / sc, color=c, ls="--", lw=0.9)
        ax.plot(T, [r["asymptotic_corrected"] for r in rs] / sc, color=c, ls=":", lw=1.2)
        ax.axhline(_normalized_limit(n, k), color=c, lw=0.6, alpha=0.5)
        _monte_carlo_points(ax, sim, n, k, c)
    ax.set_xscale("log")
    plain_log_axis(ax, "x")
    ax.set_xlabel("horizon T (rounds)")
    ax.set_ylabel(r"E[regret] / $(n^{3/2}\sqrt{kT})$")
    ax.set_title(f"random adversary, k={k}" + (" (single choice)" if k == 1 else " (k-subsets)"))
    ax.set_ylim(0, 1.45 * max(_normalized_limit(n, k) for n in by_n))
    ax.legend(fontsize=5.5, ncol=3, loc="upper left", frameon=False)


@figure(
    "lower_normalized",
    tables=("lower_curves", "sim_lower"),
    claims=("thm3.3.lower", "thm3.3.every_algorithm", "beyond.lower_exact_formula"),
    caption="Regret against the random adversary normalised by n^{3/2} sqrt(kT): the exact formula, "
    "its asymptote and corrected asymptote, and Monte Carlo means of every learner.",
)
def plot_lower_normalized(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """Normalised exact regret, its asymptotes and the Monte Carlo means per k (theory §4.2, §4.3)."""
    # lazy: matplotlib loads where a figure is drawn, not where the catalog is read
    import matplotlib
    from matplotlib.figure import Figure

    curves = tables["lower_curves"]
    sim = [r for r in tables["sim_lower"] if r["metric"] == "regret" and r["t"] == r["T"]]
    ks = sorted({r["k"] for r in curves})
    fig = Figure(figsize=(4.2 * len(ks) + 0.5, 3.9))
    axes = fig.subplots(1, len(ks), squeeze=False)
    colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, k in zip(axes.flat, ks, strict=True):
        _k_panel(ax, curves, sim, k, colors)
    fig.suptitle(
        "Lower-bound construction: exact regret of every algorithm (solid), asymptote "
        "(dashed), corrected asymptote (dotted), limit (thin), Monte Carlo (95% CI)",
        fontsize=8.5,
    )
    tight_layout(fig, rect=(0, 0.02, 1, 0.95))
    return fig
