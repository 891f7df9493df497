"""Shared matplotlib style, provenance stamp and atomic saving of the figures (``onlinerank.figures``)."""

from __future__ import annotations

import contextlib
import math
import os
import re
import textwrap
from collections import defaultdict
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .bounds import eta_text, ran_at_paper_eta
from .io import atomic_path, read_figure_table, read_table
from .provenance import config_digest, git_commit

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .learners.base import Learner


__all__ = [
    "use_style",
    "style",
    "STYLE",
    "stamp",
    "save_figure",
    "tight_layout",
    "read_table",
    "LEARNER_COLORS",
    "learner_style",
    "plain_log_axis",
    "regret_yscale",
    "symlog_threshold",
    "figure_context",
    "figure_tables",
    "finish",
]


def plain_log_axis(ax: Axes, which: str = "both") -> None:
    """Log axes labelled with plain numbers (100, 1000, 1e+04, ...): 1-2-5 ticks over at most
    three decades where their labels fit side by side (an x axis as wide as the axes drawn:
    narrow panels get one tick per decade), one tick per decade (or fewer) beyond."""
    # lazy: matplotlib loads only where a figure is drawn, not where the catalog is read
    import matplotlib
    from matplotlib.font_manager import FontProperties
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    def fmt(v, _):
        if 1e-3 <= v < 1e5:
            return f"{v:g}"
        e = math.floor(math.log10(v) + 1e-9)  # 2e5, not 1e5: a 1-2-5 tick keeps its mantissa
        return f"{round(v / 10.0**e, 2):g}e{e}"

    for name in ("x", "y") if which == "both" else (which,):
        axis = getattr(ax, f"{name}axis")
        lo, hi = ax.get_xlim() if name == "x" else ax.get_ylim()
        decades = math.log10(max(hi, 1e-300) / max(lo, 1e-300)) if lo > 0 else 10
        subs = (1.0, 2.0, 5.0) if decades <= 3 else (1.0,)
        if name == "x" and len(subs) > 1:
            size = FontProperties(size=matplotlib.rcParams["xtick.labelsize"]).get_size_in_points()
            fig = ax.get_figure(root=True)
            width = ax.get_position().width * (fig.get_figwidth() if fig else 6.4) * 72  # points
            # a label takes ~0.6 em a character, and 1.5 em apart from the next
            ticks = [
                m * 10.0**e
                for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
                for m in subs
                if lo <= m * 10.0**e <= hi
            ]
            if sum((0.6 * len(fmt(t, None)) + 1.5) * size for t in ticks) > width:
                subs = (1.0,)
        axis.set_major_locator(LogLocator(base=10, subs=subs, numticks=8))
        axis.set_major_formatter(FuncFormatter(fmt))
        axis.set_minor_formatter(NullFormatter())


#: matplotlib settings shared by every figure (fonts, sizes, grid, deterministic output)
STYLE: dict[str, Any] = {
    "figure.dpi": 110,
    "savefig.dpi": 150,
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 7.5,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
    "lines.linewidth": 1.4,
    "lines.markersize": 4,
    "svg.hashsalt": "onlinerank",
    "pdf.compression": 6,
}


def use_style() -> None:
    """Matplotlib settings shared by every figure (headless backend, fonts, sizes), set globally."""
    import matplotlib  # lazy: loaded only where a figure is drawn, not where the catalog is read

    matplotlib.use("Agg")
    matplotlib.rcParams.update(cast(Any, STYLE))


def style() -> contextlib.AbstractContextManager:
    """The shared settings for the duration of a ``with`` block only (drawing and saving a figure
    inside it), leaving matplotlib's global settings as they were."""
    import matplotlib  # lazy: loaded only where a figure is drawn, not where the catalog is read

    return matplotlib.rc_context(cast(Any, STYLE))


def stamp(fig: Figure, config_digest: str, commit: str) -> None:
    """Small provenance text in the lower right corner: config digest and git commit."""
    fig.text(
        0.995,
        0.005,
        f"config {config_digest} · commit {commit}",
        ha="right",
        va="bottom",
        fontsize=6,
        color="0.45",
    )


