"""Exact expected regret of OnlineRank vs T (log-log) against every adversary of the upper-bound
experiments, both samplers, with the Theorem 3.1 bound curves (theory §3.2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..plotting import regret_panels
from .base import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..settings import Settings


@figure(
    "regret_vs_T",
    tables=("sim_upper", "bounds_upper"),
    claims=("thm3.1", "cor3.2.single", "cor3.2.kchoice", "cor3.2.subset", "lemma6.1.samplers"),
    caption="Exact expected regret of OnlineRank (both samplers) against every adversary of the "
    "upper-bound experiments versus the horizon T (log-log), with 95% normal bands over replicates "
    "and the three forms of the Theorem 3.1 bound.",
)
def plot_regret_vs_T(tables: dict[str, list[dict]], config: Settings) -> Figure:
    """Regret vs T per (family, n, k, adversary) with Theorem 3.1's curves (theory §3.2)."""
    bnd = {(r["family"], r["n"], r["k"], r["T"]): r for r in tables["bounds_upper"]}
    return regret_panels(
        tables["sim_upper"],
        bnd,
        config.learner_dicts(),
        "OnlineRank vs Theorem 3.1 (learning rate η = paper's η_p)",
    )
