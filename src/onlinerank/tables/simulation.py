"""The simulation tables ``sim_<stage>``: one row per cell, checkpoint and metric, aggregated from
the replicate blocks of a stage by rule ``aggregate`` (:func:`onlinerank.sim_tables.aggregate_stage`;
theory §2.5).  Declared here without a builder: no config-only function makes them."""

from __future__ import annotations

from ..settings import STAGES
from .base import FAMILY, TABLES, Column, K, M, N, T, TableSpec

__all__ = ["SIM_SCHEMA_COLUMNS", "SIM_COLUMNS"]

SIM_SCHEMA_COLUMNS = (
    Column("stage", "pipeline stage of the cell"),
    Column("experiment", "experiment name in the config"),
    Column("adversary", "adversary label (a key of the config's adversaries)"),
    Column("learner", "learner label (a key of the config's learners)"),
    FAMILY,
    N,
    K,
    T,
    M,
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
#: the columns of the simulation tables
SIM_COLUMNS: tuple[str, ...] = tuple(c.name for c in SIM_SCHEMA_COLUMNS)

for _stage in STAGES:
    TABLES.register(
        TableSpec(
            f"sim_{_stage}",
            _stage,
            f"The {_stage} stage's simulations: one row per cell, checkpoint and metric, aggregated "
            "over replicate blocks (theory §2.5).",
            SIM_SCHEMA_COLUMNS,
        )
    )
