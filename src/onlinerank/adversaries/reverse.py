"""The adaptive "reverse" adversary for Spearman feedback: play the reverse of the learner's
expected order.

Each round it computes, from the learner's *distribution* (never its sampled ranking), the
expected position of every item

    E[pi(u)] = 1 + sum_{v != u} P(v before u),

sorts the items by increasing expected position (ties by item id) and plays the reversed ranking:
the item expected at the top gets ``sigma = n`` (last), the next ``n - 1``, ..., and the item
expected at the bottom gets ``sigma = 1``.  Feedback ``s = -sigma``.

How the expected positions are obtained (:func:`~onlinerank.adversaries.base.expected_positions`,
shared with the greedy adversary):

* a learner with log-weights ``a`` (``log_weights()``: OnlineRank) has Bradley–Terry marginals
  ``P(v before u) = expit(a_v - a_u)`` (Lemma 6.1).  Then ``E[pi(u)] = 1/2 + sum_v expit(a_v -
  a_u)`` is *strictly decreasing* in ``a_u`` (for ``a_u > a_w`` every term ``v != u, w`` decreases
  and ``expit(a_w - a_u) < expit(a_u - a_w)``), so the order by increasing expected position is
  exactly the order by decreasing ``a`` with the same ties; the adversary sorts ``-a``
  (O(n log n), no float rounding in the comparison);
* any other learner: from its exact expected loss of the feedback "item u chosen alone", because
  ``ellell(pi, {u}) = #{v : v before u} = pi(u) - 1`` (n calls of ``learner.expected_loss``).  A
  learner without exact expected losses cannot be played against (``ValueError``).
"""

from __future__ import annotations

import numpy as np

from ..feedback import Feedback
from .base import Adversary, LearnerView, expected_positions, register

__all__ = ["ReverseAdversary", "expected_order", "reverse_sigma", "reverse_of_order"]


def expected_order(learner: LearnerView, reps: int, n: int) -> np.ndarray:
    """Items (R, n) by increasing expected position, ties by item id (module docstring)."""
    a = learner.log_weights()
    a = None if a is None else np.asarray(a, dtype=np.float64)
    key = (
        -a
        if a is not None and a.shape == (reps, n)
        else expected_positions(learner, reps, n, "adversary 'reverse'")
    )
    return np.argsort(key, axis=-1, kind="stable")


def reverse_sigma(expected_pos: np.ndarray) -> np.ndarray:
    """Positions (R, n) of the reverse of the order by increasing expected position (ties by item
    id): the k-th item of that order (k = 0, 1, ...) gets position ``n - k``."""
    return reverse_of_order(np.argsort(expected_pos, axis=-1, kind="stable"))


def reverse_of_order(order: np.ndarray) -> np.ndarray:
    """Positions (R, n) of the reverse of ``order``: ``order[..., k]`` gets position ``n - k``."""
    order = np.asarray(order)
    n = order.shape[-1]
    sigma = np.empty(order.shape, dtype=np.int64)
    np.put_along_axis(sigma, order, np.arange(n, 0, -1), axis=-1)
    return sigma


@register
class ReverseAdversary(Adversary):
    """Adaptive: ``s_t = -sigma_t`` with ``sigma_t`` the reverse of the learner's expected order."""

    name = "reverse"
    oblivious = False
    families = ("spearman",)

    def feedback(self, t: int, learner: LearnerView) -> Feedback:
        sigma = reverse_of_order(expected_order(learner, self.reps, self.game.n))
        return Feedback(self.game.n, values=-sigma.astype(np.float64), family="spearman")
