"""Graded feedback: regret vs T against the Theorem 3.1 bound computed from the family's own M
(theory §3.2, the Spearman corollary)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..plotting import regret_panels
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings


@figure(
    "graded_regret",
    tables=("sim_spearman", "bounds_spearman"),
    claims=("sec5.graded",),
    caption="Graded relevance feedback: regret versus T against the bound with the feedback's own M.",
)
def plot_graded_regret(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """Regret vs T of the graded family with the bound at its own M (theory §3.2, the Spearman corollary)."""
    bnd = {(r["family"], r["n"], r["k"], r["T"]): r for r in tables["bounds_spearman"]}
    rows = [r for r in tables["sim_spearman"] if r["family"] == "graded"]
    return regret_panels(
        rows,
        bnd,
        config.learner_dicts(),
        "Graded relevance feedback (M = g² ⌊n²/4⌋)",
    )
