"""The mutations table: the claims' verdicts on small cells, unmutated and under each broken learner.

The claims report shows each verdict able to FAIL when the *data* is made false
(``tests/test_claims.py``).  This module shows it able to FAIL when the *algorithm* is broken: a
:class:`Mutation` names a defect of OnlineRank or of its samplers (theory §2.1–§2.4) and the
broken learner that has it (:mod:`mutants.learners`); :func:`mutated` substitutes that learner for
OnlineRank in the learner registry for the duration of a block
(:meth:`onlinerank.registry.Registry.substituted`), so that the pipeline's own code -- the
simulator, the exact worst-case dynamic program, the sampled Lemma 6.1 check -- plays it.  Nothing
else substitutes a learner, this package is not part of the installed one, and no config can
name a broken learner: a normal run cannot be mutated.

:func:`run_mutations` simulates a fixed set of small cells (:data:`SMALL_CELLS`, with the tier's
seed and claims thresholds) once unmutated and once under each mutation, and evaluates every claim
those cells can decide with the registry's own builders (:func:`onlinerank.claims.report.evaluate`);
:func:`mutation_rows` makes the table, one row per (mutation, claim): both verdicts, the failing
cells and the worst statistic (the pipeline's ``tables/mutations.csv``, a section of claims.md).

The mutations (:data:`MUTATIONS`, declared beside their broken learners in
:mod:`mutants.learners`): ``eta-0.1`` (:class:`~mutants.learners.TenthRate`),
``quicksort-coin-reversed`` (:class:`~mutants.learners.ReversedCoin`) and
``quicksort-coin-tempered-0.8`` (:class:`~mutants.learners.TemperedCoin`).
"""

from __future__ import annotations

import contextlib
import copy
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from onlinerank.adversaries import ADVERSARIES
from onlinerank.cells import cells_of, run_block
from onlinerank.claims import REGISTRY
from onlinerank.claims.report import _paper_order, evaluate
from onlinerank.config import load_settings
from onlinerank.learners import LEARNERS
from onlinerank.learners.onlinerank import OnlineRank
from onlinerank.sim_tables import aggregate, closed_form_rows
from onlinerank.tables import TABLES, make_table

from .learners import MUTATIONS, Mutation

if TYPE_CHECKING:
    from onlinerank.settings import Settings

__all__ = [
    "Mutation",
    "MUTATIONS",
    "SMALL_CELLS",
    "code_uses",
    "mutated",
    "small_settings",
    "small_tables",
    "decidable_claims",
    "evaluate_claims",
    "run_mutations",
    "mutation_rows",
]


@contextlib.contextmanager
def mutated(name: str) -> Iterator[Mutation]:
    """Play mutation ``name``'s broken learner (a defect of theory §2.1 or §2.2) wherever the
    pipeline plays OnlineRank, for the duration of the block; one at a time; OnlineRank is put
    back on exit, also on an exception."""
    if name not in MUTATIONS:
        raise ValueError(f"unknown mutation {name!r}; known: {', '.join(MUTATIONS)}")
    if OnlineRank.name in LEARNERS.substitutions:
        playing = LEARNERS[OnlineRank.name].__name__
        raise RuntimeError(f"a mutation is already applied (OnlineRank is {playing}); mutations do not nest")
    m = MUTATIONS[name]
    with LEARNERS.substituted(OnlineRank.name, m.learner):
        yield m


# ------------------------------------------------------------------------------------------------
# the small cells
# ------------------------------------------------------------------------------------------------

#: the cells every mutation is run on (``small_cells.yaml`` beside this module: a pipeline config
#: without seed and claims, which come from the tier): a few cells of each kind of the smoke tier,
#: enough for the unmutated run to PASS the claims they decide, small enough for seconds per
#: mutation
SMALL_CELLS: dict[str, Any] = yaml.safe_load(Path(__file__).with_name("small_cells.yaml").read_text())


#: the config-only tables the small cells make (by their builders, :func:`small_tables`)
_BUILT_SMALL_TABLES = ("worst_case", "lemma61")


def code_uses() -> list[Any]:
    """What the mutations step runs besides its script and the claims (its code inputs,
    :func:`onlinerank.pipeline.step_code`): the broken learners, the plug-ins of the small cells
    and the builders of the config-only tables it makes."""
    uses: list[Any] = [m.learner for m in MUTATIONS.values()]
    uses += [LEARNERS[s["name"]] for s in SMALL_CELLS["learners"].values()]
    uses += [ADVERSARIES[s["name"]] for s in SMALL_CELLS["adversaries"].values()]
    uses += [TABLES[t].build for t in _BUILT_SMALL_TABLES]
    return list(dict.fromkeys(uses))


