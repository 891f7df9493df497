"""Follow-the-Perturbed-Leader (Kalai & Vempala 2005) on cumulative scores (theory §3.3).

Each round, FPL ranks the items by ``S_{t-1}(u) + X_u`` (decreasing; ties by lowest item id),
where ``S`` holds the cumulative scores and ``X_u ~ Uniform[0, c]`` are i.i.d. with noise scale
``c = 1/epsilon``.  This is Kalai–Vempala's additive FPL with the uniform cube ``[0, 1/eps]^n``:
the decisions are the position vectors ``d`` (``d(u) = pi(u) - 1``), the cost of round t is
``d . s_t`` (the position loss), and ``argmin_d d . (S + X)`` is the sort by ``S + X``
decreasing.  Their bound ``E[cost] <= min-cost + eps R A T + D / eps`` is optimised by

    epsilon = sqrt(D / (R A T)),    regret <= 2 sqrt(D R A T),

with ``D = floor(n^2/2)`` (l1 diameter of the position vectors), ``R`` the range of ``d . s``
and ``A = max ||s||_1`` (:func:`onlinerank.bounds.fpl_parameters`: single ``(n-1, 1)``, k-choice
``(k(n-k), k)``, subsets ``(floor(n^2/4), n//2)``, Spearman ``((n^3-n)/6, n(n+1)/2)``, graded
``(sqrt(C(n,2) M), sqrt(M))`` after centring ``s``, which FPL ignores).  Position and pairwise
regrets coincide (theory §1 identity), so the pairwise loss is used everywhere.

Expected loss.  The pairwise loss depends on the ranking only through the pairwise marginals,
and for i.i.d. noise ``P(u before v) = P(X_u - X_v > S_v - S_u)`` depends on one difference of
two uniforms (a triangular variable on ``[-c, c]``).  With ``x = clip((S_u - S_v)/c, -1, 1)``:

    P(u before v) = 1 - (1 - x)^2 / 2   (x >= 0),        (1 + x)^2 / 2   (x < 0),

so FPL's expected pairwise loss *is* available in closed form (``exact = True``, the default
``expected="exact"``; O(kn) per round for k-choice feedback, O(n^2) for dense feedback).
``expected="mc"`` instead returns a Monte Carlo estimate over ``mc`` noise draws (then
``self.exact`` is ``False`` and ``self.last_expected_loss_se`` holds its standard error); its noise
comes from a counter-based stream keyed by the round and the replicate's own state (a hash of its
score row), never from the seeds of :meth:`~onlinerank.learners.base.Learner.rank`, so ``rank`` is
unaffected and results do not
depend on how replicates are blocked.

``scale=0`` means no noise: FPL is then Follow-the-Leader exactly (stable sort of ``-S``, ties by
lowest item id, identical to :class:`~onlinerank.learners.simple.FollowTheLeader`).
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from ..bounds import fpl_bound_family, fpl_parameters, rate_parameter
from ..feedback import Feedback, FeedbackBlock
from ..game import Game
from ..seeding import WEYL_INCREMENT, draw_seeds, mix64, row_uniforms
from .base import Learner, register

__all__ = ["FollowPerturbedLeader", "fpl_parameters", "fpl_epsilon", "row_uniforms", "uniform_pair_probs"]


def uniform_pair_probs(diff: np.ndarray, c: float) -> np.ndarray:
    """``P(S_u + X_u > S_v + X_v)`` for ``diff = S_u - S_v`` and ``X ~ U[0, c]`` i.i.d. (c > 0)."""
    x = np.clip(np.asarray(diff, dtype=np.float64) / c, -1.0, 1.0)
    return np.where(x >= 0, 1.0 - 0.5 * (1.0 - x) ** 2, 0.5 * (1.0 + x) ** 2)


def fpl_epsilon(game: Game) -> float:
    """Kalai–Vempala's tuning ``epsilon = sqrt(D / (R A T))`` for ``game`` (noise scale 1/eps)."""
    D, R, A = fpl_parameters(game.family, game.n, game.k, game.M)
    return math.sqrt(float(D) / (float(R) * float(A) * game.T))


def _state_keys(S: np.ndarray, t: int) -> np.ndarray:
    """A uint64 key per row from the round and the row's scores (its own history)."""
    bits = np.ascontiguousarray(S, dtype=np.float64).view(np.uint64)
    with np.errstate(over="ignore"):
        h = np.full(S.shape[0], np.uint64(t) * WEYL_INCREMENT + np.uint64(0x5EED), dtype=np.uint64)
        for j in range(S.shape[1]):
            h = mix64(h ^ bits[:, j]) + WEYL_INCREMENT
    return h


