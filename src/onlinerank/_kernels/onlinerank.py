"""Compiled (numba) kernels of OnlineRank (theory §2), behind :mod:`onlinerank.samplers` and
:mod:`onlinerank.logweights`: Plackett–Luce keys, QuickSort (Algorithm 2), the cached weights and
the histogram of integer scores, the exact expected losses, and the block round loop
:func:`play_items`.

Only speed lives here; the mathematics (and the plain-numpy definitions that the kernels must
reproduce) is documented in ``samplers.py`` and ``logweights.py``.  This module imports numba, so
those modules import it lazily, on first use.  Every kernel is ``@njit(cache=True)``; only the
O(n^2) dense expected loss runs on several threads (``prange``).

Conventions shared by all kernels
---------------------------------
* OnlineRank's state comes as one record, :class:`LogWeightArrays` (``lw``): the scores ``lw.S``
  (R, n) float64, the scalar ``lw.eta``, the cached weights, their shifts and each row's form; the
  histogram of integer scores as another, :class:`ScoreHistogram` (``hist``).  From Python both are
  passed as plain tuples in their fields' order (numba types a plain tuple on its fast path and a
  named one in microseconds per call, more than a small sampler call's work) and named by the
  kernel that receives them.  The log-weight of item u in row r is always evaluated as the same
  float expression ``a = lw.eta * lw.S[r, u]``.
* A row is in one of two forms (``lw.form[r]``):

  - ``0`` "cached weight form": ``lw.weights[r, u] = exp(a_u - lw.shift[r])`` is valid for the
    row, with every exponent in ``[-LO, HI]`` (kept so by :func:`add_items`);
  - ``1`` "decide here": the kernel computes the row's range ``max a - min a``; if it is at most
    ``LO`` it uses the weights ``exp(a_u - max a)`` computed on the fly, otherwise it falls back to
    a log-form computation (``expit`` of differences of log-weights), which never over/underflows.

  Weights in ``[exp(-LO), exp(HI)]`` keep every ratio ``w_u / (w_u + w_v)`` and every
  Plackett–Luce key a normal float, so the weight form is exact to float rounding.
* Randomness: row r of a sampler reads only ``seeds[r]``.  The generator is SplitMix64 used as a
  counter (Weyl sequence + a bijective 64-bit finaliser; it passes BigCrush; :mod:`.streams`):
  draw ``i`` of a row is ``mix(state0 + (i + 1) * WEYL_INCREMENT)`` with ``state0 = mix(seed ^ salt)``;
  QuickSort's ``state0`` is per segment, derived from the row's and the segment's place in the
  output (:func:`_segment_state`), so that skipping a segment moves no other draw.
  Uniforms use the top 53 bits (QuickSort coins, pivots) or 52 bits + 1/2 (exponentials, so that
  ``U`` lies in (0, 1)).
* Packing: a float64 whose ``lowbits = ceil(log2 n)`` lowest mantissa bits are replaced by an item
  id carries the item along with a value of relative error below ``2^(lowbits - 52)``.  Both
  samplers sort / partition such packed values and settle the (rare) cases where that error could
  matter with the exact values, so their output is the same as without packing.
* ``_log`` and ``_exp`` are branch-free ports of fdlibm's (< 1 ulp), so that loops calling them
  vectorise (numba's ``math.log``/``math.exp`` are scalar library calls).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ..seeding import WEYL_INCREMENT as _WEYL_INCREMENT
from . import compile_once
from .feedback import _heapsort_pairs, _possum
from .streams import _mix, _round_seed

# dynamic-range limits of the weight form (see module docstring)
LO = 600.0
HI = 64.0
#: added to the log-form Plackett–Luce key so that it is positive (log E >= log(2**-53) > -37)
LOGKEY_OFFSET = 40.0

_SALT_PL = np.uint64(0x5D1C3A0F7B2E4C91)
_SALT_QS = np.uint64(0xA3E1B2C4D5F60718)
_U11 = np.uint64(11)
_U12 = np.uint64(12)
_TWO_M53 = 1.0 / 9007199254740992.0  # 2**-53
_TWO_M52 = 1.0 / 4503599627370496.0  # 2**-52

#: the decorator of the kernels that take the records below and never allocate: compiled without
#: reference counting, so that taking an array out of a record inside a row loop costs nothing
#: (with it, such accesses paid atomic increments and decrements of the arrays' reference counts,
#: about 20 ns a row at n = 100: a fifth of a single-choice expected loss)
_no_refcounts = njit(cache=True, error_model="numpy", _nrt=False)  # type: ignore[call-overload]  # numba option


class LogWeightArrays(NamedTuple):
    """OnlineRank's state for R replicates as the kernels read and update it: the arrays of
    :class:`onlinerank.logweights.LogWeights` (theory §2.1; the two forms of a row: module
    docstring)."""

    #: (R, n) float64: the cumulative scores
    S: np.ndarray
    #: the learning rate: item u of row r has the log-weight ``eta * S[r, u]``
    eta: float
    #: (R, n) float64: the cached weights ``exp(eta * S[r, u] - shift[r])`` of the rows of form 0
    #: (shape (0, 0) for a state without cached weights: every row of form 1)
    weights: np.ndarray
    #: (R,) float64: the shift of each row's cached weights, its largest log-weight when cached
    shift: np.ndarray
    #: (R,) int8: each row's form, 0 (cached weights) or 1 (decide here)
    form: np.ndarray


class ScoreHistogram(NamedTuple):
    """The histogram of the scores of every row, while they are integers with few distinct values:
    the expected loss of choice feedback then costs O(#values) per chosen item
    (:func:`expected_loss_items`)."""

    #: (R, capacity + 1) float64: the row's distinct score values, increasing, in ``[:sizes[r]]``
    values: np.ndarray
    #: (R, capacity + 1) int64: the number of items at each value
    counts: np.ndarray
    #: (R,) int64: the number of distinct values of the row; -1: the row has no histogram
    #: (a non-integer score, or more than ``capacity`` values)
    sizes: np.ndarray
    #: the most distinct values a row's histogram holds
    capacity: int


class RoundScratch(NamedTuple):
    """The work arrays of one replicate's round in :func:`play_items` (allocated once per call)."""

    #: (k,) int64: the chosen items, sorted (:func:`_el_items_row`)
    chosen_sorted: np.ndarray
    #: (n,) int64, zero between rounds: the unchosen items at each histogram value
    unchosen_at: np.ndarray
    #: (n,) int64, zero between rounds: the chosen items at each histogram value
    chosen_at: np.ndarray
    #: (k,) int64: the chosen items' ids, sorted by key (:func:`~.feedback._possum`)
    tie_ids: np.ndarray
    #: (k,) float64: the chosen items' keys, sorted (:func:`~.feedback._possum`)
    tie_keys: np.ndarray
    #: (k,) float64: the chosen items' cached weights, set aside (:func:`_el_items_row`)
    saved_weights: np.ndarray
    #: (n,) float64: the Plackett-Luce keys of the row (the exponential race)
    race_keys: np.ndarray
    #: (n,) float64: QuickSort's exact weights or log-weights (:func:`_qs_sort`)
    qs_values: np.ndarray
    #: (n,) float64: QuickSort's packed records (value and item id)
    qs_records: np.ndarray
    #: (n,) uint64: QuickSort's coins of a partition
    coins: np.ndarray
    #: (140,) uint64: QuickSort's stack of segments
    stack: np.ndarray
    #: (n,) int64: the position of each item in the QuickSort order
    positions: np.ndarray
    #: (n,) uint64, zero between rounds: 1 for the chosen items, whose positions QuickSort must find
    wanted: np.ndarray


@njit(cache=True, error_model="numpy")
def _uniform53(z):
    """Uniform on {0, 2^-53, ..., 1 - 2^-53} from a uint64."""
    return np.float64(z >> _U11) * _TWO_M53


# fdlibm's __ieee754_log (e_log.c), branch-free so that loops calling it vectorise; < 1 ulp for
# positive normal arguments (tested against math.log in tests/test_samplers.py).
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01
_MANT = np.int64(0x000FFFFFFFFFFFFF)


@njit(cache=True, error_model="numpy")
def _log(x):
    """Natural log of a positive normal float (fdlibm algorithm, without special cases)."""
    b = np.float64(x).view(np.int64)
    hx = b >> 32
    k = (hx >> 20) - 1023
    hx &= 0x000FFFFF
    i = (hx + 0x95F64) & 0x100000  # normalise the mantissa into [sqrt(2)/2, sqrt(2))
    xb = np.int64((b & _MANT) | ((i ^ 0x3FF00000) << 32))
    k += i >> 20
    f = xb.view(np.float64) - 1.0
    s = f / (2.0 + f)
    dk = np.float64(k)
    z = s * s
    w = z * z
    t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
    t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
    r = t2 + t1
    hfsq = 0.5 * f * f
    return dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + dk * _LN2_LO)) - f)


