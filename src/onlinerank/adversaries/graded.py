"""The graded-relevance adversary (family ``graded``): noisy grades of a latent relevance.

Each replicate has a latent relevance vector ``r`` in [0, 1]^n, drawn once at ``reset``:

* ``relevance="uniform"`` (default): ``r_u ~ Uniform(0, 1)`` i.i.d. from the replicate's generator;
* ``relevance="ramp"``: the fixed linear ramp ``r_u = 1 - u / (n - 1)`` (item 0 most relevant).

Round t, with ``Z_t(u) ~ N(0, 1)`` i.i.d.:

* discrete (default, ``levels = g``): ``s_t(u) = clip(round(g (r_u + noise Z_t(u))), 0, g)``, an
  integer grade in ``{0, ..., g}`` (``round`` is numpy's: to nearest, ties to even);
* ``continuous=True``: ``s_t(u) = clip(r_u + noise Z_t(u), 0, 1)``, a real score in [0, 1].

The complexity parameter: graded feedback has no family value of M (``Game`` needs it
explicitly).  :func:`graded_M` gives the worst case over the feedback family, i.e. over all vectors
with entries in ``[0, g]`` (``g = 1`` when continuous):

    max sum_{u<v} (s_u - s_v)^2 = g^2 floor(n^2 / 4)

(``sum_{u<v} (s_u - s_v)^2 = n sum s^2 - (sum s)^2`` is convex, so its maximum over the box is at a
vertex; a vertex with k entries equal to g gives ``g^2 k (n - k)``, maximal at ``k = floor(n/2)``).
It is a bound valid for every sequence this adversary can produce — not the realised M of the data
(``feedback.complexity_M`` of the generated sequence, which is typically smaller).
"""

from __future__ import annotations

import numpy as np

from ..feedback import Feedback, FeedbackBlock
from ..game import Game
from .base import Adversary, ChunkedDraws, LearnerView, register

__all__ = ["GradedAdversary", "graded_M", "graded_game"]


def graded_M(n: int, levels: int = 4, continuous: bool = False) -> float:
    """The family bound ``g^2 floor(n^2/4)`` on M for scores in ``[0, g]`` (g = 1 if continuous)."""
    g = 1 if continuous else int(levels)
    return float(g * g * (n * n // 4))


def graded_game(n: int, T: int, levels: int = 4, continuous: bool = False) -> Game:
    """``Game(n, T, family="graded", M=graded_M(n, levels, continuous))``."""
    return Game(n=n, T=T, family="graded", M=graded_M(n, levels, continuous))


@register
class GradedAdversary(Adversary):
    """Noisy graded relevance (module docstring).

    Parameters
    ----------
    levels : top grade g >= 1 (grades 0..g; ignored when continuous), default 4
    continuous : real scores in [0, 1] instead of integer grades
    noise : standard deviation of the Gaussian noise added to the relevance (>= 0), default 0.3
    relevance : "uniform" (r_u ~ U(0, 1) per replicate, default) or "ramp" (r_u = 1 - u/(n-1))
    """

    name = "graded"
    oblivious = True
    families = ("graded",)

    def __init__(
        self, levels: int = 4, continuous: bool = False, noise: float = 0.3, relevance: str = "uniform"
    ) -> None:
        if isinstance(levels, bool) or int(levels) != levels or levels < 1:
            raise ValueError(f"levels must be an integer >= 1, got {levels!r}")
        noise = float(noise)
        if not (noise >= 0 and np.isfinite(noise)):
            raise ValueError(f"noise must be a finite number >= 0, got {noise!r}")
        if relevance not in ("uniform", "ramp"):
            raise ValueError(f"relevance must be 'uniform' or 'ramp', got {relevance!r}")
        self.levels = int(levels)
        self.continuous = bool(continuous)
        self.noise = noise
        self.relevance = relevance

    @classmethod
    def example(cls) -> GradedAdversary:
        return cls()

    graded_M = staticmethod(graded_M)

    @property
    def top(self) -> int:
        """The largest score g (1 when continuous)."""
        return 1 if self.continuous else self.levels

    def M(self, n: int) -> float:
        """The family bound :func:`graded_M` for this adversary's score range."""
        return graded_M(n, self.levels, self.continuous)

    def reset(self, game: Game, rngs: list[np.random.Generator]) -> None:
        super().reset(game, rngs)
        n = game.n
        if self.relevance == "uniform":
            self.rel = np.stack([g.random(n) for g in rngs])
        else:
            self.rel = np.tile(1.0 - np.arange(n) / (n - 1), (self.reps, 1))
        chunk = max(1, min(1024, (1 << 16) // n))
        self.draws = ChunkedDraws(rngs, lambda g, c: g.standard_normal((c, n)), chunk)

    def _scores(self, z: np.ndarray) -> np.ndarray:
        """Scores from standard normal noise ``z`` (..., R, n) or (R, ..., n), elementwise."""
        x = (self.rel if z.ndim == 2 else self.rel[:, None, :]) + self.noise * z
        if self.continuous:
            return np.clip(x, 0.0, 1.0)
        return np.clip(np.round(self.levels * x), 0, self.levels)

    def feedback(self, t: int, learner: LearnerView) -> Feedback:
        return Feedback(self.game.n, values=self._scores(self.draws.next()), family="graded")

    def feedback_block(self, t0: int, B: int) -> FeedbackBlock:
        z = self.draws.take(B).swapaxes(0, 1)  # (R, B, n)
        return FeedbackBlock(self.game.n, values=self._scores(z), family="graded")

    def describe(self) -> dict:
        return {
            "adversary": self.name,
            "levels": self.levels,
            "continuous": self.continuous,
            "noise": self.noise,
            "relevance": self.relevance,
        }
