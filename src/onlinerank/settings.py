"""The pipeline's settings: the config as frozen dataclasses, every section typed.

:func:`onlinerank.config.load_settings` is the one way from a config mapping to
:class:`Settings`: the JSON schema (``config.schema.yaml`` next to this module) checks types,
ranges and unknown keys and fills in its defaults, :func:`onlinerank.config.validate_config`
makes the semantic checks (learners, adversaries, games, worst cases, the claim registry's keys),
then :func:`typed_settings` builds the typed object.  Every default lives in the schema only:
code reads the typed field (``settings.checkpoints``, ``stage.block_size``,
``settings.runtime.fit_min_n``), never ``config.get(key, default)``.

After validation nothing reads the config mapping: a step of the pipeline is handed
:class:`Settings` or the part it needs.  A pipeline job's config was validated and filled by the
``Snakefile`` before any job ran, so the job types it directly
(:func:`onlinerank.pipeline.job_settings`, which calls :func:`typed_settings`); a mapping that was
never validated (a notebook, a test) goes through :func:`onlinerank.config.load_settings`, and
:func:`typed_settings` refuses it, naming the missing key.  The digests hash the canonical plain
form, :meth:`Settings.as_config` (the validated config, rebuilt from the typed fields), and a
dotted key (a claim's threshold ``claims.margins.lemma61``) is resolved by :func:`setting_value`
alone.

This module imports nothing of the package at module level and never the semantic checks, so the
steps that read settings (claims, figures) do not depend on the engine's code.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

__all__ = [
    "STAGES",
    "SCHEMA_PATH",
    "load_schema",
    "yaml_safe_loader",
    "Spec",
    "Experiment",
    "Stage",
    "Horizons",
    "Curves",
    "HcGrid",
    "Route",
    "Frequencies",
    "LowerBound",
    "ExactCase",
    "Point",
    "HorizonsPoint",
    "Comparison",
    "Tightness",
    "Search",
    "WorstCase",
    "Runtime",
    "Margins",
    "ClaimSettings",
    "Lemma61",
    "KSweep",
    "BoundComparison",
    "Settings",
    "typed_settings",
    "setting_value",
    "schema_default",
]

#: the config's JSON schema, a YAML file with the types, ranges, descriptions and every default
SCHEMA_PATH = Path(__file__).with_name("config.schema.yaml")

#: the simulation stages of the pipeline, config sections with ``block_size``, ``split`` and
#: ``experiments`` (one table ``sim_<stage>`` each)
STAGES = ("upper", "lower", "baselines", "spearman")

#: a field that is not a key of the config (the name of a stage, which is its key's name)
_NOT_A_KEY = {"config_key": False}
_T = TypeVar("_T")


def _frozen(value: Any) -> Any:
    """A read-only deep copy: mappings as ``MappingProxyType``, lists as tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def _plain(value: Any) -> Any:
    """The config's plain form of a typed value: dataclasses as dicts of their config keys (a
    field that is ``None`` is a key the config leaves out), mappings as dicts, tuples as lists."""
    if isinstance(value, Spec):
        return value.as_dict()
    if is_dataclass(value) and not isinstance(value, type):
        out = {}
        for f in fields(value):
            v = getattr(value, f.name)
            if f.metadata.get("config_key", True) and v is not None:
                out[f.name] = _plain(v)
        return out
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _record(cls: type, section: Mapping, **parts: Any) -> Any:
    """``cls`` built from a config section whose keys are its fields (values as validated, lists as
    tuples, mappings read-only); ``parts``: the fields built otherwise (nested records)."""
    return cls(**{key: _frozen(v) for key, v in section.items() if key not in parts}, **parts)


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
        return {"name": self.name, **_plain(self.params)}

    def param(self, key: str) -> Any:
        """Constructor parameter ``key``: as given, else the registered class's own default (its
        ``__init__`` signature: the one place a learner's or adversary's defaults live);
        ``KeyError`` if the constructor has no such parameter (design §layers)."""
        if key in self.params:
            return self.params[key]
        # lazy: the registries import every plug-in, which the settings' readers do not need
        from .adversaries import ADVERSARIES
        from .learners import LEARNERS

        cls = (LEARNERS if self.kind == "learners" else ADVERSARIES)[self.name]
        default = inspect.signature(cls.__init__).parameters[key].default
        if default is inspect.Parameter.empty:
            raise KeyError(key)
        return default


