"""Theorem 3.1's bound for every distinct game of a simulation stage: the tables ``bounds_upper``,
``bounds_baselines`` and ``bounds_spearman`` (theory §3.2)."""

from __future__ import annotations

from .. import bounds
from ..settings import Settings
from .base import FAMILY, Builder, Column, K, M, N, T, table

__all__ = ["bounds_rows"]

_BOUNDS_COLUMNS = (
    FAMILY,
    N,
    K,
    T,
    M,
    Column("eta_paper", "the paper's rate η_p = n sqrt(ln 2 / (T M)) (theory §3.2)", "1/loss"),
    Column("bound_paper", "Theorem 3.1 at η_p, n sqrt(T M ln 2)", "loss"),
    Column("bound_sharp", "Theorem 3.1 in sharp form at η_p, C(n,2) ln 2/η_p + η_p T M/2", "loss"),
    Column("bound_optimal", "the sharp form at its optimal η, sqrt(2 C(n,2) ln 2 T M)", "loss"),
)


def bounds_rows(settings: Settings, stage: str) -> list[dict]:
    """Theorem 3.1 bounds for every distinct game of ``stage`` (theory §3.2).

    ``bound_paper`` = n sqrt(T M ln 2) (paper's statement at eta_p); ``bound_sharp`` =
    C(n,2) ln2/eta_p + eta_p T M/2; ``bound_optimal`` = the sharp bound at its optimal eta.
    """
    # lazy: the cells load the engine, which reading the tables' declarations must not
    from ..cells import cell_game, cells_of

    seen = {}
    for c in cells_of(settings, stage):
        seen[(c.family, c.n, c.k, c.T)] = cell_game(settings, c)
    rows = []
    for (family, n, k, T_), g in sorted(seen.items()):
        rows.append(
            {
                "family": family,
                "n": n,
                "k": k,
                "T": T_,
                "M": g.M,
                "eta_paper": float(bounds.eta_paper(n, T_, g.M)),
                "bound_paper": float(bounds.theorem31_paper(n, T_, g.M)),
                "bound_sharp": float(bounds.theorem31(n, T_, g.M)),
                "bound_optimal": float(bounds.theorem31_optimal(n, T_, g.M)),
            }
        )
    return rows


def _stage_bounds(stage: str) -> Builder:
    """The builder of ``bounds_<stage>``: :func:`bounds_rows` of that stage."""

    def build(settings: Settings) -> list[dict]:
        return bounds_rows(settings, stage)

    build.__doc__ = f"Theorem 3.1's bounds of the {stage} stage (:func:`bounds_rows`)."
    return build


for _stage in ("upper", "baselines", "spearman"):
    table(
        f"bounds_{_stage}",
        stage=_stage,
        description=f"Theorem 3.1's bound for every distinct game of the {_stage} stage (theory §3.2).",
        columns=_BOUNDS_COLUMNS,
        keys=(_stage, "learners", "adversaries"),
    )(_stage_bounds(_stage))
