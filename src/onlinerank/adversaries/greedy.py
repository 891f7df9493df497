"""The greedy adaptive adversary: maximise the learner's one-step expected regret increment.

Each round it plays the feedback ``s`` that maximises

    inc(s) = E[ellell(pi_t, s)] - (L*_t(S + s) - L*_{t-1}(S)),

where ``E`` is the learner's *exact* expected pairwise loss of the coming ranking (its
distribution, never its sampled ranking), ``S`` the cumulative scores so far and ``L*`` the
hindsight optimum (theory §1, :func:`onlinerank.hindsight.hindsight_loss`).  The sum of the
increments over the rounds is the learner's expected regret, so this is the myopic worst case.

Closed forms (binary feedback ``s = 1_C``, integer scores ``S``):

* by linearity of the position loss, for *any* learner
  ``E[ellell(pi, 1_C)] = sum_{c in C} p_c - C(|C|, 2)`` with ``p_c = E[pi(c) - 1]``, the
  expected loss of the single choice ``{c}``;
* ``L*_t - L*_{t-1} = sum_{c in C, v not in C} [S_v > S_c] = sum_{c in C} g_c - #{strict pairs in C}``
  with ``g_c = #{v : S_v > S_c}``;
* hence ``inc(C) = sum_{c in C} (p_c - g_c) - #{pairs in C with equal S}``.

Single choice: all ``n`` candidates are evaluated (``inc(u) = p_u - g_u``).  k-choice and subsets
(``|C| = n // 2``): the set is built item by item, each time adding the item of largest marginal
increment ``p_u - g_u - #{c in C : S_c = S_u}``.  This greedy construction is in general an
approximation of the max over all subsets, but here it is *exact*: the objective is a sum over the
groups of equal score of ``(sum of the chosen h_c) - C(m_g, 2)``, a separable concave function of
the group counts ``m_g``, for which greedy marginal allocation is optimal (the test suite checks it
against enumeration of all subsets).  Ties (within ``1e-9`` relative) go to the lowest item id.

The ``p_u`` come from the learner's ``log_weights()`` when it exposes them (OnlineRank: the
Bradley–Terry marginals ``P(v before u) = expit(a_v - a_u)``, Lemma 6.1, so
``p_u = sum_{v != u} expit(a_v - a_u)``, one vectorised O(R n^2) step), otherwise from ``n`` calls
``learner.expected_loss`` on the single choices ``{u}`` (generic, exact for any learner with an
exact expected loss).  Per-round cost O(R n^2); fine for n up to a few hundred.

``oblivious = False``.  Deterministic (no randomness): all replicates facing identical learners
receive identical feedback.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from ..feedback import Feedback
from ..game import Game
from .base import Adversary, LearnerView, expected_positions, pair_block_bytes, register

__all__ = ["GreedyAdversary", "greater_counts"]


def greater_counts(S: np.ndarray) -> np.ndarray:
    """``g[r, u] = #{v : S[r, v] > S[r, u]}`` for (R, n) scores, by sorting (O(n log n) a row,
    compiled: :func:`onlinerank._kernels.adversaries.greater_counts`)."""
    from .._kernels import adversaries as K  # lazy: numba starts only where the kernels run

    S = np.ascontiguousarray(S, dtype=np.float64)
    out = np.empty(S.shape, dtype=np.int64)
    K.greater_counts(S, out)
    return out


@register
class GreedyAdversary(Adversary):
    """Maximises the learner's exact one-step expected regret increment; see the module doc."""

    name = "greedy"
    plot_marker = "x"
    oblivious = False
    families = ("single", "kchoice", "subset")
    roles = frozenset({"greedy-regret"})

    @classmethod
    def memory_bytes(cls, n: int, reps: int) -> int:
        """The (n, n) Bradley-Terry temporaries of the learner's expected positions, every round
        (:func:`~onlinerank.adversaries.base.pair_block_bytes`, theory §2.5)."""
        return pair_block_bytes(n)

    def reset(self, game: Game, rngs: list[np.random.Generator]) -> None:
        super().reset(game, rngs)
        self.k = cast(int, game.chosen)  # a binary family
        self.S = np.zeros((self.reps, game.n))
        # the compiled kernels, loaded once here (numba starts only for a game the adversary plays),
        # not by an import statement every round, which costs more than the kernels' work
        from .._kernels import adversaries as K

        self.K = K
        #: (R,) the exact one-step expected regret increment of the last feedback played
        self.last_increment: np.ndarray | None = None

    def positions(self, learner: LearnerView) -> np.ndarray:
        """Expected ``pi(u) - 1`` of every item (R, n) under the learner's coming ranking."""
        return expected_positions(learner, self.reps, self.game.n, "adversary 'greedy'")

    def feedback(self, t: int, learner: LearnerView) -> Feedback:
        R, n, k = self.reps, self.game.n, self.k
        g = np.empty((R, n), dtype=np.int64)
        self.K.greater_counts(self.S, g)
        h = np.ascontiguousarray(self.positions(learner) - g)
        items = np.empty((R, k), dtype=np.int64)
        inc = np.empty(R)
        self.K.greedy_sets(h, self.S, k, items, inc)
        self.last_increment = inc
        fb = Feedback(n, items=items, family=self.game.family)
        fb.add_to(self.S)
        return fb
