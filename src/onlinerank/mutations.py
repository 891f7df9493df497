"""Mutation tests of the claims: deliberately broken learners, and the verdicts they flip.

The claims report shows each verdict able to FAIL when the *data* is made false
(``tests/test_claims.py``).  This module shows it able to FAIL when the *algorithm* is broken: a
:class:`Mutation` is a named defect of OnlineRank or of its samplers (theory §2.1–§2.4), applied
in-process by a context manager (:func:`mutated`) that swaps an implementation and restores it
on exit.  Importing this module changes nothing, no other step of the pipeline applies a mutation,
and no mutation is reachable from a config: a normal run cannot be mutated.

:func:`run_mutations` simulates a fixed set of small cells (:data:`SMALL_CELLS`, with the tier's
seed and claims thresholds) once unmutated and once under each mutation, and evaluates every claim
those cells can decide with the registry's own builders (:func:`onlinerank.claims.report.evaluate`);
:func:`mutation_rows` makes the table, one row per (mutation, claim): both verdicts, the failing
cells and the worst statistic (the pipeline's ``tables/mutations.csv``, a section of claims.md).

The mutations (:data:`MUTATIONS`):

* ``eta-0.1`` -- OnlineRank uses a tenth of its configured learning rate (``resolve_eta`` of the
  learner's module returns ``0.1 *`` its value), whatever the rate: the simulated cells and the
  exact worst-case dynamic program alike.
* ``quicksort-coin-reversed`` -- in QuickSort (Algorithm 2) x goes before the pivot p with
  probability ``w_p / (w_x + w_p)`` instead of ``w_x / (w_x + w_p)``;
* ``quicksort-coin-tempered-0.8`` -- the coin is ``w_x^0.8 / (w_x^0.8 + w_p^0.8)``.

The coin mutations are the compiled Algorithm 2 run on the weights ``w^c`` (log-weights ``c a``,
``c = -1`` or ``0.8``): every coin of that run is exactly the mutated coin ``w_x^c / (w_x^c + w_p^c)``
of the original weights (``c = -1`` gives ``w_p / (w_x + w_p)``), and the pivots are uniform either
way.  They replace the QuickSort entry points of :mod:`onlinerank._kernels.onlinerank` (``qs_rows``,
``qs_rows_shared``, and ``play_items`` when it samples QuickSort, played round by round with the
mutated sampler and the original kernel for the expected loss and the update), so the sampled
Lemma 6.1 table, ``quicksort()`` and the simulator's realised losses all see the mutated coin,
while Plackett-Luce and the exact expected losses (which use the weights only) are untouched: the
kernels themselves are not changed, and the unmutated path is the same code as without this module.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .settings import Settings

__all__ = [
    "Mutation",
    "MUTATIONS",
    "SMALL_CELLS",
    "mutated",
    "small_config",
    "small_tables",
    "decidable_claims",
    "evaluate_claims",
    "run_mutations",
    "mutation_rows",
]


@dataclass(frozen=True)
class Mutation:
    """A named defect of the algorithm: ``patch()`` is a context manager applying it in-process;
    ``targets`` are the claims it is aimed at (documentation: the table reports every claim)."""

    name: str
    defect: str
    targets: tuple[str, ...]
    patch: Callable[[], contextlib.AbstractContextManager]


# ------------------------------------------------------------------------------------------------
# the defects
# ------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _swap(obj: Any, attr: str, new: Any) -> Iterator[None]:
    """``obj.attr = new`` for the duration of the block; the original is put back on exit."""
    old = getattr(obj, attr)
    setattr(obj, attr, new)
    try:
        yield
    finally:
        setattr(obj, attr, old)


def _eta_scaled(factor: float) -> Callable[[], contextlib.AbstractContextManager]:
    """OnlineRank with ``factor`` times its configured rate (theory §2.1): the learner module's
    ``resolve_eta`` (its only source of the rate) is wrapped."""

    @contextlib.contextmanager
    def patch() -> Iterator[None]:
        from .learners import onlinerank as module

        original = module.resolve_eta

        def resolve_eta(eta: str | float, n: int, T: int, M: float, family: str = "", k: int = 1) -> float:
            return factor * original(eta, n, T, M, family, k)

        with _swap(module, "resolve_eta", resolve_eta):
            yield

    return patch


def _quicksort_coin(c: float) -> Callable[[], contextlib.AbstractContextManager]:
    """QuickSort (theory §2.2) whose coin is ``w_x^c / (w_x^c + w_p^c)``: the compiled Algorithm 2
    on log-weights ``c * a`` (module docstring)."""

    @contextlib.contextmanager
    def patch() -> Iterator[None]:
        from ._kernels import onlinerank as K
        from .seeding import draw_seeds

        qs_rows, qs_rows_shared, play_items = K.qs_rows, K.qs_rows_shared, K.play_items

        def mutated_qs_rows(S, eta, w, wmode, seeds, out, lowbits):
            # wmode 1: the kernel recomputes the weights from c * eta * S (not the cached ones)
            return qs_rows(S, c * eta, w, np.ones_like(wmode), seeds, out, lowbits)

        def mutated_qs_rows_shared(a, seeds, out, lowbits):
            return qs_rows_shared(np.ascontiguousarray(c * a), seeds, out, lowbits)

        def mutated_play_items(
            S, eta, w, shift, wmode, hv, hc, hd, maxd, items, keys, t0, sampler, lowbits, exp_loss, loss
        ):
            if sampler != 1 or keys.shape[0] == 0:
                return play_items(
                    S,
                    eta,
                    w,
                    shift,
                    wmode,
                    hv,
                    hc,
                    hd,
                    maxd,
                    items,
                    keys,
                    t0,
                    sampler,
                    lowbits,
                    exp_loss,
                    loss,
                )
            R, B, k = items.shape
            n = S.shape[1]
            comb = float(k * (k - 1) // 2)
            order = np.empty((R, n), dtype=np.int64)
            pos = np.empty((R, n), dtype=np.int64)
            none = np.empty(0, dtype=np.uint64)
            rows = np.arange(n)[None, :].repeat(R, axis=0)
            ok = True
            for b in range(B):
                # the round's order from the state before its update, as the kernel draws it
                ok &= bool(mutated_qs_rows(S, eta, w, wmode, draw_seeds(keys, t0 + b), order, lowbits))
                np.put_along_axis(pos, order, rows, axis=1)
                loss += np.take_along_axis(pos, items[:, b], axis=1).sum(axis=1).astype(np.float64) - comb
                # expected loss and update of this round by the original kernel (no sampling)
                it = np.ascontiguousarray(items[:, b : b + 1])
                ok &= bool(
                    play_items(
                        S,
                        eta,
                        w,
                        shift,
                        wmode,
                        hv,
                        hc,
                        hd,
                        maxd,
                        it,
                        none,
                        t0 + b,
                        0,
                        lowbits,
                        exp_loss,
                        loss,
                    )
                )
            return ok

        with (
            _swap(K, "qs_rows", mutated_qs_rows),
            _swap(K, "qs_rows_shared", mutated_qs_rows_shared),
            _swap(K, "play_items", mutated_play_items),
        ):
            yield

    return patch


MUTATIONS: dict[str, Mutation] = {
    m.name: m
    for m in (
        Mutation(
            "eta-0.1",
            "OnlineRank with a learning rate ten times too small (η = 0.1·η_p)",
            (
                "thm3.1",
                "thm3.1.worst_case",
                "cor3.2.single",
                "cor3.2.kchoice",
                "cor3.2.subset",
                "sec5.spearman",
                "sec5.graded",
            ),
            _eta_scaled(0.1),
        ),
        Mutation(
            "quicksort-coin-reversed",
            "QuickSort's coin reversed: x before the pivot p with probability w_p/(w_x + w_p)",
            ("lemma6.1", "lemma6.1.samplers"),
            _quicksort_coin(-1.0),
        ),
        Mutation(
            "quicksort-coin-tempered-0.8",
            "QuickSort's coin tempered: x before the pivot p with probability w_x^0.8/(w_x^0.8 + w_p^0.8)",
            ("lemma6.1", "lemma6.1.samplers"),
            _quicksort_coin(0.8),
        ),
    )
}

_ACTIVE: list[str] = []


@contextlib.contextmanager
def mutated(name: str) -> Iterator[Mutation]:
    """Apply mutation ``name`` (a defect of theory §2.1 or §2.2) for the duration of the block;
    one at a time; the originals are restored on exit, also on an exception."""
    if name not in MUTATIONS:
        raise ValueError(f"unknown mutation {name!r}; known: {', '.join(MUTATIONS)}")
    if _ACTIVE:
        raise RuntimeError(f"mutation {_ACTIVE[0]!r} is already applied; mutations do not nest")
    m = MUTATIONS[name]
    _ACTIVE.append(name)
    try:
        with m.patch():
            yield m
    finally:
        _ACTIVE.pop()


# ------------------------------------------------------------------------------------------------
# the small cells
# ------------------------------------------------------------------------------------------------

#: the cells every mutation is run on (a pipeline config without seed and claims, which come from
#: the tier): a few cells of each kind of the smoke tier, enough for the unmutated run to PASS
#: the claims they decide, small enough for seconds per mutation
SMALL_CELLS: dict[str, Any] = {
    "checkpoints": 4,
    "learners": {
        "onlinerank-pl": {"name": "onlinerank", "sampler": "plackett-luce", "eta": "paper"},
        "onlinerank-qs": {"name": "onlinerank", "sampler": "quicksort", "eta": "paper"},
    },
    "adversaries": {
        "uniform": {"name": "uniform"},
        "greedy": {"name": "greedy"},
        "mallows": {"name": "mallows", "phi": 0.5},
        "graded": {"name": "graded", "levels": 4},
    },
    "upper": {
        "block_size": 256,
        "experiments": [
            {
                "name": "single",
                "family": "single",
                "adversaries": ["uniform", "greedy"],
                "learners": ["onlinerank-pl", "onlinerank-qs"],
                "n": [8],
                "T": [60, 200],
                "replicates": 256,
                # simulated: the sampler mutations must show in the uniform cells' realised losses
                "closed_form": False,
            },
            {
                "name": "kchoice",
                "family": "kchoice",
                "adversaries": ["greedy"],
                "learners": ["onlinerank-pl"],
                "n": [8],
                "k": [2],
                "T": [60],
                "replicates": 2,
                "sample": False,
            },
            {
                "name": "subset",
                "family": "subset",
                "adversaries": ["greedy"],
                "learners": ["onlinerank-pl"],
                "n": [6],
                "T": [60],
                "replicates": 2,
                "sample": False,
            },
        ],
    },
    "spearman": {
        "block_size": 64,
        "experiments": [
            {
                "name": "aggregation",
                "family": "spearman",
                "adversaries": ["mallows"],
                "learners": ["onlinerank-pl"],
                "n": [6],
                "T": [100],
                "replicates": 8,
                "sample": False,
            },
            {
                "name": "graded",
                "family": "graded",
                "adversaries": ["graded"],
                "learners": ["onlinerank-pl"],
                "n": [6],
                "T": [100],
                "replicates": 8,
                "sample": False,
            },
        ],
    },
    "worst_case": {"exact": [{"family": "single", "n": 3, "T": [10, 20, 40]}]},
    "lemma61": {"n": 50, "samples": 20000, "pairs": 20},
}

#: the tables the small cells make (the claims reading only these are decided on them)
_SMALL_TABLES = ("sim_upper", "sim_spearman", "worst_case", "lemma61")


def small_config(config: Settings | Mapping) -> dict:
    """:data:`SMALL_CELLS` with the tier's ``seed`` and ``claims`` section (alpha, margins and
    tolerances: the verdicts use the tier's thresholds; theory §3.2, §2.4).  ``config``: the
    tier's settings or config (:func:`onlinerank.settings.as_settings`)."""
    from .settings import _thawed, as_settings

    settings = as_settings(config)
    return {**SMALL_CELLS, "seed": settings.seed, "claims": _thawed(settings.config["claims"])}