# fdlibm's __ieee754_exp (e_exp.c), branch-free for |x| <= 700 so that loops calling it vectorise;
# < 1 ulp (tested against math.exp in tests/test_samplers.py).
_INVLN2 = 1.44269504088896338700e00
_P1 = 1.66666666666666019037e-01
_P2 = -2.77777777770155933842e-03
_P3 = 6.61375632143793436117e-05
_P4 = -1.65339022054652515390e-06
_P5 = 4.13813679705723846039e-08


@njit(cache=True, error_model="numpy")
def _exp(x):
    """``exp(x)`` for ``|x| <= 700`` (fdlibm algorithm, without special cases)."""
    k = math.floor(x * _INVLN2 + 0.5)
    hi = x - k * _LN2_HI
    lo = k * _LN2_LO
    r = hi - lo
    t = r * r
    c = r - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
    y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
    return np.int64(np.float64(y).view(np.int64) + (np.int64(k) << 52)).view(np.float64)


@njit(cache=True, error_model="numpy")
def _exponential(z):
    """Exp(1) variate ``-log U`` with ``U = (m + 1/2) 2^-52`` in (0, 1), so ``E > 0``."""
    return -_log((np.float64(z >> _U12) + 0.5) * _TWO_M52)


@njit(cache=True, error_model="numpy")
def _expit(x):
    """``1 / (1 + exp(-x))`` by the two-branch formula (``e / (1 + e)`` below 0, ``e = exp(x)``);
    where its result does not depend on ``exp`` (1.0 above 37, 0.0 below -750) exp is not called:
    the same bits (tests/test_samplers.py), at a fraction of the cost where a row's log-weights
    span hundreds (the log form), most of whose terms saturate."""
    if x > 37.0:  # exp(-x) < 2**-53: 1 + exp(-x) rounds to 1, the quotient to 1.0
        return 1.0
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    if x < -750.0:  # exp(x) rounds to 0 (below half the least subnormal, 2**-1075)
        return 0.0
    e = math.exp(x)
    return e / (1.0 + e)


@njit(cache=True, error_model="numpy")
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
@_no_refcounts
def _pl_key(mode, lw, r, u, amax, state0):
    """True key of item u in row r of the state ``lw`` (smaller = earlier).

    mode 0: ``E_u / w_u`` (cached weights); mode 1: ``E_u * exp(max a - a_u)``; mode 2 (log form):
    ``log E_u - (a_u - max a) + LOGKEY_OFFSET``.  All three order the items as the exponential
    race / Gumbel-max construction of the Plackett–Luce law.
    """
    e = _exponential(_mix(state0 + np.uint64(u + 1) * _WEYL_INCREMENT))
    if mode == 0:
        return e / lw.weights[r, u]
    if mode == 1:
        return e * _exp(amax - lw.eta * lw.S[r, u])
    return _log(e) - (lw.eta * lw.S[r, u] - amax) + LOGKEY_OFFSET


