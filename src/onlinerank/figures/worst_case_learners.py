"""Section 4, soundly: every learner's exact worst-case regret (DP over all sequences) side by
side, and beyond the DP every learner against the same adversaries (greedy, cyclic and the
search: staircase and beam), with Theorem 3.1's bound and each baseline's own bound.  A finding
beyond the paper.  Reads the table of onlinerank.worst_case_tables.comparison_rows
(theory §3.3, §3.4)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

import numpy as np

from ..plotting import learner_style, tight_layout
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings

#: the searches' markers: method -> (marker, legend label); an adversary's is its class's
#: ``plot_marker``, labelled with its name
SEARCH_MARKERS = {
    "staircase": ("^", "staircase search"),
    "beam": ("d", "beam search"),
}


def _marker(method: str) -> tuple[str, str] | None:
    """The marker and legend label of a row's ``method``: a search, or a registered adversary that
    declares a ``plot_marker`` (None: not drawn)."""
    if method in SEARCH_MARKERS:
        return SEARCH_MARKERS[method]
    # lazy: the plug-ins load the engine, which reading the figure catalog must not
    from ..adversaries import ADVERSARIES

    cls = ADVERSARIES.get(method)
    return None if cls is None or cls.plot_marker is None else (cls.plot_marker, method)


#: y-axis cap (ratio); larger values (FTL, uniform: linear regret; bounds) are annotated
TOP = 1.6


def _learner_bar(ax, i: int, mine: list[dict], b: float, color, handles: dict) -> None:
    """Learner ``i``'s bar: its exact worst case (DP), else the best adversary found (hatched, a
    lower bound), as a fraction ``1/b`` of Theorem 3.1, capped at :data:`TOP` (and annotated)."""
    ex = [r for r in mine if r["kind"] == "exact"]
    top = (ex[0]["value"] if ex else max(r["value"] for r in mine)) / b
    h = ax.bar(
        i,
        min(top, TOP),
        width=0.7,
        color=color,
        alpha=0.8 if ex else 0.35,
        hatch=None if ex else "//",
        edgecolor=color,
        label="exact worst case (DP)" if ex else "best adversary found (a lower bound)",
    )
    handles.setdefault(h.get_label(), h)
    if top > TOP:
        ax.annotate(f"{top:.2g}", (i, TOP), ha="center", va="bottom", fontsize=6.5)


def _adversary_markers(ax, i: int, mine: list[dict], b: float, handles: dict) -> None:
    """Each adversary's (and search's) regret against learner ``i``, with its marker."""
    for r in mine:
        marker = _marker(r["method"]) if r["kind"] == "adversary" else None
        if marker is not None:
            m, name = marker
            hh = ax.plot(i, min(r["value"] / b, TOP), m, color="k", ms=5, label=name)[0]
            handles.setdefault(name, hh)


def _own_bound(ax, i: int, own, b: float, handles: dict) -> None:
    """The learner's own regret bound (theory §3.3) as a tick across its bar, when it has one."""
    if not (isinstance(own, float) and np.isfinite(own)):
        return
    y = min(own / b, TOP)
    hh = ax.plot([i - 0.35, i + 0.35], [y, y], "-", color="0.15", lw=2.2, label="the learner's own bound")[0]
    handles.setdefault(hh.get_label(), hh)
    if own / b > TOP:
        ax.annotate(
            f"{own / b:.2g}",
            (i, y),
            ha="center",
            va="top",
            fontsize=6.5,
            xytext=(0, -2),
            textcoords="offset points",
        )


def _panel(ax, rs: list[dict], learners: list[str], specs: dict, exact: bool, handles: dict) -> None:
    """One (n, T) panel: every learner's bar, markers and own bound over Theorem 3.1's line."""
    b = rs[0]["bound_thm31"]
    for i, lab in enumerate(learners):
        mine = [r for r in rs if r["learner"] == lab]
        if not mine:  # above the learner's max_n in the config
            ax.annotate(
                "not run", (i, 0.03), ha="center", va="bottom", rotation=90, fontsize=6.5, color="0.4"
            )
            continue
        _learner_bar(ax, i, mine, b, learner_style(specs.get(lab, {}), lab)["color"] or "0.4", handles)
        _adversary_markers(ax, i, mine, b, handles)
        _own_bound(ax, i, mine[0]["bound_own"], b, handles)
    hh = ax.axhline(1.0, color="k", ls="--", lw=1.0, label=r"Theorem 3.1 for OnlineRank: $n\sqrt{TM\ln 2}$")
    handles.setdefault(hh.get_label(), hh)
    ax.set_ylim(0, TOP * 1.08)
    ax.set_xticks(np.arange(len(learners)))
    ax.set_xticklabels(learners, rotation=35, ha="right", fontsize=7)
    ax.set_ylabel("worst E[regret] / Theorem 3.1" if exact else "best E[regret] found / Theorem 3.1")
    where = f"{rs[0]['family']}, n={rs[0]['n']}, T={rs[0]['T']}: "
    ax.set_title(where + ("exact (DP)" if exact else "beyond the DP"), fontsize=9)


@figure(
    "worst_case_learners",
    tables=("worst_case_learners",),
    claims=("beyond.worst_case_learners",),
    caption="Every learner's exact worst-case regret (dynamic program over all sequences) side by "
    "side, and beyond the DP every learner against the same adversaries (greedy, cyclic and the "
    "search), with Theorem 3.1's bound and each baseline's own bound.",
)
def plot_worst_case_learners(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """Every learner's worst case (exact or the best adversary found) over Theorem 3.1, per
    (n, T) (theory §3.3, §3.4)."""
    # lazy: matplotlib loads where a figure is drawn, not where the catalog is read
    from matplotlib.figure import Figure

    rows = tables["worst_case_learners"]
    panels: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        panels[(r["n"], r["T"])].append(r)
    exact_pts = {key for key, rs in panels.items() if any(r["kind"] == "exact" for r in rs)}
    keys = sorted(exact_pts) + sorted(set(panels) - exact_pts)
    learners = list(dict.fromkeys(r["learner"] for r in rows))
    ncol = min(4, len(keys))
    nrow = int(np.ceil(len(keys) / ncol))
    fig = Figure(figsize=(3.6 * ncol + 0.4, 3.5 * nrow + 1.0))
    axes = fig.subplots(nrow, ncol, squeeze=False)
    handles: dict[str, Any] = {}
    for ax, key in zip(axes.flat, keys, strict=False):
        _panel(ax, panels[key], learners, config.learner_dicts(), key in exact_pts, handles)
    for ax in axes.flat[len(keys) :]:
        ax.set_visible(False)
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=4, frameon=False, fontsize=7.5)
    fig.suptitle(
        "Worst-case regret of every learner (finding beyond the paper), as a fraction of Theorem 3.1: "
        "exact where the DP reaches, else the same adversaries against each",
        fontsize=9.5,
    )
    tight_layout(fig, rect=(0, 0.09 + 0.02 / nrow, 1, 0.96))
    return fig