def small_tables(config: Mapping) -> dict[str, list[dict]]:
    """The tables of :func:`small_config` (``config`` already one), computed in-process by the
    pipeline's own functions: every block of every cell (:func:`onlinerank.cells.run_block`,
    aggregated by :func:`onlinerank.tables.aggregate`), the exact worst cases and the sampled
    Lemma 6.1 check (theory §2.4, §3.4)."""
    from .cells import cells_of, run_block
    from .settings import as_settings
    from .tables import aggregate, closed_form_rows, lemma61_rows
    from .worst_case import worst_case_rows

    settings = as_settings(config)
    tables: dict[str, list[dict]] = {}
    for stage in ("upper", "spearman"):
        rows: list[dict] = []
        for cell in cells_of(settings, stage):
            if cell.closed_form:
                rows += closed_form_rows(settings, cell)
            else:
                rows += aggregate(cell, [run_block(settings, cell, b) for b in range(cell.blocks)])
        tables[f"sim_{stage}"] = rows
    assert settings.worst_case is not None and settings.lemma61 is not None  # SMALL_CELLS has both
    tables["worst_case"] = worst_case_rows(settings.worst_case)
    tables["lemma61"] = lemma61_rows(settings.lemma61, settings.seed)
    return tables


def decidable_claims(tables: Mapping[str, list[dict]]) -> list[str]:
    """Ids of the tested claims whose tables are all among ``tables`` (and read at least one), in
    the order of claims.md: on the small cells, the claims of theory §2.4 (Lemma 6.1) and §3.2
    (Theorem 3.1 and its corollaries)."""
    from .claims import REGISTRY
    from .claims.report import _paper_order  # the order of claims.md

    return [
        c.id
        for c in sorted(REGISTRY.values(), key=_paper_order)
        if c.section != "not-tested" and c.reads and set(c.reads) <= set(tables)
    ]


