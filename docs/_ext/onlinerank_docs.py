"""Sphinx extension of the onlinerank docs: the config reference from the schema, the figure
catalog from ``onlinerank.figures``, the tables' columns from ``onlinerank.tables``, and the
checks that make the build fail on an undocumented
public function or config key (with its name)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import yaml
from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "src" / "onlinerank" / "config.schema.yaml"


def public_modules() -> list[str]:
    """Every module of the package whose name has no leading underscore."""
    import onlinerank

    out = ["onlinerank"]
    for info in pkgutil.walk_packages(onlinerank.__path__, "onlinerank."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            out.append(info.name)
    return sorted(out)


def undocumented() -> list[str]:
    """Public names (``__all__`` of each public module) without a docstring of their own."""
    missing = []
    for name in public_modules():
        mod = importlib.import_module(name)
        if not (mod.__doc__ or "").strip():
            missing.append(name)
        for attr in getattr(mod, "__all__", []):
            obj = getattr(mod, attr, None)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if getattr(obj, "__module__", name) != name:
                continue  # documented where it is defined
            if not (obj.__doc__ or "").strip():
                missing.append(f"{name}.{attr}")
    return missing


def config_keys(schema: dict) -> list[tuple[str, str, str, str]]:
    """``(key, type, default, description)`` of every config key of the schema, in its order: the
    rows of ``config/README.md`` (:func:`onlinerank.config_doc.key_rows`, the one rendering)."""
    from onlinerank.config_doc import key_rows

    return list(key_rows(schema))


def _row(cells, literal_first: bool = False) -> nodes.row:
    row = nodes.row()
    for i, text in enumerate(cells):
        entry = nodes.entry()
        para = nodes.paragraph()
        para += nodes.literal(text=text) if (literal_first and i == 0) else nodes.Text(text)
        entry += para
        row += entry
    return row


def _table(header, widths, rows) -> nodes.table:
    """A docutils table: ``header``, column ``widths`` and ``rows``, the first cell of each row as
    literal text (a key, a file, a column name)."""
    table = nodes.table()
    group = nodes.tgroup(cols=len(header))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    head += _row(header)
    body = nodes.tbody()
    group += body
    for row in rows:
        body += _row(row, literal_first=True)
    return table


class ConfigReference(Directive):
    """``config-reference``: a table of every config key from the schema."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        schema = yaml.safe_load(SCHEMA.read_text())
        rows = config_keys(schema)
        bare = [key for key, _, _, text in rows if not text.strip()]
        if bare:
            _fail_build(
                self.state.document.settings.env.app,
                "config keys without a description in src/onlinerank/config.schema.yaml: " + ", ".join(bare),
            )
        return [_table(("key", "type", "default", "meaning"), (22, 12, 12, 54), rows)]


def figure_rows() -> list[tuple[str, str, str, str]]:
    """``(name, caption, tables, claims)`` of every figure of the catalog, in its order."""
    from onlinerank.figures import FIGURES

    return [
        (name, spec.caption, ", ".join(spec.tables), ", ".join(spec.claims)) for name, spec in FIGURES.items()
    ]


class FigureCatalog(Directive):
    """``figure-catalog``: a table of every figure of ``onlinerank.figures``: its file, caption,
    the tables it reads and the claims it supports."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        rows = [(f"{name}.png", caption, tables, claims) for name, caption, tables, claims in figure_rows()]
        return [_table(("figure", "caption", "tables", "claims"), (20, 50, 15, 15), rows)]


class TableReference(Directive):
    """``table-reference``: every table of the pipeline from its declaration
    (:mod:`onlinerank.tables`): what it holds, the config section that makes it, its builder, and
    each column with its meaning and unit."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from onlinerank.tables import TABLES

        out: list[nodes.Node] = []
        for name, schema in TABLES.items():
            section = nodes.section(ids=[f"table-{name}"])
            section += nodes.title(text=name)
            made = f"config section `{schema.stage}`" if schema.stage else "every tier"
            build = schema.build
            built = f"builder `{build.__module__}.{build.__name__}`" if build is not None else ""
            para = nodes.paragraph()
            para += nodes.Text(f"{schema.description} Made by {made}" + (f"; {built}." if built else "."))
            section += para
            rows = [(c.name, c.meaning, c.unit or "—") for c in schema.columns]
            section += _table(("column", "meaning", "unit"), (22, 62, 16), rows)
            out.append(section)
        return out


def _fail_build(app: Sphinx, message: str) -> None:
    """One error line (``ERROR: <message>``) and a failing build, with or without ``-W``: an
    exception here would print Sphinx's "Extension error!" traceback instead."""
    LOGGER.error(message)
    app.statuscode = 1


def _check_api(app: Sphinx) -> None:
    missing = undocumented()
    if missing:
        _fail_build(app, "public modules or names without a docstring: " + ", ".join(missing))


def setup(app: Sphinx) -> dict:
    app.add_directive("config-reference", ConfigReference)
    app.add_directive("figure-catalog", FigureCatalog)
    app.add_directive("table-reference", TableReference)
    app.connect("builder-inited", _check_api)
    return {"version": "1", "parallel_read_safe": True}
