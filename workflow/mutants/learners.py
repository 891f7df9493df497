"""The broken learners of the mutation tests: OnlineRank with one deliberate defect each.

Each is a subclass of :class:`onlinerank.learners.onlinerank.OnlineRank` that keeps its name and
changes one thing, through the learner's own hooks; the pipeline's code plays it where OnlineRank
would be played while :func:`mutants.table.mutated` substitutes it in the learner registry
(:meth:`onlinerank.registry.Registry.substituted`).  None is in the learner registry: no config
can name one.  Each is declared a mutation with :func:`mutation`, which registers it in
:data:`MUTATIONS` (the one way of :mod:`onlinerank.registry`).

* :class:`TenthRate` -- the learning rate is a tenth of the configured one (theory §2.1, §3.2):
  its :meth:`~onlinerank.learners.onlinerank.OnlineRank.eta_for`, the one source of the rate of
  the simulated cells, the exact worst-case dynamic program and the learner's own bound.
* :class:`ReversedCoin`, :class:`TemperedCoin` -- QuickSort's coin (Algorithm 2, theory §2.2) is
  ``w_x^c / (w_x^c + w_p^c)`` with ``c = -1`` (``w_p / (w_x + w_p)``: x before the pivot p with
  the pivot's probability) or ``c = 0.8``, instead of ``w_x / (w_x + w_p)``.  That is Algorithm 2
  run on the log-weights ``c a`` (every coin of that run is the mutated coin of ``a``, and the
  pivots are uniform either way): :func:`coin_quicksort_rows`.  The learner's sampled orders
  (:meth:`_rank`) and its per-row samplers (:meth:`orders`, the Lemma 6.1 table) draw from it;
  Plackett-Luce and the exact expected losses (which use the weights only) are not changed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from onlinerank.game import Game
from onlinerank.learners.onlinerank import OnlineRank
from onlinerank.registry import Registry
from onlinerank.samplers import quicksort_rows

__all__ = [
    "Mutation",
    "MUTATIONS",
    "mutation",
    "TenthRate",
    "CoinPower",
    "ReversedCoin",
    "TemperedCoin",
    "coin_quicksort_rows",
]


@dataclass(frozen=True)
class Mutation:
    """A named defect of the algorithm, played by ``learner`` (an OnlineRank with that defect);
    ``targets`` are the claims it is aimed at (documentation: the table reports every claim)."""

    name: str
    defect: str
    targets: tuple[str, ...]
    learner: type[OnlineRank]


#: every mutation, by name, in the order of their declaration
MUTATIONS: Registry = Registry("mutation")


def mutation(
    name: str, *, defect: str, targets: Sequence[str]
) -> Callable[[type[OnlineRank]], type[OnlineRank]]:
    """Class decorator declaring the broken learner it decorates as mutation ``name`` (what it
    breaks: ``defect``; the claims it is aimed at: ``targets``), registered in :data:`MUTATIONS`."""

    def register(cls: type[OnlineRank]) -> type[OnlineRank]:
        MUTATIONS.register(Mutation(name, defect, tuple(targets), cls))
        return cls

    return register


@mutation(
    "eta-0.1",
    defect="OnlineRank with a learning rate ten times too small (η = 0.1·η_p)",
    targets=(
        "thm3.1",
        "thm3.1.worst_case",
        "cor3.2.single",
        "cor3.2.kchoice",
        "cor3.2.subset",
        "sec5.spearman",
        "sec5.graded",
    ),
)
class TenthRate(OnlineRank):
    """OnlineRank at a tenth of its configured learning rate (η = 0.1·η_p at the paper's rate)."""

    factor: ClassVar[float] = 0.1

    def eta_for(self, game: Game) -> float:
        """A tenth of the rate OnlineRank resolves for ``game`` (theory §3.2)."""
        return self.factor * super().eta_for(game)


def coin_quicksort_rows(power: float, eta: float, S: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """One order per row of the scores ``S`` (R, n) by Algorithm 2 with the coin
    ``w_x^power / (w_x^power + w_p^power)`` of the weights ``w = exp(eta S)``: QuickSort on the
    log-weights ``(power eta) S`` (theory §2.2), row r from ``seeds[r]`` alone."""
    return quicksort_rows((power * eta) * S, seeds)


class CoinPower(OnlineRank):
    """OnlineRank whose QuickSort coin is ``w_x^power / (w_x^power + w_p^power)``."""

    power: ClassVar[float] = 1.0

    def _rank(self, seeds: np.ndarray) -> np.ndarray:
        if self.sampler != "quicksort":
            return super()._rank(seeds)
        return coin_quicksort_rows(self.power, self.eta_value, self.state.S, seeds)

    @classmethod
    def orders(cls, sampler: str, logw: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        """QuickSort with the mutated coin on the log-weights ``logw`` (theory §2.2); the
        Plackett-Luce orders of OnlineRank."""
        if sampler != "quicksort":
            return super().orders(sampler, logw, seeds)
        return coin_quicksort_rows(cls.power, 1.0, logw, seeds)


@mutation(
    "quicksort-coin-reversed",
    defect="QuickSort's coin reversed: x before the pivot p with probability w_p/(w_x + w_p)",
    targets=("lemma6.1", "lemma6.1.samplers"),
)
class ReversedCoin(CoinPower):
    """QuickSort's coin reversed: x before the pivot p with probability ``w_p / (w_x + w_p)``."""

    power = -1.0


@mutation(
    "quicksort-coin-tempered-0.8",
    defect="QuickSort's coin tempered: x before the pivot p with probability w_x^0.8/(w_x^0.8 + w_p^0.8)",
    targets=("lemma6.1", "lemma6.1.samplers"),
)
class TemperedCoin(CoinPower):
    """QuickSort's coin tempered: x before the pivot p with probability
    ``w_x^0.8 / (w_x^0.8 + w_p^0.8)``."""

    power = 0.8