def evaluate_claims(tables: Mapping[str, list[dict]], config: Mapping, ids: list[str]) -> dict[str, dict]:
    """The claims ``ids`` evaluated on ``tables`` by the report's own function (the same builders,
    verdict rule and alpha as ``claims.json``; statistics of theory §2.4, §3.2)."""
    from .claims import REGISTRY
    from .claims.report import evaluate
    from .settings import as_settings

    alpha = as_settings(config).claims.alpha
    return {cid: evaluate(REGISTRY[cid], tables, config, alpha) for cid in ids}


def _worst(cells: list[dict]) -> dict:
    """The cell whose statistic lies furthest on the failing side of its threshold (or nearest to
    it): largest ``value - threshold`` for a claim ``<=``, ``threshold - value`` for ``>=``."""

    def excess(x: dict) -> float:
        d = x["value"] - x["threshold"] if x["direction"] == "<=" else x["threshold"] - x["value"]
        return d if math.isfinite(d) else -math.inf

    return max(cells, key=excess)


def run_mutations(config: Mapping, names: list[str] | None = None) -> dict[str, dict[str, dict]]:
    """Every claim decidable on the small cells of the tier ``config`` (:func:`small_config`),
    evaluated unmutated (key ``"unmutated"``) and under each mutation of ``names`` (default all), on
    the same cells and seeds: ``{run: {claim id: claim record}}``, the records of
    :func:`onlinerank.claims.report.evaluate`.  Claims without a cell on the small cells are left
    out (they decide nothing here).  theory §2.1–§2.4, §3.2."""
    cfg = small_config(config)
    names = list(MUTATIONS) if names is None else list(names)
    for name in names:
        if name not in MUTATIONS:
            raise ValueError(f"unknown mutation {name!r}; known: {', '.join(MUTATIONS)}")
    tables = small_tables(cfg)
    base = evaluate_claims(tables, cfg, decidable_claims(tables))
    ids = [cid for cid, rec in base.items() if rec["cells"]]
    out = {"unmutated": {cid: base[cid] for cid in ids}}
    for name in names:
        with mutated(name):
            tables = small_tables(cfg)
        out[name] = evaluate_claims(tables, cfg, ids)
    return out


