"""Hedge (exponential weights, Freund & Schapire) over all ``n!`` rankings (theory §3.3).

The law of round t is ``P_t(pi) ∝ exp(-beta L_{t-1}(pi))`` with ``L_{t-1}(pi)`` the cumulative
pairwise loss of ranking ``pi``.  With losses in ``[0, L]`` per round, the standard tuning
(Cesa-Bianchi & Lugosi 2006, Thm 2.2)

    beta = sqrt(8 ln(n!) / T) / L        gives        regret <= L sqrt(T ln(n!) / 2).

Loss range ``L`` of ``ellell`` per round (``bounds.hedge_loss_range``): binary families ``L = M``
(``n-1`` single, ``k(n-k)`` k-choice, ``floor(n^2/4)`` subsets: the maximum of ``ellell`` is
``|U|(n-|U|) <= M``); Spearman ``(n^3-n)/6``; graded ``sqrt(C(n,2) M)`` (Cauchy–Schwarz:
``ellell <= sum_{u<v} |s_u - s_v| <= sqrt(C(n,2) sum (s_u-s_v)^2)``; note ``game.M`` itself is
*not* a bound on the graded loss range).

State: the ``(R, n!)`` cumulative losses; the ``(n!, n)`` permutation table (lexicographic) and
position table are shared.  Exact expected loss ``sum_pi P(pi) ellell(pi, s_t)``;
:meth:`~onlinerank.learners.base.Learner.rank`
samples one ranking per replicate by inverting the row's CDF at one uniform derived from the
row's seed only.  Refuses ``n > 9`` (9! = 362880 rankings).
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import cast

import numpy as np

from ..bounds import hedge_bound_family, hedge_loss_range, rate_parameter
from ..feedback import Feedback
from ..game import Game
from ..seeding import row_uniforms
from .base import Learner, register

__all__ = ["Hedge", "permutation_table", "MAX_N"]

#: the largest n Hedge enumerates (9! = 362880 rankings)
MAX_N = 9
_LIMIT = math.factorial(MAX_N)


@functools.lru_cache(maxsize=4)
def permutation_table(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(orders, positions)``: all ``n!`` orders (lexicographic, items best-first) as int8,
    shape ``(n!, n)``, and ``positions[u, i]`` = 0-based position of item u in order i as
    float64, shape ``(n, n!)`` (item-major, so one item's positions are contiguous)."""
    orders = np.array(list(itertools.permutations(range(n))), dtype=np.int8).reshape(-1, n)
    pos = np.empty(orders.shape, dtype=np.float64)
    np.put_along_axis(pos, orders.astype(np.int64), np.arange(n, dtype=np.float64)[None, :], axis=1)
    orders.setflags(write=False)
    pos = np.ascontiguousarray(pos.T)
    pos.setflags(write=False)
    return orders, pos


