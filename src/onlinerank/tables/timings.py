"""The wall-clock timings of the learners (table ``runtime``, theory §2.1-§2.3, §3.3): the only
table that is not bit-identical between runs.  Its producer is :mod:`onlinerank.timing`."""

from __future__ import annotations

from ..settings import Settings
from .base import Column, N, table

__all__ = ["runtime_table"]


@table(
    "runtime",
    stage="runtime",
    description="Wall-clock time per round of each learner versus n (not deterministic: the only "
    "table that is not bit-identical between runs; theory §2.1-§2.3, §3.3).",
    columns=(
        Column("learner", "learner label"),
        Column("name", "the learner's registered name"),
        N,
        Column("part", "what was timed: update, sample, round, sample_first_step, round_lower or sweep"),
        Column("process", "index of the timing process (a fresh Python process) that made the row"),
        Column("repeat", "index of the separate timing among every process's timings of the point"),
        Column("seconds_per_round", "median time over the rounds timed", "s"),
        Column("rounds_timed", "rounds timed in this repeat", "rounds"),
        Column("sweeps_per_round", "mean Sinkhorn sweeps per update (NaN for other learners)"),
    ),
    keys=("runtime", "learners"),
    wall_clock=True,
)
def runtime_table(settings: Settings) -> list[dict]:
    """The timings of the settings' ``runtime`` section (:func:`onlinerank.timing.runtime_rows`)."""
    # lazy: the timings load the learners and the engine, which reading the declarations must not
    from ..timing import runtime_rows

    assert settings.runtime is not None  # the table is made only when the config has the section
    return runtime_rows(settings.learners, settings.runtime)