@njit(cache=True, error_model="numpy")
def _pack(key, u, himask):
    """``key`` (positive) with its low mantissa bits replaced by the item id ``u``."""
    return np.int64((np.float64(key).view(np.int64) & himask) | u).view(np.float64)


@_no_refcounts
def pl_keys(weights, seeds, keys, mode_out, amax_out, lowbits):
    """Fill ``keys`` (R, n) with positive packed keys of the state ``weights`` (a
    :class:`LogWeightArrays` as a plain tuple); False if some log-weight is not finite.

    Packed key = true key with its ``lowbits`` lowest mantissa bits replaced by the item id.  For
    positive floats the bit pattern is monotone in the value, so sorting packed keys sorts by the
    truncated key and then by item id; :func:`pl_extract` restores the exact order inside the
    (rare) groups of equal truncated keys.
    """
    lw = LogWeightArrays(*weights)
    S, eta, w = lw.S, lw.eta, lw.weights
    R, n = S.shape
    himask = ~((np.int64(1) << lowbits) - 1)
    ok = True
    for r in range(R):
        state0 = _mix(seeds[r] ^ _SALT_PL)
        mode = 0
        amax = 0.0
        if lw.form[r] != 0:
            amax, amin, finite = _row_range(S, eta, r)
            if not finite:
                ok = False
                amax = 0.0
            mode = 1 if amax - amin <= LO else 2
        mode_out[r] = mode
        amax_out[r] = amax
        if mode == 0:
            for u in range(n):
                e = _exponential(_mix(state0 + np.uint64(u + 1) * _WEYL_INCREMENT))
                keys[r, u] = _pack(e / w[r, u], u, himask)
        elif mode == 1:
            for u in range(n):
                e = _exponential(_mix(state0 + np.uint64(u + 1) * _WEYL_INCREMENT))
                keys[r, u] = _pack(e * _exp(amax - eta * S[r, u]), u, himask)
        else:
            for u in range(n):
                keys[r, u] = _pack(_pl_key(2, lw, r, u, amax, state0), u, himask)
    return ok


@njit(cache=True, error_model="numpy")
def pl_keys_shared(a, seeds, keys, mode_out, amax_out, lowbits):
    """:func:`pl_keys` for ``m`` orders of one log-weight vector ``a`` (n,) (``eta = 1``, every
    row in the decide-here form): the row's range and the per-item factors are computed once,
    by the same expressions, so the keys are bit-identical to those of ``pl_keys`` on the
    broadcast (m, n) array.  False if some log-weight is not finite."""
    m, n = keys.shape
    himask = ~((np.int64(1) << lowbits) - 1)
    amax = -np.inf
    amin = np.inf
    ok = True
    for u in range(n):
        x = 1.0 * a[u]
        if not math.isfinite(x):
            ok = False
        amax = max(amax, x)
        amin = min(amin, x)
    if n == 0:
        amax = 0.0
        amin = 0.0
    if not ok:
        amax = 0.0
    mode = 1 if amax - amin <= LO else 2
    f = np.empty(n)
    for u in range(n):
        f[u] = _exp(amax - 1.0 * a[u]) if mode == 1 else 1.0 * a[u] - amax
    for r in range(m):
        state0 = _mix(seeds[r] ^ _SALT_PL)
        mode_out[r] = mode
        amax_out[r] = amax
        if mode == 1:
            for u in range(n):
                e = _exponential(_mix(state0 + np.uint64(u + 1) * _WEYL_INCREMENT))
                keys[r, u] = _pack(e * f[u], u, himask)
        else:
            for u in range(n):
                e = _exponential(_mix(state0 + np.uint64(u + 1) * _WEYL_INCREMENT))
                keys[r, u] = _pack(_log(e) - f[u] + LOGKEY_OFFSET, u, himask)
    return ok


@njit(cache=True, error_model="numpy")
def pl_extract(kb, weights, seeds, mode, amax, lowbits):
    """In place: ``kb`` (R, n) int64, the bit patterns of the sorted packed keys of the state
    ``weights`` (:func:`pl_keys`), becomes the item ids, in order; groups of equal truncated keys
    are first re-sorted by their untruncated keys (the keys live in the output array itself, so a
    sample allocates one (R, n) array)."""
    lw = LogWeightArrays(*weights)
    R, n = kb.shape
    lomask = (np.int64(1) << lowbits) - 1
    himask = ~lomask
    tk = np.empty(n)
    ids = np.empty(n, dtype=np.int64)
    for r in range(R):
        nties = 0
        prev = np.int64(-1)
        for i in range(n):
            h = kb[r, i] & himask
            nties += h == prev
            prev = h
        if nties > 0:
            state0 = _mix(seeds[r] ^ _SALT_PL)
            i = 0
            while i < n:
                h = kb[r, i] & himask
                j = i + 1
                while j < n and (kb[r, j] & himask) == h:
                    j += 1
                if j - i > 1:  # the group by (true key, item id)
                    m = j - i
                    for q in range(m):
                        ids[q] = kb[r, i + q] & lomask
                        tk[q] = _pl_key(mode[r], lw, r, ids[q], amax[r], state0)
                    _heapsort_pairs(tk, ids, m)
                    for q in range(m):
                        kb[r, i + q] = h | ids[q]
                i = j
        for i in range(n):
            kb[r, i] &= lomask


# ------------------------------------------------------------------------------------------------
# QuickSort (Algorithm 2): in place on records (weight, item), explicit stack, branchless partition
# ------------------------------------------------------------------------------------------------
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_TWO = np.uint64(2)
#: odd multiplier of a segment's place in :func:`_segment_state` (a 64-bit golden-ratio-like
#: constant, distinct from the Weyl increment of the draws within a segment)
_SEGMENT_INCREMENT = np.uint64(0xD1B54A32D192ED03)


@njit(cache=True, error_model="numpy")
def _item(key, mask):
    return np.float64(key).view(np.int64) & mask


