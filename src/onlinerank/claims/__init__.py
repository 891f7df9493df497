"""Every verdict is data: the claims of the paper, tested (design §verdicts).

* :mod:`.registry` — one entry per statement (stable id, section, statistic, threshold,
  direction, test, tables read, learners it is about);
* :mod:`.stats` — the intervals and the one verdict rule;
* builders, one module per part of the paper: :mod:`.upper`, :mod:`.lower`, :mod:`.section4`,
  :mod:`.spearman`, :mod:`.remarks`, :mod:`.runtime` — found like plug-ins: every submodule not
  starting with ``_`` is imported when the package is (:data:`MODULES`,
  :func:`onlinerank.registry.discover`), so a new claims module needs no import line;
* :mod:`.report` — the claims document (``claims.json``), its schema and its renderings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..settings import Settings

from ..registry import discover

#: every submodule of the package (imported, so that the claims modules register their claims)
MODULES = discover(__name__)

from .registry import REGISTRY, TABLE_STAGE, Claim, stages_of, validate_registry  # noqa: E402
from .report import (  # noqa: E402
    build_document,
    claims_markdown,
    document_json,
    flat_rows,
    summary_lines,
    validate_document,
)

__all__ = [
    "MODULES",
    "REGISTRY",
    "TABLE_STAGE",
    "Claim",
    "build_document",
    "claims_markdown",
    "document_json",
    "flat_rows",
    "stages_of",
    "summary_lines",
    "tables_needed",
    "validate_document",
    "validate_registry",
]


def tables_needed(settings: Settings) -> list[str]:
    """Tables read by the claims whose stages are configured (inputs of the claims step)."""
    present = stages_of(settings)
    out = set()
    for c in REGISTRY.values():
        if c.section != "not-tested" and set(c.stages) <= present:
            out |= set(c.reads) | {t for t in c.optional if TABLE_STAGE[t] in present}
    return sorted(out)
