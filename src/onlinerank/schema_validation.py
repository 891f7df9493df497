"""The JSON-schema validator the project uses (the config, the claims document), imported without
the optional IRI syntax checker of its format module.

``jsonschema`` registers format checkers for the optional packages it finds at import.  One of
them, ``rfc3987_syntax`` (installed here as a dependency of Jupyter's), compiles 39 Lark grammars
when imported: 3-7 s on the machines this project is measured on, paid by every Snakemake start
(the Snakefile validates the config) and by the claims step.  The project's schemas use no
``format`` keyword and validate without a format checker, so the checker cannot change a result;
:func:`jsonschema` imports the validator with that one package hidden, then unhides it, so code
that imports it later gets it as usual."""

from __future__ import annotations

import sys
from types import ModuleType

__all__ = ["jsonschema", "SKIPPED_FORMAT_PACKAGE"]

#: the optional format package not loaded with the validator (its import costs seconds)
SKIPPED_FORMAT_PACKAGE = "rfc3987_syntax"


def jsonschema() -> ModuleType:
    """The ``jsonschema`` module, imported (on first use in a process) without the optional
    :data:`SKIPPED_FORMAT_PACKAGE`; if something imported either before, it is used as it is."""
    if "jsonschema" not in sys.modules and SKIPPED_FORMAT_PACKAGE not in sys.modules:
        sys.modules[SKIPPED_FORMAT_PACKAGE] = None  # type: ignore[assignment]  # "import" raises ImportError
        try:
            import jsonschema as module
        finally:
            del sys.modules[SKIPPED_FORMAT_PACKAGE]
        return module
    import jsonschema as module

    return module
