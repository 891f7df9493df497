"""The Section 4 comparison (table ``bound_comparison``, theory §3.3): each baseline's regret bound
over Theorem 3.1's as n and k grow, next to the factor the paper claims.  Its producer is
:mod:`onlinerank.comparison` (closed forms only)."""

from __future__ import annotations

from ..comparison import bound_comparison_rows
from ..settings import Settings
from .base import FAMILY, Column, K, N, T, table

__all__ = ["bound_comparison_table"]


@table(
    "bound_comparison",
    stage="bound_comparison",
    description="Each baseline's regret bound over Theorem 3.1's against the factor Section 4 claims "
    "(theory §3.3).",
    columns=(
        FAMILY,
        Column("sweep", "n (a sweep over n) or k (a sweep over k at fixed n)"),
        N,
        K,
        T,
        Column("method", "the baseline: hedge, fpl or permelearn"),
        Column("bound", "the baseline's regret bound", "loss"),
        Column("thm31", "Theorem 3.1's bound", "loss"),
        Column("ratio", "bound / thm31"),
        Column("claimed", "the factor the paper claims, as text"),
        Column("claimed_value", "that factor's value"),
        Column("ratio_over_claimed", "ratio / claimed_value: the Ω statement holds iff bounded below"),
    ),
    keys=("bound_comparison",),
)
def bound_comparison_table(settings: Settings) -> list[dict]:
    """The comparison of the settings' ``bound_comparison`` section
    (:func:`onlinerank.comparison.bound_comparison_rows`)."""
    assert settings.bound_comparison is not None  # made only when the config has the section
    return bound_comparison_rows(settings.bound_comparison)
