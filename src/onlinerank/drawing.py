"""Drawing the figures of the catalog (:mod:`onlinerank.figures`) in the project's style: the
step between the catalog, which the claims report reads without any drawing code, and the
matplotlib helpers of :mod:`onlinerank.plotting`, which the figures draw with.  The pipeline's
figure jobs (:func:`draw_figures`, a batch per job), the notebook and the tests draw through
:func:`draw`."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .figures import FIGURES, plot_function
from .io import read_figure_table
from .plotting import save_figure, stamp, style
from .provenance import config_digest, git_commit

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .settings import Settings

__all__ = ["draw", "draw_figures"]


def draw(name: str, tables: Mapping[str, list[dict]], settings: Settings, **options: Any) -> Figure:
    """Figure ``name`` of the catalog (:data:`onlinerank.figures.base.FIGURES`) drawn from ``tables``
    (name -> rows) and ``settings`` in the project's style (:func:`onlinerank.plotting.style`);
    pure (no file is written, no pyplot figure is left open).  Theory: see the figure's caption."""
    plot = plot_function(name)
    missing = [t for t in FIGURES[name].tables if t not in tables]
    if missing:
        raise KeyError(f"figure {name!r} needs the table(s) {', '.join(missing)}")
    with style():
        return plot(dict(tables), settings, **options)


def draw_figures(
    names: Iterable[str],
    table_paths: Mapping[str, str],
    settings: Settings,
    outputs: Mapping[str, tuple[str, str]],
    log: Any = None,
) -> None:
    """Figures ``names`` of the catalog drawn one after the other in this process (a figure job of
    the pipeline draws a batch, :func:`onlinerank.figures.base.figure_batches`), each from its
    tables (``table_paths``: table name -> file, each file read once and every figure given its own
    copy of the rows, so that a figure is the same whatever was drawn before it), in the shared
    style, stamped with the config digest and the commit and saved to its ``(png, pdf)`` in
    ``outputs``.  ``log`` (a logger) gets one line per figure.  Theory: see each figure's caption."""
    digest, commit = config_digest(settings.as_config()), git_commit()
    read: dict[str, list[dict]] = {}
    for name in names:
        t0 = time.perf_counter()
        for t in FIGURES[name].tables:
            if t not in read:
                read[t] = read_figure_table(table_paths[t])
        tables = {t: [dict(row) for row in read[t]] for t in FIGURES[name].tables}
        fig = draw(name, tables, settings)
        with style():  # the saving settings (resolution, PDF compression) are part of the style
            stamp(fig, digest, commit)
            save_figure(fig, *outputs[name])
        if log is not None:
            log.info("figure %s in %.2f s from %s", name, time.perf_counter() - t0, ", ".join(tables))
