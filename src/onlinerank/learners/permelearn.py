"""PermELearn (Helmbold & Warmuth 2009): exponential weights on a doubly stochastic matrix.

State: a doubly stochastic ``W`` (``W[u, j]`` = probability that item u is at position j+1).
Round t: sample a ranking whose position marginals are ``W``; observe ``s_t``; update

    W <- Sinkhorn( W * exp(-eta Lmat_t) ),   Lmat_t[u, j] = j (s_t(u) - min_v s_t(v)) / c,

(j = 0..n-1 is the position minus one), i.e. the position loss scaled into ``[0, 1]``.  Shifting
``s`` by a constant adds ``j * const`` to column j, a factor absorbed by the column scaling, so the
shift changes nothing but keeps every entry in ``[0, 1]``.  Scale ``c`` (``bounds.permelearn_scale``):
``n-1`` for binary feedback (theory §3.3's ``L_t(u,j) = (j-1) s_t(u)/(n-1)``), ``(n-1)^2`` for
Spearman (``max s - min s = n-1``), ``(n-1) sqrt(M)`` for graded (``|s_u - s_v| <= sqrt(M)``).

Because a Sinkhorn projection commutes with diagonal scalings, ``W_t`` is the Sinkhorn balancing
of ``K = exp(-eta Lcum)`` with ``Lcum[u, j] = j S'(u) / c`` (``S'`` the cumulative shifted
scores).  Implementation (incremental: no re-balancing from scratch): keep ``K`` and the two scaling vectors
``a``, ``b`` (``W = diag(a) K diag(b)``), multiply ``K`` by the round's factor (only the k chosen
rows for k-choice feedback), and re-balance with matrix–vector products, warm-started from the
previous ``a``, ``b``, until every row sum is within ``tol`` of 1 (column sums are 1 to rounding
after each half-step).  Once the learner is confident, ``W`` is nearly block/permutation-shaped
and plain Sinkhorn needs ~1/coupling iterations (1e5 and more were observed); after 100
iterations the remaining replicates are therefore finished by damped Newton steps on the convex
dual (dense n x n Schur-complement solve; typically 1–3 steps), which reaches the same fixed point.
Up to ``n = COMPILED_MAX_N`` (64) the same sweeps and Newton steps run compiled, one replicate
after the other, each stopping at its own tolerance (``_kernels.baselines.balance_rows``; the
matrices agree with the numpy path's within ``tol``); above it numpy's matrix–vector products over
all replicates at once.
When ``|log a|`` or ``|log b|`` exceeds 100 the scalings are absorbed into log-potentials ``f, g``
and ``K = exp(-eta Lcum + f_u + g_j)`` is recomputed from scratch (no entry is lost to underflow
for good); entries of ``K`` below 1e-280 are flushed to 0 (they would contribute < 1e-190 to
``W``), because subnormal floats make the matrix–vector products ~30x slower.

Learning rate (HW 2009, Thm 5 as quoted in theory §3.3; loss matrices in ``[0,1]^{n x n}``):

    eta = ln(1 + sqrt(2 n ln n / L_est)),   E[regret] <= sqrt(2 L_est n ln n) + n ln n   (scaled),

with ``L_est >= L_best`` the loss of a uniformly random ranking, an upper bound on the best one
(``bounds.permelearn_l_est``): ``T m / 2`` for binary feedback with ``m = |U|`` (1, k, n//2),
``T n / 4`` for Spearman, ``T n / 2`` for graded.  In the game's units the regret bound is ``c``
times that: ``(n-1)(sqrt(T k n ln n) + n ln n)`` for k-choice (theory §3.3).

Sampling: a Birkhoff–von Neumann decomposition ``W = sum_i theta_i P_i``, built greedily and
lazily per replicate (each step: the max-product permutation in the support of the residual by
``scipy.optimize.linear_sum_assignment`` on ``-log``, minus its smallest entry), until the
cumulative weight passes the row's uniform draw; the decomposition is cached for the round, so it
is a deterministic function of ``W`` and the ranking of replicate r depends only on ``seeds[r]``.
Entries below ``1e-13`` count as zero and the decomposition stops when the remaining mass is below
``1e-10``; a draw landing in that remainder takes the last permutation (so the sampled marginals
differ from ``W`` by at most ``1e-10 + n 1e-13`` per entry).  Cost: one assignment problem per
step and typically 0.1n–0.7n steps per draw, by far the dominant cost of a round.

Exact expected loss from the marginals (position loss is linear in them):
``E[ell] = sum_u s(u) sum_j j W[u, j]`` and ``E[ellell] = E[ell] - sum_{u<v} min(s_u, s_v)``.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from ..bounds import permelearn_bound_family, permelearn_l_est, permelearn_scale, rate_parameter
from ..feedback import Feedback
from ..game import Game
from ..seeding import row_uniforms
from .base import Learner, register

__all__ = [
    "PermELearn",
    "permelearn_eta",
    "sinkhorn",
    "birkhoff_decomposition",
    "COMPILED_MAX_N",
]

_ABSORB = 100.0  # absorb the scalings into K when |log a| or |log b| exceeds this
_ZERO = 1e-13  # BvN: residual entries below this are zero
_STOP = 1e-10  # BvN: stop when the remaining mass is below this
#: up to this n the balancing runs compiled, one replicate after the other (``_kernels.baselines.
#: balance_rows``: the same iterations, each replicate stopping at its own tolerance); above it,
#: numpy's matrix-vector products over all replicates at once, where BLAS does the work
COMPILED_MAX_N = 64
_TINY = 1e-280  # entries of K below this are flushed to 0 (W = a K b with |log a|, |log b| <= 100
#                 is then below 1e-193: negligible), so that no subnormal float slows the products


def permelearn_eta(game: Game) -> float:
    """HW's tuning ``eta = ln(1 + sqrt(2 n ln n / L_est))`` with
    :func:`~onlinerank.bounds.permelearn_l_est` (the scaled loss of a uniformly random ranking
    over T rounds, ``>= L_best``)."""
    n = game.n
    l_est = float(permelearn_l_est(game.family, game.n, game.T, game.k))
    return math.log1p(math.sqrt(2 * n * math.log(n) / l_est))


def _matvec(K: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.matmul(K, x[:, :, None])[:, :, 0]


def _rmatvec(K: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.matmul(x[:, None, :], K)[:, 0, :]


def sinkhorn(
    K: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    tol: float = 1e-9,
    newton_after: int = 100,
    max_newton: int = 200,
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Scalings with ``diag(a) K diag(b)`` doubly stochastic: rows within ``tol`` of 1, columns 1.

    ``K`` (R, n, n) positive, ``a``, ``b`` (R, n) the warm start.  First plain Sinkhorn
    iterations (two matrix–vector products each), at most ``newton_after`` of them; replicates
    still above ``tol`` then finish with Newton's method on the convex dual (see
    :func:`_newton_balance`) -- Sinkhorn alone needs ~1/coupling iterations once ``W`` is close to
    a block or permutation structure, which happens as soon as the learner is confident.
    Returns ``(a, b, sinkhorn_iterations, newton_iterations)``; raises ``RuntimeError`` if Newton
    does not reach ``tol`` in ``max_newton`` steps.
    """
    if K.shape[1] <= COMPILED_MAX_N:
        from .._kernels.baselines import balance_rows  # lazy: numba loads on first use

        K = np.ascontiguousarray(K, dtype=np.float64)
        a = np.array(a, dtype=np.float64, order="C", copy=True)
        b = np.array(b, dtype=np.float64, order="C", copy=True)
        counts = np.zeros(2, dtype=np.int64)
        failed = balance_rows(K, a, b, float(tol), int(newton_after), int(max_newton), counts)
        if failed >= 0:
            raise RuntimeError(
                f"matrix balancing did not reach tol={tol} in {max_newton} Newton steps (replicate {failed})"
            )
        return a, b, int(counts[0]), int(counts[1])
    Kb = _matvec(K, b)
    for it in range(1, newton_after + 1):
        a = 1.0 / Kb
        b = 1.0 / _rmatvec(K, a)
        Kb = _matvec(K, b)
        err = np.abs(a * Kb - 1.0).max(axis=1)
        if np.all(err <= tol):
            return a, b, it, 0
    newton = 0
    for r in np.flatnonzero(err > tol):
        a[r], b[r], k = _newton_balance(K[r], a[r], b[r], tol, max_newton)
        newton = max(newton, k)
    return a, b, newton_after, newton


def logsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    """``log(sum(exp(a), axis))`` for finite real ``a``, by the arithmetic of SciPy's
    ``scipy.special.logsumexp`` (SciPy >= 1.15: the largest terms of each slice, ``m`` of them,
    are kept out of the sum, ``log1p(s / m) + log(m) + max`` with ``s`` the sum of the others'
    ``exp(a - max)``) in plain numpy, so the values are SciPy's bit for bit (a test compares them)
    without its array-API dispatch, which cost ~0.3 ms a call in :meth:`PermELearn.set_scores`'s
    60 calls per state."""
    a_max = a.max(axis=axis, keepdims=True)
    at_max = a == a_max
    m = np.sum(at_max.astype(a.dtype), axis=axis, keepdims=True, dtype=a.dtype)
    rest = np.where(at_max, -np.inf, a)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.sum(np.exp(rest - a_max), axis=axis, keepdims=True, dtype=a.dtype)
        s = np.where(s == 0, s, s / m)
        out = np.log1p(s) + np.log(m) + a_max
    return np.squeeze(out, axis=axis)


def _newton_balance(
    K: np.ndarray, a: np.ndarray, b: np.ndarray, tol: float, max_iter: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """Balance one ``K`` (n, n) by damped Newton on ``F(x, y) = sum_uj e^{x_u} K_uj e^{y_j} -
    sum x - sum y`` (convex; its gradient is the row/column sums minus 1).

    Newton system via the Schur complement on the columns, ``(D_c - W^T D_r^{-1} W) dy = ...``,
    with the gauge ``dy[n-1] = 0``; backtracking accepts a step when it satisfies Armijo on ``F``
    or reduces the residual; each step ends with an exact column normalisation, so on return the
    columns sum to 1 and the rows to within ``tol``.
    """
    x, y = np.log(a), np.log(b)

    def evaluate(x, y):
        with np.errstate(over="ignore", invalid="ignore"):
            W = np.exp(x)[:, None] * K * np.exp(y)[None, :]
            W[W < _TINY] = 0.0
            rs, cs = W.sum(axis=1), W.sum(axis=0)
            F = rs.sum() - x.sum() - y.sum()
        resid = math.sqrt(float(np.sum((rs - 1) ** 2) + np.sum((cs - 1) ** 2)))
        return W, rs, cs, F, resid

    W, rs, cs, F, resid = evaluate(x, y)
    for it in range(1, max_iter + 1):
        gr, gc = rs - 1.0, cs - 1.0
        A = np.diag(cs) - W.T @ (W / rs[:, None])
        rhs = -gc + W.T @ (gr / rs)
        A = A[:-1, :-1]
        A[np.diag_indices_from(A)] += 1e-14 * max(float(np.mean(np.diag(A))), 1e-300)
        dy = np.zeros_like(y)
        dy[:-1] = np.linalg.solve(A, rhs[:-1])
        dx = -(gr + W @ dy) / rs
        slope = float(gr @ dx + gc @ dy)
        step = 1.0
        for _ in range(60):
            W2, rs2, cs2, F2, resid2 = evaluate(x + step * dx, y + step * dy)
            if np.isfinite(F2) and (F2 <= F + 1e-4 * step * slope or resid2 < (1 - 1e-4 * step) * resid):
                break
            step *= 0.5
        x, y = x + step * dx, y + step * dy
        y -= np.log(cs2)  # exact column normalisation (a Sinkhorn half-step)
        W, rs, cs, F, resid = evaluate(x, y)
        if np.abs(rs - 1.0).max() <= tol:
            return np.exp(x), np.exp(y), it
    raise RuntimeError(
        f"matrix balancing did not reach tol={tol} in {max_iter} Newton steps "
        f"(max row error {np.abs(rs - 1.0).max():.3g})"
    )


def birkhoff_decomposition(W: np.ndarray, upto: float = np.inf) -> tuple[list[np.ndarray], list[float]]:
    """Greedy Birkhoff–von Neumann decomposition of a doubly stochastic ``W`` (n, n).

    Returns ``(orders, weights)``: ``orders[i][j]`` is the item at position j of the i-th
    permutation; ``sum_i weights[i] * P_i ~= W``.  Stops once the cumulative weight exceeds
    ``upto``, the remaining mass is below 1e-10, or the support has no perfect matching.
    """
    dec = _LazyBvN(W)
    dec.extend(upto)
    return dec.orders, dec.weights


class _LazyBvN:
    """A BvN decomposition computed step by step, only as far as the draws require.

    The residual and the assignment costs (``-log residual``, ``big`` on zeros) are updated in
    place on the n entries each step touches, so a step costs one assignment problem.
    """

    def __init__(self, W: np.ndarray) -> None:
        self.n = W.shape[0]
        self.res = np.array(W, dtype=np.float64, copy=True)
        self.res[self.res < _ZERO] = 0.0
        self.big = 1e3 * self.n  # cost of a zero: above any matching on the support (-log 1e-13=30)
        with np.errstate(divide="ignore"):
            self.cost = np.where(self.res > 0, -np.log(np.maximum(self.res, _ZERO)), self.big)
        self.orders: list[np.ndarray] = []
        self.weights: list[float] = []
        self.cum: list[float] = []
        self.total = 0.0
        self.done = False

    def extend(self, target: float, max_steps: int | None = None) -> None:
        from scipy.optimize import linear_sum_assignment  # lazy: SciPy loads where a draw is made

        steps = 0
        while not self.done and self.total <= target and (max_steps is None or steps < max_steps):
            steps += 1
            rows, cols = linear_sum_assignment(self.cost)
            vals = self.res[rows, cols]
            if vals.min() <= 0:  # no perfect matching left in the support
                self.done = True
                break
            i = int(np.argmin(vals))
            theta = float(vals[i])
            left = vals - theta
            left[i] = 0.0
            left[left < _ZERO] = 0.0
            self.res[rows, cols] = left
            with np.errstate(divide="ignore"):
                self.cost[rows, cols] = np.where(left > 0, -np.log(np.maximum(left, _ZERO)), self.big)
            order = np.empty(self.n, dtype=np.int64)
            order[cols] = rows  # item rows[m] at position cols[m]
            self.orders.append(order)
            self.weights.append(theta)
            self.total += theta
            self.cum.append(self.total)
            if 1.0 - self.total < _STOP:
                self.done = True

    def draw(self, u: float) -> np.ndarray:
        self.extend(u)
        i = int(np.searchsorted(self.cum, u, side="right"))
        return self.orders[min(i, len(self.orders) - 1)]


@register
class PermELearn(Learner):
    """Helmbold–Warmuth PermELearn with Sinkhorn balancing and Birkhoff–von Neumann sampling.

    Parameters
    ----------
    eta : "tuned" (``ln(1 + sqrt(2 n ln n / L_est))``) or a positive float (scaled-loss units).
    tol : Sinkhorn tolerance on the row sums (columns are exact).
    """

    name = "permelearn"
    exact = True
    plot_color = "#9467bd"

    def __init__(self, eta: str | float = "tuned", tol: float = 1e-9) -> None:
        eta = rate_parameter(eta, "eta", ("tuned",))
        if not (0 < float(tol) < 1e-3):
            raise ValueError(f"tol must lie in (0, 1e-3), got {tol!r}")
        self.eta = eta
        self.tol = float(tol)

    def regret_bound(self, game: Game) -> float | None:
        """PermELearn's bound with the tuned eta (theory §3.3,
        :func:`~onlinerank.bounds.permelearn_bound_family`); ``None`` for an eta given by hand, and
        for the ``subset`` family, whose sets are not the ``|U| = n//2`` the bound assumes."""
        if self.eta != "tuned" or game.family == "subset":
            return None
        return float(permelearn_bound_family(game.family, game.n, game.T, game.k))

    @classmethod
    def memory_bytes(cls, n: int, reps: int) -> int:
        """Its (R, n, n) float64 matrices (theory §3.3): the kernel ``K`` of the doubly stochastic
        matrix and, while balancing and sampling, up to three more of that size."""
        return 4 * 8 * reps * n * n

    def timing_counters(self) -> dict[str, float]:
        """The Sinkhorn sweeps of the last balancing (theory §3.3: the cost of an update)."""
        return {"sweeps": self.sinkhorn_iters}

    def reset(self, game: Game, reps: int) -> None:
        super().reset(game, reps)
        n = game.n
        self.c = float(permelearn_scale(game.family, game.n, game.M))
        # not "tuned": rate_parameter gave a float
        self.eta_value = permelearn_eta(game) if self.eta == "tuned" else cast(float, self.eta)
        self.j = np.arange(n, dtype=np.float64)
        self._row_factor = np.exp(-self.eta_value * self.j / self.c)  # binary s(u) = 1
        self.S = np.zeros((reps, n))  # cumulative shifted scores S'
        self.f = np.zeros((reps, n))
        self.g = np.zeros((reps, n))
        self.K = np.ones((reps, n, n))
        self.a = np.ones((reps, n))
        self.b = np.ones((reps, n))
        # the balancing of this uniform start is left to the first round that reads W (the same
        # computation, later): a learner reset only to be checked -- the config's validation at
        # every Snakemake start -- then never loads the compiled kernels
        self._unbalanced = True
        self.sinkhorn_iters = self.newton_iters = 0

    def _balanced(self) -> None:
        """The reset's balancing, if no round has done it yet."""
        if self._unbalanced:
            self._balance()

    def _balance(self) -> None:
        self._unbalanced = False
        self.a, self.b, it, nt = sinkhorn(self.K, self.a, self.b, self.tol)
        self.sinkhorn_iters, self.newton_iters = it, nt
        big = (np.abs(np.log(self.a)).max(axis=1) > _ABSORB) | (np.abs(np.log(self.b)).max(axis=1) > _ABSORB)
        if np.any(big):
            r = np.flatnonzero(big)
            self.f[r] += np.log(self.a[r])
            self.g[r] += np.log(self.b[r])
            Kr = np.exp(
                -(self.eta_value / self.c) * self.S[r][:, :, None] * self.j
                + self.f[r][:, :, None]
                + self.g[r][:, None, :]
            )
            Kr[Kr < _TINY] = 0.0
            self.K[r] = Kr
            self.a[r] = 1.0
            self.b[r] = 1.0
            self.a[r], self.b[r], _, _ = sinkhorn(self.K[r], self.a[r], self.b[r], self.tol)
        # expected 0-based position of every item, (R, n): W j = a * (K (b * j)), no W formed
        self.epos = self.a * _matvec(self.K, self.b * self.j)
        self._bvn: list[_LazyBvN | None] = [None] * self.reps

    def _rank(self, seeds: np.ndarray) -> np.ndarray:
        self._balanced()
        u = row_uniforms(seeds, 1)[:, 0]
        out = np.empty((self.reps, self.game.n), dtype=np.int64)
        for r in range(self.reps):
            if self._bvn[r] is None:
                self._bvn[r] = _LazyBvN(self.a[r, :, None] * self.K[r] * self.b[r, None, :])
            out[r] = cast(_LazyBvN, self._bvn[r]).draw(float(u[r]))
        return out

    def sample_first_step(self) -> None:
        """The part of :meth:`~onlinerank.learners.base.Learner.rank` that every draw performs: the
        residual of replicate 0 and
        the first step of its decomposition (one assignment problem on an n x n matrix).  Timing
        this gives a lower bound on the sampling cost where a whole draw is too slow to time
        (minutes at n = 1000)."""
        self._balanced()
        _LazyBvN(self.a[0, :, None] * self.K[0] * self.b[0, None, :]).extend(np.inf, max_steps=1)

    @property
    def W(self) -> np.ndarray:
        """The doubly stochastic matrix ``W[r, u, j] = P(item u at position j+1)``, (R, n, n)."""
        self._balanced()
        return self.a[:, :, None] * self.K * self.b[:, None, :]

    def expected_positions(self) -> np.ndarray:
        """``E[pi(u) - 1] = sum_j (j - 1) W[u, j]`` (R, n), the vector every
        :meth:`expected_loss` reads (a single choice's loss is its entry)."""
        self._balanced()
        return self.epos.copy()

    def expected_loss(self, fb: Feedback) -> np.ndarray:
        self._balanced()
        if fb.items is not None:
            ell = np.take_along_axis(self.epos, fb.items, axis=1).sum(axis=1)
        else:
            ell = np.einsum("ru,ru->r", cast(np.ndarray, fb.values), self.epos)
        return ell - fb.pair_min_sum()

    def update(self, fb: Feedback) -> None:
        self._balanced()  # the warm start of this round's balancing
        if fb.items is not None:
            rows = np.arange(self.reps)[:, None]
            self.S[rows, fb.items] += 1.0
            Kr = self.K[rows, fb.items, :] * self._row_factor
            Kr[Kr < _TINY] = 0.0
            self.K[rows, fb.items, :] = Kr
        else:
            values = cast(np.ndarray, fb.values)  # no items: dense values
            s = values - values.min(axis=1, keepdims=True)
            self.S += s
            self.K *= np.exp(-(self.eta_value / self.c) * s[:, :, None] * self.j)
            self.K[self.K < _TINY] = 0.0
        self._balance()

    # --- exact worst-case DP hooks (onlinerank.worst_case) ----------------------------------------
    def scores_law(self) -> str:
        """``W`` is the Sinkhorn balancing of ``exp(-eta Lcum)`` with ``Lcum[u, j] = j S'(u) / c``,
        unique for a positive matrix, so the law is a function of ``S`` (symmetric: relabelling
        permutes the rows; translation-free: a shift of ``S'`` scales the columns).  The warm
        start makes the stored scalings history-dependent only within ``tol``."""
        return "symmetric"

    def set_scores(self, S: np.ndarray) -> None:
        """Cold start from ``S``: log-domain Sinkhorn potentials ``f, g`` first (so that ``K``
        keeps no entry that only underflow would separate from 0), then :meth:`_balance`."""
        S = np.asarray(S, dtype=np.float64)
        if S.shape[0] != self.reps:
            self.reset(self.game, S.shape[0])
        self.S = S - S.min(axis=1, keepdims=True)
        C = -(self.eta_value / self.c) * self.S[:, :, None] * self.j
        f = np.zeros_like(self.S)
        g = np.zeros_like(self.S)
        for _ in range(30):
            f = -logsumexp(C + g[:, None, :], axis=2)
            g = -logsumexp(C + f[:, :, None], axis=1)
        self.f, self.g = f, g
        K = np.exp(C + f[:, :, None] + g[:, None, :])
        K[K < _TINY] = 0.0
        self.K = K
        self.a = np.ones_like(self.S)
        self.b = np.ones_like(self.S)
        self._balance()

    # --- end of exact worst-case DP hooks ---------------------------------------------------------

    def describe(self) -> dict:
        return {
            "learner": self.name,
            "eta": self.eta,
            "eta_value": getattr(self, "eta_value", None),
            "tol": self.tol,
            "scale": getattr(self, "c", None),
        }