@njit(cache=True, error_model="numpy")
def _qs_coin_exact(u, x, p, logform):
    """The coin of Algorithm 2: does x go before the pivot p (weights, or log-weights)?"""
    if logform:
        return u < _expit(x - p)
    return u * (x + p) < x


@njit(cache=True, error_model="numpy")
def _segment_state(root, lo, hi, n):
    """The stream of QuickSort's segment [lo, hi) of an order of n items: a function of the row's
    ``root`` and of the segment's place in the output alone.  Every segment of one run of Algorithm
    2 has its own place (a segment's children lie strictly inside it and apart from each other), so
    the segments' streams are distinct whatever order the segments are processed in and whichever
    segments are left unsorted (:func:`_qs_sort`'s ``allitems``)."""
    return _mix(root + (lo * (n + _ONE) + hi) * _SEGMENT_INCREMENT)


@njit(cache=True, error_model="numpy")
def _qs_sort(pk, wex, cb, logform, root, stack, lowbits, wanted, allitems):
    """Algorithm 2 in place on packed records ``pk`` (one float64 per item: its weight, or
    log-weight if ``logform``, with the ``lowbits`` lowest mantissa bits replaced by the item id);
    ``wex[item]`` holds the exact (unpacked) values.

    Segment [lo, hi) with stream ``state = _segment_state(root, lo, hi, n)``: a uniform pivot p
    (draw ``state``) is moved to hi-1; the k-th other x goes before p with probability
    ``w_x / (w_x + w_p)``: coin ``U (w_x + w_p) < w_x`` (log form ``U < expit(a_x - a_p)``), ``U`` the
    draw ``state + (k + 1) WEYL_INCREMENT``.  The coins are drawn first in a vectorised pass on the
    packed values, whose relative error is below ``2^(lowbits - 52)``; a coin closer than a safe
    multiple of that to its threshold is redrawn from the exact values (same U), so the coins --
    and the orders -- are exactly those of the unpacked algorithm.  Then a branchless Lomuto
    partition moves the records (always swap, advance by the coin).  A segment of two items needs
    a single coin: QuickSort puts x first with probability ``w_x / (w_x + w_y)`` whichever is the
    pivot.  The larger side is pushed, so the stack holds fewer than log2(m) + 1 segments.

    ``allitems`` False sorts only what the positions of the items with ``wanted[item] = 1``
    need: a segment holding none of them is left as it is (its items' positions are not those
    of the order), so a realised loss costs O(n) expected coins instead of O(n log n).  The
    wanted items end where the whole sort puts them (same segments, same streams, same coins).
    """
    n = np.uint64(pk.shape[0])
    mask = (np.int64(1) << lowbits) - 1
    rel = 8.0 * 2.0 ** (lowbits - 52)  # bound on the coin's error from the packing (+ rounding)
    sp = _ZERO
    lo = _ZERO
    hi = n
    while True:
        while hi - lo > _ONE:
            m = hi - lo
            state = _segment_state(root, lo, hi, n)
            if m == _TWO:
                k0 = pk[lo]
                k1 = pk[lo + _ONE]
                u = _uniform53(_mix(state))
                if not _qs_coin_exact(u, wex[_item(k0, mask)], wex[_item(k1, mask)], logform):
                    pk[lo] = k1
                    pk[lo + _ONE] = k0
                break
            p = lo + np.uint64(_uniform53(_mix(state)) * np.float64(m))
            last = hi - _ONE
            kp = pk[p]
            pk[p] = pk[last]
            pk[last] = kp
            namb = 0
            if logform:
                for k in range(last - lo):
                    i = lo + k
                    x = pk[i]
                    d = _uniform53(_mix(state + np.uint64(k + 1) * _WEYL_INCREMENT)) - _expit(x - kp)
                    cb[i] = np.uint64(d < 0.0)
                    namb += abs(d) <= rel * (abs(x) + abs(kp)) + 2.0**-50
            else:
                for k in range(last - lo):
                    i = lo + k
                    x = pk[i]
                    t = x + kp
                    d = _uniform53(_mix(state + np.uint64(k + 1) * _WEYL_INCREMENT)) * t - x
                    cb[i] = np.uint64(d < 0.0)
                    namb += abs(d) <= rel * t
            if namb > 0:  # rare: settle the close calls with the exact values
                wp = wex[_item(kp, mask)]
                for k in range(last - lo):
                    i = lo + k
                    x = pk[i]
                    u = _uniform53(_mix(state + np.uint64(k + 1) * _WEYL_INCREMENT))
                    if logform:
                        d = u - _expit(x - kp)
                        close = abs(d) <= rel * (abs(x) + abs(kp)) + 2.0**-50
                    else:
                        d = u * (x + kp) - x
                        close = abs(d) <= rel * (x + kp)
                    if close:
                        cb[i] = np.uint64(_qs_coin_exact(u, wex[_item(x, mask)], wp, logform))
            j = lo
            i = lo
            before = _ZERO  # wanted items that go before the pivot
            after = _ZERO
            while i < last:
                x = pk[i]
                pk[i] = pk[j]
                pk[j] = x
                if not allitems:
                    w = wanted[_item(x, mask)]
                    before += w & cb[i]
                    after += w & (cb[i] ^ _ONE)
                j += cb[i]
                i += _ONE
            # pivot to position j: left = [lo, j), right = [j + 1, hi)
            pk[last] = pk[j]
            pk[j] = kp
            left = j - lo > _ONE and (allitems or before > _ZERO)
            right = hi - j - _ONE > _ONE and (allitems or after > _ZERO)
            if left and right:
                if j - lo < hi - j - _ONE:
                    stack[sp] = j + _ONE
                    stack[sp + _ONE] = hi
                    sp += _TWO
                    hi = j
                else:
                    stack[sp] = lo
                    stack[sp + _ONE] = j
                    sp += _TWO
                    lo = j + _ONE
            elif left:
                hi = j
            elif right:
                lo = j + _ONE
            else:
                break
        if sp == _ZERO:
            break
        sp -= _TWO
        lo = stack[sp]
        hi = stack[sp + _ONE]