#: the tables the small cells make (the claims reading only these are decided on them)
_SMALL_TABLES = ("sim_upper", "sim_spearman", "worst_case", "lemma61")


def small_settings(settings: Settings) -> Settings:
    """The settings of :data:`SMALL_CELLS` with the tier's ``seed`` and ``claims`` section (alpha,
    margins and tolerances: the verdicts use the tier's thresholds; theory §3.2, §2.4), validated
    like any config (:func:`onlinerank.config.load_settings`)."""
    tier = settings.as_config()
    return load_settings({**copy.deepcopy(SMALL_CELLS), "seed": tier["seed"], "claims": tier["claims"]})


def small_tables(settings: Settings) -> dict[str, list[dict]]:
    """The tables of the small cells (``settings``: :func:`small_settings`), computed in-process
    by the pipeline's own functions: every block of every cell
    (:func:`onlinerank.cells.run_block`, aggregated by :func:`onlinerank.sim_tables.aggregate`),
    the exact worst cases and the sampled Lemma 6.1 check (theory §2.4, §3.4)."""
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
    for name in _BUILT_SMALL_TABLES:
        tables[name] = make_table(name, settings)
    return tables


def decidable_claims(tables: Mapping[str, list[dict]]) -> list[str]:
    """Ids of the tested claims whose tables are all among ``tables`` (and read at least one), in
    the order of claims.md: on the small cells, the claims of theory §2.4 (Lemma 6.1) and §3.2
    (Theorem 3.1 and its corollaries)."""
    return [
        c.id
        for c in sorted(REGISTRY.values(), key=_paper_order)
        if c.section != "not-tested" and c.reads and set(c.reads) <= set(tables)
    ]


def evaluate_claims(tables: Mapping[str, list[dict]], settings: Settings, ids: list[str]) -> dict[str, dict]:
    """The claims ``ids`` evaluated on ``tables`` by the report's own function (the same builders,
    verdict rule and alpha as ``claims.json``; statistics of theory §2.4, §3.2)."""
    return {cid: evaluate(REGISTRY[cid], tables, settings, settings.claims.alpha) for cid in ids}


def _worst_value_cell(cells: list[dict]) -> dict:
    """The cell whose statistic lies furthest on the failing side of its threshold (or nearest to
    it): largest ``value - threshold`` for a claim ``<=``, ``threshold - value`` for ``>=``."""

    def excess(x: dict) -> float:
        d = x["value"] - x["threshold"] if x["direction"] == "<=" else x["threshold"] - x["value"]
        return d if math.isfinite(d) else -math.inf

    return max(cells, key=excess)


def run_mutations(settings: Settings, names: list[str] | None = None) -> dict[str, dict[str, dict]]:
    """Every claim decidable on the small cells of the tier's ``settings`` (:func:`small_settings`),
    evaluated unmutated (key ``"unmutated"``) and under each mutation of ``names`` (default all), on
    the same cells and seeds: ``{run: {claim id: claim record}}``, the records of
    :func:`onlinerank.claims.report.evaluate`.  Claims without a cell on the small cells are left
    out (they decide nothing here).  theory §2.1–§2.4, §3.2."""
    small = small_settings(settings)
    names = list(MUTATIONS) if names is None else list(names)
    for name in names:
        if name not in MUTATIONS:
            raise ValueError(f"unknown mutation {name!r}; known: {', '.join(MUTATIONS)}")
    tables = small_tables(small)
    base = evaluate_claims(tables, small, decidable_claims(tables))
    ids = [cid for cid, rec in base.items() if rec["cells"]]
    out = {"unmutated": {cid: base[cid] for cid in ids}}
    for name in names:
        with mutated(name):
            tables = small_tables(small)
        out[name] = evaluate_claims(tables, small, ids)
    return out


def mutation_rows(runs: Mapping[str, Mapping[str, dict]]) -> list[dict]:
    """The mutations table from :func:`run_mutations`: one row per (mutation, claim)
    (columns declared in :mod:`onlinerank.tables.mutation_verdicts`).  ``cells_failing`` /
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
            w = _worst_value_cell(g["cells"]) if g["cells"] else None
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
