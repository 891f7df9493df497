"""The i.i.d. "popularity" adversary: every round is drawn from one fixed Zipf law over the items.

Item ``i`` has weight ``w_i = (i + 1) ** -a`` (``a >= 0``; item 0 is the most popular, ``a = 0``
is the uniform adversary).  The rounds are independent and identically distributed:

* single: one item, ``P(i) = w_i / sum_j w_j``;
* kchoice: ``k`` distinct items drawn successively without replacement from the Zipf weights
  (Gumbel-top-k: the k largest of ``log w_i + Gumbel_i``);
* subset: ``n // 2`` items likewise;
* spearman: a full ranking drawn from the Plackett–Luce law with the Zipf weights (the order of
  all ``log w_i + Gumbel_i``), ``s = -sigma``.

A stochastic, non-uniform world: the best fixed ranking is (with high probability, for long
horizons) ``0, 1, ..., n-1``; the pairs of nearly equally popular items in the tail are the hard
part for a learner with a fixed rate.  Oblivious; per-round cost O(n) per replicate (drawn a chunk
of rounds at a time from each replicate's own generator).
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from ..feedback import Feedback, FeedbackBlock
from ..game import Game
from .base import Adversary, ChunkedDraws, LearnerView, register

__all__ = ["PopularityAdversary", "zipf_weights"]


def zipf_weights(n: int, a: float) -> np.ndarray:
    """The normalised Zipf law ``p_i = (i + 1)^-a / sum_j (j + 1)^-a`` over ``range(n)``."""
    w = np.arange(1, n + 1, dtype=np.float64) ** -float(a)
    return w / w.sum()


@register
class PopularityAdversary(Adversary):
    """I.i.d. rounds from the Zipf law with exponent ``a`` (default 1.0) over the items."""

    name = "popularity"
    oblivious = True
    families = ("single", "kchoice", "subset", "spearman")

    def __init__(self, a: float = 1.0) -> None:
        if isinstance(a, bool) or not isinstance(a, (int, float)) or not (math.isfinite(a) and a >= 0):
            raise ValueError(f"popularity: exponent a must be a finite number >= 0, got {a!r}")
        self.a = float(a)

    @classmethod
    def example(cls) -> PopularityAdversary:
        return cls(a=1.0)

    def reset(self, game: Game, rngs: list[np.random.Generator]) -> None:
        super().reset(game, rngs)
        n = game.n
        p = zipf_weights(n, self.a)
        self.probs = p
        logw = np.log(p)
        chunk = max(1, min(1024, (1 << 18) // n))
        if game.family == "single":
            cdf = np.cumsum(p)
            cdf[-1] = 1.0

            def draw(g, c):  # inverse CDF
                return np.minimum(np.searchsorted(cdf, g.random(c), side="right"), n - 1)[:, None]
        elif game.family in ("kchoice", "subset"):
            k = cast(int, game.chosen)  # a binary family

            def draw(g, c):  # Gumbel-top-k = successive sampling without replacement
                keys = logw + g.gumbel(size=(c, n))
                return np.sort(np.argpartition(-keys, k - 1, axis=1)[:, :k], axis=1)
        else:  # spearman: Plackett–Luce ranking, sigma[u] = position of u (1..n)

            def draw(g, c):
                order = np.argsort(-(logw + g.gumbel(size=(c, n))), axis=1)
                sigma = np.empty_like(order)
                np.put_along_axis(sigma, order, np.arange(1, n + 1)[None, :], axis=1)
                return sigma

        self.draws = ChunkedDraws(rngs, draw, chunk)

    def feedback(self, t: int, learner: LearnerView) -> Feedback:
        return self._feedback(self.draws.next())

    def feedback_block(self, t0: int, B: int) -> FeedbackBlock:
        return self._feedback_block(self.draws.take(B))

    def describe(self) -> dict:
        return {"adversary": self.name, "a": self.a}
