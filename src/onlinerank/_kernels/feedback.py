"""Compiled kernels of choice feedback (theory §1): the cumulative score counts, and the loss of an
order -- the positions of the chosen items, counted without sorting (OnlineRank's Plackett–Luce
block path and Follow-the-Leader).  The heap sort of (key, item) pairs serves both this count and
the Plackett–Luce sampler's ties (:func:`onlinerank._kernels.onlinerank.pl_extract`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import compile_once


@njit(cache=True, error_model="numpy")
def _pair_less(ka, ia, kb, ib):
    """``(ka, ia) < (kb, ib)`` lexicographically."""
    return ka < kb or (ka == kb and ia < ib)


@njit(cache=True, error_model="numpy")
def _heapsort_pairs(ks, ids, m):
    """Sort the pairs ``(ks[i], ids[i])``, ``i < m``, in place, lexicographically (heap sort: no
    allocation, O(m log m))."""
    for top in range(m // 2 - 1, -1, -1):
        _sift_pairs(ks, ids, top, m)
    for end in range(m - 1, 0, -1):
        ks[0], ks[end] = ks[end], ks[0]
        ids[0], ids[end] = ids[end], ids[0]
        _sift_pairs(ks, ids, 0, end)


@njit(cache=True, error_model="numpy")
def _sift_pairs(ks, ids, i, m):
    while True:
        c = 2 * i + 1
        if c >= m:
            return
        if c + 1 < m and _pair_less(ks[c], ids[c], ks[c + 1], ids[c + 1]):
            c += 1
        if not _pair_less(ks[i], ids[i], ks[c], ids[c]):
            return
        ks[i], ks[c] = ks[c], ks[i]
        ids[i], ids[c] = ids[c], ids[i]
        i = c


@njit(cache=True, error_model="numpy")
def _possum(tk, it, thr_k, thr_i):
    """``sum_{c in it} #{u : (tk_u, u) < (tk_c, c)}``: the sum of the 0-based positions of the
    chosen items ``it`` in the order of increasing key ``tk`` (n,), ties by item id -- exactly
    their positions in ``argsort(tk, kind="stable")``, without sorting.  O(kn) for k <= 8, else
    O(n log k + k log k) with the scratch ``thr_k`` (float64) and ``thr_i`` (int64), at least k
    long (no allocation: :func:`_play_items_rows` runs without reference counting)."""
    n = tk.shape[0]
    k = it.shape[0]
    tot = np.int64(0)
    if k <= 8:
        for j in range(k):
            c = it[j]
            kc = tk[c]
            cnt = np.int64(0)
            for u in range(n):
                x = tk[u]
                cnt += np.int64((x < kc) | ((x == kc) & (u < c)))
            tot += cnt
        return tot
    for j in range(k):
        thr_i[j] = it[j]
        thr_k[j] = tk[it[j]]
    _heapsort_pairs(thr_k, thr_i, k)
    for u in range(n):  # thresholds above (tk_u, u), by binary search
        x = tk[u]
        lo = 0
        hi = k
        while lo < hi:
            mid = (lo + hi) >> 1
            if thr_k[mid] < x or (thr_k[mid] == x and thr_i[mid] <= u):
                lo = mid + 1
            else:
                hi = mid
        tot += k - lo
    return tot


@njit(cache=True, error_model="numpy")
def add_item_counts(S, items):
    """``S[r, c] += 1`` for every chosen item c of every round of ``items`` (R, B, k) (integer
    counts: the result does not depend on the order of the additions)."""
    R, B, k = items.shape
    for r in range(R):
        for b in range(B):
            for j in range(k):
                S[r, items[r, b, j]] += 1.0


compile_once(globals())