@register
class FollowPerturbedLeader(Learner):
    """FPL with uniform noise ``U[0, scale]`` on the cumulative scores.

    Parameters
    ----------
    scale : "tuned" (``1/epsilon`` with ``epsilon = sqrt(D/(R A T))``) or a float >= 0
        (0 means no noise: Follow-the-Leader).
    expected : "exact" (closed-form pairwise marginals, default) or "mc" (Monte Carlo with
        ``mc`` noise draws; sets ``exact = False``).
    mc : number of noise draws of the "mc" estimate.
    """

    name = "fpl"
    exact = True
    plot_color = "#ff7f0e"

    def __init__(self, scale: str | float = "tuned", expected: str = "exact", mc: int = 64) -> None:
        scale = rate_parameter(scale, "scale", ("tuned",), allow_zero=True)
        if expected not in ("exact", "mc"):
            raise ValueError(f"expected must be 'exact' or 'mc', got {expected!r}")
        if int(mc) < 2:
            raise ValueError(f"mc must be >= 2, got {mc!r}")
        self.scale = scale
        self.expected = expected
        self.mc = int(mc)
        self.exact = expected == "exact"  # type: ignore[misc]  # per instance: "mc" is not exact
        self.last_expected_loss_se: np.ndarray | None = None

    def regret_bound(self, game: Game) -> float | None:
        """FPL's bound with the tuned scale (theory §3.3, :func:`~onlinerank.bounds.fpl_bound_family`);
        ``None`` for a scale given by hand, and for the ``subset`` family, whose sets are not the
        ``|U| = n//2`` the bound assumes."""
        if self.scale != "tuned" or game.family == "subset":
            return None
        return float(fpl_bound_family(game.family, game.n, game.T, game.k))

    def reset(self, game: Game, reps: int) -> None:
        super().reset(game, reps)
        # not "tuned": rate_parameter gave a float
        self.scale_value = 1.0 / fpl_epsilon(game) if self.scale == "tuned" else cast(float, self.scale)
        self.S = np.zeros((reps, game.n))
        self.t = 1  # the coming round
        self.last_expected_loss_se = None

    # -- the law of the coming ranking ------------------------------------------------------
    def _orders(self, noise01: np.ndarray) -> np.ndarray:
        """Orders for unit noise ``noise01`` (..., n) in [0,1): stable sort of ``-(S + c U)``."""
        keys = self.S + self.scale_value * noise01 if self.scale_value > 0 else self.S
        return np.argsort(-keys, axis=-1, kind="stable")

    def _rank(self, seeds: np.ndarray) -> np.ndarray:
        if self.scale_value == 0:
            return np.argsort(-self.S, axis=1, kind="stable")
        return self._orders(row_uniforms(seeds, self.game.n))

    def pair_probs(self) -> np.ndarray:
        """``P[r, u, v] = P(u before v)`` of the coming ranking (R, n, n); diagonal 0."""
        n = self.game.n
        d = self.S[:, :, None] - self.S[:, None, :]
        if self.scale_value == 0:
            idx = np.arange(n)
            p = ((d > 0) | ((d == 0) & (idx[:, None] < idx[None, :]))).astype(np.float64)
        else:
            p = uniform_pair_probs(d, self.scale_value)
        p[:, np.arange(n), np.arange(n)] = 0.0
        return p

    def expected_loss(self, fb: Feedback) -> np.ndarray:
        if self.scale_value == 0:  # deterministic: FTL
            self.last_expected_loss_se = np.zeros(self.reps)
            return fb.pairwise_loss(np.argsort(-self.S, axis=1, kind="stable"))
        if self.expected == "mc":
            return self._expected_loss_mc(fb)
        return self._expected_loss_exact(fb)

    def expected_positions(self) -> np.ndarray | None:
        """``E[pi(u) - 1] = sum_v P(v before u) - P(u before u)`` (R, n) for every u at once: the
        terms and the sums of :meth:`_expected_loss_exact` on each single choice ``{u}`` (the same
        elementwise formula, each row of n terms summed contiguously, then ``- 1/2``), so the
        same floats.  ``None`` (n queries of :meth:`expected_loss`) without noise or with Monte
        Carlo expectations."""
        if self.scale_value == 0 or self.expected == "mc":
            return None
        c = self.scale_value
        p = uniform_pair_probs(self.S[:, None, :] - self.S[:, :, None], c)  # p[r, u, v]: v before u
        return p.sum(axis=2) - uniform_pair_probs(np.zeros(1), c)[0]

    def _expected_loss_exact(self, fb: Feedback) -> np.ndarray:
        c = self.scale_value
        if fb.items is not None:
            # binary s = 1_U: sum_{v in U} sum_{u not in U} P(u before v)
            items = fb.items
            Sv = np.take_along_axis(self.S, items, axis=1)  # (R, k)
            p = uniform_pair_probs(self.S[:, None, :] - Sv[:, :, None], c)  # (R, k, n): u before v
            tot = p.sum(axis=(1, 2))
            within = uniform_pair_probs(Sv[:, None, :] - Sv[:, :, None], c).sum(axis=(1, 2))
            # `within` counts u, v both in U (including u = v, each 1/2): remove them
            return tot - within
        s = cast(np.ndarray, fb.values)  # no items: dense values
        w = np.maximum(s[:, None, :] - s[:, :, None], 0.0)  # w[r, u, v] = [s_v - s_u]_+
        p = uniform_pair_probs(self.S[:, :, None] - self.S[:, None, :], c)  # P(u before v)
        return np.einsum("ruv,ruv->r", w, p)

    def _expected_loss_mc(self, fb: Feedback) -> np.ndarray:
        keys = _state_keys(self.S, self.t)
        R, n, m = self.reps, self.game.n, self.mc
        u = row_uniforms(keys, m * n).reshape(R, m, n)
        keysum = self.S[:, None, :] + self.scale_value * u
        orders = np.argsort(-keysum, axis=2, kind="stable")  # (R, m, n)
        losses = np.empty((R, m))
        for i in range(m):
            losses[:, i] = fb.pairwise_loss(orders[:, i, :])
        self.last_expected_loss_se = losses.std(axis=1, ddof=1) / math.sqrt(m)
        return losses.mean(axis=1)

    def update(self, fb: Feedback) -> None:
        fb.add_to(self.S)
        self.t += 1

    def play_block(
        self, block: FeedbackBlock, keys: np.ndarray | None, t0: int, exp_loss: np.ndarray, loss: np.ndarray
    ) -> bool:
        """Choice feedback with the exact expectation: the block vectorised (bit-identical to the
        per-round path: the same elementwise formulas and the same reductions, per round, over
        the same k x n terms), in chunks of rounds of bounded memory.  ``scale = 0`` is
        Follow-the-Leader (compiled).  Monte Carlo expectations and dense feedback: per round."""
        if block.items is None or (self.expected == "mc" and self.scale_value > 0):
            return super().play_block(block, keys, t0, exp_loss, loss)
        items = block.items
        R, B, k = items.shape
        n = self.game.n
        if items.min() < 0 or items.max() >= n:
            raise ValueError(f"item ids must lie in 0..{n - 1}")
        if self.scale_value == 0:
            from .._kernels.baselines import ftl_items  # lazy: numba loads the kernels where they run

            ftl_items(self.S, items, exp_loss, loss, keys is not None)
            self.last_expected_loss_se = np.zeros(self.reps)
            self.t += B
            return True
        if not np.array_equal(self.S, np.round(self.S)):  # cumulative sums below are exact on counts only
            return super().play_block(block, keys, t0, exp_loss, loss)
        c = self.scale_value
        step = max(1, (1 << 20) // (R * k * n))
        rows = np.arange(R)[:, None, None]
        for lo in range(0, B, step):
            it = items[:, lo : lo + step]
            m = it.shape[1]
            # scores before each round of the chunk (integer counts: exact)
            inc = np.zeros((R, m, n))
            inc[rows, np.arange(m)[None, :, None], it] = 1.0
            Sb = self.S[:, None, :] + np.concatenate(
                [np.zeros((R, 1, n)), np.cumsum(inc, axis=1)[:, :-1]], axis=1
            )
            Sv = np.take_along_axis(Sb, it, axis=2)  # (R, m, k)
            tot = uniform_pair_probs(Sb[:, :, None, :] - Sv[:, :, :, None], c).sum(axis=(2, 3))
            within = uniform_pair_probs(Sv[:, :, None, :] - Sv[:, :, :, None], c).sum(axis=(2, 3))
            el = tot - within
            if keys is not None:  # realised loss: positions of the chosen items in the sort by -(S + cU)
                seeds = draw_seeds(keys[:, None], np.arange(t0 + lo, t0 + lo + m, dtype=np.uint64)[None, :])
                kk = Sb + c * row_uniforms(seeds.ravel(), n).reshape(R, m, n)
                kc = np.take_along_axis(kk, it, axis=2)[..., None]  # (R, m, k, 1)
                ids = np.arange(n)
                before = (kk[:, :, None, :] > kc) | ((kk[:, :, None, :] == kc) & (ids < it[..., None]))
                real = before.sum(axis=(2, 3)).astype(np.float64) - math.comb(k, 2)
            for b in range(m):
                exp_loss += el[:, b]
                if keys is not None:
                    loss += real[:, b]
            self.S += inc.sum(axis=1)
        self.t += B
        return True

    # --- exact worst-case DP hooks (onlinerank.worst_case) ----------------------------------------
    def scores_law(self) -> str | None:
        """Noise ``U[0, c]`` on ``S``: symmetric for ``c > 0``; ``c = 0`` is FTL (ties by item id,
        labelled); the Monte Carlo estimate (``expected="mc"``) is no exact law, so ``None``."""
        if self.expected == "mc":
            return None
        return "labelled" if self.scale_value == 0 else "symmetric"

    def set_scores(self, S: np.ndarray) -> None:
        self.S = np.array(S, dtype=np.float64)
        self.reps = self.S.shape[0]

    # --- end of exact worst-case DP hooks ---------------------------------------------------------

    def describe(self) -> dict:
        return {
            "learner": self.name,
            "scale": self.scale,
            "expected": self.expected,
            "mc": self.mc if self.expected == "mc" else None,
            "scale_value": getattr(self, "scale_value", None),
        }
