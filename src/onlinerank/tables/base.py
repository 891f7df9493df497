"""The table contract and registry (design §data): a table is declared once, beside the function
that builds its rows, with :func:`table`; the registry :data:`TABLES` holds every declaration.

A declaration (:class:`TableSpec`) says the table's name, the config section that makes it (its
*stage*), its columns (meaning and unit) and the config entries whose change reruns it; its
builder takes the typed settings (:class:`onlinerank.settings.Settings`) and returns the rows,
which :func:`make_table` checks against the declared columns, in order.  A long table may declare
``pieces``: the names of its independent jobs, each made by the builder called with
``piece=name`` (the pieces' rows in that order are the table's rows).

The simulation tables ``sim_<stage>`` (aggregated from replicate blocks by rule ``aggregate``) and
``mutations`` (made by the mutation tests, ``workflow/mutants``) are declared without a builder.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..registry import Registry
from ..settings import Settings

__all__ = [
    "Column",
    "TableSpec",
    "TABLES",
    "table",
    "columns",
    "check_columns",
    "table_pieces",
    "make_table",
    "FAMILY",
    "N",
    "K",
    "T",
    "M",
    "ETA",
    "ETA_FACTOR",
]

# a table's builder: the typed settings (and, for a table made in pieces, ``piece=``) -> rows
Builder = Callable[..., list[dict]]


@dataclass(frozen=True)
class Column:
    """One column: its name, what a value means, and its unit (``""``: a count or a label)."""

    name: str
    meaning: str
    unit: str = ""


@dataclass(frozen=True)
class TableSpec:
    """A table's declaration: made when the config has section ``stage`` (``""``: in every tier);
    its rows built by ``build(settings)`` (``None``: the table is made by a rule of its own);
    ``keys``: the config entries whose change reruns it; ``pieces(settings)``: the names of the
    table's independent jobs, in the order of its rows (``None``: one job); ``wall_clock``: the
    table holds wall-clock timings, so its job asks for the machine (on a cluster, the node) to
    itself and runs its numerical libraries on one thread."""

    name: str
    stage: str
    description: str
    columns: tuple[Column, ...]
    build: Builder | None = None
    keys: tuple[str, ...] = ()
    pieces: Callable[[Settings], Sequence[str]] | None = None
    wall_clock: bool = False

    @property
    def column_names(self) -> tuple[str, ...]:
        """The column names, in the order of the file."""
        return tuple(c.name for c in self.columns)


#: every declared table, by name (filled by the modules of :mod:`onlinerank.tables` on import)
TABLES: Registry = Registry("table")


def table(
    name: str,
    *,
    stage: str,
    description: str,
    columns: Sequence[Column],
    keys: Sequence[str] = (),
    pieces: Callable[[Settings], Sequence[str]] | None = None,
    wall_clock: bool = False,
) -> Callable[[Builder], Builder]:
    """Decorator declaring table ``name`` (:class:`TableSpec`) with the decorated function as its
    builder, and registering it in :data:`TABLES`; the function is returned unchanged."""

    def register(build: Builder) -> Builder:
        TABLES.register(
            TableSpec(name, stage, description, tuple(columns), build, tuple(keys), pieces, wall_clock)
        )
        return build

    return register


# columns shared by several tables (one meaning each)
FAMILY = Column("family", "feedback family: single, kchoice, subset, spearman or graded (theory §1)")
N = Column("n", "number of items", "items")
K = Column("k", "items chosen per round (k-choice, subset); 1 otherwise", "items")
T = Column("T", "horizon", "rounds")
M = Column("M", "the feedback family's complexity M (theory §1.1)", "loss²")
ETA = Column("eta", "learning rate used", "1/loss")
ETA_FACTOR = Column("eta_factor", "learning rate over the paper's rate η_p (theory §3.2)")


def columns(name: str) -> tuple[str, ...]:
    """The columns of table ``name``, in order (:class:`KeyError` names the unknown table)."""
    try:
        return TABLES[name].column_names
    except KeyError:
        raise KeyError(f"unknown table {name!r}; known: {', '.join(TABLES)}") from None


def _built(name: str) -> TableSpec:
    spec = TABLES.get(name)
    if spec is None or spec.build is None:
        built = [t for t, s in TABLES.items() if s.build is not None]
        raise KeyError(f"no table {name!r} is built from the config; built: {', '.join(built)}")
    return spec


def table_pieces(name: str, settings: Settings) -> list[str]:
    """The independent jobs of table ``name`` under ``settings`` (its declaration's ``pieces``:
    e.g. one per learner of the worst-case comparison), in the order of the table's rows; ``[]``
    for a table made by one job."""
    spec = _built(name)
    return [] if spec.pieces is None else list(spec.pieces(settings))


def make_table(name: str, settings: Settings, piece: str | None = None) -> list[dict]:
    """The rows of table ``name``, made by its builder from ``settings`` and checked against the
    declared columns in order; with ``piece`` (one of :func:`table_pieces`), that piece's rows
    only."""
    spec = _built(name)
    build = spec.build
    assert build is not None  # _built refuses a table without a builder
    if piece is None:
        rows = build(settings)
    elif piece in table_pieces(name, settings):
        rows = build(settings, piece=piece)
    else:
        raise ValueError(f"table {name!r} has no piece {piece!r}; pieces: {table_pieces(name, settings)}")
    check_columns(name, rows)
    return rows


def check_columns(name: str, rows: list[dict]) -> None:
    """Raise :class:`ValueError` naming the table when a row's columns are not its declaration's,
    in order (a producer and its declaration that drifted apart)."""
    want = columns(name)
    for i, r in enumerate(rows):
        if tuple(r) != want:
            extra = [c for c in r if c not in want]
            missing = [c for c in want if c not in r]
            raise ValueError(
                f"table {name!r}, row {i}: columns differ from the declaration "
                f"(missing {missing}, undeclared {extra}, or another order)"
            )
