"""The pipeline's settings: the config as frozen dataclasses, validated and built once.

:func:`onlinerank.config.load_settings` is the one way from a config mapping to
:class:`Settings`: the JSON schema (``config.schema.yaml`` next to this module) checks types,
ranges and unknown keys and fills in its defaults, :func:`onlinerank.config.validate_config`
makes the semantic checks (learners, adversaries, games, worst cases, the claim registry's keys),
then the typed object is built.  Every default lives in the schema only: code reads the typed
field (``settings.checkpoints``, ``stage.block_size``, ``settings.runtime.fit_min_n``), never
``config.get(key, default)``.  Snakemake keeps its ``config`` dict (filled in place by the same
call); code given a dict goes through :func:`as_settings`, which types it once per process and
config.  This module imports nothing of the engine and never the semantic checks, so the steps
that read settings (claims, figures) do not depend on the engine's code.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass
from types import MappingProxyType
from typing import Any

from .provenance import config_digest
from .schema_validation import SCHEMA_PATH, validate_schema

__all__ = [
    "STAGES",
    "SCHEMA_PATH",
    "Spec",
    "Experiment",
    "Stage",
    "Runtime",
    "Margins",
    "ClaimSettings",
    "Lemma61",
    "BoundComparison",
    "WorstCase",
    "Settings",
    "as_settings",
    "pipeline_settings",
    "setting_value",
]

#: the simulation stages of the pipeline, config sections with ``block_size``, ``split`` and
#: ``experiments`` (one table ``sim_<stage>`` each)
STAGES = ("upper", "lower", "baselines", "spearman")


def _frozen(value: Any) -> Any:
    """A read-only deep copy: mappings as ``MappingProxyType``, lists as tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def _thawed(value: Any) -> Any:
    """Plain dicts and lists again (what constructors and digests take)."""
    if isinstance(value, Mapping):
        return {k: _thawed(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thawed(v) for v in value]
    return value


@dataclass(frozen=True)
class Spec:
    """A learner or adversary of the config: its kind (``learners`` or ``adversaries``), label,
    registered name and constructor parameters (the entry's other keys, as given)."""

    kind: str
    label: str
    name: str
    params: Mapping[str, Any]

    def as_dict(self) -> dict:
        """The config entry ``{name: ..., **params}`` (what ``make_learner`` and digests take)."""
        return {"name": self.name, **_thawed(self.params)}

    def param(self, key: str) -> Any:
        """Constructor parameter ``key``: as given, else the registered class's own default (its
        ``__init__`` signature: the one place a learner's or adversary's defaults live);
        ``KeyError`` if the constructor has no such parameter (theory §5)."""
        if key in self.params:
            return self.params[key]
        # lazy: the plug-ins load the engine, which the steps reading settings must not depend on
        from .adversaries import ADVERSARIES
        from .learners import LEARNERS

        cls = (LEARNERS if self.kind == "learners" else ADVERSARIES)[self.name]
        default = inspect.signature(cls.__init__).parameters[key].default
        if default is inspect.Parameter.empty:
            raise KeyError(key)
        return default


@dataclass(frozen=True)
class Experiment:
    """One experiment of a simulation stage: its grid of (adversary, learner, n, k, T)."""

    name: str
    family: str
    adversaries: tuple[str, ...]
    learners: tuple[str, ...]
    n: tuple[int, ...]
    k: tuple[int, ...]
    T: tuple[int, ...]
    replicates: int
    sample: bool
    #: compute the cells of an adversary with a closed-form regret instead of simulating them
    #: (theory §4.6)
    closed_form: bool


@dataclass(frozen=True)
class Stage:
    """A simulation stage (upper, lower, baselines, spearman): replicates per job, the cell keys
    that separate jobs, and its experiments."""

    name: str
    block_size: int
    split: tuple[str, ...]
    experiments: tuple[Experiment, ...]


@dataclass(frozen=True)
class Runtime:
    """The timing section and the thresholds of the timing claims."""

    learners: tuple[str, ...]
    n: tuple[int, ...]
    max_n: Mapping[str, int]
    max_sample_n: Mapping[str, int]
    max_partial_sample_n: Mapping[str, int]
    seconds_per_point: float
    fit_min_n: int
    repeats: int
    processes: int
    onlinerank_max_excess_exponent: float
    permelearn_min_exponent: float
    speedup: float


@dataclass(frozen=True)
class Margins:
    """Equivalence margins of the claims that state an equality."""

    lemma61: float
    samplers: float
    every_algorithm: float
    exact_formula: float
    binomial: float


@dataclass(frozen=True)
class ClaimSettings:
    """Thresholds of the claims that are not numbers of the paper."""

    alpha: float
    margins: Margins
    exponent_tolerance: float


@dataclass(frozen=True)
class Lemma61:
    """The sampled test of Lemma 6.1's pairwise marginals."""

    n: int
    samples: int
    pairs: int


@dataclass(frozen=True)
class BoundComparison:
    """The Section 4 comparison-bound table."""

    families: tuple[str, ...]
    n: tuple[int, ...]
    k: tuple[int, ...]
    k_sweep: Mapping[str, Any] | None
    T_factor: float


@dataclass(frozen=True)
class WorstCase:
    """Exact worst cases and the search adversary.  The nested grids stay read-only mappings with
    every key the schema defaults (``exact`` cases: family, n, k, T, eta_factor; ``comparison``:
    exact, search, adversaries, max_n; ``tightness``: eta_factor, exact, search); their builders
    in :mod:`onlinerank.worst_case_tables` read them as the schema states.  ``tightness_width`` is
    ``tightness.width`` if given, else ``search_width`` (the schema's stated fallback)."""

    exact: tuple[Mapping[str, Any], ...]
    family: str
    k: int
    max_states: float
    learners: tuple[str, ...]
    comparison: Mapping[str, Any]
    tightness: Mapping[str, Any]
    search_width: int
    max_evals: int
    tightness_width: int
    section: Mapping[str, Any]


@dataclass(frozen=True)
class Settings:
    """The validated config.  ``stages`` holds the simulation stages present; an absent section
    is ``None`` (its steps do not run).  ``config`` is the validated mapping itself, read-only
    (digests and the table builders' arguments)."""

    seed: int
    results_dir: str
    figures_dir: str
    checkpoints: int
    learners: Mapping[str, Spec]
    adversaries: Mapping[str, Spec]
    stages: Mapping[str, Stage]
    lowerbound: Mapping[str, Any] | None
    worst_case: WorstCase | None
    lemma61: Lemma61 | None
    runtime: Runtime | None
    bound_comparison: BoundComparison | None
    claims: ClaimSettings
    strict: bool
    config: Mapping[str, Any]

    def learner(self, label: str) -> dict:
        """The config entry of learner ``label`` (``{name: ..., **params}``)."""
        return self.learners[label].as_dict()

    def adversary(self, label: str) -> dict:
        """The config entry of adversary ``label`` (``{name: ..., **params}``)."""
        return self.adversaries[label].as_dict()

    def learner_dicts(self) -> dict[str, dict]:
        """Every learner entry by label (the plotting helpers' ``learners``)."""
        return {lab: s.as_dict() for lab, s in self.learners.items()}


def _specs(kind: str, section: Mapping) -> MappingProxyType:
    return MappingProxyType(
        {
            label: Spec(kind, label, spec["name"], _frozen({k: v for k, v in spec.items() if k != "name"}))
            for label, spec in section.items()
        }
    )


def _stage(name: str, sec: Mapping) -> Stage:
    return Stage(
        name=name,
        block_size=int(sec["block_size"]),
        split=tuple(sec["split"]),
        experiments=tuple(
            Experiment(
                name=ex["name"],
                family=ex["family"],
                adversaries=tuple(ex["adversaries"]),
                learners=tuple(ex["learners"]),
                n=tuple(int(x) for x in ex["n"]),
                k=tuple(int(x) for x in ex["k"]),
                T=tuple(int(x) for x in ex["T"]),
                replicates=int(ex["replicates"]),
                sample=bool(ex["sample"]),
                closed_form=bool(ex["closed_form"]),
            )
            for ex in sec["experiments"]
        ),
    )


def _runtime(sec: Mapping) -> Runtime:
    return Runtime(
        learners=tuple(sec["learners"]),
        n=tuple(int(x) for x in sec["n"]),
        max_n=_frozen(sec["max_n"]),
        max_sample_n=_frozen(sec["max_sample_n"]),
        max_partial_sample_n=_frozen(sec["max_partial_sample_n"]),
        seconds_per_point=float(sec["seconds_per_point"]),
        fit_min_n=int(sec["fit_min_n"]),
        repeats=int(sec["repeats"]),
        processes=int(sec["processes"]),
        onlinerank_max_excess_exponent=float(sec["onlinerank_max_excess_exponent"]),
        permelearn_min_exponent=float(sec["permelearn_min_exponent"]),
        speedup=float(sec["speedup"]),
    )


def _worst_case(sec: Mapping) -> WorstCase:
    search, tight = sec["search"], sec["tightness"]
    return WorstCase(
        exact=_frozen(sec["exact"]),
        family=sec["family"],
        k=int(sec["k"]),
        max_states=sec["max_states"],
        learners=tuple(sec["learners"]),
        comparison=_frozen(sec["comparison"]),
        tightness=_frozen(tight),
        search_width=int(search["width"]),
        max_evals=int(search["max_evals"]),
        # not a default of its own: the schema states that tightness.width falls back to search.width
        tightness_width=int(tight["width"] if "width" in tight else search["width"]),
        section=_frozen(sec),
    )


def _typed(config: Mapping) -> Settings:
    """The typed object of a config the schema has validated and filled (no default here)."""
    claims = config["claims"]
    bc = config.get("bound_comparison")
    lemma = config.get("lemma61")
    return Settings(
        seed=int(config["seed"]),
        results_dir=config["results_dir"],
        figures_dir=config["figures_dir"],
        checkpoints=int(config["checkpoints"]),
        learners=_specs("learners", config["learners"]),
        adversaries=_specs("adversaries", config["adversaries"]),
        stages=MappingProxyType({s: _stage(s, config[s]) for s in STAGES if config.get(s)}),
        lowerbound=_frozen(config["lowerbound"]) if config.get("lowerbound") else None,
        worst_case=_worst_case(config["worst_case"]) if config.get("worst_case") else None,
        lemma61=Lemma61(int(lemma["n"]), int(lemma["samples"]), int(lemma["pairs"])) if lemma else None,
        runtime=_runtime(config["runtime"]) if config.get("runtime") else None,
        bound_comparison=(
            BoundComparison(
                families=tuple(bc["families"]),
                n=tuple(int(x) for x in bc["n"]),
                k=tuple(int(x) for x in bc["k"]),
                k_sweep=_frozen(bc["k_sweep"]) if "k_sweep" in bc else None,
                T_factor=float(bc["T_factor"]),
            )
            if bc
            else None
        ),
        claims=ClaimSettings(
            alpha=float(claims["alpha"]),
            margins=Margins(**{f.name: float(claims["margins"][f.name]) for f in fields(Margins)}),
            exponent_tolerance=float(claims["exponent_tolerance"]),
        ),
        strict=config["strict"] in (True, "true"),
        config=_frozen(config),
    )


#: settings already built in this process, by config digest
_BUILT: dict[str, Settings] = {}


def _key(config: Mapping) -> str:
    return config_digest(dict(config)) + repr(config.get("strict"))


def as_settings(config: Settings | Mapping) -> Settings:
    """``config`` itself if it is already :class:`Settings`; else the typed object of a config
    mapping, built once per process and config (theory §5).  A mapping that
    :func:`onlinerank.config.load_settings` has validated and filled (the ``Snakefile`` does so
    before any job runs) is typed as it is; any other is first checked against the schema and
    filled with its defaults, on a copy (:func:`onlinerank.schema_validation.validate_schema`).
    The semantic checks of ``load_settings`` stay out of this module on purpose: they import the
    engine, and every step that reads settings (the claims, the figures) would then depend on it."""
    if isinstance(config, Settings):
        return config
    key = _key(config)
    if key not in _BUILT:
        try:
            _BUILT[key] = _typed(config)
        except KeyError:  # not filled by the schema yet
            filled = copy.deepcopy(dict(config))
            validate_schema(filled)
            _BUILT[key] = _typed(filled)
    return _BUILT[key]


def pipeline_settings(config: Mapping) -> Settings:
    """The settings of a pipeline job's ``snakemake.config``, which the ``Snakefile`` validated
    and filled before any job ran (:func:`as_settings`; theory §5).  Called by
    :func:`onlinerank.pipeline.run` for every step."""
    return as_settings(config)


def setting_value(settings: Settings, key: str) -> Any:
    """The value at dotted ``key`` (``claims.margins.lemma61``, ``runtime.speedup``): attributes
    of the typed object, then keys of its read-only mappings; ``KeyError`` if absent (theory §5)."""
    node: Any = settings
    for part in key.split("."):
        if is_dataclass(node) and not isinstance(node, type) and part in {f.name for f in fields(node)}:
            node = getattr(node, part)
        elif isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, Settings) and part in node.config:
            node = node.config[part]
        else:
            raise KeyError(key)
        if node is None:
            raise KeyError(key)
    return node