def tight_layout(fig: Figure, rect: tuple[float, float, float, float]) -> None:
    """``fig.tight_layout(rect=rect)`` with the axes' minor ticks left out for its duration.

    The layout reads the extent of every tick label; the minor ticks' labels are empty (each axis's
    minor formatter is a ``NullFormatter``), so their boxes are points inside the area the major
    labels and the axis labels already span, and the layout does not change.  Without them
    matplotlib does not make a log axis's minor ticks (about 2,000 objects in the 35 panels of
    ``regret_vs_T``) for the layout's two passes; drawing makes them afterwards as before.  The saved
    files are byte for byte those of ``fig.tight_layout`` (tests/test_figures.py)."""
    from matplotlib.ticker import NullLocator  # lazy, as matplotlib everywhere

    saved = [(axis, axis.get_minor_locator()) for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)]
    try:
        for axis, _ in saved:
            axis.set_minor_locator(NullLocator())
        fig.tight_layout(rect=rect)
    finally:
        for axis, locator in saved:
            axis.set_minor_locator(locator)


def save_figure(fig: Figure, *paths: str | os.PathLike) -> None:
    """Save to each path atomically (:func:`onlinerank.io.atomic_path`), format from the suffix.

    A figure laid out by ``fig.tight_layout()`` keeps a placeholder layout engine, and matplotlib
    draws a figure with any layout engine once more, without rendering, before each save (a third
    of the drawing time: every tick label's extent again).  The layout is already done, so the
    placeholder goes first: the saved files are byte-identical (tests/test_figures.py)."""
    from matplotlib.layout_engine import PlaceHolderLayoutEngine  # lazy, as matplotlib everywhere

    if isinstance(fig.get_layout_engine(), PlaceHolderLayoutEngine):
        fig.set_layout_engine(None)
    for p in paths:
        with atomic_path(p) as tmp:
            fig.savefig(
                tmp,
                format=Path(p).suffix[1:],
                metadata={"CreationDate": None} if str(p).endswith(".pdf") else None,
            )


def figure_context(snakemake: Any) -> tuple[str, str]:
    """Common start of a figure script: style, config digest (of the job's settings,
    :func:`onlinerank.pipeline.job_settings`) and commit for the stamp."""
    # lazy: a figure script's start only; the catalog's readers (the claims) load no step runner
    from .pipeline import job_settings

    use_style()
    return config_digest(job_settings(snakemake).as_config()), git_commit()


def figure_tables(snakemake: Any) -> dict[str, list[dict]]:
    """The tables of a figure job, by name (the ``figure`` rule passes their names as
    ``params.tables`` in the order of ``input.tables``)."""
    return {
        name: read_figure_table(path)
        for name, path in zip(snakemake.params.tables, snakemake.input.tables, strict=True)
    }


def finish(fig: Figure, snakemake: Any, digest: str, commit: str) -> None:
    """Stamp and save a figure to the rule's ``png`` and ``pdf`` outputs."""
    stamp(fig, digest, commit)
    save_figure(fig, snakemake.output.png, snakemake.output.pdf)


def _learner_class(name: object) -> type[Learner]:
    """The registered class of learner ``name`` (the base class for another name): the figures
    ask a learner's class for its colour, its style and its rate."""
    # lazy: the plug-ins load the engine, which the claims (reading the figure catalog) must not
    from .learners import LEARNERS, Learner

    return LEARNERS.get(str(name), Learner)


def _learner_colors() -> dict[str, str]:
    """``name -> plot_color`` of the registered learners that declare one."""
    # lazy: the plug-ins load the engine, which the claims (reading the figure catalog) must not
    from .learners import LEARNERS

    return {name: cls.plot_color for name, cls in LEARNERS.items() if cls.plot_color is not None}


