"""OnlineRank's exact worst case over all feedback sequences by dynamic programming (table
``worst_case``, theory §3.4).  Its producer is :func:`onlinerank.worst_case.worst_case_rows`."""

from __future__ import annotations

from ..settings import Settings
from ._worst_case_columns import BOUND_SHARP, BOUND_THM31, RATIO_SHARP, RATIO_THM31, STATES, section
from .base import ETA, ETA_FACTOR, FAMILY, Column, K, M, N, T, table

__all__ = ["worst_case_table"]


@table(
    "worst_case",
    stage="worst_case",
    description="OnlineRank's exact worst case over all feedback sequences by dynamic programming, "
    "for tiny n, against Theorem 3.1 (theory §3.4).",
    columns=(
        FAMILY,
        N,
        K,
        T,
        ETA_FACTOR,
        ETA,
        M,
        Column("value", "exact worst-case expected regret", "loss"),
        BOUND_THM31,
        BOUND_SHARP,
        RATIO_THM31,
        RATIO_SHARP,
        STATES,
    ),
    keys=("worst_case",),
)
def worst_case_table(settings: Settings) -> list[dict]:
    """OnlineRank's exact worst cases of the settings' ``worst_case.exact``
    (:func:`onlinerank.worst_case.worst_case_rows`)."""
    # lazy: the dynamic program loads the engine, which reading the tables' declarations must not
    from ..worst_case import worst_case_rows

    return worst_case_rows(section(settings))
