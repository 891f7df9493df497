"""The pipeline config: schema validation with one-line errors, semantic validation, and the
digests that make Snakemake rerun exactly the steps a config edit affects.

Validation happens before any job runs, in :func:`load_settings` (the
``Snakefile`` calls it once): first the JSON schema (``config.schema.yaml`` in the package: types,
ranges, unknown keys — an error names the key, with a close-match suggestion for a misspelt one;
it fills in every default), then :func:`validate_config` (unknown learner/adversary names,
impossible games, learners that refuse a game, the exact worst cases' sizes, the claim registry's
config keys).  Every error is a
:exc:`~onlinerank.schema_validation.ConfigError` whose message names the key and the value.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from .adversaries import ADVERSARIES, make_adversary
from .cells import STAGES, cell_game, cells_of, find_group, spec_params
from .claims import stages_of, validate_registry
from .config_file import output_dirs
from .figures import CLAIMS_TABLE, FIGURES
from .learners import LEARNERS, make_learner, paper_algorithm
from .provenance import config_digest
from .schema_validation import ConfigError, resolve_output_dirs, validate_schema
from .settings import typed_settings
from .tables import TABLE_STAGE
from .worst_case import DP_FAMILIES, _check_size, dp_learner
from .worst_case_tables import _max_n

if TYPE_CHECKING:
    from .settings import Settings

__all__ = [
    "ConfigError",
    "load_settings",
    "validate_schema",
    "validate_config",
    "validate_worst_case",
    "check_pipeline_sections",
    "resolve_output_dirs",
    "output_dirs",
    "config_digest",
    "section_digest",
    "group_digest",
]


def _fail(key: str, value, why: str) -> None:
    raise ConfigError(f"config error at {key}: {why} (got {value!r})")


def load_settings(config: dict, schema_path: str | Path | None = None) -> Settings:
    """Validate ``config`` and build its :class:`~onlinerank.settings.Settings` (design §layers:
    the config): the one validator, and the one way from a mapping to the settings.

    The schema's defaults are filled into ``config`` in place (Snakemake keeps reading that dict),
    then the semantic checks run; any error is a
    :exc:`~onlinerank.schema_validation.ConfigError` (``config error at <key>: ...``) naming
    the key and the value."""
    validate_schema(config, schema_path)
    return validate_config(config)


def validate_config(config: dict) -> Settings:
    """Semantic checks beyond the JSON schema, on a config the schema has validated and filled
    (:func:`load_settings` runs both); returns the typed
    :class:`~onlinerank.settings.Settings`; raises
    :exc:`~onlinerank.schema_validation.ConfigError` naming key and value.

    Instantiates every learner and adversary (unknown names, bad parameters) and builds every
    game (n < 2, k > n, k > n/2 for k-choice, T < 1, ...), checks the worst cases' sizes and the
    claim registry's config keys, so nothing runs on a bad config (design §layers).
    """
    for kind, registry, make in (
        ("learners", LEARNERS, make_learner),
        ("adversaries", ADVERSARIES, make_adversary),
    ):
        specs = config[kind]
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
    # --config strict=true arrives as the string "true"
    config["strict"] = config["strict"] in (True, "true")
    if config.get("worst_case"):  # its points are typed only once they are checked
        validate_worst_case(config["worst_case"], config["learners"])
    settings = typed_settings(config)
    for stage in STAGES:
        _validate_stage(config, settings, stage)
    _validate_runtime(config)
    _validate_grids(config)
    if settings.figure is not None:
        _validate_figure(settings, settings.figure)
    try:
        validate_registry(settings)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    return settings


def _validate_figure(settings: Settings, name: str) -> None:
    """The run option ``figure``: a figure of the catalog whose tables this config makes."""
    if name not in FIGURES:
        close = difflib.get_close_matches(name, sorted(FIGURES), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        _fail("figure", name, f"not a figure of the pipeline; {hint}known: {', '.join(sorted(FIGURES))}")
    present = stages_of(settings)
    absent = [t for t in FIGURES[name].tables if t != CLAIMS_TABLE and TABLE_STAGE[t] not in present]
    if absent:
        _fail("figure", name, f"reads {', '.join(absent)}, which this config does not make (section absent)")


def _validate_stage(config: dict, settings: Settings, stage: str) -> None:
    sec = config.get(stage)
    if sec is None:
        return
    bs = sec["block_size"]
    if isinstance(bs, bool) or not isinstance(bs, int) or bs < 1:
        _fail(f"{stage}.block_size", bs, "must be a positive integer")
    exps = sec["experiments"]
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
            ("adversaries", config["adversaries"]),
            ("learners", config["learners"]),
        ):
            labels = ex.get(key, [])
            if not labels:
                _fail(f"{where}.{key}", labels, "must list at least one label")
            for lab in labels:
                if lab not in pool:
                    _fail(f"{where}.{key}", lab, f"not defined under top-level '{key}'")
        for key in ("n", "k", "T"):
            vals = ex[key]
            if not vals:
                _fail(f"{where}.{key}", vals, "grid must not be empty")
            if len(set(vals)) != len(vals):
                _fail(f"{where}.{key}", vals, "grid values must be distinct")
        reps = ex.get("replicates")
        if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
            _fail(f"{where}.replicates", reps, "must be a positive integer")
    for cell in cells_of(settings, stage):
        where = f"{stage}.experiments[{cell.experiment}]"
        aspec = config["adversaries"][cell.adversary]
        adv = make_adversary(aspec["name"], **spec_params(aspec))
        if cell.family == "graded" and not adv.implements("M"):
            _fail(f"adversaries.{cell.adversary}", aspec["name"], "cannot state M for graded feedback")
        try:
            game = cell_game(settings, cell)
        except ValueError as e:
            _fail(where, (cell.n, cell.k, cell.T), str(e))
        try:
            adv.check(game)
            lspec = config["learners"][cell.learner]
            lrn = make_learner(lspec["name"], **spec_params(lspec))
            lrn.check(game)
        except ValueError as e:
            _fail(where, cell.adversary, str(e))


def _validate_grids(config: dict) -> None:
    """The exact tables' grids (theory §3.3, §4): a grid whose every point its table skips (no
    (n, k) with 2k <= n) would give a table without rows, and a k the builder refuses would fail
    the job; both are refused here, naming the key."""
    lb = config.get("lowerbound")
    if lb:
        cur = lb["curves"]
        if not any(2 * k <= n for n in cur["n"] for k in cur["k"]):
            why = "no cells: the table skips every (n, k) with 2k > n; add an n >= 2k"
            _fail("lowerbound.curves", {"n": cur["n"], "k": cur["k"]}, why)
        hc = lb["hc"]
        if not any(2 * hc["k"] <= n for n in hc["n"]):
            grid = {"n": hc["n"], "k": hc["k"]}
            _fail("lowerbound.hc", grid, "no cells: the table skips every n < 2k; add an n >= 2k")
        for part in ("abg", "frequencies"):  # the rule of lowerbound's functions
            n, k = lb[part]["n"], lb[part]["k"]
            if not 1 <= k <= n - 1:
                _fail(f"lowerbound.{part}.k", k, f"must lie in 1..n-1 = {n - 1} at n = {n}")
    bc = config.get("bound_comparison")
    if bc and "kchoice" in bc["families"]:
        for k in bc["k"]:
            if not any(2 * k <= n for n in bc["n"]):
                why = f"no cells: the k-choice sweep in n skips every n < 2k = {2 * k}"
                _fail("bound_comparison.k", k, why)
        ks = bc.get("k_sweep")
        if ks and not any(2 * k <= ks["n"] for k in ks["k"]):
            _fail("bound_comparison.k_sweep", ks, "no cells: the sweep in k skips every k > n/2")


def check_pipeline_sections(settings: Settings) -> None:
    """What the pipeline makes of a config that :func:`load_settings` accepted: every table of a
    configured section has cells (theory §3.4).  A ``worst_case`` section makes three tables, from
    its ``exact``, ``comparison`` and ``tightness`` points; one without points would be a table
    without rows and a figure that cannot be drawn, so the Snakefile refuses it before any work,
    naming the part (the package's own functions accept a section with one part)."""
    wc = settings.worst_case
    if wc is None:
        return
    comp, tight = wc.comparison, wc.tightness
    for key, points in (
        ("exact", wc.exact),
        ("comparison", [*comp.exact, *comp.search]),
        ("tightness", [*tight.exact, *tight.search]),
    ):
        if not points:
            _wc_fail(
                key,
                [],
                "no cells: the pipeline makes the tables worst_case, worst_case_learners and "
                "tightness of a worst_case section from its exact, comparison and tightness points; "
                "give each its points or leave out the section",
            )


def _validate_runtime(config: dict) -> None:
    """The timing section: known labels; a learner with ``max_partial_sample_n`` must offer
    ``sample_first_step()`` (the lower-bound timing of its draw)."""
    sec = config.get("runtime")
    if not sec:
        return
    learners = config["learners"]
    for lab in sec["learners"]:
        if lab not in learners:
            _fail("runtime.learners", lab, "not defined under top-level 'learners'")
    for key in ("max_n", "max_sample_n", "max_partial_sample_n"):
        for lab in sec[key]:
            if lab not in sec["learners"]:
                _fail(f"runtime.{key}", lab, "not one of runtime.learners")
    for lab, cap in sec["max_partial_sample_n"].items():
        if not LEARNERS[learners[lab]["name"]].implements("sample_first_step"):
            _fail(
                f"runtime.max_partial_sample_n.{lab}",
                cap,
                f"learner {learners[lab]['name']!r} cannot time a partial draw (no sample_first_step)",
            )


def section_digest(settings: Settings, *keys: str) -> str:
    """Digest of the named top-level config entries only (a step that reads just these reruns
    when one of them changes, and only then: the value is a Snakemake ``params``), from the
    settings' plain form (:meth:`~onlinerank.settings.Settings.as_config`; an absent entry is
    ``None``)."""

    def compute() -> str:
        config = settings.as_config()
        return config_digest({k: config.get(k) for k in keys})

    return settings.derived(("section_digest", keys), compute)


def group_digest(settings: Settings, group: str) -> str:
    """Digest of everything that determines the results of job directory ``group``: its cells
    (learner, horizon T, replicates, block size, sampling), the specs of its learners and
    adversary, the seed and the number of checkpoints.  Used as the ``params`` of the simulate
    rule, so that editing a grid, a learner or an adversary in the config reruns exactly the jobs
    it changes (Snakemake does not look inside the config by itself)."""

    def compute() -> str:
        cells = find_group(settings, group)
        return config_digest(
            {
                "cells": [asdict(c) for c in cells],
                "learners": {c.learner: settings.learner(c.learner) for c in cells},
                "adversary": settings.adversary(cells[0].adversary),
                "seed": settings.seed,
                "checkpoints": settings.checkpoints,
            }
        )

    return settings.derived(("group_digest", group), compute)


# --------------------------------------------------------------------------------------------
# The worst_case section (theory §3.4: the sizes of the exact dynamic programs)
# --------------------------------------------------------------------------------------------

_WORST_CASE_KEYS = ("exact", "family", "k", "max_states", "learners", "comparison", "tightness", "search")


def _wc_fail(key: str, value, why: str) -> None:
    _fail(f"worst_case.{key}" if key else "worst_case", value, why)


def _int(key: str, v, lo: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        _wc_fail(key, v, f"must be an integer >= {lo}")
    return v


def _ints(key: str, v, lo: int = 1) -> list[int]:
    if not isinstance(v, list) or not v:
        _wc_fail(key, v, "must be a non-empty list of integers")
    return [_int(key, x, lo) for x in v]


def _mapping(key: str, v, allowed: tuple[str, ...]) -> dict:
    if not isinstance(v, dict):
        _wc_fail(key, v, f"must be a mapping with keys among {', '.join(allowed)}")
    for x in v:
        if x not in allowed:
            _wc_fail(f"{key}.{x}" if key else x, v[x], f"unknown key; allowed: {', '.join(allowed)}")
    return v


def _points(key: str, v, T_list: bool) -> list[dict]:
    if not isinstance(v, list):
        _wc_fail(key, v, "must be a list of {n, T} points")
    for i, p in enumerate(v):
        _mapping(f"{key}[{i}]", p, ("n", "T"))
        if "n" not in p or "T" not in p:
            _wc_fail(f"{key}[{i}]", p, "needs n and T")
        _int(f"{key}[{i}].n", p["n"], 2)
        (_ints if T_list else _int)(f"{key}[{i}].T", p["T"])
    return v


def validate_worst_case(section: dict, learners: dict) -> None:
    """Check the ``worst_case`` section against :func:`onlinerank.worst_case.exact_worst_regret`'s
    rules (theory §3.4 DP sizes) before any work, as part of :func:`validate_config` (the one
    place that calls it); raises a one-line
    :exc:`~onlinerank.schema_validation.ConfigError` naming the key and the value.

    ``section`` is the config's ``worst_case`` with the schema's defaults filled in;
    ``learners`` is the config's ``learners`` mapping (label -> spec).  Checked: known keys,
    families in the package's vocabulary, integer sizes, every learner label known and with a
    law that is a function of S, registered adversaries that produce the family, and the
    estimated states of every DP instance against ``max_states``.
    """
    if not isinstance(section, dict):
        _wc_fail("", section, "must be a mapping (the former list of cases goes under worst_case.exact)")
    _mapping("", section, _WORST_CASE_KEYS)
    cap = section["max_states"]
    if isinstance(cap, bool) or not isinstance(cap, int | float) or not cap >= 1:
        _wc_fail("max_states", cap, "must be a number >= 1")
    _check_exact_cases(section["exact"], cap)
    fam = section["family"]
    if fam not in DP_FAMILIES:
        _wc_fail("family", fam, f"must be one of {', '.join(DP_FAMILIES)}")
    k = _int("k", section["k"])
    specs = _worst_case_learners(section["learners"], learners, fam, k)
    _check_comparison(section["comparison"], specs, fam, k, cap)
    _check_tightness(section["tightness"], fam, k, cap)
    srch = _mapping("search", section["search"], ("width", "max_evals"))
    for key in ("width", "max_evals"):
        _int(f"search.{key}", srch[key])


def _check_eta_factors(key: str, factors) -> None:
    for f in factors:
        if isinstance(f, bool) or not isinstance(f, int | float) or not 0 < f < math.inf:
            _wc_fail(key, f, "must be positive numbers")


def _check_exact_cases(cases: list, cap: float) -> None:
    """``worst_case.exact``: each case's keys, family, sizes, η factors and DP size."""
    for i, case in enumerate(cases):
        where = f"exact[{i}]"
        _mapping(where, case, ("family", "n", "k", "T", "eta_factor"))
        fam = case["family"]
        if fam not in DP_FAMILIES:
            _wc_fail(f"{where}.family", fam, f"must be one of {', '.join(DP_FAMILIES)}")
        n, k = _int(f"{where}.n", case["n"], 2), _int(f"{where}.k", case["k"])
        for T in _ints(f"{where}.T", case["T"]):
            _check_dp(f"{where}.T", paper_algorithm(), n, T, fam, k, cap)
        _check_eta_factors(f"{where}.eta_factor", case["eta_factor"])


def _worst_case_learners(labels, learners: dict, fam: str, k: int) -> dict:
    """``worst_case.learners``: known labels whose law is a function of S; label -> spec."""
    if not isinstance(labels, list):
        _wc_fail("learners", labels, "must be a list of learner labels")
    specs = {}
    for lab in labels:
        if lab not in learners:
            _wc_fail("learners", lab, f"unknown learner label; known: {', '.join(sorted(learners))}")
        specs[lab] = learners[lab]
        try:
            dp_learner(learners[lab], max(2 * k, 3), 2, fam, k)
        except ValueError as e:
            _wc_fail("learners", lab, str(e))
    return specs


def _check_comparison(comparison, specs: dict, fam: str, k: int, cap: float) -> None:
    """``worst_case.comparison``: its points, each learner's max_n and DP sizes, and adversaries
    that are registered and produce the family."""
    comp = _mapping("comparison", comparison, ("exact", "search", "adversaries", "max_n"))
    if (comp["exact"] or comp["search"]) and not specs:
        _wc_fail("learners", list(specs), "the comparison needs at least one learner")
    max_n = _mapping("comparison.max_n", comp["max_n"], tuple(specs) + _names(specs))
    for key, v in max_n.items():
        _int(f"comparison.max_n.{key}", v, 2)
    for i, p in enumerate(_points("comparison.exact", comp["exact"], T_list=False)):
        for lab, spec in specs.items():
            if p["n"] <= _max_n(max_n, lab, spec["name"]):
                _check_dp(f"comparison.exact[{i}].T", spec, p["n"], p["T"], fam, k, cap)
    _points("comparison.search", comp["search"], T_list=False)
    advs = comp["adversaries"]
    if not isinstance(advs, list):
        _wc_fail("comparison.adversaries", advs, "must be a list of registered adversary names")
    for a in advs:
        if a not in ADVERSARIES:
            _wc_fail(
                "comparison.adversaries", a, f"unknown adversary; known: {', '.join(sorted(ADVERSARIES))}"
            )
        if fam not in ADVERSARIES[a].families:
            _wc_fail("comparison.adversaries", a, f"does not produce {fam!r} feedback")


def _check_tightness(tightness, fam: str, k: int, cap: float) -> None:
    """``worst_case.tightness``: η factors, width, points and the DP size of its exact points."""
    tight = _mapping("tightness", tightness, ("eta_factor", "exact", "search", "width"))
    if "width" in tight:
        _int("tightness.width", tight["width"], 0)
    _check_eta_factors("tightness.eta_factor", tight["eta_factor"])
    for i, p in enumerate(_points("tightness.exact", tight["exact"], T_list=True)):
        for T in p["T"]:
            _check_dp(f"tightness.exact[{i}].T", paper_algorithm(), p["n"], T, fam, k, cap)
    _points("tightness.search", tight["search"], T_list=True)


def _names(specs: dict) -> tuple[str, ...]:
    return tuple(sorted({s["name"] for s in specs.values()}))


def _check_dp(key: str, learner, n: int, T: int, family: str, k: int, cap: float) -> None:
    try:
        _, lrn, law = dp_learner(learner, n, T, family, k)
        _check_size(n, T, family, k, law == "labelled", cap)
    except ValueError as e:
        name = learner if isinstance(learner, str) else learner["name"]
        _wc_fail(key, T, f"{name}: {e}")
