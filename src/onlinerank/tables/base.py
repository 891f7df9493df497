"""Every table of the pipeline, declared once: its name, the config section that makes it, its
columns (meaning and unit) and the function that builds its rows (design §data).

This module imports nothing of the package (a table's builder is imported when the table is
made, by :func:`make_table`): the claims, the figures and the Snakefile read the
schemas without loading the engine (``onlinerank.simulate``, the compiled kernels).  The builder
of a table is named by its place, ``"module:function"`` below ``onlinerank``; the table rule
imports exactly that module, and its code inputs are that module's imports
(:func:`onlinerank.pipeline.code_inputs`), so editing one producer reruns only its tables.
:func:`make_table` calls the builder and checks its rows against the declared
columns, in order.

The simulation tables ``sim_<stage>`` are aggregated from replicate blocks
(:func:`onlinerank.tables.aggregate_stage`) and ``mutations`` by its own rule
(``workflow/mutants``); they have no config-only builder.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .settings import Settings

__all__ = [
    "STAGES",
    "Column",
    "TableSchema",
    "SCHEMAS",
    "SIM_COLUMNS",
    "TABLE_STAGE",
    "BUILT_TABLES",
    "columns",
    "make_table",
    "table_pieces",
    "check_columns",
]

#: simulation stages of the pipeline: each has ``block_size``, ``split`` and ``experiments``
STAGES = ("upper", "lower", "baselines", "spearman")


@dataclass(frozen=True)
class Column:
    """One column: its name, what a value means, and its unit (``""``: a count or a label)."""

    name: str
    meaning: str
    unit: str = ""


@dataclass(frozen=True)
class TableSchema:
    """A table: made when the config has section ``stage`` (``""``: in every tier); rows built by ``builder``
    (``"module:function"`` below ``onlinerank``, empty for the aggregated tables) called with the
    typed settings' values at ``args`` (dotted paths into :class:`onlinerank.settings.Settings`:
    ``"seed"`` is the run's seed, ``"worst_case"`` a :class:`~onlinerank.settings.WorstCase`;
    ``"@config"`` the whole settings, ``"=x"`` the literal string ``x``); ``keys``: the config
    entries whose change reruns it; ``pieces`` (``"module:function"``, called with the same
    arguments): the names of the table's independent jobs, each made by the builder called with
    ``piece=name``, the pieces' rows in that order being the table's rows (empty: one job)."""

    name: str
    stage: str
    description: str
    columns: tuple[Column, ...]
    builder: str = ""
    args: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()
    pieces: str = ""

    @property
    def column_names(self) -> tuple[str, ...]:
        """The column names, in the order of the file."""
        return tuple(c.name for c in self.columns)

    @property
    def module(self) -> str:
        """The builder's module below ``onlinerank`` (``""`` for aggregated tables)."""
        return self.builder.partition(":")[0]


# columns shared by several tables (one meaning each)
_FAMILY = Column("family", "feedback family: single, kchoice, subset, spearman or graded (theory §1)")
_N = Column("n", "number of items", "items")
_K = Column("k", "items chosen per round (k-choice, subset); 1 otherwise", "items")
_T = Column("T", "horizon", "rounds")
_M = Column("M", "the feedback family's complexity M (theory §1.1)", "loss²")
_ETA = Column("eta", "learning rate used", "1/loss")
_ETA_FACTOR = Column("eta_factor", "learning rate over the paper's rate η_p (theory §3.2)")
_VALUE_WC = Column(
    "value", "worst-case expected regret found (exact, or a lower bound by an adversary)", "loss"
)
_BOUND_THM31 = Column(
    "bound_thm31", "Theorem 3.1 at the paper's rate, n sqrt(T M ln 2) (theory §3.2)", "loss"
)
_BOUND_SHARP = Column("bound_sharp", "Theorem 3.1 in sharp form at this η, C(n,2) ln 2/η + η T M/2", "loss")
_RATIO_THM31 = Column("ratio_thm31", "value / bound_thm31")
_RATIO_SHARP = Column("ratio_sharp", "value / bound_sharp (the tightness)")
_STATES = Column("states", "dynamic-program states (or sequences / states visited by a search)")
_KIND = Column("kind", "exact (the dynamic program's worst case) or a lower bound on it (adversary, search)")
_METHOD_WC = Column("method", "exact, an adversary's name, staircase or beam")
_SEQUENCE = Column("sequence", "the feedback sequence attaining the value (items per round), if recorded")

