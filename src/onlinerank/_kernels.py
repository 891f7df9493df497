"""Compiled (numba) kernels behind :mod:`onlinerank.samplers` and :mod:`onlinerank.logweights`.

Only speed lives here; the mathematics (and the plain-numpy definitions that the kernels must
reproduce) is documented in ``samplers.py`` and ``logweights.py``.  This module imports numba, so
those modules import it lazily, on first use.

Conventions shared by all kernels
---------------------------------
* Scores come as ``S`` (R, n) float64 and a scalar ``eta``; the log-weight of item u in row r is
  always evaluated as the same float expression ``a = eta * S[r, u]``.
* A row is in one of two forms (``wmode[r]``):

  - ``0`` "cached weight form": ``w[r, u] = exp(a_u - shift_r)`` is valid for the row, with every
    exponent in ``[-LO, HI]`` (kept so by :func:`add_items`);
  - ``1`` "decide here": the kernel computes the row's range ``max a - min a``; if it is at most
    ``LO`` it uses the weights ``exp(a_u - max a)`` computed on the fly, otherwise it falls back to
    a log-form computation (``expit`` of differences of log-weights), which never over/underflows.

  Weights in ``[exp(-LO), exp(HI)]`` keep every ratio ``w_u / (w_u + w_v)`` and every
  Plackett–Luce key a normal float, so the weight form is exact to float rounding.
* Randomness: row r of a sampler reads only ``seeds[r]``.  The generator is SplitMix64 used as a
  counter (Weyl sequence + a bijective 64-bit finaliser; it passes BigCrush): draw ``i`` of a row is
  ``mix(state0 + (i + 1) * GOLDEN)`` with ``state0 = mix(seed ^ salt)``.  Uniforms use the top 53
  bits (QuickSort coins, pivots) or 52 bits + 1/2 (exponentials, so that ``U`` lies in (0, 1)).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

# dynamic-range limits of the weight form (see module docstring)
LO = 600.0
HI = 64.0
#: added to the log-form Plackett–Luce key so that it is positive (log E >= log(2**-53) > -37)
LOGKEY_OFFSET = 40.0

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_C1 = np.uint64(0xBF58476D1CE4E5B9)
_C2 = np.uint64(0x94D049BB133111EB)
_SALT_PL = np.uint64(0x5D1C3A0F7B2E4C91)
_SALT_QS = np.uint64(0xA3E1B2C4D5F60718)
_U11 = np.uint64(11)
_U12 = np.uint64(12)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_TWO_M53 = 1.0 / 9007199254740992.0  # 2**-53
_TWO_M52 = 1.0 / 4503599627370496.0  # 2**-52


@njit(cache=True)
def _mix(z):
    """SplitMix64 finaliser (a bijection of uint64)."""
    z = (z ^ (z >> _U30)) * _C1
    z = (z ^ (z >> _U27)) * _C2
    return z ^ (z >> _U31)


@njit(cache=True)
def _uniform53(z):
    """Uniform on {0, 2^-53, ..., 1 - 2^-53} from a uint64."""
    return np.float64(z >> _U11) * _TWO_M53


@njit(cache=True)
def _exponential(z):
    """Exp(1) variate ``-log U`` with ``U = (m + 1/2) 2^-52`` in (0, 1), so ``E > 0``."""
    return -math.log((np.float64(z >> _U12) + 0.5) * _TWO_M52)


@njit(cache=True)
def _expit(x):
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@njit(cache=True)
def _row_range(S, eta, r):
    """(max a, min a, all finite) of row r, ``a = eta * S[r]``."""
    n = S.shape[1]
    amax = -np.inf
    amin = np.inf
    finite = True
    for u in range(n):
        x = eta * S[r, u]
        if not math.isfinite(x):
            finite = False
        amax = max(amax, x)
        amin = min(amin, x)
    if n == 0:
        amax = 0.0
        amin = 0.0
    return amax, amin, finite


# ------------------------------------------------------------------------------------------------
# Plackett–Luce: exponential race, keys sorted as values with the item id in the low bits
# ------------------------------------------------------------------------------------------------
@njit(cache=True)
def _pl_key(mode, S, eta, w, r, u, amax, state0):
    """True key of item u in row r (smaller = earlier).

    mode 0: ``E_u / w_u`` (cached weights); mode 1: ``E_u * exp(max a - a_u)``; mode 2 (log form):
    ``log E_u - (a_u - max a) + LOGKEY_OFFSET``.  All three order the items as the exponential
    race / Gumbel-max construction of the Plackett–Luce law.
    """
    e = _exponential(_mix(state0 + np.uint64(u + 1) * _GOLDEN))
    if mode == 0:
        return e / w[r, u]
    if mode == 1:
        return e * math.exp(amax - eta * S[r, u])
    return math.log(e) - (eta * S[r, u] - amax) + LOGKEY_OFFSET


@njit(cache=True)
def pl_keys(S, eta, w, wmode, seeds, keys, mode_out, amax_out, lowbits):
    """Fill ``keys`` (R, n) with positive packed keys; returns False if some log-weight is not finite.

    Packed key = true key with its ``lowbits`` lowest mantissa bits replaced by the item id.  For
    positive floats the bit pattern is monotone in the value, so sorting packed keys sorts by the
    truncated key and then by item id; :func:`pl_extract` restores the exact order inside the
    (rare) groups of equal truncated keys.
    """
    R, n = S.shape
    kb = keys.view(np.int64)
    himask = ~((np.int64(1) << lowbits) - 1)
    ok = True
    for r in range(R):
        state0 = _mix(seeds[r] ^ _SALT_PL)
        mode = 0
        amax = 0.0
        if wmode[r] != 0:
            amax, amin, finite = _row_range(S, eta, r)
            if not finite:
                ok = False
                amax = 0.0
            mode = 1 if amax - amin <= LO else 2
        mode_out[r] = mode
        amax_out[r] = amax
        if mode == 0:
            for u in range(n):
                keys[r, u] = _exponential(_mix(state0 + np.uint64(u + 1) * _GOLDEN)) / w[r, u]
        else:
            for u in range(n):
                keys[r, u] = _pl_key(mode, S, eta, w, r, u, amax, state0)
        for u in range(n):
            kb[r, u] = (kb[r, u] & himask) | u
    return ok


@njit(cache=True)
def pl_extract(keys, S, eta, w, seeds, mode, amax, lowbits, out):
    """Read item ids from sorted packed keys into ``out``; re-sort ties of the truncated keys."""
    R, n = keys.shape
    kb = keys.view(np.int64)
    lomask = (np.int64(1) << lowbits) - 1
    himask = ~lomask
    tk = np.empty(n)
    for r in range(R):
        anytie = False
        prev = np.int64(-1)
        for i in range(n):
            b = kb[r, i]
            out[r, i] = b & lomask
            h = b & himask
            anytie |= h == prev
            prev = h
        if not anytie:
            continue
        state0 = _mix(seeds[r] ^ _SALT_PL)
        i = 0
        while i < n:
            h = kb[r, i] & himask
            j = i + 1
            while j < n and (kb[r, j] & himask) == h:
                j += 1
            if j - i > 1:  # insertion sort of out[r, i:j] by (true key, item id)
                for q in range(i, j):
                    tk[q] = _pl_key(mode[r], S, eta, w, r, out[r, q], amax[r], state0)
                for q in range(i + 1, j):
                    key = tk[q]
                    item = out[r, q]
                    p = q - 1
                    while p >= i and (tk[p] > key or (tk[p] == key and out[r, p] > item)):
                        tk[p + 1] = tk[p]
                        out[r, p + 1] = out[r, p]
                        p -= 1
                    tk[p + 1] = key
                    out[r, p + 1] = item
            i = j


# ------------------------------------------------------------------------------------------------
# QuickSort (Algorithm 2): in place, explicit stack, branchless partition
# ------------------------------------------------------------------------------------------------
@njit(cache=True)
def _qs_sort(idx, ww, logform, state, stack):
    """Algorithm 2 on ``idx`` in place; ``ww`` holds weights (or log-weights if ``logform``).

    Segment [lo, hi): a uniform pivot p is moved to hi-1; every other x goes before p with
    probability ``w_x / (w_x + w_p)`` (tested as ``U (w_x + w_p) < w_x``, or ``U < expit(a_x - a_p)``
    in log form); both sides are then processed the same way.  The larger side is pushed, so the
    stack depth stays below log2(n) + 1.
    """
    n = idx.shape[0]
    sp = 0
    lo = 0
    hi = n
    while True:
        while hi - lo > 1:
            m = hi - lo
            state += _GOLDEN
            p = lo + np.int64(_uniform53(_mix(state)) * m)
            if p >= hi:  # cannot happen with 53-bit uniforms, kept as a guard
                p = hi - 1
            last = hi - 1
            t = idx[p]
            idx[p] = idx[last]
            idx[last] = t
            wp = ww[p]
            ww[p] = ww[last]
            ww[last] = wp
            j = lo
            if logform:
                for i in range(lo, last):
                    state += _GOLDEN
                    x = idx[i]
                    wx = ww[i]
                    c = _uniform53(_mix(state)) < _expit(wx - wp)
                    idx[i] = idx[j]
                    ww[i] = ww[j]
                    idx[j] = x
                    ww[j] = wx
                    j += np.int64(c)
            else:
                for i in range(lo, last):
                    state += _GOLDEN
                    x = idx[i]
                    wx = ww[i]
                    c = _uniform53(_mix(state)) * (wx + wp) < wx
                    idx[i] = idx[j]
                    ww[i] = ww[j]
                    idx[j] = x
                    ww[j] = wx
                    j += np.int64(c)
            # pivot to position j: left = [lo, j), right = [j + 1, hi)
            t = idx[j]
            idx[j] = idx[last]
            idx[last] = t
            t2 = ww[j]
            ww[j] = ww[last]
            ww[last] = t2
            if j - lo < hi - j - 1:
                stack[sp] = j + 1
                stack[sp + 1] = hi
                hi = j
            else:
                stack[sp] = lo
                stack[sp + 1] = j
                lo = j + 1
            sp += 2
        if sp == 0:
            break
        sp -= 2
        lo = stack[sp]
        hi = stack[sp + 1]


@njit(cache=True)
def qs_rows(S, eta, w, wmode, seeds, out):
    """One Algorithm-2 order per row into ``out``; returns False if some log-weight is not finite."""
    R, n = S.shape
    idx = np.empty(n, dtype=np.int64)
    ww = np.empty(n)
    stack = np.empty(2 * 70, dtype=np.int64)
    ok = True
    for r in range(R):
        state = _mix(seeds[r] ^ _SALT_QS)
        logform = False
        if wmode[r] == 0:
            for u in range(n):
                ww[u] = w[r, u]
        else:
            amax, amin, finite = _row_range(S, eta, r)
            if not finite:
                ok = False
            if amax - amin <= LO:
                for u in range(n):
                    ww[u] = math.exp(eta * S[r, u] - amax)
            else:
                logform = True
                for u in range(n):
                    ww[u] = eta * S[r, u]
        for u in range(n):
            idx[u] = u
        _qs_sort(idx, ww, logform, state, stack)
        for u in range(n):
            out[r, u] = idx[u]
    return ok


# ------------------------------------------------------------------------------------------------
# LogWeights caches
# ------------------------------------------------------------------------------------------------
@njit(cache=True)
def refresh_row(S, eta, w, shift, wmode, r):
    """Recompute the cached weights of row r: ``shift = max a``, ``w = exp(a - shift)``; the row
    switches to the log form (``wmode = 1``) if its range exceeds ``LO``."""
    amax, amin, finite = _row_range(S, eta, r)
    if finite and amax - amin <= LO:
        shift[r] = amax
        for u in range(S.shape[1]):
            w[r, u] = math.exp(eta * S[r, u] - amax)
        wmode[r] = 0
    else:
        wmode[r] = 1


@njit(cache=True)
def refresh_all(S, eta, w, shift, wmode):
    for r in range(S.shape[0]):
        refresh_row(S, eta, w, shift, wmode, r)


@njit(cache=True)
def add_items(S, eta, w, shift, wmode, items):
    """``S[r, items[r]] += 1`` and keep the cached weight of each changed coordinate exact:
    ``w[r, c] = exp(eta * S[r, c] - shift[r])`` (recomputed, not multiplied, so no drift); a row
    whose exponent leaves ``[-LO, HI]`` is rescaled (or switched to the log form)."""
    R, k = items.shape
    for r in range(R):
        rescale = False
        for j in range(k):
            c = items[r, j]
            S[r, c] += 1.0
            if wmode[r] == 0:
                x = eta * S[r, c] - shift[r]
                if -LO <= x <= HI:
                    w[r, c] = math.exp(x)
                else:
                    rescale = True
        if rescale:
            refresh_row(S, eta, w, shift, wmode, r)


# ------------------------------------------------------------------------------------------------
# exact expected losses
# ------------------------------------------------------------------------------------------------
@njit(cache=True, fastmath={"reassoc", "nsz", "contract"})
def _ratio_sum(wr, lo, hi, wc):
    """``sum_{v in [lo, hi)} w_v / (w_v + w_c)`` (vectorised)."""
    acc = 0.0
    for v in range(lo, hi):
        x = wr[v]
        acc += x / (x + wc)
    return acc


@njit(cache=True)
def _expit_sum(S, eta, r, lo, hi, ac):
    acc = 0.0
    for v in range(lo, hi):
        acc += _expit(eta * S[r, v] - ac)
    return acc


@njit(cache=True)
def expected_loss_items(S, eta, w, wmode, items, out):
    """``out[r] = sum_{c chosen} sum_{v unchosen} expit(a_v - a_c)`` (no cancellation: the
    unchosen v are visited as the gaps between the sorted chosen items)."""
    R, k = items.shape
    n = S.shape[1]
    ch = np.empty(k + 1, dtype=np.int64)
    for r in range(R):
        for j in range(k):
            ch[j] = items[r, j]
        chs = np.sort(ch[:k])
        tot = 0.0
        for j in range(k):
            c = items[r, j]
            prev = 0
            if wmode[r] == 0:
                wc = w[r, c]
                wr = w[r]
                for q in range(k):
                    tot += _ratio_sum(wr, prev, chs[q], wc)
                    prev = chs[q] + 1
                tot += _ratio_sum(wr, prev, n, wc)
            else:
                ac = eta * S[r, c]
                for q in range(k):
                    tot += _expit_sum(S, eta, r, prev, chs[q], ac)
                    prev = chs[q] + 1
                tot += _expit_sum(S, eta, r, prev, n, ac)
        out[r] = tot


@njit(cache=True, fastmath={"reassoc", "nsz", "contract"})
def _dense_w_task(ss, ws, r, i, n):
    si = ss[r, i]
    wi = ws[r, i]
    acc = 0.0
    for j in range(i + 1, n):
        x = ws[r, j]
        acc += (ss[r, j] - si) * (wi / (wi + x))
    return acc


@njit(cache=True)
def _dense_log_task(ss, la, r, i, n):
    si = ss[r, i]
    ai = la[r, i]
    acc = 0.0
    for j in range(i + 1, n):
        acc += (ss[r, j] - si) * _expit(ai - la[r, j])
    return acc


@njit(cache=True, parallel=True)
def expected_loss_dense(ss, ws, la, wmode, part):
    """Pairs of a row sorted by increasing s: ``sum_{i < j} (s_j - s_i) P(i before j)``.

    ``ws`` holds the sorted weights (rows with ``wmode == 0``), ``la`` the sorted log-weights
    (other rows).  Task t of a row handles i = t and i = n - 1 - t, so all tasks cost ~n; the
    per-task sums land in ``part`` (R, ceil(n/2)) and are added in a fixed order by the caller,
    so the result does not depend on the number of threads.
    """
    R, n = ss.shape
    h = (n + 1) // 2
    for q in prange(R * h):
        r = q // h
        t = q - r * h
        i2 = n - 1 - t
        if wmode[r] == 0:
            acc = _dense_w_task(ss, ws, r, t, n)
            if i2 != t:
                acc += _dense_w_task(ss, ws, r, i2, n)
        else:
            acc = _dense_log_task(ss, la, r, t, n)
            if i2 != t:
                acc += _dense_log_task(ss, la, r, i2, n)
        part[r, t] = acc
