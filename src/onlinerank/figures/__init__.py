"""The figure catalog: a figure is one module of this package.

``onlinerank/figures/<name>.py`` holds the figure's declaration ``FIGURE = FigureSpec(...)`` (its
name, the tables it reads, the claims it supports, its caption) and its drawing
``plot_<name>(tables, config) -> matplotlib.figure.Figure``: pure, it reads the tables it is given
(name -> list of rows) and the typed config (:class:`onlinerank.settings.Settings`, built by
:func:`onlinerank.plotting.draw`), and writes nothing.  The modules are found by walking this
package (:data:`FIGURES`), so a new figure is one new file; the pipeline's figure jobs, the
claims report (a claim's figures, :func:`claim_figures`), the docs' figure catalog and the tests
all read the catalog.  Importing it imports neither matplotlib nor the simulation engine: a figure
module imports what it draws with inside its plot function.

Theory: the figures show the quantities of the theory notes' sections named in each caption
(docs/theory); they compute nothing new, the tables do.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "FigureSpec",
    "FIGURES",
    "CLAIMS_TABLE",
    "plot_function",
    "claim_figures",
    "check_catalog",
    "figure_batches",
    "read_figure_table",
]

#: the table name of the claims document (``<figures_dir>/claims.json``): its rows are the claims
CLAIMS_TABLE = "claims"


@dataclass(frozen=True)
class FigureSpec:
    """A figure's declaration: ``name`` (its module and file name), the ``tables`` it reads (names
    of :data:`onlinerank.table_schemas.TABLE_STAGE`, or ``"claims"`` for the claims document), the ids of
    the ``claims`` it supports (the first places it in the HTML report) and its ``caption``.
    Theory: each caption names what the figure shows of docs/theory."""

    name: str
    tables: tuple[str, ...]
    claims: tuple[str, ...]
    caption: str

    def __post_init__(self) -> None:
        for key in ("tables", "claims"):
            value = getattr(self, key)
            if not isinstance(value, tuple) or not value or not all(isinstance(x, str) for x in value):
                raise ValueError(
                    f"figure {self.name!r}: {key} must be a non-empty tuple of names, got {value!r}"
                )
        if not self.caption.strip():
            raise ValueError(f"figure {self.name!r}: caption is empty")


def _discover() -> dict[str, FigureSpec]:
    """Every module of this package (no leading underscore), by name: its ``FIGURE``, checked to
    be a :class:`FigureSpec` of the module's own name with a ``plot_<name>`` function."""
    found: dict[str, FigureSpec] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        spec = getattr(module, "FIGURE", None)
        if not isinstance(spec, FigureSpec):
            raise TypeError(f"{module.__name__}: no FIGURE = FigureSpec(...)")
        if spec.name != info.name:
            raise ValueError(f"{module.__name__}: FIGURE.name is {spec.name!r}, not the module's name")
        if not callable(getattr(module, f"plot_{info.name}", None)):
            raise TypeError(f"{module.__name__}: no function plot_{info.name}(tables, config)")
        found[spec.name] = spec
    return found


#: every figure of the package, by name (sorted)
FIGURES: dict[str, FigureSpec] = _discover()


def plot_function(name: str) -> Callable[..., Figure]:
    """The drawing function ``plot_<name>`` of figure ``name``; KeyError naming the known ones."""
    if name not in FIGURES:
        raise KeyError(f"no figure {name!r}; known: {', '.join(FIGURES)}")
    return getattr(importlib.import_module(f"{__name__}.{name}"), f"plot_{name}")


def claim_figures(claim_id: str) -> list[str]:
    """The figures supporting claim ``claim_id`` (those whose spec names it), in catalog order."""
    return [name for name, spec in FIGURES.items() if claim_id in spec.claims]


def check_catalog(claims: Collection[str], tables: Collection[str]) -> None:
    """Every figure names registered ``claims`` and existing ``tables`` (plus ``"claims"``);
    ValueError naming the figure and the unknown name."""
    for name, spec in FIGURES.items():
        for c in spec.claims:
            if c not in claims:
                raise ValueError(f"figure {name!r} supports claim {c!r}, which is not in the registry")
        for t in spec.tables:
            if t != CLAIMS_TABLE and t not in tables:
                raise ValueError(f"figure {name!r} reads table {t!r}, which no step makes")


def figure_batches(names: Iterable[str]) -> dict[str, list[str]]:
    """The figures ``names`` in the batches a run of the pipeline draws together, one job and one
    process each (the interpreter, the package and matplotlib loaded once per batch, not per
    figure): the figures of each simulation stage (``upper``, ``lower``, ... : those that read its
    table ``sim_<stage>``, the first such table a figure names), ``tables``, those that read only
    tables computed from the config, and ``claims``, those that read the claims document, made
    last.  Each batch can start as soon as its own tables exist.  Batches in the order of their
    first figure, names in the given order."""
    batches: dict[str, list[str]] = {}
    for name in names:
        tables = FIGURES[name].tables
        stages = [t.removeprefix("sim_") for t in tables if t.startswith("sim_")]
        batch = "claims" if CLAIMS_TABLE in tables else stages[0] if stages else "tables"
        batches.setdefault(batch, []).append(name)
    return batches


def read_figure_table(path: str | Path) -> list[dict]:
    """The rows of one table of a figure: a tidy CSV (:func:`onlinerank.io.read_table`), or the
    claims of a claims document (``.json``)."""
    if str(path).endswith(".json"):
        return list(json.loads(Path(path).read_text())["claims"])
    from ..io import read_table

    return read_table(path)
