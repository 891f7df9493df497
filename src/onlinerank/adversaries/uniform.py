"""The i.i.d. uniform adversary — also the paper's randomized lower-bound construction (§4.1).

single: a uniform item per round; kchoice: a uniform k-subset; subset: a uniform subset of size
n // 2; spearman: a uniform random ranking (s = -sigma).
"""

from __future__ import annotations

from fractions import Fraction
from typing import cast

import numpy as np

from ..feedback import Feedback, FeedbackBlock
from ..game import Game
from .base import Adversary, ChunkedDraws, LearnerView, register


def uniform_subsets(rng: np.random.Generator, c: int, n: int, k: int) -> np.ndarray:
    """``c`` independent uniform k-subsets of ``range(n)``, shape (c, k), each row sorted."""
    keys = rng.random((c, n))
    return np.sort(np.argpartition(keys, k - 1, axis=1)[:, :k], axis=1)


@register
class UniformAdversary(Adversary):
    name = "uniform"
    oblivious = True
    learner_independent = True
    roles = frozenset({"random-sequence"})
    families = ("single", "kchoice", "subset", "spearman")

    def reset(self, game: Game, rngs: list[np.random.Generator]) -> None:
        super().reset(game, rngs)
        n = game.n
        chunk = max(1, min(1024, (1 << 18) // n))
        if game.family == "single":
            draw = lambda g, c: g.integers(n, size=(c, 1))  # noqa: E731
        elif game.family in ("kchoice", "subset"):
            k = cast(int, game.chosen)  # a binary family
            draw = lambda g, c: uniform_subsets(g, c, n, k)  # noqa: E731
        else:  # spearman: sigma[u] = position of u
            draw = lambda g, c: g.permuted(np.tile(np.arange(1, n + 1), (c, 1)), axis=1)  # noqa: E731
        self.draws = ChunkedDraws(rngs, draw, chunk)

    def pair_difference_law(self, game: Game) -> dict[int, Fraction] | None:
        """``s(u) - s(v)`` for a uniform c-subset (c = 1, k or n // 2): +1 and -1 with probability
        ``q = c(n-c)/(n(n-1))`` each (theory §4.1); for a uniform ranking (Spearman, ``s = -sigma``)
        the difference of two distinct uniform positions, ``P(d) = (n - |d|)/(n(n-1))`` for
        ``0 < |d| < n`` (theory §4.6).  None for a subclass that declares itself adaptive or
        dependent on the learner (the law is that of i.i.d. rounds no learner moves)."""
        if not (self.oblivious and self.learner_independent):
            return None
        n = game.n
        c = game.chosen
        if game.family == "spearman":
            return {d: Fraction(n - abs(d), n * (n - 1)) for d in range(1 - n, n) if d}
        if c is None:  # not a family of this adversary
            return None
        q = Fraction(c * (n - c), n * (n - 1))
        return {-1: q, 0: 1 - 2 * q, 1: q}

    def feedback(self, t: int, learner: LearnerView) -> Feedback:
        return self._feedback(self.draws.next())

    def feedback_block(self, t0: int, B: int) -> FeedbackBlock:
        return self._feedback_block(self.draws.take(B))