@_no_refcounts
def _qs_row(lw, r, seed, wex, pk, cb, stack, lowbits, wanted, allitems):
    """One Algorithm-2 order of row r of the state ``lw`` into the packed records ``pk`` (read the
    items with :func:`_item`); with ``allitems`` False only as far as the positions of the items
    with ``wanted[item] = 1`` need (:func:`_qs_sort`).  False if some log-weight of the row is not
    finite."""
    S, eta = lw.S, lw.eta
    n = S.shape[1]
    mask = (np.int64(1) << lowbits) - 1
    state = _mix(seed ^ _SALT_QS)
    logform = False
    ok = True
    if lw.form[r] == 0:
        for u in range(n):
            wex[u] = lw.weights[r, u]
    else:
        amax, amin, finite = _row_range(S, eta, r)
        if not finite:
            ok = False
        if amax - amin <= LO:
            for u in range(n):
                wex[u] = _exp(eta * S[r, u] - amax)
        else:  # log form, relative to the maximum (smaller magnitudes, tighter packing)
            logform = True
            for u in range(n):
                wex[u] = eta * S[r, u] - amax
    for u in range(n):
        pk[u] = np.int64((np.float64(wex[u]).view(np.int64) & ~mask) | u).view(np.float64)
    _qs_sort(pk, wex, cb, logform, state, stack, lowbits, wanted, allitems)
    return ok


@njit(cache=True, error_model="numpy")
def qs_rows(weights, seeds, out, lowbits):
    """One Algorithm-2 order per row of the state ``weights`` (a :class:`LogWeightArrays` as a
    plain tuple) into ``out``; False if some log-weight is not finite."""
    lw = LogWeightArrays(*weights)
    R, n = lw.S.shape
    wex = np.empty(n)
    pk = np.empty(n)
    cb = np.empty(n, dtype=np.uint64)
    stack = np.empty(2 * 70, dtype=np.uint64)
    mask = (np.int64(1) << lowbits) - 1
    ok = True
    for r in range(R):
        ok &= _qs_row(lw, r, seeds[r], wex, pk, cb, stack, lowbits, cb, True)  # whole: wanted unread
        for u in range(n):
            out[r, u] = _item(pk[u], mask)
    return ok


@njit(cache=True, error_model="numpy")
def qs_rows_shared(a, seeds, out, lowbits):
    """:func:`qs_rows` for ``m`` orders of one log-weight vector ``a`` (n,) (``eta = 1``, every
    row in the decide-here form): the weights are computed once, by the same expressions, so the
    orders are those of ``qs_rows`` on the broadcast (m, n) array.  False if some log-weight is
    not finite."""
    m, n = out.shape
    mask = (np.int64(1) << lowbits) - 1
    amax = -np.inf
    amin = np.inf
    ok = True
    for u in range(n):
        x = 1.0 * a[u]
        if not math.isfinite(x):
            ok = False
        amax = max(amax, x)
        amin = min(amin, x)
    if n == 0:
        amax = 0.0
        amin = 0.0
    logform = not (amax - amin <= LO)
    w0 = np.empty(n)
    for u in range(n):
        w0[u] = 1.0 * a[u] - amax if logform else _exp(1.0 * a[u] - amax)
    wex = np.empty(n)
    pk = np.empty(n)
    cb = np.empty(n, dtype=np.uint64)
    stack = np.empty(2 * 70, dtype=np.uint64)
    for r in range(m):
        state = _mix(seeds[r] ^ _SALT_QS)
        for u in range(n):
            wex[u] = w0[u]
            pk[u] = np.int64((np.float64(w0[u]).view(np.int64) & ~mask) | u).view(np.float64)
        _qs_sort(pk, wex, cb, logform, state, stack, lowbits, cb, True)  # whole: wanted unread
        for u in range(n):
            out[r, u] = _item(pk[u], mask)
    return ok


# ------------------------------------------------------------------------------------------------
# LogWeights caches
# ------------------------------------------------------------------------------------------------
@_no_refcounts
def refresh_row(lw, r):
    """Recompute the cached weights of row r of the state ``lw``: ``shift = max a``,
    ``weights = exp(a - shift)``; the row switches to the log form (form 1) if its range exceeds
    ``LO``."""
    amax, amin, finite = _row_range(lw.S, lw.eta, r)
    if finite and amax - amin <= LO:
        lw.shift[r] = amax
        for u in range(lw.S.shape[1]):
            lw.weights[r, u] = _exp(lw.eta * lw.S[r, u] - amax)
        lw.form[r] = 0
    else:
        lw.form[r] = 1


@_no_refcounts
def refresh_all(weights):
    """:func:`refresh_row` of every row of the state ``weights`` (a :class:`LogWeightArrays` as a
    plain tuple)."""
    lw = LogWeightArrays(*weights)
    for r in range(lw.S.shape[0]):
        refresh_row(lw, r)


@njit(cache=True, error_model="numpy", inline="always")
def _hist_find(values, r, d, x):
    """Index of value x among the sorted ``values[r, :d]`` (binary search; x must be present)."""
    lo = 0
    hi = d
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if values[r, mid] <= x:
            lo = mid
        else:
            hi = mid
    return lo


