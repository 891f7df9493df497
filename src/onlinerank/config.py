"""The pipeline config: schema validation with one-line errors, semantic validation, and the
digests that make Snakemake rerun exactly the steps a config edit affects.

Validation happens before any job runs (``Snakefile``): first the JSON schema
(``workflow/schemas/config.schema.yaml``: types, ranges, unknown keys — an error names the key,
with a close-match suggestion for a misspelt one), then :func:`validate_config` (unknown
learner/adversary names, impossible games, learners that refuse a game, the claim registry's
config keys).  Every error is a :class:`ConfigError` whose message names the key and the value.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import asdict
from pathlib import Path

from .adversaries import ADVERSARIES, make_adversary
from .cells import STAGES, cell_game, cells_of, find_group, spec_params
from .learners import LEARNERS, make_learner
from .provenance import config_digest

__all__ = [
    "ConfigError",
    "validate_schema",
    "validate_config",
    "resolve_output_dirs",
    "output_dirs",
    "config_digest",
    "section_digest",
    "group_digest",
]


class ConfigError(ValueError):
    """An invalid configuration value; the message names the key and the value."""


def _fail(key: str, value, why: str) -> None:
    raise ConfigError(f"config error at {key}: {why} (got {value!r})")


def _short(value, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def validate_schema(config: dict, schema_path: str | Path) -> None:
    """Validate ``config`` against the JSON schema (YAML file) and fill in its defaults.

    Raises :class:`ConfigError` with one line naming the offending key (``a.b[2].c``); for an
    unknown key it suggests the closest allowed one.
    """
    import jsonschema
    import yaml

    schema = yaml.safe_load(Path(schema_path).read_text())
    validator_cls = jsonschema.validators.validator_for(schema)

    def set_defaults(validator, properties, instance, schema_):
        if isinstance(instance, dict):
            for key, sub in properties.items():
                if isinstance(sub, dict) and "default" in sub:
                    instance.setdefault(key, sub["default"])
        yield from validator_cls.VALIDATORS["properties"](validator, properties, instance, schema_)

    filling = jsonschema.validators.extend(validator_cls, {"properties": set_defaults})
    err = jsonschema.exceptions.best_match(filling(schema).iter_errors(config))
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
    running one part of the pipeline never overwrites the repository's figures."""
    results = config.setdefault("results_dir", "results")
    figures = config.get("figures_dir", RESULTS_DIR_FIELD + "/figures")
    config["figures_dir"] = figures.replace(RESULTS_DIR_FIELD, results)


def output_dirs(path: str | os.PathLike) -> tuple[str, str]:
    """``(results_dir, figures_dir)`` of the config file ``path`` as the pipeline resolves them."""
    import yaml

    config = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(config, dict):
        raise ConfigError(f"config error in {path}: not a mapping of keys to values")
    resolve_output_dirs(config)
    return config["results_dir"], config["figures_dir"]


