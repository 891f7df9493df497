"""Compiled kernels of the greedy adaptive adversary (:mod:`onlinerank.adversaries.greedy`): the
number of strictly greater scores of every item, and the greedy construction of the feedback set;
and the elementwise steps of the Bradley–Terry expected positions that the adversaries reading a
learner's log-weights compute every round (:func:`onlinerank.adversaries.base.bradley_terry_positions`).

Both replace a handful of numpy calls per round on (R, n) arrays with R = 2 and n <= 40 in the
shipped tiers, where the calls' own overhead was most of a greedy simulate job.  They compute the
same numbers by the same operations (integer counts; maxima, comparisons and subtractions of 1,
which are exact), so the adversary plays exactly the feedback of the numpy code it replaces (the
tests compare the two, and the greedy cells of the default tier are byte-identical).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import compile_once


@njit(cache=True, error_model="numpy")
def greater_counts(S, out):
    """``out[r, u] = #{v : S[r, v] > S[r, u]}`` for scores ``S`` (R, n): a sort of each row, then the
    index of the first entry of each run of equal scores (O(n log n) a row; the count does not
    depend on how ties are ordered)."""
    R, n = S.shape
    for r in range(R):
        row = -S[r]
        order = np.argsort(row)
        first = 0
        for i in range(n):
            if i > 0 and row[order[i]] != row[order[i - 1]]:
                first = i
            out[r, order[i]] = first


@njit(cache=True, error_model="numpy")
def _argmax_low(x):
    """The index of the maximum of ``x``, ties within ``1e-9`` relative to the lowest index: the
    first entry with ``x >= max - 1e-9 max(1, |max|)`` (-inf entries are never the maximum of a
    row that has a finite entry)."""
    best = x[0]
    for i in range(1, x.shape[0]):
        if x[i] > best:
            best = x[i]
    tol = 1e-9 * max(1.0, abs(best))
    for i in range(x.shape[0]):
        if x[i] >= best - tol:
            return i
    return 0


@njit(cache=True, error_model="numpy")
def greedy_sets(h, S, k, items, inc):
    """The greedy adversary's feedback set of ``k`` items per row (theory §3.4): ``h`` (R, n) the
    items' increments ``p_u - g_u``, ``S`` (R, n) the cumulative scores.  The set is built item by
    item, each time adding the item of largest marginal increment (ties to the lowest id), whose
    equal-score items then lose 1 each; ``items`` (R, k) gets the set in increasing order and
    ``inc`` (R,) its increment, summed in the order the items were added."""
    R, n = h.shape
    marg = np.empty(n)
    for r in range(R):
        for u in range(n):
            marg[u] = h[r, u]
        total = 0.0
        for j in range(k):
            c = _argmax_low(marg)
            items[r, j] = c
            total += marg[c]
            s = S[r, c]
            for u in range(n):
                if S[r, u] == s:
                    marg[u] -= 1.0
            marg[c] = -np.inf
        items[r].sort()
        inc[r] = total


@njit(cache=True, error_model="numpy")
def bt_differences(a, x, nonneg):
    """For log-weights ``a`` (R, n): ``x[r, u, v] = -|a_v - a_u|`` and ``nonneg[r, u, v] = a_v - a_u
    >= 0``, the argument of ``exp`` and the branch of the logistic function
    (:func:`onlinerank.samplers.expit`) of every pair; a difference, an absolute value and a
    negation, all exact."""
    R, n = a.shape
    for r in range(R):
        for u in range(n):
            au = a[r, u]
            for v in range(n):
                d = a[r, v] - au
                nonneg[r, u, v] = d >= 0
                x[r, u, v] = -abs(d)


@njit(cache=True, error_model="numpy")
def bt_logistic(e, nonneg):
    """In place, from ``e = exp(-|d|)`` (numpy's ``exp``, so that the bits are those of
    :func:`onlinerank.samplers.expit`): ``1 / (1 + e)`` where ``d >= 0``, else ``e / (1 + e)`` --
    the same two correctly rounded operations as the numpy expression."""
    R, n, m = e.shape
    for r in range(R):
        for u in range(n):
            for v in range(m):
                x = e[r, u, v]
                if nonneg[r, u, v]:
                    e[r, u, v] = 1.0 / (1.0 + x)
                else:
                    e[r, u, v] = x / (1.0 + x)


compile_once(globals())