@register
class Hedge(Learner):
    """Exponential weights over all ``n!`` rankings.

    Parameters
    ----------
    beta : "tuned" (``sqrt(8 ln(n!)/T) / L``) or a positive float.
    """

    name = "hedge"
    exact = True
    plot_color = "#2ca02c"

    def __init__(self, beta: str | float = "tuned") -> None:
        self.beta = rate_parameter(beta, "beta", ("tuned",))

    @staticmethod
    def check(game: Game) -> None:
        """Raise ``ValueError`` when ``game.n`` is too large to enumerate all rankings."""
        if game.n > MAX_N:
            raise ValueError(
                f"hedge enumerates n! rankings; n={game.n} gives "
                f"{math.factorial(game.n)} > limit {_LIMIT}; use n <= {MAX_N}"
            )

    def regret_bound(self, game: Game) -> float | None:
        """Hedge's bound over the n! rankings with the tuned beta (theory §3.3,
        :func:`~onlinerank.bounds.hedge_bound_family`); ``None`` for a beta given by hand."""
        if self.beta != "tuned":
            return None
        return float(hedge_bound_family(game.family, game.n, game.T, game.k))

    def reset(self, game: Game, reps: int) -> None:
        self.check(game)
        super().reset(game, reps)
        self.loss_range = float(hedge_loss_range(game.family, game.n, game.k, game.M))
        if self.beta == "tuned":
            self.beta_value = math.sqrt(8 * math.lgamma(game.n + 1) / game.T) / self.loss_range
        else:
            self.beta_value = cast(float, self.beta)  # not a word: rate_parameter gave a float
        self.orders, self.pos = permutation_table(game.n)
        self.L = np.zeros((reps, self.orders.shape[0]))
        self._refresh()
        self._cache: tuple[Feedback, np.ndarray] | None = None

    def _refresh(self) -> None:
        """Probabilities ``P[r, i] ∝ exp(-beta L[r, i])`` and their CDF (after each update)."""
        logw = -self.beta_value * self.L
        logw -= logw.max(axis=1, keepdims=True)
        p = np.exp(logw)
        p /= p.sum(axis=1, keepdims=True)
        self.P = p
        self.cdf = np.cumsum(p, axis=1)

    def losses(self, fb: Feedback) -> np.ndarray:
        """``ellell(pi, s_r)`` of every ranking against every replicate's feedback, (R, n!)."""
        if self._cache is not None and self._cache[0] is fb:
            return self._cache[1]
        if fb.items is not None:  # ell = sum of the chosen items' positions; ellell = ell - C(k,2)
            k = fb.items.shape[1]
            ell = self.pos[fb.items.ravel()].reshape(fb.reps, k, -1).sum(axis=1)
        else:
            ell = fb.values @ self.pos
        out = ell - fb.pair_min_sum()[:, None]
        self._cache = (fb, out)
        return out

    def _rank(self, seeds: np.ndarray) -> np.ndarray:
        u = row_uniforms(seeds, 1)[:, 0] * self.cdf[:, -1]
        idx = np.array(
            [np.searchsorted(self.cdf[r], u[r], side="right") for r in range(self.reps)], dtype=np.int64
        )
        idx = np.minimum(idx, self.cdf.shape[1] - 1)
        return self.orders[idx].astype(np.int64)

    def expected_loss(self, fb: Feedback) -> np.ndarray:
        return np.einsum("ri,ri->r", self.P, self.losses(fb))

    def update(self, fb: Feedback) -> None:
        self.L += self.losses(fb)
        self._cache = None
        self._refresh()

    def marginals(self) -> np.ndarray:
        """``M[r, u, v] = P(u before v)`` of the coming ranking, (R, n, n); diagonal 0."""
        n = self.game.n
        out = np.zeros((self.reps, n, n))
        for u in range(n):
            for v in range(u + 1, n):
                before = (self.pos[u] < self.pos[v]).astype(np.float64)
                out[:, u, v] = self.P @ before
                out[:, v, u] = 1.0 - out[:, u, v]
        return out

    pair_probs = marginals

    # --- exact worst-case DP hooks (onlinerank.worst_case) ----------------------------------------
    def scores_law(self) -> str:
        """``L(pi) = sum_u (pi(u)-1) S(u) - const`` for every family (linearity of the position
        loss and theory §1's identity), so the law is a function of ``S``: symmetric in the items
        and, since ``sum_u (pi(u)-1) = C(n,2)`` for every ``pi``, translation-free."""
        return "symmetric"

    def set_scores(self, S: np.ndarray) -> None:
        S = np.asarray(S, dtype=np.float64)
        if S.shape[0] != self.reps:
            self.reset(self.game, S.shape[0])
        self._cache = None
        # the cumulative loss of every ranking against "feedback S", up to a pi-independent constant
        self.L = self.losses(Feedback(self.game.n, values=S)).copy()
        self._cache = None
        self._refresh()

    def state_floats(self) -> int:
        return 4 * self.orders.shape[0]

    # --- end of exact worst-case DP hooks ---------------------------------------------------------

    def describe(self) -> dict:
        return {
            "learner": self.name,
            "beta": self.beta,
            "beta_value": getattr(self, "beta_value", None),
            "loss_range": getattr(self, "loss_range", None),
        }