@njit(cache=True, error_model="numpy")
def hist_build(S, histogram):
    """The histogram (a :class:`ScoreHistogram` as a plain tuple) of the score values of every
    row of ``S``: sorted distinct values ``values[r, :sizes[r]]`` with their counts;
    ``sizes[r] = -1`` if the row has non-integer scores or more than ``capacity`` distinct values
    (the histogram is then not used)."""
    hist = ScoreHistogram(*histogram)
    values, counts, sizes = hist.values, hist.counts, hist.sizes
    R, n = S.shape
    v = np.empty(n)  # one buffer sorted in place per row (np.sort would allocate a row each)
    for r in range(R):
        if n <= 16:
            # insertion sort: at n = 3 (the exact worst case's states) 18 ns a row against 180
            # for the library sort's call, 2.4x quicker at n = 16, no quicker at n = 30
            for i in range(n):
                x = S[r, i]
                j = i - 1
                while j >= 0 and v[j] > x:
                    v[j + 1] = v[j]
                    j -= 1
                v[j + 1] = x
        else:
            for i in range(n):
                v[i] = S[r, i]
            v.sort()
        d = 0
        ok = True
        for i in range(n):
            if v[i] != math.floor(v[i]) or abs(v[i]) > 2.0**52:
                ok = False
                break
            if i > 0 and v[i] == v[i - 1]:
                counts[r, d - 1] += 1
            else:
                if d >= hist.capacity:
                    ok = False
                    break
                values[r, d] = v[i]
                counts[r, d] = 1
                d += 1
        sizes[r] = d if ok else -1


@njit(cache=True, error_model="numpy", inline="always")
def _hist_increment(hist, r, x):
    """One item of row r moves from score x to x + 1."""
    values, counts = hist.values, hist.counts
    d = hist.sizes[r]
    j = _hist_find(values, r, d, x)
    counts[r, j] -= 1
    if j + 1 < d and values[r, j + 1] == x + 1.0:
        counts[r, j + 1] += 1
    else:  # insert x + 1 after position j
        for q in range(d, j + 1, -1):
            values[r, q] = values[r, q - 1]
            counts[r, q] = counts[r, q - 1]
        values[r, j + 1] = x + 1.0
        counts[r, j + 1] = 1
        d += 1
    if counts[r, j] == 0:  # remove the emptied value
        for q in range(j, d - 1):
            values[r, q] = values[r, q + 1]
            counts[r, q] = counts[r, q + 1]
        d -= 1
    hist.sizes[r] = d if d <= hist.capacity else -1


@njit(cache=True, error_model="numpy", inline="always")
def _add_items_row(lw, hist, it, r):
    """``S[r, it] += 1`` for the distinct chosen items ``it`` (k,) of row r; see :func:`add_items`."""
    S = lw.S
    rescale = False
    for j in range(it.shape[0]):
        c = it[j]
        if hist.sizes[r] >= 0:
            _hist_increment(hist, r, S[r, c])
        S[r, c] += 1.0
        if lw.form[r] == 0:
            x = lw.eta * S[r, c] - lw.shift[r]
            if -LO <= x <= HI:
                lw.weights[r, c] = _exp(x)
            else:
                rescale = True
    if rescale:
        refresh_row(lw, r)


@_no_refcounts
def add_items(weights, histogram, items):
    """``S[r, items[r]] += 1`` in the state ``weights`` (a :class:`LogWeightArrays` as a plain
    tuple), keeping its caches and the histogram ``histogram`` (a :class:`ScoreHistogram` as a
    plain tuple) exact.

    Cached weight of each changed coordinate: ``exp(eta * S[r, c] - shift[r])`` (recomputed, not
    multiplied, so no drift); a row whose exponent leaves ``[-LO, HI]`` is rescaled (or switched
    to the log form).  Histogram: the item moves from value S to S + 1.
    """
    lw = LogWeightArrays(*weights)
    hist = ScoreHistogram(*histogram)
    for r in range(items.shape[0]):
        _add_items_row(lw, hist, items[r], r)


# ------------------------------------------------------------------------------------------------
# exact expected losses
# ------------------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy", fastmath={"reassoc", "nsz", "contract"})
def _ratio_sum(wr, lo, hi, wc):
    """``sum_{v in [lo, hi)} w_v / (w_v + w_c)`` (vectorised)."""
    acc = 0.0
    for v in range(lo, hi):
        x = wr[v]
        acc += x / (x + wc)
    return acc


@njit(cache=True, error_model="numpy")
def _expit_sum(S, eta, r, lo, hi, ac):
    """``sum_{v in [lo, hi)} expit(eta S[r, v] - ac)`` in order, skipping the terms that cannot
    change the running sum (below 2**-53 once it is at least 1): the plain sum's bits."""
    acc = 0.0
    for v in range(lo, hi):
        x = eta * S[r, v] - ac
        if x < -37.0 and acc >= 1.0:  # the term < 2**-53 <= half an ulp of acc: acc + term == acc
            continue
        acc += _expit(x)
    return acc


@njit(cache=True, error_model="numpy", inline="always")
def _el_items_row(lw, hist, it, r, chs, wsv, mj, kj):
    """:func:`expected_loss_items` of row r with chosen items ``it`` (k,).  Scratch: ``chs`` (k,),
    ``wsv`` (k,) float64, ``mj`` (n,) and ``kj`` (n,) (unchosen / chosen items at each histogram
    value), the latter all zero on entry (and on return)."""
    S, eta, w, form = lw.S, lw.eta, lw.weights, lw.form
    hv = hist.values
    k = it.shape[0]
    n = S.shape[1]
    d = hist.sizes[r]
    if d >= 0 and (8 * d <= n or form[r] != 0):
        for j in range(d):
            mj[j] = hist.counts[r, j]
        for q in range(k):
            j = _hist_find(hv, r, d, S[r, it[q]])
            mj[j] -= 1
            kj[j] += 1
        tot = 0.0
        for jc in range(d):
            if kj[jc] == 0:
                continue
            ac = eta * hv[r, jc]
            acc = 0.0
            for j in range(d):
                acc += mj[j] * _expit(eta * hv[r, j] - ac)
            tot += kj[jc] * acc
            kj[jc] = 0
        return tot
    if form[r] == 0 and k <= 8:
        # few chosen items: their weights are set aside and zeroed, so that one vectorised pass
        # over all n items per chosen c adds exactly 0 for them (0 / w_c); the gaps between the
        # chosen items below would cost k + 1 short loops, each with its scalar remainder
        wr = w[r]
        for j in range(k):
            wsv[j] = wr[it[j]]
        for j in range(k):
            wr[it[j]] = 0.0
        tot = 0.0
        for j in range(k):
            tot += _ratio_sum(wr, 0, n, wsv[j])
        for j in range(k):
            wr[it[j]] = wsv[j]
        return tot
    for j in range(k):  # insertion sort of the chosen items
        c = it[j]
        q = j - 1
        while q >= 0 and chs[q] > c:
            chs[q + 1] = chs[q]
            q -= 1
        chs[q + 1] = c
    tot = 0.0
    for j in range(k):
        c = it[j]
        prev = 0
        if form[r] == 0:
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
    return tot