class _LearnerColors(Mapping[str, str]):
    """``name -> colour`` of the registered learners that declare a ``plot_color`` (read-only, read
    from the learner registry at each access, so that a learner registered later is in it)."""

    def __getitem__(self, name: str) -> str:
        return _learner_colors()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(_learner_colors())

    def __len__(self) -> int:
        return len(_learner_colors())


#: the colour of each learner that declares one (its ``Learner.plot_color``)
LEARNER_COLORS: Mapping[str, str] = _LearnerColors()


def learner_style(spec: dict, label: str, learners: dict | None = None) -> dict:
    """Line style (``color``, ``marker``, ``ls``, ``mfc``, ``label``) for a learner spec, from the
    learner's own ``Learner.plot_style`` (theory §3.3: the learners the figures compare):
    OnlineRank by sampler, with different colours, markers and line styles for learners of one
    sampler that differ (e.g. in η); the baselines in their ``plot_color``.  Pass the config's
    ``learners`` dict (``label`` is the key of ``spec`` in it) to number variants without
    collisions.  A spec naming no registered learner gets the default style."""
    return _learner_class(spec.get("name")).plot_style(spec, label, learners)


#: the claim a title makes when every OnlineRank learner uses the paper's learning rate
_PAPER_ETA_CLAIM = re.compile(r"\s*\((?:learning rate )?η = (?:the )?paper's η_p\)")


def _title_eta(title: str, rows, learners: dict) -> str:
    """``title`` without a claim that OnlineRank uses the paper's η_p when some learner of the
    figure that is the paper's algorithm does not (the legend names each learner's η).  Whether a
    learner ran at η_p is read from the rate its rows recorded (theory §3.2,
    :func:`~onlinerank.bounds.ran_at_paper_eta`); a learner configured at Corollary 3.2's stated
    rate is named by that rate."""
    rates = set()
    for r in rows:
        spec = learners.get(r["learner"], {})
        cls = _learner_class(spec.get("name"))
        if not cls.paper_algorithm:
            continue
        rate = cls.configured_rate({k: v for k, v in spec.items() if k != "name"})
        paper = rate != "stated" and ran_at_paper_eta(r)
        rates.add("η_p" if paper else eta_text(rate))
    if rates <= {"η_p"} or not _PAPER_ETA_CLAIM.search(title):
        return title
    if "η_p" in rates:
        text = " (learning rate η_p unless the legend names another)"
    else:
        text = f" (learning rates {', '.join(sorted(rates))}, as the legend says)"
    return _PAPER_ETA_CLAIM.sub(text, title)


def _log_floor(values) -> float | None:
    """Bottom of a log axis for a panel: half a decade below the smallest positive mean or bound
    (bands and values <= 0 are drawn against it, never below)."""
    v = np.asarray([x for x in values if np.isfinite(x) and x > 0], float)
    return float(v.min()) / 10**0.5 if v.size else None


def symlog_threshold(values) -> float:
    """The linear range ``±linthresh`` of a symmetric-log axis for ``values``: the decade at or
    below the smallest nonzero ``|value|``, so that every nonzero value lies on the logarithmic
    part and zero sits in the middle of the linear part (1 when every value is zero)."""

    v = [abs(float(x)) for x in values if math.isfinite(x) and x != 0]
    return 10.0 ** math.floor(math.log10(min(v))) if v else 1.0


def regret_yscale(ax: Axes, means, others=()) -> float | None:
    """A regret axis: logarithmic when every mean is positive (returns None); symmetric-log
    (matplotlib ``symlog``, linear within ``±linthresh`` from :func:`symlog_threshold` of the means
    and ``others``, e.g. the bounds) when some learner's mean regret is zero or negative, which a
    log axis cannot show; then a thin line marks zero and the label says the scale.  Returns
    ``linthresh`` or None."""

    means = [float(x) for x in means if math.isfinite(x)]
    if all(x > 0 for x in means):
        ax.set_yscale("log")
        return None
    lin = symlog_threshold(list(means) + [float(x) for x in others])
    ax.set_yscale("symlog", linthresh=lin, linscale=0.5)
    ax.axhline(0.0, color="0.55", lw=0.6, zorder=0.5)
    return lin


