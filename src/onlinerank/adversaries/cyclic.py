"""The cyclic "least-favoured item" adversary (theory §3.4).

Each round chooses the ``k`` items (one for single choice, ``n // 2`` for subsets) with the
*lowest* cumulative score so far.  Among items with equal scores it takes, by default
(``ties="high"``), the highest item ids — i.e. exactly the items that the current leader
(:func:`onlinerank.hindsight.best_order`: decreasing score, ties by increasing id, the order
Follow-the-Leader plays) ranks *last*.  With ``ties="low"`` it takes the lowest ids instead.

Regret it causes:

* OnlineRank at the paper's rate: about ``eta T (n - 1) / 8`` (single choice), i.e. a ratio of
  about 1/8 to ``n sqrt(T M ln 2)`` (theory §3.4); the tie rule is irrelevant (OnlineRank is
  equivariant under relabelling the items).
* Follow-the-Leader with ``ties="high"``: the chosen items always sit at the bottom of FTL's
  ranking, so FTL loses ``k (n - k)`` per round while the hindsight optimum loses about half of
  that: *linear* regret (single choice: exactly ``T (n - 1) / 2`` when ``n`` divides ``T``).
  With ``ties="low"`` the chosen item is the *top* of FTL's tied block and FTL's regret is exactly
  0 for single choice (per cycle it loses ``0 + 1 + ... + (n-1)``, the hindsight optimum too).

Closed form (used for speed, O(k) per round): after ``m`` chosen items the scores differ by at most
one, the items already hit ``q + 1`` times forming a cyclic block, so "lowest score, ties by id"
deals the items cyclically, k at a time: ``0, 1, ..., n-1, 0, 1, ...`` (``ties="low"``) or
``n-1, n-2, ..., 0, n-1, ...`` (``ties="high"``).  The test suite checks this against the direct
"lowest cumulative score" rule.

The adversary depends only on its own past feedback (it never reads the learner) and uses no
randomness, so it is deterministic and the same for every replicate: ``oblivious = True``.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from ..feedback import Feedback, FeedbackBlock
from ..game import Game
from .base import Adversary, LearnerView, register

__all__ = ["CyclicAdversary", "least_favoured"]

TIES = ("high", "low")


def least_favoured(S: np.ndarray, k: int, ties: str = "high") -> np.ndarray:
    """Direct rule: the ``k`` items of lowest cumulative score ``S`` (R, n), ties by highest
    (``"high"``) or lowest (``"low"``) id; returns (R, k) sorted ids.  O(n log n) per row."""
    S = np.asarray(S, dtype=np.float64)
    n = S.shape[-1]
    ids = np.broadcast_to(np.arange(n), S.shape)
    tiekey = -ids if ties == "high" else ids
    order = np.lexsort((tiekey, S), axis=-1)  # primary key: S ascending
    return np.sort(order[..., :k], axis=-1)


@register
class CyclicAdversary(Adversary):
    """Least-favoured item(s) every round; see the module docstring."""

    name = "cyclic"
    plot_marker = "+"
    oblivious = True
    families = ("single", "kchoice", "subset")
    roles = frozenset({"least-favoured-item"})

    def __init__(self, ties: str = "high") -> None:
        if ties not in TIES:
            raise ValueError(f"cyclic: ties must be one of {', '.join(TIES)}, got {ties!r}")
        self.ties = ties

    def reset(self, game: Game, rngs: list[np.random.Generator]) -> None:
        super().reset(game, rngs)
        self.k = cast(int, game.chosen)  # a binary family
        self._m = 0  # items dealt so far

    def feedback(self, t: int, learner: LearnerView) -> Feedback:
        n, k = self.game.n, self.k
        idx = (self._m + np.arange(k)) % n
        self._m += k
        items = np.sort(n - 1 - idx if self.ties == "high" else idx)
        return Feedback(n, items=np.broadcast_to(items, (self.reps, k)).copy(), family=self.game.family)

    def feedback_block(self, t0: int, B: int) -> FeedbackBlock:
        n, k = self.game.n, self.k
        idx = (self._m + np.arange(B * k).reshape(B, k)) % n
        self._m += B * k
        items = np.sort(n - 1 - idx if self.ties == "high" else idx, axis=1)
        return FeedbackBlock(n, items=np.broadcast_to(items, (self.reps, B, k)), family=self.game.family)

    def describe(self) -> dict:
        return {"adversary": self.name, "ties": self.ties}