SIM_SCHEMA_COLUMNS = (
    Column("stage", "pipeline stage of the cell"),
    Column("experiment", "experiment name in the config"),
    Column("adversary", "adversary label (a key of the config's adversaries)"),
    Column("learner", "learner label (a key of the config's learners)"),
    _FAMILY,
    _N,
    _K,
    _T,
    _M,
    Column("eta", "learning rate the learner resolved (NaN for a learner without one)", "1/loss"),
    Column("t", "round at which the metric is read (a checkpoint)", "rounds"),
    Column(
        "metric",
        "regret (exact expected), realised_regret, loss (sampled), exp_loss (expected), best "
        "(hindsight optimum), or a learner's extra counter",
    ),
    Column("mean", "mean over replicates", "loss"),
    Column("sem", "standard error of the mean over replicates", "loss"),
    Column("reps", "replicates with a finite value"),
    Column("exact", "True when the learner's expected loss is computed exactly per round (theory §2.5)"),
)

_BOUNDS_COLUMNS = (
    _FAMILY,
    _N,
    _K,
    _T,
    _M,
    Column("eta_paper", "the paper's rate η_p = n sqrt(ln 2 / (T M)) (theory §3.2)", "1/loss"),
    Column("bound_paper", "Theorem 3.1 at η_p, n sqrt(T M ln 2)", "loss"),
    Column("bound_sharp", "Theorem 3.1 in sharp form at η_p, C(n,2) ln 2/η_p + η_p T M/2", "loss"),
    Column("bound_optimal", "the sharp form at its optimal η, sqrt(2 C(n,2) ln 2 T M)", "loss"),
)


def _bounds(stage: str) -> TableSchema:
    return TableSchema(
        f"bounds_{stage}",
        stage,
        f"Theorem 3.1's bound for every distinct game of the {stage} stage (theory §3.2).",
        _BOUNDS_COLUMNS,
        builder="tables:bounds_rows",
        args=("@config", f"={stage}"),
        keys=(stage, "learners", "adversaries"),
    )


def _sim(stage: str) -> TableSchema:
    return TableSchema(
        f"sim_{stage}",
        stage,
        f"The {stage} stage's simulations: one row per cell, checkpoint and metric, aggregated over "
        "replicate blocks (theory §2.5).",
        SIM_SCHEMA_COLUMNS,
    )