def _unique_styles(labels: list[str], learners: dict) -> dict[str, dict]:
    """One style and one legend label per learner, unique across a figure: two learners whose
    styles carry the same label (OnlineRank at two η) get their config names appended."""
    styles = {lab: learner_style(learners.get(lab, {}), lab, learners) for lab in labels}
    seen: dict[str, int] = defaultdict(int)
    for st in styles.values():
        seen[st["label"]] += 1
    for lab, st in styles.items():
        if seen[st["label"]] > 1:
            st["label"] += f" [{lab}]"
    return styles


def _draw_theorem31_curves(ax, Ts: list, b: list[dict]) -> None:
    """Theorem 3.1's bound and the sharp bounds at η_p and η* (theory §3) on one panel."""
    ax.plot(Ts, [x["bound_paper"] for x in b], "k-", lw=1.2, label=r"Thm 3.1: $n\sqrt{TM\ln 2}$")
    ax.plot(
        Ts,
        [x["bound_sharp"] for x in b],
        "k--",
        lw=1.0,
        label=r"sharp bound at $\eta_p$: $\binom{n}{2}\ln 2/\eta_p+\eta_p TM/2$",
    )
    ax.plot(Ts, [x["bound_optimal"] for x in b], "k:", lw=1.0, label=r"sharp bound at $\eta^*$")


def _draw_learner_band(ax, rs: list[dict], st: dict, floor: float) -> None:
    """One learner's mean regret vs T with its 95% band (normal, per cell; clipped at ``floor`` on a
    log axis); a learner with any Monte Carlo cell says so in its label."""
    rs = sorted(rs, key=lambda r: r["T"])
    T = np.array([r["T"] for r in rs], float)
    m = np.array([r["mean"] for r in rs], float)
    se = np.nan_to_num(np.array([r["sem"] for r in rs], float))
    exact = all(r["exact"] for r in rs)
    ax.plot(
        T,
        m,
        marker=st["marker"],
        ls=st["ls"],
        color=st["color"],
        mfc=st["mfc"],
        label=f"{st['label']}" + ("" if exact else " (E[loss] by Monte Carlo)"),
    )
    hi = m + 1.96 * se
    ax.fill_between(
        T,
        np.maximum(m - 1.96 * se, floor),
        np.maximum(hi, floor),
        where=hi > floor,
        color=st["color"],
        alpha=0.18,
        lw=0,
    )


def _replicates_label(sub: list[dict]) -> str:
    """What a panel's title says of its replicates: a panel can merge experiments with different
    replicate counts (e.g. 64 up to T = 10^5, 16 beyond): all of them, largest first; a panel whose
    cells are closed forms (0 replicates: an oblivious adversary's exact expectation) says
    "exact" instead of "0 reps"."""
    reps = sorted({r["reps"] for r in sub if r["reps"]}, reverse=True)
    parts = [f"{'/'.join(str(x) for x in reps)} reps"] if reps else []
    return " + ".join(parts + ["exact"] * any(not r["reps"] for r in sub))


def _regret_panel(ax, sub: list[dict], b: list[dict], styles: dict, key: tuple) -> None:
    """One panel of :func:`regret_panels`: the bound curves, every learner's band, the axes."""
    fam, n, k, adv = key
    Ts = sorted({r["T"] for r in sub})
    _draw_theorem31_curves(ax, Ts, b)
    by_learner = defaultdict(list)
    for r in sub:
        by_learner[r["learner"]].append(r)
    curves = [x[c] for x in b for c in ("bound_paper", "bound_sharp", "bound_optimal")]
    means = [r["mean"] for r in sub]
    linthresh = regret_yscale(ax, means, curves)
    # a log axis: bands are clipped half a decade below the smallest positive value
    # a log axis is chosen only when every mean is positive, so _log_floor finds a value
    floor: float = -np.inf if linthresh is not None else (_log_floor(means + curves) or 1.0)
    for lab, rs in sorted(by_learner.items()):
        _draw_learner_band(ax, rs, styles[lab], floor)
    ax.set_xscale("log")
    if linthresh is None:
        ax.set_ylim(bottom=floor)
        plain_log_axis(ax)
        ax.set_ylabel("E[regret] (pairwise loss)")
    else:
        plain_log_axis(ax, "x")
        ax.set_ylabel(f"E[regret] (symlog: linear in ±{linthresh:g})")
    ax.set_xlabel("horizon T (rounds)")
    where = f"{adv}: {fam}, n={n}" + (f", k={k}" if fam == "kchoice" else "")
    ax.set_title(f"{where}, {_replicates_label(sub)}", fontsize=9)


