"""Reading a config file: YAML in which a key given twice in one mapping is an error.

YAML's loaders — PyYAML's and Snakemake's, which reads the files named by ``--configfile`` — keep
the last of two equal keys of a mapping, so a second ``adversaries:`` or ``upper:`` block would
replace the first and its experiments vanish without a word.  :func:`read_config` refuses such a
file, at any depth, with one line naming the file, the key and both lines:
``config error in config/x.yaml, line 40: key 'upper' given twice in one mapping (first at line
12) ...``.  A YAML merge key (``<<: *anchor``) may still be overridden by an explicit key: that is
YAML's own rule, not a repetition.

The ``Snakefile`` checks the files Snakemake read (:func:`check_config_files`) before it validates
the config; :func:`output_dirs` and ``onlinerank.tiers`` read with
:func:`read_config`.  Only ``yaml`` is imported: nothing of the engine.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from .schema_validation import ConfigError, resolve_output_dirs
from .settings import yaml_safe_loader

__all__ = ["load_yaml", "read_config", "check_config_files", "output_dirs"]


def _loader(name: str) -> type:
    """A safe YAML loader that refuses a key given twice in one mapping, naming ``name``
    (:func:`~onlinerank.settings.yaml_safe_loader`'s parser, the checks in Python)."""

    class UniqueKeyLoader(yaml_safe_loader()):  # type: ignore[misc]
        def construct_mapping(self, node, deep=False):
            first: dict[Any, int] = {}
            for key_node, _ in node.value:
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node)
                line = key_node.start_mark.line + 1
                if key in first:
                    raise ConfigError(
                        f"config error in {name}, line {line}: key {key!r} given twice in one mapping "
                        f"(first at line {first[key]}); the second would replace the first: merge "
                        "them into one"
                    )
                first[key] = line
            return super().construct_mapping(node, deep)

    return UniqueKeyLoader


def load_yaml(text: str, name: str = "<config>") -> Any:
    """The YAML document ``text`` (safe types only), refusing a key given twice in one mapping
    with a :exc:`~onlinerank.schema_validation.ConfigError` naming ``name`` (the file) and both
    lines; malformed YAML is a ``ConfigError`` naming ``name`` and the line too."""
    try:
        loader = _loader(name)(text)  # a SafeLoader subclass: safe types only
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark
        where = f", line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"config error in {name}{where}: not valid YAML ({e.problem})") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"config error in {name}: not valid YAML ({e})") from None


def read_config(path: str | os.PathLike) -> dict:
    """The config file ``path`` as a dict (an empty file: ``{}``), read by :func:`load_yaml`;
    a document that is not a mapping is a ``ConfigError`` naming the file."""
    config = load_yaml(Path(path).read_text(encoding="utf-8"), os.fspath(path))
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise ConfigError(f"config error in {os.fspath(path)}: not a mapping of keys to values")
    return config


def check_config_files(paths: Iterable[str | os.PathLike]) -> None:
    """Read every config file of ``paths`` (the files Snakemake loaded), raising the first
    :exc:`~onlinerank.schema_validation.ConfigError` (a key given twice, malformed YAML)."""
    for path in paths:
        read_config(path)


def output_dirs(path: str | os.PathLike) -> tuple[str, str]:
    """``(results_dir, figures_dir)`` of the config file ``path`` as the pipeline resolves them
    (read by :func:`read_config`: a key given twice is an error)."""
    config = read_config(path)
    resolve_output_dirs(config)
    return config["results_dir"], config["figures_dir"]