_SCHEMAS: tuple[TableSchema, ...] = (
    *(_sim(s) for s in STAGES),
    *(_bounds(s) for s in ("upper", "baselines", "spearman")),
    TableSchema(
        "lemma61",
        "lemma61",
        "Lemma 6.1 sampled: the frequency of u before v under each sampler next to expit(a_u - a_v) "
        "(theory §2.4).",
        (
            Column("sampler", "plackett-luce or quicksort"),
            _N,
            Column("samples", "orders drawn"),
            Column("u", "first item of the pair"),
            Column("v", "second item of the pair"),
            Column("p", "P(u before v) by Lemma 6.1, expit(a_u - a_v)", "probability"),
            Column("freq", "observed frequency of u before v", "probability"),
        ),
        builder="tables:lemma61_rows",
        args=("lemma61", "seed"),
        keys=("lemma61", "seed"),
    ),
    TableSchema(
        "worst_case",
        "worst_case",
        "OnlineRank's exact worst case over all feedback sequences by dynamic programming, for tiny "
        "n, against Theorem 3.1 (theory §3.4).",
        (
            _FAMILY,
            _N,
            _K,
            _T,
            _ETA_FACTOR,
            _ETA,
            _M,
            Column("value", "exact worst-case expected regret", "loss"),
            _BOUND_THM31,
            _BOUND_SHARP,
            _RATIO_THM31,
            _RATIO_SHARP,
            _STATES,
        ),
        builder="worst_case:worst_case_rows",
        args=("worst_case",),
        keys=("worst_case",),
    ),
    TableSchema(
        "worst_case_learners",
        "worst_case",
        "Every learner's exact worst case at the dynamic program's sizes, and every learner against "
        "the same adversaries and the search beyond (theory §3.4, §4).",
        (
            _FAMILY,
            _N,
            _K,
            _T,
            Column("learner", "learner label"),
            Column("learner_name", "the learner's registered name"),
            _KIND,
            _METHOD_WC,
            _VALUE_WC,
            _BOUND_THM31,
            Column("bound_own", "the learner's own regret bound (NaN if it has none)", "loss"),
            _RATIO_THM31,
            Column("ratio_own", "value / bound_own"),
            _STATES,
            _SEQUENCE,
        ),
        builder="worst_case_tables:comparison_rows",
        args=("worst_case", "learners"),
        keys=("worst_case", "learners"),
        pieces="worst_case_tables:comparison_pieces",
    ),
    TableSchema(
        "tightness",
        "worst_case",
        "How tight Theorem 3.1 is: OnlineRank's worst case (exact, or by search beyond the dynamic "
        "program) over the sharp bound on a grid of n, T and η/η_p (theory §3.4).",
        (
            _FAMILY,
            _N,
            _K,
            _T,
            _ETA_FACTOR,
            _ETA,
            _M,
            _KIND,
            Column("method", "exact, staircase or beam"),
            _VALUE_WC,
            _BOUND_THM31,
            _BOUND_SHARP,
            _RATIO_THM31,
            _RATIO_SHARP,
            _STATES,
            _SEQUENCE,
        ),
        builder="worst_case_tables:tightness_rows",
        args=("worst_case",),
        keys=("worst_case",),
        pieces="worst_case_tables:tightness_pieces",
    ),
    TableSchema(
        "lower_curves",
        "lowerbound",
        "The random adversary's exact regret, its asymptotes, the explicit lower bounds and Theorem "
        "3.1 at M = k(n-k) (theory §4.2-§4.5).",
        (
            _N,
            _K,
            _T,
            Column("scale", "n^{3/2} sqrt(kT), the rate of Theorem 3.3", "loss"),
            Column("exact", "exact expected regret against the random adversary (theory §4.2)", "loss"),
            Column("asymptotic", "its asymptote (theory §4.3)", "loss"),
            Column("asymptotic_corrected", "the asymptote with its correction term (theory §4.3)", "loss"),
            Column("holder", "lower bound (a), Hölder (theory §4.5)", "loss"),
            Column("sharp", "lower bound (b), sharp rate (theory §4.5)", "loss"),
            Column("berry_esseen", "lower bound (c), Berry–Esseen (theory §4.5)", "loss"),
            Column("thm31_paper", "Theorem 3.1 at η_p, n sqrt(T M ln 2)", "loss"),
            Column("thm31_optimal", "Theorem 3.1 at its optimal η", "loss"),
            Column(
                "h_holder", "the explicit horizon h(n) from which bound (a) holds (theory §4.5)", "rounds"
            ),
        ),
        builder="lower_tables:exact_curve_rows",
        args=("lowerbound.curves",),
        keys=("lowerbound",),
    ),
    TableSchema(
        "lower_minimum",
        "lowerbound",
        "Theorem 3.3's statistic at every integer horizon from h(n, k): the minimum over T >= h of the "
        "exact regret over n^{3/2} sqrt(kT), certified beyond the scanned range by bound (b) "
        "(theory §4.5 e).",
        (
            _N,
            _K,
            Column(
                "T_from", "the first horizon ceil(h(n, k)), h = n(n-1)/(2k(n-k)) (theory §4.5 a)", "rounds"
            ),
            Column(
                "T_to", "the last horizon scanned: from there bound (b) stays above the minimum", "rounds"
            ),
            Column("T_min", "the horizon of the minimum", "rounds"),
            Column(
                "exact", "exact expected regret against the random adversary at T_min (theory §4.2)", "loss"
            ),
            Column("scale", "n^{3/2} sqrt(k T_min), the rate of Theorem 3.3", "loss"),
            Column("ratio_min", "min over every integer T >= h of exact / n^{3/2} sqrt(kT)"),
            Column(
                "limit", "the ratio's limit as T grows, sqrt((n-1)(n-k)) / (2 sqrt(pi) n) (theory §4.5 d)"
            ),
            Column(
                "bound_ratio_at_T_to", "bound (b) / n^{3/2} sqrt(k T_to): at least ratio_min (theory §4.5 b)"
            ),
        ),
        builder="lower_tables:minimum_rows",
        args=("lowerbound.curves",),
        keys=("lowerbound",),
    ),
    TableSchema(
        "lower_hc",
        "lowerbound",
        "h_c(n): the smallest horizon from which the exact regret exceeds c n^{3/2} sqrt(kT) (theory §4.5).",
        (
            _N,
            _K,
            Column("c", "the constant c"),
            Column("limit", "the asymptotic constant of the exact regret over n^{3/2} sqrt(kT)"),
            Column("h_c", "smallest such horizon (-1: c is not below the limit, none exists)", "rounds"),
        ),
        builder="lower_tables:hc_rows",
        args=("lowerbound.hc",),
        keys=("lowerbound",),
    ),
    TableSchema(
        "lower_abg",
        "lowerbound",
        "The paper's alpha + beta + gamma route to Theorem 3.3 for each j, in exact Binomial sums "
        "and in CLT form, against the exact values (theory §4.4).",
        (
            _N,
            _K,
            _T,
            Column("j", "the split parameter j of the route (in standard deviations of a count)"),
            Column("p", "k/n, the frequency of an item", "probability"),
            Column("mu", "Tk/n, the mean count of an item", "rounds"),
            Column("sigma", "the count's standard deviation sqrt(T p (1-p))", "rounds"),
            Column("alpha", "bound on E L* over counts x <= mu - j sigma (exact Binomial sum)", "loss"),
            Column("beta", "bound on E L* over mu - j sigma < x <= mu + j sigma (exact)", "loss"),
            Column(
                "gamma", "bound on E L* over x > mu + j sigma (exact; the integer part, see errata)", "loss"
            ),
            Column("total", "alpha + beta + gamma, an upper bound on E L*", "loss"),
            Column(
                "alg_loss",
                "every algorithm's expected loss against the random adversary, n(n-1)/2 · mu",
                "loss",
            ),
            Column("regret_lower", "the regret lower bound the route implies", "loss"),
            Column("scale", "n(n-1)/2 · sigma, the scale of the CLT form", "loss"),
            Column("alpha_clt", "alpha in CLT form", "loss"),
            Column("beta_clt", "beta in CLT form", "loss"),
            Column("gamma_clt", "gamma in CLT form", "loss"),
            Column("regret_clt", "the implied regret lower bound in CLT form, scale · kappa", "loss"),
            Column("kappa", "κ(j) of the CLT form (theory §4.4)"),
            Column("exact_regret", "exact expected regret (theory §4.2)", "loss"),
            Column("exact_best_loss_position", "exact E[L*], the hindsight optimum's expected loss", "loss"),
        ),
        builder="lower_tables:abg_rows",
        args=("lowerbound.abg",),
        keys=("lowerbound",),
    ),
    TableSchema(
        "lower_frequencies",
        "lowerbound",
        "Monte Carlo of the random adversary (sampled, not exact): the histogram of item 0's count "
        "next to the Binomial(T, k/n) law (theory §4.1).",
        (
            _N,
            _K,
            _T,
            Column("reps", "sampled sequences"),
            Column("x", "count of item 0 over the horizon", "rounds"),
            Column("count", "sequences with that count"),
            Column("freq", "count / reps", "probability"),
            Column("pmf", "Binomial(T, k/n) probability of x", "probability"),
            Column("regret_mc_mean", "Monte Carlo mean regret over the sequences", "loss"),
            Column("regret_mc_sem", "its standard error", "loss"),
            Column("regret_exact", "exact expected regret (theory §4.2)", "loss"),
        ),
        builder="lower_tables:frequency_rows",
        args=("lowerbound.frequencies", "seed"),
        keys=("lowerbound", "seed"),
    ),
    TableSchema(
        "runtime",
        "runtime",
        "Wall-clock time per round of each learner versus n (not deterministic: the only table that "
        "is not bit-identical between runs; theory §2.1-§2.3, §3.3).",
        (
            Column("learner", "learner label"),
            Column("name", "the learner's registered name"),
            _N,
            Column(
                "part",
                "what was timed: update, sample, round, sample_first_step, round_lower or sweep",
            ),
            Column("process", "index of the timing process (a fresh Python process) that made the row"),
            Column("repeat", "index of the separate timing among every process's timings of the point"),
            Column("seconds_per_round", "median time over the rounds timed", "s"),
            Column("rounds_timed", "rounds timed in this repeat", "rounds"),
            Column("sweeps_per_round", "mean Sinkhorn sweeps per update (NaN for other learners)"),
        ),
        builder="timing:runtime_rows",
        args=("learners", "runtime"),
        keys=("runtime", "learners"),
    ),
    TableSchema(
        "bound_comparison",
        "bound_comparison",
        "Each baseline's regret bound over Theorem 3.1's against the factor Section 4 claims (theory §5).",
        (
            _FAMILY,
            Column("sweep", "n (a sweep over n) or k (a sweep over k at fixed n)"),
            _N,
            _K,
            _T,
            Column("method", "the baseline: hedge, fpl or permelearn"),
            Column("bound", "the baseline's regret bound", "loss"),
            Column("thm31", "Theorem 3.1's bound", "loss"),
            Column("ratio", "bound / thm31"),
            Column("claimed", "the factor the paper claims, as text"),
            Column("claimed_value", "that factor's value"),
            Column("ratio_over_claimed", "ratio / claimed_value: the Ω statement holds iff bounded below"),
        ),
        builder="comparison:bound_comparison_rows",
        args=("bound_comparison",),
        keys=("bound_comparison",),
    ),
    TableSchema(
        "mutations",
        "",
        "Each claim's verdict on the small cells, unmutated and under deliberate defects of the "
        "learner or a sampler (theory §2.4, §3.2).",
        (
            Column("mutation", "the mutation's name"),
            Column("defect", "what the mutation breaks"),
            Column("claim", "claim id"),
            Column("section", "the claim's section: paper or beyond"),
            Column("targeted", "True when the mutation is aimed at this claim"),
            Column("verdict_unmutated", "the claim's verdict on the small cells, unmutated"),
            Column("verdict_mutated", "its verdict under the mutation"),
            Column("flipped", "True when the verdict changed"),
            Column("cells_failing", "cells failing under the mutation"),
            Column("cells", "cells evaluated"),
            Column("worst_cell", "the mutated run's cell furthest on the failing side"),
            Column("worst_value", "that cell's statistic, mutated"),
            Column("worst_value_unmutated", "the same cell's statistic, unmutated"),
            Column("direction", "the claim's direction: <= or >="),
            Column("threshold", "the claim's threshold"),
        ),
    ),
)