def mutation_rows(runs: Mapping[str, Mapping[str, dict]]) -> list[dict]:
    """The mutations table from :func:`run_mutations`: one row per (mutation, claim)
    (columns declared in :data:`onlinerank.table_schemas.SCHEMAS`).  ``cells_failing`` /
    ``cells`` and the worst cell are the mutated run's, ``worst_value_unmutated`` is the same cell
    unmutated; ``flipped``: the verdict changed; ``targeted``: the mutation is aimed at the claim
    (theory §2.4, §3.2)."""
    base = runs["unmutated"]
    rows = []
    for name, got in runs.items():
        if name == "unmutated":
            continue
        m = MUTATIONS[name]
        for cid, b in base.items():
            g = got[cid]
            w = _worst(g["cells"]) if g["cells"] else None
            wb = next((x for x in b["cells"] if w is not None and x["cell"] == w["cell"]), None)
            rows.append(
                {
                    "mutation": name,
                    "defect": m.defect,
                    "claim": cid,
                    "section": b["section"],
                    "targeted": cid in m.targets,
                    "verdict_unmutated": b["verdict"],
                    "verdict_mutated": g["verdict"],
                    "flipped": b["verdict"] != g["verdict"],
                    "cells_failing": sum(x["verdict"] == "FAIL" for x in g["cells"]),
                    "cells": len(g["cells"]),
                    "worst_cell": w["cell"] if w else "",
                    "worst_value": w["value"] if w else math.nan,
                    "worst_value_unmutated": wb["value"] if wb else math.nan,
                    "direction": b["direction"],
                    "threshold": w["threshold"] if w else math.nan,
                }
            )
    return rows
