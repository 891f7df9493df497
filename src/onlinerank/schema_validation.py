"""The config's JSON-schema check (types, ranges, unknown keys; the schema's defaults filled in),
with one-line errors, and the validator it uses (also for the claims document), imported without
the optional IRI syntax checker of its format module.  Nothing of the engine is imported here.

``jsonschema`` registers format checkers for the optional packages it finds at import.  One of
them, ``rfc3987_syntax`` (installed here as a dependency of Jupyter's), compiles 39 Lark grammars
when imported: 3-7 s on the machines this project is measured on, paid by every Snakemake start
(the Snakefile validates the config) and by the claims step.  The project's schemas use no
``format`` keyword and validate without a format checker, so the checker cannot change a result;
:func:`jsonschema` imports the validator with that one package hidden, then unhides it, so code
that imports it later gets it as usual."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path
from types import ModuleType

from .settings import load_schema, schema_default

__all__ = [
    "jsonschema",
    "SKIPPED_FORMAT_PACKAGE",
    "ConfigError",
    "validate_schema",
    "RESULTS_DIR_FIELD",
    "resolve_output_dirs",
]

#: the optional format package not loaded with the validator (its import costs seconds)
SKIPPED_FORMAT_PACKAGE = "rfc3987_syntax"


def jsonschema() -> ModuleType:
    """The ``jsonschema`` module, imported (on first use in a process) without the optional
    :data:`SKIPPED_FORMAT_PACKAGE`; if something imported either before, it is used as it is."""
    hide = "jsonschema" not in sys.modules and SKIPPED_FORMAT_PACKAGE not in sys.modules
    if hide:
        sys.modules[SKIPPED_FORMAT_PACKAGE] = None  # type: ignore[assignment]  # "import" raises ImportError
    try:
        import jsonschema as module  # lazy: imported with the format package hidden (module docstring)
    finally:
        if hide:
            del sys.modules[SKIPPED_FORMAT_PACKAGE]
    return module


class ConfigError(ValueError):
    """An invalid configuration value; the message names the key and the value."""


def _short(value, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def validate_schema(config: dict, schema_path: str | Path | None = None) -> None:
    """Validate ``config`` against the JSON schema (YAML file) and fill in its defaults.

    Raises :class:`ConfigError` with one line naming the offending key (``a.b[2].c``); for an
    unknown key it suggests the closest allowed one.
    """
    js = jsonschema()
    schema = load_schema(schema_path)
    validator_cls = js.validators.validator_for(schema)

    def set_defaults(validator, properties, instance, schema_):
        if isinstance(instance, dict):
            for key, sub in properties.items():
                if isinstance(sub, dict) and "default" in sub:
                    instance.setdefault(key, sub["default"])
        yield from validator_cls.VALIDATORS["properties"](validator, properties, instance, schema_)

    filling = js.validators.extend(validator_cls, {"properties": set_defaults})
    err = js.exceptions.best_match(filling(schema).iter_errors(config))
    if err is None:
        resolve_output_dirs(config)
        return
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path).lstrip(".")
    if err.validator == "additionalProperties":
        allowed = sorted(err.schema.get("properties", {}))
        extra = sorted(set(err.instance) - set(allowed))
        key = extra[0] if extra else "?"
        close = difflib.get_close_matches(key, allowed, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f"; allowed: {', '.join(allowed)}"
        at = f"{where}.{key}" if where else key
        raise ConfigError(f"config error at {at}: unknown key{hint}")
    if err.validator == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        at = f"{where}.{missing}" if where else missing
        raise ConfigError(f"config error at {at}: required key is missing")
    raise ConfigError(
        f"config error at {where or '(top level)'}: {err.message.splitlines()[0]} "
        f"(got {_short(err.instance)})"
    )


#: what ``figures_dir`` may say for the config's ``results_dir`` (the schema's default uses it)
RESULTS_DIR_FIELD = "{results_dir}"


def resolve_output_dirs(config: dict) -> None:
    """Write the config's ``results_dir`` into its ``figures_dir`` where that says
    ``{results_dir}`` (the schema's default ``"{results_dir}/figures"``): only a config that names
    ``figures_dir`` itself (the default tier: ``figures``, the tracked folder) writes elsewhere, so
    running one part of the pipeline never overwrites the repository's figures.  A key the config
    leaves out takes the schema's default."""
    for key in ("results_dir", "figures_dir"):
        if key not in config:
            config[key] = schema_default(key)
    config["figures_dir"] = config["figures_dir"].replace(RESULTS_DIR_FIELD, config["results_dir"])
