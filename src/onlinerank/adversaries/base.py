"""The adversary interface and registry (ARCHITECTURE §3).

An adversary produces one :class:`~onlinerank.feedback.Feedback` batch per round for R replicates.
Its randomness comes from one generator per replicate (named streams, ``seeding.py``), so a
replicate's feedback does not depend on which block it is simulated in, and every learner of a
cell sees the same feedback (common random numbers).  Adaptive adversaries may query the
learner's exact expected loss of candidate feedback (its *distribution*), never its sample.

A new adversary is one module: subclass :class:`Adversary`, set ``name`` and ``families``,
decorate with ``@register`` and import the module in ``adversaries/__init__.py``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..feedback import Feedback
from ..game import Game
from ..registry import Registry
from ..samplers import expit

__all__ = [
    "Adversary",
    "ADVERSARIES",
    "register",
    "make_adversary",
    "ChunkedDraws",
    "bradley_terry_positions",
    "expected_positions",
]

ADVERSARIES = Registry("adversary")
#: class decorator adding a adversary to :data:`ADVERSARIES` under ``cls.name``
register = ADVERSARIES.register


def make_adversary(name: str, **params) -> Adversary:
    """Instantiate a registered adversary by name; unknown names list the known ones."""
    return ADVERSARIES.make(name, **params)


_BLOCK = 1 << 22  # elements per (R_chunk, n, n) temporary


def bradley_terry_positions(a: np.ndarray) -> np.ndarray:
    """``E[pi(u) - 1] = sum_{v != u} expit(a_v - a_u)`` (R, n) for the Bradley–Terry marginals
    ``P(v before u) = expit(a_v - a_u)`` of log-weights ``a`` (R, n), which both samplers of
    OnlineRank have (Lemma 6.1, THEORY §2.5).  O(R n^2), in blocks of replicates."""
    a = np.asarray(a, dtype=np.float64)
    R, n = a.shape
    out = np.empty((R, n))
    step = max(1, _BLOCK // (n * n))
    for lo in range(0, R, step):
        blk = a[lo : lo + step]
        # d[r, u, v] = a_v - a_u; the v = u term contributes expit(0) = 1/2
        out[lo : lo + step] = expit(blk[:, None, :] - blk[:, :, None]).sum(axis=2) - 0.5
    return out


def expected_positions(learner, reps: int, n: int, who: str = "this adversary") -> np.ndarray:
    """Expected ``pi(u) - 1`` (R, n) of every item under the learner's coming ranking: its
    distribution, never its sample.  Learners with log-weights (``log_weights()``: OnlineRank)
    by :func:`bradley_terry_positions`; any other learner by n queries of its exact expected
    loss of the feedback "item u chosen alone", whose pairwise loss is the number of items ranked
    before u (a ``ValueError`` naming ``who`` if the learner has no exact expected loss)."""
    R = reps
    lw = getattr(learner, "log_weights", None)
    if callable(lw):
        a = np.asarray(lw(), dtype=np.float64)
        if a.shape == (R, n):
            return bradley_terry_positions(a)
    out = np.empty((R, n))
    for u in range(n):
        el = learner.expected_loss(Feedback(n, items=np.full((R, 1), u), family="single"))
        if el is None:
            raise ValueError(
                f"{who} needs a learner with an exact expected loss; "
                f"{getattr(learner, 'name', type(learner).__name__)!r} returned None"
            )
        out[:, u] = el
    return out


class Adversary:
    """Base class.  Subclasses implement :meth:`feedback`."""

    name: ClassVar[str] = ""
    oblivious: ClassVar[bool] = True
    #: feedback families this adversary can produce
    families: ClassVar[tuple[str, ...]] = ()

    def check(self, game: Game) -> None:
        """Raise ``ValueError`` if this adversary cannot play ``game`` (called before any work)."""
        if game.family not in self.families:
            raise ValueError(
                f"adversary {self.name!r} does not produce {game.family!r} feedback "
                f"(supports: {', '.join(self.families)})"
            )

    def reset(self, game: Game, rngs: list[np.random.Generator]) -> None:
        """Start a game; ``rngs[r]`` is replicate r's own generator."""
        self.check(game)
        self.game = game
        self.rngs = rngs
        self.reps = len(rngs)

    def feedback(self, t: int, learner) -> Feedback:  # pragma: no cover - interface
        """Feedback of round ``t`` (1-based) for all replicates."""
        raise NotImplementedError

    def describe(self) -> dict:
        return {"adversary": self.name}

    def _feedback(self, x: np.ndarray) -> Feedback:
        """Feedback from a round's draw: chosen items (R, k), or positions sigma (R, n) for the
        Spearman family (s = -sigma)."""
        if self.game.family == "spearman":
            return Feedback(self.game.n, values=-x.astype(np.float64), family="spearman")
        return Feedback(self.game.n, items=x, family=self.game.family)


class ChunkedDraws:
    """Per-replicate random draws made a chunk of rounds at a time (few Python calls per round).

    ``draw(rng, c)`` returns an array whose first axis has length ``c`` (one entry per round);
    ``next()`` returns the stacked entries of the current round, shape ``(R, ...)``.  A replicate's
    values depend only on its own generator, never on the chunk size of others.
    """

    def __init__(self, rngs: list[np.random.Generator], draw, chunk: int) -> None:
        self.rngs, self.draw, self.chunk = rngs, draw, max(1, int(chunk))
        self.buf: np.ndarray | None = None
        self.pos = self.chunk

    def next(self) -> np.ndarray:
        if self.pos >= self.chunk:
            self.buf = np.stack([self.draw(g, self.chunk) for g in self.rngs], axis=1)
            self.pos = 0
        out = self.buf[self.pos]
        self.pos += 1
        return out
