"""Every table of the pipeline (registry :data:`onlinerank.tables.base.TABLES`), declared once,
beside its builder.

Every module of this folder is imported once, here, in name order
(:func:`onlinerank.registry.discover`): a module declaring a table (``@table(...)`` on the
function that builds its rows, :func:`onlinerank.tables.base.table`) is all a new table needs
(docs/howto/add-table.md).  Reading the declarations loads none of the builders' code: a builder
imports its producer (the engine, the dynamic program, the exact sums) when the table is made,
so the claims, the figures and the Snakefile read the tables' columns without loading the engine.
"""

from ..registry import discover
from .base import TABLES, Column, TableSpec, check_columns, columns, make_table, table, table_pieces

#: the modules found in this folder and imported (table discovery)
MODULES = discover(__name__)

from .simulation import SIM_COLUMNS  # noqa: E402  (declared by a discovered module)

#: every table made from a config section -> that section (simulation tables: their stage); the
#: mutations table, made in every tier by its own rule, has none
TABLE_STAGE: dict[str, str] = {name: s.stage for name, s in TABLES.items() if s.stage}
#: the tables made by the generic table rule (a builder computing them from the config alone)
BUILT_TABLES: dict[str, TableSpec] = {name: s for name, s in TABLES.items() if s.build is not None}

__all__ = [
    "TABLES",
    "MODULES",
    "Column",
    "TableSpec",
    "SIM_COLUMNS",
    "TABLE_STAGE",
    "BUILT_TABLES",
    "table",
    "columns",
    "check_columns",
    "make_table",
    "table_pieces",
]
