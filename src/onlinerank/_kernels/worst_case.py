"""Compiled layer kernels of the exact worst-case DP (:mod:`onlinerank.worst_case`).

Imported lazily (numba start-up), so ``import onlinerank`` stays light.  A *state* is an integer
score vector reduced modulo translation (theory §3.4): ``canon(x) = sort(x) - min x`` for learners
whose law is symmetric in the items, ``x - min x`` (labels kept) for the others.  Keys are int64:

* sorted states ``0 = y_0 <= y_1 <= ... <= y_{n-1} <= B``: the combinatorial number system of the
  multiset, ``sum_{j>=1} C(y_j + j - 1, j)`` (a bijection onto ``[0, C(B+n-1, n-1))``);
* labelled states: ``sum_j y_j (B+1)^j``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import compile_once

__all__ = ["binomial_table", "staircase_rows", "successor_keys", "successor_states"]


def binomial_table(top: int, n: int) -> np.ndarray:
    """``C(m, j)`` for ``0 <= m <= top``, ``0 <= j < n`` as int64 (caller checks the range), for
    the keys of theory §3.4's sorted canonical states."""
    out = np.zeros((top + 1, n), dtype=np.int64)
    out[:, 0] = 1
    for m in range(1, top + 1):
        out[m, 1:] = out[m - 1, 1:] + out[m - 1, :-1]
    return out


@njit(cache=True)
def _canon(x, a, labelled, y):
    """``y <- canon(x + a)`` in place (insertion sort: n is small)."""
    n = x.shape[0]
    for j in range(n):
        y[j] = x[j] + a[j]
    if labelled:
        m = y[0]
        for j in range(1, n):
            if y[j] < m:
                m = y[j]
    else:
        for j in range(1, n):
            v = y[j]
            i = j - 1
            while i >= 0 and y[i] > v:
                y[i + 1] = y[i]
                i -= 1
            y[i + 1] = v
        m = y[0]
    for j in range(n):
        y[j] -= m


@njit(cache=True)
def _key(y, labelled, binom, base):
    n = y.shape[0]
    k = np.int64(0)
    if labelled:
        p = np.int64(1)
        for j in range(n):
            k += y[j] * p
            p *= base
    else:
        for j in range(1, n):
            k += binom[y[j] + j - 1, j]
    return k


@njit(cache=True)
def successor_keys(X, acts, labelled, binom, base):
    """Keys of ``canon(X[i] + acts[a])`` (theory §3.4) for every state i and action a, (N, A)."""
    N, n = X.shape
    A = acts.shape[0]
    out = np.empty((N, A), dtype=np.int64)
    y = np.empty(n, dtype=np.int64)
    for i in range(N):
        for a in range(A):
            _canon(X[i], acts[a], labelled, y)
            out[i, a] = _key(y, labelled, binom, base)
    return out


@njit(cache=True)
def successor_states(X, acts, flat, labelled, out):
    """``out[r] = canon(X[i] + acts[a])`` (theory §3.4) with ``(i, a) = divmod(flat[r], A)``."""
    A = acts.shape[0]
    n = X.shape[1]
    y = np.empty(n, dtype=np.int64)
    for r in range(flat.shape[0]):
        i = flat[r] // A
        a = flat[r] % A
        _canon(X[i], acts[a], labelled, y)
        for j in range(n):
            out[r, j] = y[j]


@njit(cache=True)
def staircase_rows(n, k, ends, out):
    """The staircase sequences of :func:`onlinerank.worst_case_search.staircase_sequences` (the
    shape of theory §3.4's DP argmax): ``out[r, t]`` (int8, zeroed by the caller) gets the round's
    ``k`` chosen items, given the cumulative phase ends ``ends[r]``.  In round t the active items
    are the ``m = n - #{phases ended by t}`` first in the order (score decreasing, id increasing)
    and the chosen ones the ``k`` active items first in the order (score increasing, id
    increasing): both orders are strict, so counting ranks gives the reference's stable sorts."""
    R, T = out.shape[0], out.shape[1]
    P = ends.shape[1]
    S = np.zeros(n, dtype=np.int64)
    active = np.zeros(n, dtype=np.bool_)
    for r in range(R):
        S[:] = 0
        for t in range(T):
            m = n
            for p in range(P):
                if ends[r, p] <= t:
                    m -= 1
            for u in range(n):  # rank of u by (-S, id): items before it
                before = 0
                for v in range(n):
                    if S[v] > S[u] or (S[v] == S[u] and v < u):
                        before += 1
                active[u] = before < m
            for _ in range(k):  # the active item with the smallest (S, id), k times
                best = -1
                for u in range(n):
                    if active[u] and (best < 0 or S[u] < S[best]):
                        best = u
                active[best] = False
                out[r, t, best] = 1
            for u in range(n):  # scores move after the round's choice
                if out[r, t, u]:
                    S[u] += 1


compile_once(globals())
