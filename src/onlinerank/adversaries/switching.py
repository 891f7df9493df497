"""The "switching" adversary: a favoured item (or subset, or ranking) that changes every P rounds.

Rounds are grouped into phases of ``period`` rounds: phase ``j`` covers rounds ``j P + 1 ..
(j + 1) P``.  Each phase has a favoured object — an item (single), a k-subset (kchoice), an
``n // 2``-subset (subset) or a ranking (spearman) — drawn uniformly at random from the replicate's
generator among all objects *different from the previous phase's favourite*, so the favourite
changes at every phase boundary and only there.  Within a phase, each round plays the favourite with
probability ``p_favour`` (default 1.0: deterministic within a phase), otherwise an independent
uniform object.

Parameters
----------
period : int or None
    Phase length P >= 1; ``None`` (default) means ``max(1, T // 10)`` (about ten phases).
p_favour : float in [0, 1]
    Probability that a round plays the phase's favourite.

A non-stationary world: a learner that commits to the early leader pays after each switch, while
the hindsight optimum averages the phases.  Oblivious; per-round cost O(k) per replicate (O(n) for
Spearman), plus O(n) per phase.  :attr:`favoured` holds the current round's favourites (R, w).
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from ..feedback import Feedback, FeedbackBlock
from ..game import Game
from .base import Adversary, LearnerView, register
from .uniform import uniform_subsets

__all__ = ["SwitchingAdversary"]


@register
class SwitchingAdversary(Adversary):
    """Favoured item/subset/ranking changing every ``period`` rounds; see the module docstring."""

    name = "switching"
    oblivious = True
    families = ("single", "kchoice", "subset", "spearman")
    #: the current chunk of rounds (c, R, w) and their favourites, filled by ``_fill`` before use
    _rows: np.ndarray
    _favs: np.ndarray

    def __init__(self, period: int | None = None, p_favour: float = 1.0) -> None:
        if period is not None and (isinstance(period, bool) or not isinstance(period, int) or period < 1):
            raise ValueError(f"switching: period must be a positive integer or None, got {period!r}")
        if (
            isinstance(p_favour, bool)
            or not isinstance(p_favour, (int, float))
            or not (math.isfinite(p_favour) and 0.0 <= p_favour <= 1.0)
        ):
            raise ValueError(f"switching: p_favour must lie in [0, 1], got {p_favour!r}")
        self.period = period
        self.p_favour = float(p_favour)

    @classmethod
    def example(cls) -> SwitchingAdversary:
        return cls(period=7, p_favour=0.8)

    def reset(self, game: Game, rngs: list[np.random.Generator]) -> None:
        super().reset(game, rngs)
        n = game.n
        self.P = self.period if self.period is not None else max(1, game.T // 10)
        if game.family == "single":
            self._draw = lambda g, c: g.integers(n, size=(c, 1))
        elif game.family in ("kchoice", "subset"):
            k = cast(int, game.chosen)  # a binary family
            self._draw = lambda g, c: uniform_subsets(g, c, n, k)
        else:  # spearman: sigma[u] = position of u
            self._draw = lambda g, c: g.permuted(np.tile(np.arange(1, n + 1), (c, 1)), axis=1)
        self.chunk = max(1, min(1024, (1 << 18) // n))
        self._prev = [None] * self.reps  # favourite of the last phase drawn, per replicate
        self._last_phase = -1  # index of the last phase drawn (the same for every replicate)
        self._t0 = 1  # first round of the next chunk
        self._pos = self.chunk
        self._rows = self._favs = None  # type: ignore[assignment]  # filled by _fill() before use
        self.favoured: np.ndarray | None = None

    def _phase_favourites(self, g: np.random.Generator, r: int, m: int) -> np.ndarray:
        """The favourites of the next ``m`` phases of replicate ``r``, each differing from the
        previous one (rejection: redraw a uniform object while it equals its predecessor)."""
        cand = self._draw(g, m)
        prev = self._prev[r]
        for j in range(m):
            while prev is not None and np.array_equal(cand[j], prev):
                cand[j] = self._draw(g, 1)[0]
            prev = cand[j]
        self._prev[r] = prev
        return cand

    def _fill(self) -> None:
        c, t0 = self.chunk, self._t0
        phase = (np.arange(t0, t0 + c) - 1) // self.P
        m = int(phase[-1]) - self._last_phase  # phases starting inside this chunk
        rows, favs = [], []
        for r, g in enumerate(self.rngs):
            old = self._prev[r]  # favourite of phase self._last_phase (None before round 1)
            parts = [] if old is None else [old[None]]
            if m > 0:
                parts.append(self._phase_favourites(g, r, m))
            table = np.concatenate(parts)
            base = self._last_phase if old is not None else self._last_phase + 1
            fav = table[phase - base]
            row = fav.copy()
            if self.p_favour < 1.0:
                off = g.random(c) >= self.p_favour
                alt = self._draw(g, c)
                row[off] = alt[off]
            rows.append(row)
            favs.append(fav)
        self._last_phase = int(phase[-1])
        self._rows = np.stack(rows, axis=1)  # (c, R, w)
        self._favs = np.stack(favs, axis=1)
        self._t0 += c
        self._pos = 0

    def feedback_block(self, t0: int, B: int) -> FeedbackBlock:
        rows, favs = [], []
        while B > 0:
            if self._pos >= self.chunk:
                self._fill()
            c = min(B, self.chunk - self._pos)
            rows.append(self._rows[self._pos : self._pos + c])
            favs.append(self._favs[self._pos : self._pos + c])
            self._pos += c
            B -= c
        self.favoured = favs[-1][-1]
        return self._feedback_block(rows[0] if len(rows) == 1 else np.concatenate(rows))

    def feedback(self, t: int, learner: LearnerView) -> Feedback:
        if self._pos >= self.chunk:
            self._fill()
        x = self._rows[self._pos]
        self.favoured = self._favs[self._pos]
        self._pos += 1
        if self.game.family == "spearman":
            return Feedback(self.game.n, values=-x.astype(np.float64), family="spearman")
        return Feedback(self.game.n, items=x, family=self.game.family)

    def describe(self) -> dict:
        return {"adversary": self.name, "period": self.period, "p_favour": self.p_favour}
