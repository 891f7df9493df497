"""The regret bounds that Section 4 of the paper (and §5 for Spearman feedback) cites for the
baselines it compares with Theorem 3.1, declared once (theory §3.3): each baseline's key in the
comparison (the ``method`` of the ``bound_comparison`` table), its legend, the bound in words,
and, per feedback family, the factor by which the paper claims Theorem 3.1 improves on it -- as
text, as a SymPy expression over n and k (:mod:`onlinerank.asymptotics` decides the Ω statements
with it) and as a number (:func:`onlinerank.bounds.claimed_factor`).

The bounds themselves are formulas of :mod:`onlinerank.bounds` (numbers) and
:mod:`onlinerank.asymptotics` (SymPy), one function per baseline each, keyed there by these
declarations.  The keys are the paper's names of the baselines, the same as the names of the
learners that play them (:mod:`onlinerank.learners`), but nothing here plays a learner: the
comparison is of closed-form bounds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from .registry import Registry

__all__ = ["ClaimedFactor", "CitedBound", "CITED_BOUNDS", "HEDGE", "FPL", "PERMELEARN"]


@dataclass(frozen=True)
class ClaimedFactor:
    """The factor the paper claims Theorem 3.1 improves on a baseline by, for one family (theory
    §3.3 [P]), without constants: ``text`` (e.g. ``Ω(√log n)``), ``expression`` (SymPy syntax
    over the positive symbols n, k) and ``value(n, k)`` (its number at ``n``, a float64 array)."""

    text: str
    expression: str
    value: Callable[[np.ndarray, int], np.ndarray]


@dataclass(frozen=True, eq=False)
class CitedBound:
    """A baseline's cited bound: its key ``method``, its legend ``label``, the bound in words
    (``formula``: this project's reconstruction, theory §3.3) and the claimed factor per family.
    Equal only to itself (the formulas of :mod:`onlinerank.bounds` and :mod:`onlinerank.asymptotics`
    are keyed by the declaration)."""

    method: str
    label: str
    formula: str
    claimed: Mapping[str, ClaimedFactor]


#: every cited bound, by method, in the order of the comparison table
CITED_BOUNDS: Registry = Registry("cited bound", key="method")


def _log(n: np.ndarray) -> np.ndarray:
    return np.log(n)


HEDGE: CitedBound = CITED_BOUNDS.register(
    CitedBound(
        "hedge",
        "Hedge over n!",
        "Hedge over the n! rankings, L√(T ln n!/2) with loss range L = M (binary feedback) or "
        "(n³−n)/6 (Spearman)",
        {
            "single": ClaimedFactor("Ω(√log n)", "sqrt(log(n))", lambda n, k: np.sqrt(_log(n))),
            "kchoice": ClaimedFactor("Ω(√(k log n))", "sqrt(k*log(n))", lambda n, k: np.sqrt(k * _log(n))),
            "subset": ClaimedFactor("Ω(√(n log n))", "sqrt(n*log(n))", lambda n, k: np.sqrt(n * _log(n))),
            "spearman": ClaimedFactor("Ω(√(n log n))", "sqrt(n*log(n))", lambda n, k: np.sqrt(n * _log(n))),
        },
    )
)
FPL: CitedBound = CITED_BOUNDS.register(
    CitedBound(
        "fpl",
        "FPL",
        "FPL (Kalai–Vempala), 2√(DRAT) with D = ⌊n²/2⌋, R the range of d·s, A = max‖s‖₁",
        {
            "single": ClaimedFactor("Θ(1)", "1", lambda n, k: np.ones_like(n)),
            "kchoice": ClaimedFactor("Ω(√k)", "sqrt(k)", lambda n, k: np.sqrt(k) * np.ones_like(n)),
            "subset": ClaimedFactor("Ω(√n)", "sqrt(n)", lambda n, k: np.sqrt(n)),
            "spearman": ClaimedFactor("Ω(√n)", "sqrt(n)", lambda n, k: np.sqrt(n)),
        },
    )
)
PERMELEARN: CitedBound = CITED_BOUNDS.register(
    CitedBound(
        "permelearn",
        "PermELearn",
        "PermELearn (Helmbold–Warmuth), c(√(2 L_est n ln n) + n ln n) with the scale c and L_est of a "
        "uniform ranking",
        {
            family: ClaimedFactor("Ω(√log n)", "sqrt(log(n))", lambda n, k: np.sqrt(_log(n)))
            for family in ("single", "kchoice", "subset", "spearman")
        },
    )
)
