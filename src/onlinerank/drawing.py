"""Drawing the figures of the catalog (:mod:`onlinerank.figures`) in the project's style: the
step between the catalog, which the claims report reads without any drawing code, and the
matplotlib helpers of :mod:`onlinerank.plotting`, which the figures draw with.  The pipeline's
figure script, the notebook and the tests draw through :func:`draw`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .figures import FIGURES, plot_function
from .plotting import style
from .settings import Settings, as_settings

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["draw"]


def draw(name: str, tables: Mapping[str, list[dict]], config: Settings | Mapping, **options: Any) -> Figure:
    """Figure ``name`` of the catalog (:data:`onlinerank.figures.base.FIGURES`) drawn from ``tables``
    (name -> rows) and the typed settings of ``config`` (:func:`onlinerank.settings.as_settings`:
    in a job, the object ``onlinerank.pipeline.run`` already built) in the project's style
    (:func:`onlinerank.plotting.style`); pure (no file is written, no pyplot figure is left
    open).  Theory: see the figure's caption."""
    plot = plot_function(name)
    missing = [t for t in FIGURES[name].tables if t not in tables]
    if missing:
        raise KeyError(f"figure {name!r} needs the table(s) {', '.join(missing)}")
    settings = as_settings(config)
    with style():
        return plot(dict(tables), settings, **options)
