"""Regret of OnlineRank and the baselines (Hedge, FPL, PermELearn, FTL, uniform) on the same
feedback (common random numbers), with Theorem 3.1's curves (theory §3.2, §3.3)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..plotting import regret_panels
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings


@figure(
    "baselines_regret",
    tables=("sim_baselines", "bounds_baselines"),
    claims=("beyond.greedy", "thm3.3.every_algorithm", "beyond.cyclic.onlinerank", "beyond.cyclic.ftl"),
    caption="OnlineRank and the baselines (Hedge, FPL, PermELearn, FTL, uniform) on common "
    "adversaries; the greedy adversary adapts to each learner (an observation, not a comparison).",
)
def plot_baselines_regret(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """Regret vs T of every learner on common adversaries, with Theorem 3.1 (theory §3.2, §3.3)."""
    bnd = {(r["family"], r["n"], r["k"], r["T"]): r for r in tables["bounds_baselines"]}
    return regret_panels(
        tables["sim_baselines"],
        bnd,
        config.learner_dicts(),
        "OnlineRank vs the baselines of Section 4",
    )