#: every table by name
SCHEMAS: dict[str, TableSchema] = {s.name: s for s in _SCHEMAS}
#: the columns of the simulation tables
SIM_COLUMNS: tuple[str, ...] = SCHEMAS["sim_upper"].column_names
#: every table made from a config section -> that section (simulation tables: their stage); the
#: mutations table, made in every tier by its own rule, has none
TABLE_STAGE: dict[str, str] = {name: s.stage for name, s in SCHEMAS.items() if s.stage}
#: the tables made by the generic table rule (a builder computing them from the config alone)
BUILT_TABLES: dict[str, TableSchema] = {name: s for name, s in SCHEMAS.items() if s.builder}


def columns(name: str) -> tuple[str, ...]:
    """The columns of table ``name``, in order (:class:`KeyError` names the unknown table)."""
    try:
        return SCHEMAS[name].column_names
    except KeyError:
        raise KeyError(f"unknown table {name!r}; known: {', '.join(SCHEMAS)}") from None


def _argument(settings: Settings, path: str) -> Any:
    """A builder's argument (:class:`onlinerank.table_schemas.TableSchema` ``args``): the typed
    settings themselves (``@config``), a literal (``=...``), or the typed value at a dotted path
    (:func:`onlinerank.settings.setting_value`: ``worst_case`` is a
    :class:`~onlinerank.settings.WorstCase`, ``learners`` the specs by label)."""
    from .settings import setting_value

    if path == "@config":
        return settings
    if path.startswith("="):
        return path[1:]
    return setting_value(settings, path)


