"""The mutations table: each claim's verdict on small cells, unmutated and under deliberate defects
of the learner or a sampler (theory §2.4, §3.2).  Made in every tier by rule ``mutations`` from the
mutation tests (``workflow/mutants``, a testing device outside the installed package); declared
here, without a builder, so that its columns are read like every other table's."""

from __future__ import annotations

from .base import TABLES, Column, TableSpec

TABLES.register(
    TableSpec(
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
    )
)