# --------------------------------------------------------------------------------------------
# The simulation stages
# --------------------------------------------------------------------------------------------


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

    name: str = field(metadata=_NOT_A_KEY)
    block_size: int
    split: tuple[str, ...]
    experiments: tuple[Experiment, ...]


# --------------------------------------------------------------------------------------------
# The exact lower-bound tables (theory §4)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Horizons:
    """Integer horizons log-spaced from ``min`` to ``max``, ``points`` of them before rounding."""

    min: int
    max: int
    points: int


@dataclass(frozen=True)
class Curves:
    """The grid of the exact curves and of Theorem 3.3's minimum (tables ``lower_curves``,
    ``lower_minimum``; theory §4.2-§4.5)."""

    n: tuple[int, ...]
    k: tuple[int, ...]
    T: Horizons


@dataclass(frozen=True)
class HcGrid:
    """The constants c and sizes n of h_c(n) (table ``lower_hc``; theory §4.5 d)."""

    n: tuple[int, ...]
    c: tuple[float, ...]
    k: int


@dataclass(frozen=True)
class Route:
    """The alpha + beta + gamma route at one (n, T, k), one row per j (table ``lower_abg``;
    theory §4.4)."""

    n: int
    T: int
    k: int
    j: tuple[float, ...]


@dataclass(frozen=True)
class Frequencies:
    """The Monte Carlo of the random adversary (table ``lower_frequencies``; theory §4.1)."""

    n: int
    T: int
    k: int
    reps: int


@dataclass(frozen=True)
class LowerBound:
    """The ``lowerbound`` section: the grids of the exact lower-bound tables (theory §4)."""

    curves: Curves
    hc: HcGrid
    abg: Route
    frequencies: Frequencies


# --------------------------------------------------------------------------------------------
# The exact worst cases (theory §3.4)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExactCase:
    """One case of OnlineRank's exact worst case (table ``worst_case``): a game and the rates,
    as multiples of the paper's eta_p, at each horizon."""

    family: str
    n: int
    k: int
    T: tuple[int, ...]
    eta_factor: tuple[float, ...]


@dataclass(frozen=True)
class Point:
    """A point ``{n, T}`` of the comparison of learners (one horizon)."""

    n: int
    T: int


@dataclass(frozen=True)
class HorizonsPoint:
    """A point ``{n, T: [...]}`` of the tightness grid (several horizons)."""

    n: int
    T: tuple[int, ...]


@dataclass(frozen=True)
class Comparison:
    """Every learner's exact worst case (``exact`` points) and, beyond the DP, every learner
    against the common ``adversaries`` and the search (``search`` points); ``max_n``: the largest
    n per learner label or registered name."""

    exact: tuple[Point, ...]
    search: tuple[Point, ...]
    adversaries: tuple[str, ...]
    max_n: Mapping[str, int]


@dataclass(frozen=True)
class Tightness:
    """OnlineRank's worst case over the sharp bound on (n, T, eta/eta_p); ``width``: the beam
    width of its search when the config gives one (``None``: the search's,
    :attr:`WorstCase.tightness_width`)."""

    eta_factor: tuple[float, ...]
    exact: tuple[HorizonsPoint, ...]
    search: tuple[HorizonsPoint, ...]
    width: int | None = None


@dataclass(frozen=True)
class Search:
    """The search adversary beyond the DP: beam width and staircase sequences per start."""

    width: int
    max_evals: int


@dataclass(frozen=True)
class WorstCase:
    """The ``worst_case`` section: exact worst cases and the search adversary."""

    exact: tuple[ExactCase, ...]
    family: str
    k: int
    max_states: float
    learners: tuple[str, ...]
    comparison: Comparison
    tightness: Tightness
    search: Search

    @property
    def tightness_width(self) -> int:
        """The beam width of the tightness grid's search: ``tightness.width`` if given, else
        ``search.width`` (the fallback the schema states for that key)."""
        return self.search.width if self.tightness.width is None else self.tightness.width


# --------------------------------------------------------------------------------------------
# Timings, the sampled Lemma 6.1 check, the comparison bounds, the claims' thresholds
# --------------------------------------------------------------------------------------------


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
    concurrent: int
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
class KSweep:
    """The k-choice sweep in k at fixed n of the comparison bounds."""

    n: int
    k: tuple[int, ...]