@njit(cache=True, error_model="numpy")
def expected_loss_items(weights, histogram, items, out):
    """``out[r] = sum_{c chosen} sum_{v unchosen} expit(a_v - a_c)``, exactly, per row by the
    cheapest applicable form:

    * histogram (integer scores with few distinct values): with ``m_j`` unchosen and ``k_j``
      chosen items at value ``x_j`` (integer counts, so no cancellation),
      ``sum_{j'} k_j' sum_j m_j expit(eta x_j - eta x_j')`` -- the same terms ``expit(a_v - a_c)``
      grouped by value, O(#values) exp per chosen value;
    * cached weights: ``sum_v w_v / (w_v + w_c)``, one division per term;
    * log form: ``sum_v expit(a_v - a_c)``.

    In the last two the unchosen v are visited as the gaps between the sorted chosen items, except
    with cached weights and k <= 8, where the sum runs over all n items (one vectorised loop)
    with the chosen items' weights set to 0 for its duration.  ``weights``: the state (a
    :class:`LogWeightArrays` as a plain tuple); ``histogram``: its :class:`ScoreHistogram` (a plain
    tuple).
    """
    lw = LogWeightArrays(*weights)
    k = items.shape[1]
    n = lw.S.shape[1]
    chs = np.empty(k, dtype=np.int64)
    wsv = np.empty(k)
    mj = np.empty(n, dtype=np.int64)
    kj = np.zeros(n, dtype=np.int64)
    _expected_loss_rows(lw, ScoreHistogram(*histogram), items, out, chs, wsv, mj, kj)


@_no_refcounts
def _expected_loss_rows(lw, hist, items, out, chs, wsv, mj, kj):
    """The rows of :func:`expected_loss_items`, with its scratch arrays (no allocation here)."""
    for r in range(items.shape[0]):
        out[r] = _el_items_row(lw, hist, items[r], r, chs, wsv, mj, kj)


@njit(cache=True, error_model="numpy", fastmath={"reassoc", "nsz", "contract"})
def _dense_weights_row(s, w, r, i, n):
    """Row i of the triangle, cached weights: ``sum_{j > i} (s_j - s_i) w_i / (w_i + w_j)``
    (vectorised: this sum may be reassociated)."""
    si = s[r, i]
    wi = w[r, i]
    acc = 0.0
    for j in range(i + 1, n):
        x = w[r, j]
        acc += (s[r, j] - si) * (wi / (wi + x))
    return acc


@njit(cache=True, error_model="numpy")
def _dense_logw_row(s, a, r, i, n):
    """Row i of the triangle, log form: ``sum_{j > i} (s_j - s_i) expit(a_i - a_j)`` (in order:
    the compiled ``expit`` does not vectorise, and reassociating the sum would change its bits)."""
    si = s[r, i]
    ai = a[r, i]
    acc = 0.0
    for j in range(i + 1, n):
        acc += (s[r, j] - si) * _expit(ai - a[r, j])
    return acc


@njit(cache=True, error_model="numpy")
def _dense_row(s, w, a, form, r, i, n):
    """Row i of row r's triangle in the row's form: one of the two sums above."""
    if form[r] == 0:
        return _dense_weights_row(s, w, r, i, n)
    return _dense_logw_row(s, a, r, i, n)


@njit(cache=True, error_model="numpy")
def _dense_task(s, w, a, form, r, t):
    """Task t of row r: the rows i = t and i = n - 1 - t of the triangle (cost ~n)."""
    n = s.shape[1]
    i2 = n - 1 - t
    acc = _dense_row(s, w, a, form, r, t, n)
    if i2 != t:
        acc += _dense_row(s, w, a, form, r, i2, n)
    return acc


@njit(cache=True, error_model="numpy")
def sort_dense_rows(s, weights, S, eta, ss, ws, la):
    """The inputs of :func:`expected_loss_dense`: each row of the finite feedback ``s`` (R, n) in
    increasing order, ties in item order (a stable sort: the order of numpy's
    ``argsort(kind="stable")``), into ``ss``; the cached weights and the log-weights
    ``S[r, u] * eta`` in the same order into ``ws`` and ``la`` (the products numpy computes).
    Returns False, sorting nothing, if some entry of ``s`` is not finite."""
    R, n = s.shape
    for r in range(R):
        for u in range(n):
            if not math.isfinite(s[r, u]):
                return False
    for r in range(R):
        order = np.argsort(s[r], kind="mergesort")
        for i in range(n):
            u = order[i]
            ss[r, i] = s[r, u]
            ws[r, i] = weights[r, u]
            la[r, i] = S[r, u] * eta
    return True


@njit(cache=True, error_model="numpy", parallel=True)
def expected_loss_dense(sorted_s, sorted_weights, sorted_logw, form, part):
    """Pairs of a row sorted by increasing s: ``sum_{i < j} (s_j - s_i) P(i before j)``.

    ``sorted_s`` (R, n) holds each row's feedback in increasing order, ``sorted_weights`` the
    cached weights in the same order (rows of form 0), ``sorted_logw`` the log-weights (rows of
    form 1).  The per-task sums land in ``part`` (R, ceil(n/2)) and are added in a fixed order by
    the caller, so the result does not depend on the number of threads.
    """
    R, n = sorted_s.shape
    h = (n + 1) // 2
    for q in prange(R * h):
        r = q // h
        t = q - r * h
        part[r, t] = _dense_task(sorted_s, sorted_weights, sorted_logw, form, r, t)