def _legend_and_title(fig, handles: dict, title: str, nrow: int) -> None:
    """The figure's shared legend below the panels and its title wrapped to the figure's width."""
    ncol = 3 if len(handles) > 4 else 2
    fig.legend(
        list(handles.values()), list(handles), loc="lower center", ncol=ncol, frameon=False, fontsize=7.5
    )
    # wrapped to the figure's width (about 11 characters of the 10-point title per inch)
    title = textwrap.fill(title, width=int(11 * fig.get_figwidth()))
    fig.suptitle(title, y=0.998)
    legend_rows = int(np.ceil(len(handles) / ncol))
    tight_layout(
        fig,
        rect=(
            0,
            min(0.3, 0.035 * legend_rows * (3 / nrow) + 0.02),
            1,
            1 - 0.25 * (title.count("\n") + 1) / fig.get_figheight(),
        ),
    )


def regret_panels(rows: list[dict], bnd: dict, learners: dict, title: str, *, bound_fn=None):
    """Figure: mean exact expected regret at t = T vs T (log-log), one panel per (family, n, k,
    adversary), learners with 95% bands, and Theorem 3.1 curves from ``bnd`` keyed by
    (family, n, k, T).  A panel where some learner's mean regret is zero or negative (FTL against
    some adversaries, any learner beating the best fixed ranking) gets a symmetric-log y axis
    (:func:`regret_yscale`: linear within ±linthresh chosen from the panel's data, log beyond), so
    every learner keeps its own line, colour and markers on either side of zero; other panels
    stay log-log, their bottom half a decade below the smallest positive mean or bound.
    OnlineRank learners that differ only in η get different styles, and a title claiming the
    paper's η_p is corrected when one of them uses another η.  Returns the figure."""
    # lazy: matplotlib loads only where a figure is drawn, not where the catalog is read
    from matplotlib.figure import Figure

    rows = [r for r in rows if r["metric"] == "regret" and r["t"] == r["T"]]
    panels = defaultdict(list)
    for r in rows:
        panels[(r["family"], r["n"], r["k"], r["adversary"])].append(r)
    # a regret-vs-T panel needs at least two horizons (single-T grids feed the exponent fits)
    keys = sorted(k for k, v in panels.items() if len({r["T"] for r in v}) >= 2) or sorted(panels)
    ncol = min(5, len(keys))
    nrow = int(np.ceil(len(keys) / ncol))
    fig = Figure(figsize=(max(9.0, 3.3 * ncol + 0.3), 2.9 * nrow + 1.3))
    axes = fig.subplots(nrow, ncol, squeeze=False)
    styles = _unique_styles(sorted({r["learner"] for k in keys for r in panels[k]}), learners)
    handles: dict[str, Any] = {}
    for ax, key in zip(axes.flat, keys, strict=False):
        fam, n, k, _ = key
        b = [bnd[(fam, n, k, T)] for T in sorted({r["T"] for r in panels[key]})]
        _regret_panel(ax, panels[key], b, styles, key)
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
    for ax in axes.flat[len(keys) :]:
        ax.set_visible(False)
    rows_drawn = [r for key in keys for r in panels[key]]
    _legend_and_title(
        fig,
        handles,
        _title_eta(title, rows_drawn, learners) + " — means with 95% bands (normal, per cell)",
        nrow,
    )
    return fig
