"""The figure contract and registry: a figure is declared once, on the function that draws it,
with :func:`figure`; the registry :data:`FIGURES` holds every declaration (:class:`FigureSpec`:
its name, the tables it reads, the claims it supports, its caption and its drawing).

A drawing ``plot(tables, config) -> matplotlib.figure.Figure`` is pure: it reads the tables it is
given (name -> list of rows) and the typed config (:class:`onlinerank.settings.Settings`, built by
:func:`onlinerank.drawing.draw`), and writes nothing.  Reading the registry imports neither matplotlib nor the
simulation engine: a figure module imports what it draws with inside its drawing.

Theory: the figures show the quantities of the theory notes' sections named in each caption
(docs/theory); they compute nothing new, the tables do.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..io import read_figure_table
from ..registry import Registry

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "FigureSpec",
    "FIGURES",
    "CLAIMS_TABLE",
    "figure",
    "plot_function",
    "claim_figures",
    "check_catalog",
    "figure_batches",
    "figures_made",
    "read_figure_table",
]

#: the table name of the claims document (``<figures_dir>/claims.json``): its rows are the claims
CLAIMS_TABLE = "claims"

# a figure's drawing: the tables it reads (name -> rows) and the typed settings -> the figure
Drawing = Callable[..., "Figure"]


@dataclass(frozen=True)
class FigureSpec:
    """A figure's declaration: ``name`` (its file name), the ``tables`` it reads (names of
    :data:`onlinerank.tables.TABLE_STAGE`, or ``"claims"`` for the claims document), the ids of
    the ``claims`` it supports (the first places it in the HTML report), its ``caption`` and its
    drawing ``draw`` (set by :func:`figure`).  Theory: each caption names what the figure shows of
    docs/theory."""

    name: str
    tables: tuple[str, ...]
    claims: tuple[str, ...]
    caption: str
    draw: Drawing | None = None

    def __post_init__(self) -> None:
        for key in ("tables", "claims"):
            value = getattr(self, key)
            if not isinstance(value, tuple) or not value or not all(isinstance(x, str) for x in value):
                raise ValueError(
                    f"figure {self.name!r}: {key} must be a non-empty tuple of names, got {value!r}"
                )
        if not self.caption.strip():
            raise ValueError(f"figure {self.name!r}: caption is empty")


#: every figure of the package, by name (filled by the modules of :mod:`onlinerank.figures`)
FIGURES: Registry = Registry("figure")


def figure(
    name: str, *, tables: tuple[str, ...], claims: tuple[str, ...], caption: str
) -> Callable[[Drawing], Drawing]:
    """Decorator declaring figure ``name`` (:class:`FigureSpec`) drawn by the decorated function,
    and registering it in :data:`FIGURES`; the function is returned unchanged."""

    def register(plot: Drawing) -> Drawing:
        FIGURES.register(FigureSpec(name, tables, claims, caption, plot))
        return plot

    return register


def plot_function(name: str) -> Drawing:
    """The drawing of figure ``name``; KeyError naming the known ones."""
    if name not in FIGURES or FIGURES[name].draw is None:
        raise KeyError(f"no figure {name!r}; known: {', '.join(FIGURES)}")
    return FIGURES[name].draw


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


def figures_made(tables: Iterable[str]) -> list[str]:
    """The figures of the catalog whose tables are all among ``tables`` (the tables a run makes):
    the figures that run draws, in catalog order."""
    made = set(tables)
    return [name for name, spec in FIGURES.items() if set(spec.tables) <= made]


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