@njit(cache=True, error_model="numpy")
def expected_loss_dense_serial(sorted_s, sorted_weights, sorted_logw, form, part):
    """:func:`expected_loss_dense` on one thread (small problems: no thread start-up)."""
    R, n = sorted_s.shape
    h = (n + 1) // 2
    for r in range(R):
        for t in range(h):
            part[r, t] = _dense_task(sorted_s, sorted_weights, sorted_logw, form, r, t)


# ------------------------------------------------------------------------------------------------
# the block engine: many rounds of choice feedback in one call (simulate's hot loop)
# ------------------------------------------------------------------------------------------------
@_no_refcounts
def _pl_row_true_keys(lw, r, seed, tk):
    """The untruncated Plackett-Luce keys of row r of the state ``lw`` (the values :func:`pl_keys`
    packs, by the same expressions); False if some log-weight of the row is not finite."""
    S, eta, w = lw.S, lw.eta, lw.weights
    n = S.shape[1]
    state0 = _mix(seed ^ _SALT_PL)
    if lw.form[r] == 0:
        for u in range(n):
            e = _exponential(_mix(state0 + np.uint64(u + 1) * _WEYL_INCREMENT))
            tk[u] = e / w[r, u]
        return True
    amax, amin, finite = _row_range(S, eta, r)
    if not finite:
        amax = 0.0
    if amax - amin <= LO:
        for u in range(n):
            e = _exponential(_mix(state0 + np.uint64(u + 1) * _WEYL_INCREMENT))
            tk[u] = e * _exp(amax - eta * S[r, u])
    else:
        for u in range(n):
            tk[u] = _pl_key(2, lw, r, u, amax, state0)
    return finite


@njit(cache=True, error_model="numpy")
def play_items(weights, histogram, items, keys, t0, sampler, lowbits, exp_loss, loss):
    """OnlineRank on the choice feedback ``items`` (R, B, k) of rounds ``t0 .. t0 + B - 1``, from
    the state ``weights`` and its histogram ``histogram`` (a :class:`LogWeightArrays` and a
    :class:`ScoreHistogram`, as plain tuples), both updated in place.

    Per replicate r and round, in the order of the per-round path: ``exp_loss[r] +=`` the exact
    expected loss (:func:`_el_items_row`); if ``keys`` is not empty, the order of seed
    ``_round_seed(keys[r], t)`` (``sampler`` 0: Plackett-Luce, 1: QuickSort) and ``loss[r] +=``
    its realised loss, which needs only the positions of the chosen items (Plackett-Luce:
    counted from the keys, no sort; QuickSort: Algorithm 2 on the segments that hold a chosen
    item, the others left unsorted, :func:`_qs_sort`); then the update
    (:func:`_add_items_row`).  Rows are independent, so each replicate plays its whole block
    while its state is in cache.  False if some log-weight was not finite.

    The scratch arrays are allocated here (:class:`RoundScratch`) and the rounds are played by
    :func:`_play_items_rows`, compiled without reference counting: with it, every round paid
    about ten atomic increments/decrements of array reference counts, several times the
    arithmetic at n = 100.
    """
    lw = LogWeightArrays(*weights)
    R, B, k = items.shape
    n = lw.S.shape[1]
    ints = np.zeros((4, max(n, k)), dtype=np.int64)
    floats = np.empty((5, max(n, k)))
    scratch = RoundScratch(
        chosen_sorted=ints[0],
        unchosen_at=ints[1],
        chosen_at=ints[2],
        tie_ids=ints[3],
        tie_keys=floats[3],
        saved_weights=floats[4],
        race_keys=floats[0, :n],
        qs_values=floats[1, :n],
        qs_records=floats[2, :n],
        coins=np.empty(n, dtype=np.uint64),
        stack=np.empty(2 * 70, dtype=np.uint64),
        positions=np.empty(n, dtype=np.int64),
        wanted=np.zeros(n, dtype=np.uint64),
    )
    hist = ScoreHistogram(*histogram)
    return _play_items_rows(lw, hist, items, keys, t0, sampler, lowbits, exp_loss, loss, scratch)


@_no_refcounts
def _play_items_rows(lw, hist, items, keys, t0, sampler, lowbits, exp_loss, loss, scratch):
    """The rounds of :func:`play_items`, with its scratch arrays (no allocation here)."""
    R, B, k = items.shape
    n = lw.S.shape[1]
    comb = np.float64(k * (k - 1) // 2)
    tk = scratch.race_keys
    pk = scratch.qs_records
    pos = scratch.positions
    mask = (np.int64(1) << lowbits) - 1
    sample = keys.shape[0] > 0
    ok = True
    for r in range(R):
        for b in range(B):
            it = items[r, b]
            exp_loss[r] += _el_items_row(
                lw,
                hist,
                it,
                r,
                scratch.chosen_sorted,
                scratch.saved_weights,
                scratch.unchosen_at,
                scratch.chosen_at,
            )
            if sample:
                seed = _round_seed(keys[r], t0 + b)
                if sampler == 0:
                    ok &= _pl_row_true_keys(lw, r, seed, tk)
                    ps = _possum(tk, it, scratch.tie_keys, scratch.tie_ids)
                else:  # the chosen items' positions only: the segments without one stay unsorted
                    wanted = scratch.wanted
                    for j in range(k):
                        wanted[it[j]] = _ONE
                    qv, coins, stack = scratch.qs_values, scratch.coins, scratch.stack
                    ok &= _qs_row(lw, r, seed, qv, pk, coins, stack, lowbits, wanted, False)
                    for j in range(k):
                        wanted[it[j]] = _ZERO
                    for i in range(n):
                        pos[_item(pk[i], mask)] = i
                    ps = 0
                    for j in range(k):
                        ps += pos[it[j]]
                loss[r] += np.float64(ps) - comb
            _add_items_row(lw, hist, it, r)
    return ok


compile_once(globals())
