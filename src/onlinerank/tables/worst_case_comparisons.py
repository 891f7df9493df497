"""Every learner's worst case and the search beyond the dynamic program (table
``worst_case_learners``), and how tight Theorem 3.1 is (table ``tightness``), theory §3.4, §4.
Their producer is :mod:`onlinerank.worst_case_tables`; both are made in pieces, one job each.
"""

from __future__ import annotations

from ..settings import Settings
from ._worst_case_columns import (
    BOUND_SHARP,
    BOUND_THM31,
    KIND,
    METHOD_WC,
    RATIO_SHARP,
    RATIO_THM31,
    SEQUENCE,
    STATES,
    VALUE_WC,
    section,
)
from .base import ETA, ETA_FACTOR, FAMILY, Column, K, M, N, T, table

__all__ = [
    "worst_case_learners_table",
    "worst_case_learners_pieces",
    "tightness_table",
    "tightness_table_pieces",
]


def worst_case_learners_pieces(settings: Settings) -> list[str]:
    """One piece per learner of the comparison (:func:`onlinerank.worst_case_tables.comparison_pieces`)."""
    # lazy: the dynamic program loads the engine, which reading the tables' declarations must not
    from ..worst_case_tables import comparison_pieces

    return comparison_pieces(section(settings), settings.learners)


@table(
    "worst_case_learners",
    stage="worst_case",
    description="Every learner's exact worst case at the dynamic program's sizes, and every learner "
    "against the same adversaries and the search beyond (theory §3.4, §4).",
    columns=(
        FAMILY,
        N,
        K,
        T,
        Column("learner", "learner label"),
        Column("learner_name", "the learner's registered name"),
        KIND,
        METHOD_WC,
        VALUE_WC,
        BOUND_THM31,
        Column("bound_own", "the learner's own regret bound (NaN if it has none)", "loss"),
        RATIO_THM31,
        Column("ratio_own", "value / bound_own"),
        STATES,
        SEQUENCE,
    ),
    keys=("worst_case", "learners"),
    pieces=worst_case_learners_pieces,
)
def worst_case_learners_table(settings: Settings, piece: str | None = None) -> list[dict]:
    """Every learner's worst case (:func:`onlinerank.worst_case_tables.comparison_rows`); with
    ``piece``, that learner's rows."""
    # lazy: the dynamic program loads the engine, which reading the tables' declarations must not
    from ..worst_case_tables import comparison_rows

    return comparison_rows(section(settings), settings.learners, piece=piece)


def tightness_table_pieces(settings: Settings) -> list[str]:
    """One piece per point of the tightness grid (:func:`onlinerank.worst_case_tables.tightness_pieces`)."""
    # lazy: the dynamic program loads the engine, which reading the tables' declarations must not
    from ..worst_case_tables import tightness_pieces

    return tightness_pieces(section(settings))


@table(
    "tightness",
    stage="worst_case",
    description="How tight Theorem 3.1 is: OnlineRank's worst case (exact, or by search beyond the "
    "dynamic program) over the sharp bound on a grid of n, T and η/η_p (theory §3.4).",
    columns=(
        FAMILY,
        N,
        K,
        T,
        ETA_FACTOR,
        ETA,
        M,
        KIND,
        Column("method", "exact, staircase or beam"),
        VALUE_WC,
        BOUND_THM31,
        BOUND_SHARP,
        RATIO_THM31,
        RATIO_SHARP,
        STATES,
        SEQUENCE,
    ),
    keys=("worst_case",),
    pieces=tightness_table_pieces,
)
def tightness_table(settings: Settings, piece: str | None = None) -> list[dict]:
    """The tightness grid (:func:`onlinerank.worst_case_tables.tightness_rows`); with ``piece``,
    that point's rows."""
    # lazy: the dynamic program loads the engine, which reading the tables' declarations must not
    from ..worst_case_tables import tightness_rows

    return tightness_rows(section(settings), piece=piece)