def validate_config(config: dict) -> None:
    """Semantic checks beyond the JSON schema; raises :class:`ConfigError` naming key and value.

    Instantiates every learner and adversary (unknown names, bad parameters) and builds every
    game (n < 2, k > n, k > n/2 for k-choice, T < 1, ...), checks the claim registry's config
    keys, so nothing runs on a bad config.
    """
    for kind, registry, make in (
        ("learners", LEARNERS, make_learner),
        ("adversaries", ADVERSARIES, make_adversary),
    ):
        specs = config.get(kind, {})
        if not isinstance(specs, dict):
            _fail(kind, specs, "must be a mapping of label -> {name: ..., params}")
        for label, spec in specs.items():
            if not isinstance(spec, dict) or "name" not in spec:
                _fail(f"{kind}.{label}", spec, "must be a mapping with a 'name'")
            if spec["name"] not in registry:
                close = difflib.get_close_matches(spec["name"], sorted(registry), n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                _fail(
                    f"{kind}.{label}.name",
                    spec["name"],
                    f"unknown {kind[:-1] if kind == 'learners' else 'adversary'}; {hint}known: "
                    f"{', '.join(sorted(registry))}",
                )
            try:
                make(spec["name"], **spec_params(spec))
            except (TypeError, ValueError) as e:
                _fail(f"{kind}.{label}", spec, str(e))
    if "strict" in config:  # --config strict=true arrives as the string "true"
        config["strict"] = config["strict"] in (True, "true")
    for stage in STAGES:
        _validate_stage(config, stage)
    _validate_runtime(config)
    if config.get("worst_case"):
        from .worst_case_tables import validate_worst_case

        try:
            validate_worst_case(config["worst_case"], config.get("learners", {}))
        except ValueError as e:
            raise ConfigError(str(e)) from None
    from .claims import validate_registry

    try:
        validate_registry(config)
    except ValueError as e:
        raise ConfigError(str(e)) from None


def _validate_stage(config: dict, stage: str) -> None:
    sec = config.get(stage)
    if sec is None:
        return
    bs = sec.get("block_size", 32)
    if isinstance(bs, bool) or not isinstance(bs, int) or bs < 1:
        _fail(f"{stage}.block_size", bs, "must be a positive integer")
    exps = sec.get("experiments", [])
    if not exps:
        _fail(f"{stage}.experiments", exps, "needs at least one experiment")
    names = set()
    for i, ex in enumerate(exps):
        where = f"{stage}.experiments[{i}]"
        name = ex.get("name")
        if name in names:
            _fail(f"{where}.name", name, "duplicate experiment name")
        names.add(name)
        for key, pool in (
            ("adversaries", config.get("adversaries", {})),
            ("learners", config.get("learners", {})),
        ):
            labels = ex.get(key, [])
            if not labels:
                _fail(f"{where}.{key}", labels, "must list at least one label")
            for lab in labels:
                if lab not in pool:
                    _fail(f"{where}.{key}", lab, f"not defined under top-level '{key}'")
        for key in ("n", "k", "T"):
            vals = ex.get(key, [1] if key == "k" else [])
            if not vals:
                _fail(f"{where}.{key}", vals, "grid must not be empty")
            if len(set(vals)) != len(vals):
                _fail(f"{where}.{key}", vals, "grid values must be distinct")
        reps = ex.get("replicates")
        if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
            _fail(f"{where}.replicates", reps, "must be a positive integer")
    for cell in cells_of(config, stage):
        where = f"{stage}.experiments[{cell.experiment}]"
        aspec = config["adversaries"][cell.adversary]
        adv = make_adversary(aspec["name"], **spec_params(aspec))
        if cell.family == "graded" and not adv.implements("M"):
            _fail(f"adversaries.{cell.adversary}", aspec["name"], "cannot state M for graded feedback")
        try:
            game = cell_game(config, cell)
        except ValueError as e:
            _fail(where, (cell.n, cell.k, cell.T), str(e))
        try:
            adv.check(game)
            lspec = config["learners"][cell.learner]
            lrn = make_learner(lspec["name"], **spec_params(lspec))
            lrn.check(game)
        except ValueError as e:
            _fail(where, cell.adversary, str(e))


def _validate_runtime(config: dict) -> None:
    """The timing section: known labels; a learner with ``max_partial_sample_n`` must offer
    ``sample_first_step()`` (the lower-bound timing of its draw)."""
    sec = config.get("runtime")
    if not sec:
        return
    learners = config.get("learners", {})
    for lab in sec.get("learners", []):
        if lab not in learners:
            _fail("runtime.learners", lab, "not defined under top-level 'learners'")
    for key in ("max_n", "max_sample_n", "max_partial_sample_n"):
        for lab in sec.get(key, {}):
            if lab not in sec.get("learners", []):
                _fail(f"runtime.{key}", lab, "not one of runtime.learners")
    for lab, cap in sec.get("max_partial_sample_n", {}).items():
        if not LEARNERS[learners[lab]["name"]].implements("sample_first_step"):
            _fail(
                f"runtime.max_partial_sample_n.{lab}",
                cap,
                f"learner {learners[lab]['name']!r} cannot time a partial draw (no sample_first_step)",
            )


def section_digest(config: dict, *keys: str) -> str:
    """Digest of the named top-level config entries only (a step that reads just these reruns
    when one of them changes, and only then: the value is a Snakemake ``params``)."""
    return config_digest({k: config.get(k) for k in keys})


def group_digest(config: dict, group: str) -> str:
    """Digest of everything that determines the results of job directory ``group``: its cells
    (learner, horizon T, replicates, block size, sampling), the specs of its learners and
    adversary, the seed and the number of checkpoints.  Used as the ``params`` of the simulate
    rule, so that editing a grid, a learner or an adversary in the config reruns exactly the jobs
    it changes (Snakemake does not look inside the config by itself)."""
    cells = find_group(config, group)
    return config_digest(
        {
            "cells": [asdict(c) for c in cells],
            "learners": {c.learner: config["learners"][c.learner] for c in cells},
            "adversary": config["adversaries"][cells[0].adversary],
            "seed": config["seed"],
            "checkpoints": config.get("checkpoints", 12),
        }
    )
