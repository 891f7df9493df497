"""Compiled kernels of the baselines: on blocks of choice feedback, Follow-the-Leader (its loss is
the positions of the chosen items in the order of decreasing score, kept sorted as the scores
rise) and the
uniform ranking (numpy's ``default_rng(seed).permutation`` per round, copied in :mod:`.streams`);
and PermELearn's matrix balancing at small n (:func:`balance_rows`, theory §3.3).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import compile_once
from .streams import _default_rng_permutation, _round_seed


@njit(cache=True, error_model="numpy")
def ftl_items(S, items, exp_loss, loss, sample):
    """Follow-the-Leader on the choice feedback ``items`` (R, B, k): per round its (deterministic)
    loss, the positions of the chosen items in ``argsort(-S, kind="stable")`` minus C(k, 2), is
    added to ``exp_loss`` (and to ``loss`` if ``sample``), then ``S[r, chosen] += 1``.

    The order is sorted once per replicate and call, then kept: a chosen item's score rises, so it
    only moves towards the front, past the items it now leads (equal scores: by item id).  A round
    costs the length of those moves -- the items tied with the chosen one, a handful once the
    scores spread -- instead of counting all n scores per chosen item."""
    R, B, k = items.shape
    n = S.shape[1]
    comb = np.float64(k * (k - 1) // 2)
    pos = np.empty(n, dtype=np.int64)
    for r in range(R):
        row = S[r]
        order = np.argsort(-row, kind="mergesort")  # stable: ties by item id
        for i in range(n):
            pos[order[i]] = i
        for b in range(B):
            it = items[r, b]
            ps = np.int64(0)
            for j in range(k):
                ps += pos[it[j]]
            v = np.float64(ps) - comb
            exp_loss[r] += v
            if sample:
                loss[r] += v
            for j in range(k):
                c = it[j]
                sc = row[c] + 1.0
                row[c] = sc
                q = pos[c]
                while q > 0:
                    u = order[q - 1]
                    su = row[u]
                    if su < sc or (su == sc and u > c):
                        order[q] = u
                        pos[u] = q
                        q -= 1
                    else:
                        break
                order[q] = c
                pos[c] = q


@njit(cache=True, error_model="numpy")
def uniform_items_loss(items, keys, t0, n, loss):
    """The uniform ranking's realised loss on choice feedback ``items`` (R, B, k): per round, the
    order ``default_rng(seed).permutation(n)`` of seed ``_round_seed(keys[r], t)`` (exactly
    ``UniformRanking.rank``) and ``loss[r] +=`` the positions of the chosen items minus C(k, 2)."""
    R, B, k = items.shape
    comb = np.float64(k * (k - 1) // 2)
    perm = np.empty(n, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    for r in range(R):
        for b in range(B):
            _default_rng_permutation(_round_seed(keys[r], t0 + b), perm)
            for i in range(n):
                pos[perm[i]] = i
            ps = 0
            for j in range(k):
                ps += pos[items[r, b, j]]
            loss[r] += np.float64(ps) - comb


#: PermELearn's balancing: entries of ``W`` below this are 0 (``learners.permelearn._TINY``)
_TINY = 1e-280


@njit(cache=True, error_model="numpy")
def _balance_eval(K, x, y, W, rs, cs):
    """``W = diag(e^x) K diag(e^y)`` (entries below ``_TINY`` flushed to 0), its row and column
    sums; returns ``(F, resid)``: the dual objective ``sum W - sum x - sum y`` and the Euclidean
    norm of the sums minus 1."""
    n = K.shape[0]
    ey = np.empty(n)  # exp(y[j]) once per column, not once per entry
    for j in range(n):
        cs[j] = 0.0
        ey[j] = np.exp(y[j])
    F = 0.0
    for u in range(n):
        eu = np.exp(x[u])
        s = 0.0
        for j in range(n):
            w = eu * K[u, j] * ey[j]
            if w < _TINY:
                w = 0.0
            W[u, j] = w
            s += w
            cs[j] += w
        rs[u] = s
        F += s - x[u] - y[u]
    r2 = 0.0
    for u in range(n):
        r2 += (rs[u] - 1.0) ** 2 + (cs[u] - 1.0) ** 2
    return F, np.sqrt(r2)


@njit(cache=True, error_model="numpy")
def _solve_in_place(A, rhs, m):
    """Gaussian elimination with partial pivoting on the leading ``m x m`` block of ``A``; the
    solution replaces ``rhs[:m]``."""
    for c in range(m):
        p = c
        for i in range(c + 1, m):
            if abs(A[i, c]) > abs(A[p, c]):
                p = i
        if p != c:
            for j in range(m):
                A[c, j], A[p, j] = A[p, j], A[c, j]
            rhs[c], rhs[p] = rhs[p], rhs[c]
        for i in range(c + 1, m):
            f = A[i, c] / A[c, c]
            if f != 0.0:
                for j in range(c, m):
                    A[i, j] -= f * A[c, j]
                rhs[i] -= f * rhs[c]
    for c in range(m - 1, -1, -1):
        s = rhs[c]
        for j in range(c + 1, m):
            s -= A[c, j] * rhs[j]
        rhs[c] = s / A[c, c]


@njit(cache=True, error_model="numpy")
def _newton_row(K, a, b, tol, max_iter):
    """Damped Newton on the convex dual of the balancing of one ``K`` (n, n), from the scalings
    ``a``, ``b`` (overwritten with the result): the algorithm of
    ``learners.permelearn._newton_balance`` (Schur complement on the columns with the gauge
    ``dy[n-1] = 0``, backtracking on Armijo or the residual, an exact column normalisation after
    each step).  Returns the number of steps, or -1 if ``tol`` was not reached in ``max_iter``."""
    n = K.shape[0]
    x = np.log(a)
    y = np.log(b)
    W = np.empty((n, n))
    W2 = np.empty((n, n))
    rs, cs, rs2, cs2 = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    A = np.empty((n, n))
    rhs, dx, dy, xt, yt = np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    acc = np.empty(n)
    F, resid = _balance_eval(K, x, y, W, rs, cs)
    for it in range(1, max_iter + 1):
        for i in range(n):
            # A[i, j] = [i == j] cs[i] - sum_u W[u, i] W[u, j] / rs[u] (u ascending); from
            # _ROWWISE_MIN_N on a row of W at a time into acc[j] (vectorised): the same bits
            if n >= _ROWWISE_MIN_N:
                for j in range(n):
                    acc[j] = 0.0
                for u in range(n):
                    wui = W[u, i]
                    ru = rs[u]
                    for j in range(n):
                        acc[j] += wui * W[u, j] / ru
            else:
                for j in range(n):
                    s = 0.0
                    for u in range(n):
                        s += W[u, i] * W[u, j] / rs[u]
                    acc[j] = s
            for j in range(n):
                A[i, j] = (cs[i] if i == j else 0.0) - acc[j]
            s = 0.0
            for u in range(n):
                s += W[u, i] * (rs[u] - 1.0) / rs[u]
            rhs[i] = -(cs[i] - 1.0) + s
        mean = 0.0
        for i in range(n - 1):
            mean += A[i, i]
        mean /= n - 1
        for i in range(n - 1):
            A[i, i] += 1e-14 * max(mean, 1e-300)
        _solve_in_place(A, rhs, n - 1)
        for j in range(n - 1):
            dy[j] = rhs[j]
        dy[n - 1] = 0.0
        slope = 0.0
        for u in range(n):
            s = 0.0
            for j in range(n):
                s += W[u, j] * dy[j]
            dx[u] = -((rs[u] - 1.0) + s) / rs[u]
            slope += (rs[u] - 1.0) * dx[u] + (cs[u] - 1.0) * dy[u]
        step = 1.0
        for _ in range(60):
            for u in range(n):
                xt[u] = x[u] + step * dx[u]
                yt[u] = y[u] + step * dy[u]
            F2, resid2 = _balance_eval(K, xt, yt, W2, rs2, cs2)
            if np.isfinite(F2) and (F2 <= F + 1e-4 * step * slope or resid2 < (1 - 1e-4 * step) * resid):
                break
            step *= 0.5
        for u in range(n):
            x[u] = x[u] + step * dx[u]
            y[u] = y[u] + step * dy[u] - np.log(cs2[u])
        F, resid = _balance_eval(K, x, y, W, rs, cs)
        err = 0.0
        for u in range(n):
            d = abs(rs[u] - 1.0)
            if d > err or d != d:
                err = d
        if err <= tol:
            for u in range(n):
                a[u] = np.exp(x[u])
                b[u] = np.exp(y[u])
            return it
    return -1


#: from this n on the balancing's sums are accumulated a row at a time (loops that vectorise);
#: below it one dot product at a time is quicker (measured with 16 replicates: the row-wise loops
#: 2x slower at n = 6, even near n = 15, 1.3x quicker at n = 40 in sweeps and 3x with Newton
#: steps).  Both orders give the same bits.
_ROWWISE_MIN_N = 16


@njit(cache=True, error_model="numpy")
def balance_rows(K, a, b, tol, newton_after, max_newton, counts):
    """PermELearn's balancing (theory §3.3) of each ``K[r]`` (R, n, n), in place on the warm-start
    scalings ``a``, ``b`` (R, n), one replicate after the other: plain Sinkhorn (``a = 1 / K b``,
    ``b = 1 / K^T a``) until every row sum of ``diag(a) K diag(b)`` is within ``tol`` of 1 (its
    columns sum to 1), at most ``newton_after`` sweeps, then damped Newton
    (:func:`_newton_row`).  ``counts`` gets the most sweeps and the most Newton steps of a
    replicate.  Returns -1, or the first replicate whose Newton steps did not reach ``tol`` in
    ``max_newton``.

    Every sum runs in the order of its index (``(K b)[u]`` over j, ``(K^T a)[j]`` over u, both
    ascending), as one dot product at a time computes it (:func:`_sweeps_by_dots`); from
    ``n = _ROWWISE_MIN_N`` on, the loops run over the other index inside
    (:func:`_sweeps_rowwise`), so that they vectorise: the same bits either way
    (tests/test_baselines.py checks them against the dot products)."""
    R, n, _ = K.shape
    rowwise = n >= _ROWWISE_MIN_N
    Kb = np.empty(n)
    Ka = np.empty(n)
    Kt = np.empty((n, n) if rowwise else (0, 0))
    counts[0] = 0
    counts[1] = 0
    for r in range(R):
        if rowwise:
            it, done = _sweeps_rowwise(K[r], Kt, a[r], b[r], Kb, Ka, tol, newton_after)
        else:
            it, done = _sweeps_by_dots(K[r], a[r], b[r], Kb, tol, newton_after)
        counts[0] = max(counts[0], it)
        if not done:
            k = _newton_row(K[r], a[r], b[r], tol, max_newton)
            if k < 0:
                return r
            counts[1] = max(counts[1], k)
    return -1


@njit(cache=True, error_model="numpy")
def _sweeps_by_dots(K, a, b, Kb, tol, newton_after):
    """Sinkhorn sweeps on one ``K`` (n, n), in place on ``a``, ``b``, one dot product per entry;
    returns the number of sweeps and whether the rows reached ``tol`` within ``newton_after``."""
    n = K.shape[0]
    for u in range(n):
        s = 0.0
        for j in range(n):
            s += K[u, j] * b[j]
        Kb[u] = s
    it = 0
    while it < newton_after:
        it += 1
        for u in range(n):
            a[u] = 1.0 / Kb[u]
        for j in range(n):
            s = 0.0
            for u in range(n):
                s += a[u] * K[u, j]
            b[j] = 1.0 / s
        for u in range(n):
            s = 0.0
            for j in range(n):
                s += K[u, j] * b[j]
            Kb[u] = s
        if _row_error(a, Kb) <= tol:
            return it, True
    return it, False


@njit(cache=True, error_model="numpy")
def _sweeps_rowwise(K, Kt, a, b, Kb, Ka, tol, newton_after):
    """:func:`_sweeps_by_dots` with each sum accumulated a row at a time (``K b`` on the transposed
    copy ``Kt``, written here): every sum in the same order, the loops vectorised."""
    n = K.shape[0]
    for u in range(n):
        for j in range(n):
            Kt[j, u] = K[u, j]
    _rows_times(Kt, b, Kb)
    it = 0
    while it < newton_after:
        it += 1
        for u in range(n):
            a[u] = 1.0 / Kb[u]
        _rows_times(K, a, Ka)  # (K^T a)[j] = sum_u a[u] K[u, j], u ascending
        for j in range(n):
            b[j] = 1.0 / Ka[j]
        _rows_times(Kt, b, Kb)  # (K b)[u] = sum_j K[u, j] b[j], j ascending
        if _row_error(a, Kb) <= tol:
            return it, True
    return it, False


@njit(cache=True, error_model="numpy")
def _rows_times(M, x, out):
    """``out[j] = sum_i x[i] M[i, j]``, each sum over i ascending, a row of ``M`` at a time."""
    n = M.shape[0]
    for j in range(n):
        out[j] = 0.0
    for i in range(n):
        xi = x[i]
        for j in range(n):
            out[j] += xi * M[i, j]


@njit(cache=True, error_model="numpy")
def _row_error(a, Kb):
    """``max_u |a[u] (K b)[u] - 1|`` (a NaN stays: no convergence)."""
    err = 0.0
    for u in range(a.shape[0]):
        d = abs(a[u] * Kb[u] - 1.0)
        if d > err or d != d:
            err = d
    return err


compile_once(globals())