def _built(name: str) -> TableSchema:
    schema = BUILT_TABLES.get(name)
    if schema is None:
        raise KeyError(f"no table {name!r} is built from the config; built: {', '.join(BUILT_TABLES)}")
    return schema


def _function(place: str) -> Any:
    module, _, fn = place.partition(":")
    return getattr(importlib.import_module(f"onlinerank.{module}"), fn)


def table_pieces(name: str, config: Settings | Mapping) -> list[str]:
    """The independent jobs of table ``name`` under ``config`` (its schema's ``pieces``: e.g. one
    per learner of the worst-case comparison), in the order of the table's rows; ``[]`` for a
    table made by one job."""
    from .settings import as_settings

    schema = _built(name)
    if not schema.pieces:
        return []
    settings = as_settings(config)
    return list(_function(schema.pieces)(*(_argument(settings, a) for a in schema.args)))


def make_table(name: str, config: Settings | Mapping, piece: str | None = None) -> list[dict]:
    """The rows of table ``name``, built by the function its schema names
    (:data:`onlinerank.table_schemas.SCHEMAS`) from the typed settings of ``config``
    (:func:`onlinerank.settings.as_settings`; in a job, the object ``onlinerank.pipeline.run``
    already typed), checked against the declared columns in order; with ``piece`` (one of
    :func:`table_pieces`), that piece's rows only.  The builder's module is imported here, by
    name, so that a table job loads only its producer."""
    from .settings import as_settings

    schema = _built(name)
    settings = as_settings(config)
    build = _function(schema.builder)
    args = [_argument(settings, a) for a in schema.args]
    if piece is None:
        rows = build(*args)
    elif piece in table_pieces(name, settings):
        rows = build(*args, piece=piece)
    else:
        raise ValueError(f"table {name!r} has no piece {piece!r}; pieces: {table_pieces(name, settings)}")
    check_columns(name, rows)
    return rows


def check_columns(name: str, rows: list[dict]) -> None:
    """Raise :class:`ValueError` naming the table when a row's columns are not its schema's, in
    order (a producer and its declaration that drifted apart)."""
    want = columns(name)
    for i, r in enumerate(rows):
        if tuple(r) != want:
            extra = [c for c in r if c not in want]
            missing = [c for c in want if c not in r]
            raise ValueError(
                f"table {name!r}, row {i}: columns differ from the schema "
                f"(missing {missing}, undeclared {extra}, or another order)"
            )