@dataclass(frozen=True)
class BoundComparison:
    """The Section 4 comparison-bound table (theory §3.3)."""

    families: tuple[str, ...]
    n: tuple[int, ...]
    k: tuple[int, ...]
    T_factor: float
    k_sweep: KSweep | None = None


@dataclass(frozen=True)
class Settings:
    """The validated config.  ``stages`` holds the simulation stages present; an absent section
    is ``None`` (its steps do not run).  :meth:`as_config` is the validated config's plain form
    (what the digests hash)."""

    seed: int
    results_dir: str
    figures_dir: str
    checkpoints: int
    learners: Mapping[str, Spec]
    adversaries: Mapping[str, Spec]
    stages: Mapping[str, Stage] = field(metadata=_NOT_A_KEY)
    lowerbound: LowerBound | None
    worst_case: WorstCase | None
    lemma61: Lemma61 | None
    runtime: Runtime | None
    bound_comparison: BoundComparison | None
    claims: ClaimSettings
    strict: bool
    #: the one figure a run makes (``--config figure=NAME``, ``make figure``); None: every output
    figure: str | None

    def derived(self, key: Hashable, compute: Callable[[], _T]) -> _T:
        """``compute()``, computed once per settings object and ``key``: a value derived from
        these settings alone (the cells of a stage, a job's digest), which Snakemake asks for
        once per job while it builds the graph (the stress tier's asked for the cells of a stage
        880 times: its dry run took 3.35 s so, 2.2 s without).  The settings are read-only all
        through, so a derived value cannot go stale; it must be immutable too (a tuple, not a
        list), as the caller who gets it is not the one who computed it."""
        memo = self.__dict__.setdefault("_derived", {})  # beside the fields: not a config key
        if key not in memo:
            memo[key] = compute()
        return memo[key]

    def learner(self, label: str) -> dict:
        """The config entry of learner ``label`` (``{name: ..., **params}``)."""
        return self.learners[label].as_dict()

    def adversary(self, label: str) -> dict:
        """The config entry of adversary ``label`` (``{name: ..., **params}``)."""
        return self.adversaries[label].as_dict()

    def learner_dicts(self) -> dict[str, dict]:
        """Every learner entry by label (the plotting helpers' ``learners``)."""
        return {lab: s.as_dict() for lab, s in self.learners.items()}

    def present(self, section: str) -> bool:
        """Whether the config has section ``section`` (a stage absent from it is not run)."""
        return section in self.stages or getattr(self, section, None) is not None

    def as_config(self) -> dict:
        """The validated config as plain data (dicts and lists, the schema's defaults filled in),
        rebuilt from the typed fields: the canonical form that
        :func:`onlinerank.provenance.config_digest`, :func:`onlinerank.config.section_digest` and
        the claims' digests hash (equal to the mapping :func:`onlinerank.config.load_settings`
        validated)."""
        out = _plain(self)
        out.update({name: _plain(stage) for name, stage in self.stages.items()})
        return out


def _stage(name: str, section: Mapping) -> Stage:
    experiments = tuple(_record(Experiment, ex) for ex in section["experiments"])
    return _record(Stage, section, name=name, experiments=experiments)


def _lowerbound(section: Mapping) -> LowerBound:
    curves = section["curves"]
    return LowerBound(
        curves=_record(Curves, curves, T=_record(Horizons, curves["T"])),
        hc=_record(HcGrid, section["hc"]),
        abg=_record(Route, section["abg"]),
        frequencies=_record(Frequencies, section["frequencies"]),
    )


def _worst_case(section: Mapping) -> WorstCase:
    comp, tight = section["comparison"], section["tightness"]
    return _record(
        WorstCase,
        section,
        exact=tuple(_record(ExactCase, case) for case in section["exact"]),
        comparison=_record(
            Comparison,
            comp,
            exact=tuple(_record(Point, p) for p in comp["exact"]),
            search=tuple(_record(Point, p) for p in comp["search"]),
        ),
        tightness=_record(
            Tightness,
            tight,
            exact=tuple(_record(HorizonsPoint, p) for p in tight["exact"]),
            search=tuple(_record(HorizonsPoint, p) for p in tight["search"]),
        ),
        search=_record(Search, section["search"]),
    )


def _bound_comparison(section: Mapping) -> BoundComparison:
    sweep = section.get("k_sweep")  # optional, without a default: absent is no sweep in k
    return _record(BoundComparison, section, k_sweep=_record(KSweep, sweep) if sweep else None)


