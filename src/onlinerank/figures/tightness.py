"""How tight Theorem 3.1 is (a finding beyond the paper): OnlineRank's worst-case regret over
the sharp bound C(n,2) ln 2 / eta + eta T M / 2 at the same eta, against T for each eta / eta_p,
exact (DP) where it reaches and from the search adversary beyond; and the largest ratio found
at each n.  Reads the table of onlinerank.worst_case_tables.tightness_rows (theory §3.4)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from ..plotting import plain_log_axis, tight_layout
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings


def _eta_panel(ax, rows: list[dict], f: float, ns: list[int], color: dict) -> None:
    """One η/η_p panel: the worst case over the sharp bound vs T, one curve per n and kind (exact
    DP: filled, search: hollow and dashed)."""
    by_n: dict[int, list[dict]] = defaultdict(list)
    for r in rows:
        if r["eta_factor"] == f:
            by_n[r["n"]].append(r)
    for n in ns:
        for kind in ("exact", "search"):
            rs = sorted((r for r in by_n.get(n, []) if r["kind"] == kind), key=lambda r: r["T"])
            if not rs:
                continue
            ex = kind == "exact"
            ax.plot(
                [r["T"] for r in rs],
                [r["ratio_sharp"] for r in rs],
                "o-" if ex else "s--",
                color=color[n],
                mfc=color[n] if ex else "none",
                label=f"n={n} ({kind})",
            )
    ax.axhline(1.0, color="k", lw=1.0)
    ax.set_xscale("log")
    plain_log_axis(ax, "x")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("horizon T")
    ax.set_ylabel("worst E[regret] / sharp bound")
    ax.set_title(f"η = {f:g}·η_p", fontsize=9)


def _largest_ratio_panel(ax, best: list[dict], ns: list[int]) -> None:
    """The last panel: the largest ratio found at each n, annotated with its T and η."""
    for kind, m in (("exact", "o"), ("search", "s")):
        pts = [r for r in best if r["kind"] == kind]
        if pts:
            ax.plot(
                [r["n"] for r in pts],
                [r["ratio_sharp"] for r in pts],
                m,
                color="k",
                mfc="k" if kind == "exact" else "none",
                label="exact (DP)" if kind == "exact" else "search (a lower bound)",
            )
        for r in pts:
            ax.annotate(
                f"T={r['T']}, {r['eta_factor']:g}η_p",
                (r["n"], r["ratio_sharp"]),
                textcoords="offset points",
                xytext=(3, -10),
                fontsize=6,
            )
    ax.axhline(1.0, color="k", lw=1.0)
    ax.set_ylim(0, 1.05)
    ax.set_xticks(ns)
    ax.set_xlabel("n")
    ax.set_ylabel("largest worst E[regret] / sharp bound")
    ax.set_title("largest ratio found at each n", fontsize=9)


@figure(
    "tightness",
    tables=("tightness",),
    claims=("beyond.tightness",),
    caption="How tight Theorem 3.1 is: OnlineRank's worst case (exact where the DP reaches, search "
    "beyond) over the sharp bound, versus T for several η/η_p and n.",
)
def plot_tightness(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """Worst case over the sharp bound against T per η/η_p, and the largest ratio per n
    (theory §3.4)."""
    # lazy: matplotlib and the worst-case code (which loads the engine) load where a figure is
    # drawn, not where the catalog is read
    import matplotlib
    from matplotlib.figure import Figure

    from ..worst_case_tables import largest_ratio_rows

    rows = tables["tightness"]
    factors = sorted({r["eta_factor"] for r in rows})
    ns = sorted({r["n"] for r in rows})
    cmap = matplotlib.colormaps["viridis"]
    color = {n: cmap(i / max(1, len(ns) - 1)) for i, n in enumerate(ns)}
    ncol = min(3, len(factors) + 1)
    nrow = -(-(len(factors) + 1) // ncol)
    fig = Figure(figsize=(3.7 * ncol + 0.4, 3.4 * nrow + 0.6))
    axes = list(fig.subplots(nrow, ncol, squeeze=False).flat)
    for a in axes[len(factors) + 1 :]:
        a.set_visible(False)
    axes = axes[: len(factors) + 1]
    for ax, f in zip(axes, factors, strict=False):
        _eta_panel(ax, rows, f, ns, color)
    _largest_ratio_panel(axes[-1], largest_ratio_rows(rows), ns)
    for a in axes:
        a.legend(fontsize=6.5, loc="lower right")
    fig.suptitle(
        "How tight Theorem 3.1 is (finding beyond the paper): OnlineRank's worst case over "
        r"$\binom{n}{2}\ln 2/\eta + \eta TM/2$",
        fontsize=10,
    )
    tight_layout(fig, rect=(0, 0.02, 1, 1 - 0.35 / fig.get_figheight()))
    return fig
