"""The claim registry: one entry per statement of the paper (and per finding beyond it).

Every entry has a stable ``id`` (e.g. ``thm3.1``, ``cor3.2.single``, ``lemma6.1``), a ``section``
(``paper``: a verdict on the paper's own statement; ``beyond``: a finding of this project, with
its own test, never a verdict on the paper; ``not-tested``: a statement we cannot test, with the
reason), where it is in the paper, the statistic, its threshold and direction, the test, the
tables it reads and which learners it is about.  Thresholds are numbers in the entry or the
names of config keys (documented in ``config/README.md``); both are fixed before any data.

Every tested entry declares the ``kind`` of evidence behind its verdict (:data:`KINDS`), and for
``algebra`` and ``construction`` the ``basis``: what the closed forms rest on, or what the check of
the simulator shows:

* ``data`` — decided on cells simulated or computed exactly (enumeration, exact formulas, the
  dynamic program, timings) at the parameters of the grid;
* ``algebra`` — decided by closed forms alone, over the whole domain, with no data;
* ``construction`` — true of the simulator by design: the test checks the implementation of the
  construction the paper's statement is about, not the statement.

A builder turns the tables into *cells*: one value of the statistic with its interval and
verdict (:func:`make_cell`, the one rule of :mod:`onlinerank.claims.stats`; :func:`exact_cell`
for a value computed exactly, whose interval is the value itself).  Builders are registered with
:func:`claim`; statements without a test with :func:`not_tested`.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ..registry import Registry
from ..seeding import stream
from ..settings import Settings, setting_value
from ..tables import SIM_COLUMNS, TABLE_STAGE, columns
from .stats import interval_verdict

__all__ = [
    "SECTIONS",
    "KINDS",
    "TABLE_STAGE",
    "SIM_COLUMNS",
    "Claim",
    "Context",
    "REGISTRY",
    "claim",
    "not_tested",
    "make_cell",
    "exact_cell",
    "inputs_digest",
    "stages_of",
    "validate_registry",
]

SECTIONS = ("paper", "beyond", "not-tested")
#: the kinds of evidence a verdict rests on (the module docstring)
KINDS = ("data", "algebra", "construction")


@dataclass(frozen=True)
class Claim:
    """One registered statement; see the module docstring."""

    id: str
    section: str
    paper_ref: str
    title: str
    statement: str
    statistic: str = ""
    direction: str = ""
    threshold: float | str | None = None
    test: str = ""
    reads: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: tables read when their stage is configured (the claim runs without them)
    optional: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    about: str = ""
    builder: Callable | None = None
    reason: str = ""
    #: the section of the docs' theory pages that derives the statement (e.g. "3.2"); empty: the
    #: first "theory §x" of its texts, else the section of its part of the paper
    theory: str = ""
    #: the kind of evidence behind the verdict, one of :data:`KINDS` (required unless not tested)
    kind: str = ""
    #: what an ``algebra`` verdict rests on, or what a ``construction`` check shows (required for
    #: those two kinds)
    basis: str = ""

    @property
    def stages(self) -> tuple[str, ...]:
        """Config sections whose outputs this claim reads (absent section: the claim is not run)."""
        return tuple(sorted({TABLE_STAGE[t] for t in self.reads}))


#: every registered statement, by id (filled by the modules of :mod:`onlinerank.claims` on import)
REGISTRY: Registry = Registry("claim", key="id")


def _add(entry: Claim) -> Claim:
    """Check ``entry`` and register it in :data:`REGISTRY` (the one way of
    :mod:`onlinerank.registry`)."""
    if entry.id in REGISTRY:
        raise ValueError(f"duplicate claim id {entry.id!r}")
    if entry.section not in SECTIONS:
        raise ValueError(f"claim {entry.id}: section must be one of {SECTIONS}, got {entry.section!r}")
    for t, cols in [*entry.reads.items(), *entry.optional.items()]:
        if t not in TABLE_STAGE:
            raise ValueError(f"claim {entry.id}: reads unknown table {t!r}")
        missing = [c for c in cols if c not in columns(t)]
        if missing:
            raise ValueError(f"claim {entry.id}: table {t!r} has no column(s) {', '.join(missing)}")
    if entry.section != "not-tested" and entry.direction not in ("<=", ">="):
        raise ValueError(f"claim {entry.id}: direction must be '<=' or '>=', got {entry.direction!r}")
    if entry.section == "not-tested":
        if entry.kind:
            raise ValueError(f"claim {entry.id}: a statement that is not tested has no kind of evidence")
    elif entry.kind not in KINDS:
        raise ValueError(f"claim {entry.id}: kind must be one of {', '.join(KINDS)}, got {entry.kind!r}")
    elif entry.kind != "data" and not entry.basis:
        raise ValueError(f"claim {entry.id}: kind {entry.kind!r} needs a basis (what it rests on or checks)")
    return REGISTRY.register(entry)


def claim(**fields: Any) -> Callable[[Callable], Callable]:
    """Decorator registering a builder ``fn(ctx) -> list[cell]`` under ``fields['id']``."""

    def deco(fn: Callable) -> Callable:
        _add(Claim(builder=fn, **fields))
        return fn

    return deco


def not_tested(**fields: Any) -> None:
    """Register a statement of the paper that is not tested (``reason`` says why)."""
    _add(Claim(section="not-tested", **fields))


def stages_of(settings: Settings) -> set[str]:
    """The config sections present that make tables (a stage absent from the config is not run)."""
    return {s for s in set(TABLE_STAGE.values()) if settings.present(s)}


def validate_registry(settings: Settings) -> None:
    """Every registered claim whose stages are configured must find its threshold's config key
    (:func:`onlinerank.settings.setting_value`); raises ``ValueError`` naming the claim and the
    key (called by the config's validation, before any job runs)."""
    present = stages_of(settings)
    for c in REGISTRY.values():
        if c.section == "not-tested" or not set(c.stages) <= present:
            continue
        if isinstance(c.threshold, str):
            try:
                v = setting_value(settings, c.threshold)
            except KeyError:
                raise ValueError(
                    f"claim {c.id!r} needs the config key {c.threshold!r} (its threshold)"
                ) from None
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                raise ValueError(f"config error at {c.threshold}: claim {c.id!r} needs a number, got {v!r}")


@dataclass
class Context:
    """What a builder sees: the claim, the tables it declared, the typed settings, the level."""

    claim: Claim
    tables: Mapping[str, list[dict]]
    settings: Settings
    alpha: float
    #: True once the builder drew from its named stream (:meth:`rng`): its verdict depends on the
    #: seed even where its tables do not (:mod:`onlinerank.claims.seed_verdicts`)
    drew: bool = field(default=False, init=False)

    def table(self, name: str) -> list[dict]:
        """Rows of a declared table; the declared columns must be present."""
        declared = {**self.claim.optional, **self.claim.reads}
        if name not in declared:
            raise KeyError(f"claim {self.claim.id!r} did not declare the table {name!r}")
        if name in self.claim.optional and name not in self.tables:
            return []
        rows = self.tables[name]
        need = declared[name]
        if rows:
            missing = [c for c in need if c not in rows[0]]
            if missing:
                raise ValueError(f"claim {self.claim.id!r}: table {name!r} lacks columns {missing}")
        return rows

    def threshold(self) -> float:
        """The claim's threshold as a number (resolving a config key)."""
        t = self.claim.threshold
        return float(self.setting(t)) if isinstance(t, str) else float(cast(float, t))

    def setting(self, key: str) -> Any:
        """The config value at dotted ``key`` (``runtime.fit_min_n``), from the typed settings: the
        schema's default when the config leaves it out; ``KeyError`` if the section is absent."""
        return setting_value(self.settings, key)

    def rng(self, *names: object) -> np.random.Generator:
        """A named stream for this claim (bootstrap draws): ``(seed, "claims", id, *names)``."""
        self.drew = True
        return stream(self.settings.seed, "claims", self.claim.id, *names)

    def learner_spec(self, label: str) -> dict:
        """The config entry ``{name: ..., **params}`` of learner ``label`` (empty if unknown)."""
        spec = self.settings.learners.get(label)
        return spec.as_dict() if spec is not None else {}


def make_cell(
    ctx: Context,
    label: str,
    params: Mapping,
    value: float,
    lo: float,
    hi: float,
    *,
    method: str,
    threshold: float | None = None,
    statistic: str | None = None,
    reps: int = 0,
    note: str = "",
    control: str = "",
    inputs: Mapping | None = None,
) -> dict:
    """One cell of a claim: the statistic's value and interval, and the verdict by the one rule.

    ``control`` (non-empty: the reason) marks a cell whose value cannot depend on the learner under
    test (e.g. the i.i.d. uniform adversary: every learner's expected regret is the same; a
    QuickSort cell whose exact expected regret equals its Plackett–Luce twin by Lemma 6.1).  Such a
    cell is reported and counted apart: it cannot show the claim's power against a wrong learner.

    ``inputs`` says what the value is computed from (for a simulated cell: the game, the
    adversary's and the learner's laws and the learner's rate, not their labels); the cell carries
    its digest, and two cells of a claim with the same inputs and the same value and interval are
    one piece of evidence (:func:`onlinerank.claims.evidence.claim_evidence`).  Default: the
    statistic and ``params``."""
    thr = ctx.threshold() if threshold is None else float(threshold)
    value, lo, hi = float(value), float(lo), float(hi)
    params = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in params.items()}
    stat = statistic or ctx.claim.statistic
    return {
        "cell": label,
        "params": params,
        "statistic": stat,
        "value": value,
        "lo": lo,
        "hi": hi,
        "threshold": thr,
        "direction": ctx.claim.direction,
        "verdict": interval_verdict(lo, hi, thr, ctx.claim.direction),
        "method": method,
        "reps": int(reps),
        "note": note,
        "control": control,
        "inputs": inputs_digest({"statistic": stat, "params": params} if inputs is None else inputs),
    }


def inputs_digest(inputs: Mapping) -> str:
    """12 hex digits of what a cell's value is computed from (:func:`make_cell`'s ``inputs``)."""
    blob = json.dumps(inputs, sort_keys=True, ensure_ascii=False, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:12]


def exact_cell(
    ctx: Context,
    label: str,
    params: Mapping,
    value: float,
    *,
    method: str,
    statistic: str | None = None,
    note: str = "",
    inputs: Mapping | None = None,
) -> dict:
    """:func:`make_cell` for a value computed exactly (a formula, an enumeration, the exact DP; no
    sampling): its interval is the point ``[value, value]``, so the verdict compares the value
    itself with the threshold."""
    return make_cell(
        ctx, label, params, value, value, value, method=method, statistic=statistic, note=note, inputs=inputs
    )
