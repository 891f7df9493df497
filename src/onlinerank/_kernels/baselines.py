"""Compiled kernels of the baselines on blocks of choice feedback: Follow-the-Leader (its loss is
the positions of the chosen items in the order of decreasing score, :mod:`.feedback`) and the
uniform ranking (numpy's ``default_rng(seed).permutation`` per round, copied in :mod:`.streams`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import compile_once
from .feedback import _possum
from .streams import _default_rng_permutation, _round_seed


@njit(cache=True, error_model="numpy")
def ftl_items(S, items, exp_loss, loss, sample):
    """Follow-the-Leader on the choice feedback ``items`` (R, B, k): per round its (deterministic)
    loss, the positions of the chosen items in ``argsort(-S, kind="stable")`` minus C(k, 2), is
    added to ``exp_loss`` (and to ``loss`` if ``sample``), then ``S[r, chosen] += 1``."""
    R, B, k = items.shape
    n = S.shape[1]
    comb = np.float64(k * (k - 1) // 2)
    tk = np.empty(n)
    thr_k = np.empty(k)
    thr_i = np.empty(k, dtype=np.int64)
    for r in range(R):
        for b in range(B):
            it = items[r, b]
            for u in range(n):
                tk[u] = -S[r, u]
            v = np.float64(_possum(tk, it, thr_k, thr_i)) - comb
            exp_loss[r] += v
            if sample:
                loss[r] += v
            for j in range(k):
                S[r, it[j]] += 1.0


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


compile_once(globals())