def _specs(kind: str, section: Mapping) -> Mapping[str, Spec]:
    return MappingProxyType(
        {
            label: Spec(kind, label, spec["name"], _frozen({k: v for k, v in spec.items() if k != "name"}))
            for label, spec in section.items()
        }
    )


def _typed(config: Mapping) -> Settings:
    claims = config["claims"]

    def section(key: str, build: Any) -> Any:  # an absent section is a stage that is not run
        return build(config[key]) if config.get(key) else None

    return Settings(
        seed=config["seed"],
        results_dir=config["results_dir"],
        figures_dir=config["figures_dir"],
        checkpoints=config["checkpoints"],
        learners=_specs("learners", config["learners"]),
        adversaries=_specs("adversaries", config["adversaries"]),
        stages=MappingProxyType({s: _stage(s, config[s]) for s in STAGES if config.get(s)}),
        lowerbound=section("lowerbound", _lowerbound),
        worst_case=section("worst_case", _worst_case),
        lemma61=section("lemma61", lambda sec: _record(Lemma61, sec)),
        runtime=section("runtime", lambda sec: _record(Runtime, sec)),
        bound_comparison=section("bound_comparison", _bound_comparison),
        claims=_record(ClaimSettings, claims, margins=_record(Margins, claims["margins"])),
        strict=config["strict"] in (True, "true"),
        figure=config.get("figure"),
    )


def typed_settings(config: Mapping) -> Settings:
    """The :class:`Settings` of a config that :func:`onlinerank.config.load_settings` has validated
    and filled (a pipeline job's config: the ``Snakefile`` validated it before any job ran).  No
    check and no default here: a mapping that was not validated is refused with a ``ValueError``
    naming what is missing (call :func:`onlinerank.config.load_settings` on it)."""
    try:
        return _typed(config)
    except (KeyError, TypeError) as e:
        raise ValueError(
            f"not a validated config ({type(e).__name__}: {e}): onlinerank.config.load_settings "
            "validates a config and fills in the schema's defaults"
        ) from None


def setting_value(settings: Settings, key: str) -> Any:
    """The value at dotted ``key`` (``claims.margins.lemma61``, ``runtime.speedup``,
    ``lowerbound.curves``, ``learners``): fields of the typed records, then keys of their mappings
    (a stage by name, a learner by label); ``KeyError`` naming ``key`` if absent or its section is
    not configured.  The one resolver of a dotted config key (design §layers)."""
    node: Any = settings
    for part in key.split("."):
        if is_dataclass(node) and part in {f.name for f in fields(node)}:
            node = getattr(node, part)
        elif isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, Settings) and part in node.stages:
            node = node.stages[part]
        else:
            raise KeyError(key)
        if node is None:
            raise KeyError(key)
    return node


def yaml_safe_loader() -> type:
    """PyYAML's safe loader on libyaml's parser where PyYAML has it (the same documents and
    marks, about 10x faster than the pure-Python parser), else the pure-Python one."""
    import yaml  # lazy: this module imports nothing heavy at module level

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


#: parsed schema files by (path, modification time, size): :func:`load_schema`
_SCHEMAS: dict[tuple[str, int, int], Any] = {}


def load_schema(path: str | Path | None = None) -> Any:
    """The JSON schema in the YAML file ``path`` (default :data:`SCHEMA_PATH`), parsed once per
    process and file version (path, modification time, size), with libyaml's parser where PyYAML
    has it (the same document as the pure-Python ``yaml.safe_load``, about 12x faster: a schema
    of 20 kB took 40 ms, paid by every Snakemake start and every validation).  Each call returns
    its own deep copy, so a caller may change it."""
    file = Path(path or SCHEMA_PATH)
    stat = file.stat()
    key = (str(file.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _SCHEMAS:
        loader = yaml_safe_loader()(file.read_text())
        try:
            _SCHEMAS[key] = loader.get_single_data()
        finally:
            loader.dispose()
    return copy.deepcopy(_SCHEMAS[key])


def schema_default(key: str) -> Any:
    """The schema's default of the dotted config key ``key`` (``worst_case.max_states``): what a
    tool outside the pipeline (the benchmarks) uses for a value a config would leave out.
    ``KeyError`` if the schema states no default there."""
    node: Any = load_schema()
    for part in key.split("."):
        node = node["properties"][part]
    if "default" not in node:
        raise KeyError(key)
    return node["default"]
