"""Spearman rank aggregation: regret vs T for OnlineRank (both samplers), FPL and PermELearn on
the same permutation streams, with the Spearman bound n^2 sqrt((n^2-1) T ln2 / 12) (theory §3.2,
the Spearman corollary)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..plotting import regret_panels
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings


@figure(
    "spearman_regret_vs_T",
    tables=("sim_spearman", "bounds_spearman"),
    claims=("sec5.spearman",),
    caption="Rank aggregation under Spearman's correlation: regret versus T with the bound.",
)
def plot_spearman_regret_vs_T(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """Regret vs T of the Spearman family with the Spearman bound (theory §3.2, the Spearman corollary)."""
    bnd = {(r["family"], r["n"], r["k"], r["T"]): r for r in tables["bounds_spearman"]}
    rows = [r for r in tables["sim_spearman"] if r["family"] == "spearman"]
    return regret_panels(
        rows,
        bnd,
        config.learner_dicts(),
        "Spearman rank aggregation (s = −σ, M = n²(n²−1)/12)",
    )
