"""Randomised sorting procedures of OnlineRank (theory §2.2–§2.4, paper Algorithms 2 and 3).

All functions take *log-weights* ``logw`` (``a_u = eta * S(u)``), never weights, so that nothing
overflows for ``|logw|`` up to 1e6.  Lemma 6.1: both samplers satisfy
``P(u before v) = w_u / (w_u + w_v) = expit(a_u - a_v)`` (:func:`~onlinerank.samplers.pair_probs`).

Shapes: ``logw`` of shape ``(n,)`` with ``size=None`` gives one order ``(n,)``; with ``size=m``
gives ``(m, n)``; ``logw`` of shape ``(R, n)`` gives one order per row, ``(R, n)``.
Orders list items best-first, as int64 item ids.

Two kinds of implementation live here:

* the *literal references* :func:`plackett_luce_sequential` (Algorithm 3) and
  :func:`quicksort_reference` (Algorithm 2), plain Python/numpy, used as oracles by the tests;
* the *fast samplers* (:func:`~onlinerank.samplers.plackett_luce`,
  :func:`~onlinerank.samplers.quicksort` and the per-row-seeded :func:`plackett_luce_rows`,
  :func:`quicksort_rows`, the hot path of the simulator), compiled with numba in
  :mod:`onlinerank._kernels.onlinerank` (imported lazily, on first call).  They draw from exactly
  the same laws, computed as follows.

Plackett–Luce (exponential race).  Give item u an independent clock ``E_u / w_u`` with
``E_u ~ Exp(1)``; the order of the arrival times is PL-distributed (the first arrival is u with
probability ``w_u / sum w`` and, by memorylessness, the remaining clocks race afresh).  Equivalent
keys, all sorted increasingly: ``E_u / w_u`` with ``w_u = exp(a_u - shift)`` when the row's range
``max a - min a`` is at most ``_kernels.onlinerank.LO`` (= 600, so every key is a normal float), and the
log form ``log E_u - a_u`` (= minus the Gumbel-max key) otherwise.  For speed the keys are sorted
as *values* (``np.sort``, much faster than ``np.argsort``) with the item id written into the lowest
``ceil(log2 n)`` mantissa bits; groups of keys that become equal by this truncation are then
re-sorted by their untruncated keys, so the result is the exact ``argsort`` of the keys.

QuickSort (Algorithm 2).  In place, with an explicit stack: a uniform pivot p, then every other
item x goes before p with probability ``w_x / (w_x + w_p)``, tested as ``U (w_x + w_p) < w_x``
on weights ``exp(a - max a)`` (log form ``U < expit(a_x - a_p)`` for rows of range > 600).  The
items are moved as single float64 records (weight with the item id in its low mantissa bits);
the few coins whose outcome that packing could change are recomputed from the exact weights with
the same uniform, so the orders are exactly those of the unpacked algorithm.  Each segment draws
from its own stream, a function of the row's seed and of the segment's place [lo, hi) in the
output, so the simulator's realised losses, which need only the chosen items' positions, sort only
the segments that hold one of them (O(n) expected coins instead of O(n log n)) and get exactly the
positions of the whole order.

Randomness of the fast samplers: row r of ``*_rows`` reads nothing but ``seeds[r]`` (a counter-based
SplitMix64 stream), so a row's order does not depend on the other rows of the batch;
:func:`~onlinerank.samplers.plackett_luce` and :func:`~onlinerank.samplers.quicksort` draw one such seed
per order from ``rng``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "expit",
    "pair_probs",
    "plackett_luce",
    "plackett_luce_sequential",
    "quicksort",
    "quicksort_reference",
    "plackett_luce_rows",
    "quicksort_rows",
]

_NO_CACHE = np.empty((0, 0))
_NO_SHIFT = np.empty(0)


def _kern():
    """The numba kernels, imported on first use (keeps ``import onlinerank`` light)."""
    from ._kernels import onlinerank  # lazy: numba loads (compiles) the kernels where they run

    return onlinerank


def expit(x: np.ndarray) -> np.ndarray:
    """Logistic function ``1 / (1 + exp(-x))`` without overflow (numpy only, no scipy import)."""
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def pair_probs(logw: np.ndarray) -> np.ndarray:
    """Pairwise marginals ``P[u, v] = P(u before v) = expit(a_u - a_v)`` (Lemma 6.1); diagonal 0.

    ``logw`` of shape ``(n,)`` gives ``(n, n)``; ``(R, n)`` gives ``(R, n, n)``.
    """
    a = np.asarray(logw, dtype=np.float64)
    p = expit(a[..., :, None] - a[..., None, :])
    idx = np.arange(a.shape[-1])
    p[..., idx, idx] = 0.0
    return p


def _check_logw(logw: np.ndarray) -> np.ndarray:
    a = np.asarray(logw, dtype=np.float64)
    if a.ndim not in (1, 2):
        raise ValueError(f"logw must have shape (n,) or (R, n), got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("logw must be finite")
    return a


def _lowbits(n: int) -> int:
    """Number of low mantissa bits that hold the item id in a packed PL key."""
    return max(1, int(n - 1).bit_length())


def _rows2d(logw: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(logw, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError(f"logw must have shape (R, n), got {a.shape}")
    return a


def _seeds(seeds: np.ndarray, R: int) -> np.ndarray:
    s = np.ascontiguousarray(seeds, dtype=np.uint64)
    if s.shape != (R,):
        raise ValueError(f"seeds must have shape ({R},), got {s.shape}")
    return s


def _uncached(logw: np.ndarray) -> tuple:
    """Log-weights ``logw`` (R, n) as the kernels' state (a ``LogWeightArrays`` as a plain tuple,
    :mod:`onlinerank._kernels.onlinerank`): ``eta = 1``, no cached weights, every row in the
    decide-here form."""
    return (logw, 1.0, _NO_CACHE, _NO_SHIFT, np.ones(logw.shape[0], dtype=np.int8))


def _pl_sample(weights, seeds, lowbits=None):
    """Shared fast PL path (also used by ``LogWeights.sample``) on the kernels' state ``weights``
    (a plain tuple); see the module docstring."""
    kernels = _kern()
    R, n = weights[0].shape
    lb = _lowbits(n) if lowbits is None else int(lowbits)
    out = np.empty((R, n), dtype=np.int64)
    mode = np.empty(R, dtype=np.int8)
    amax = np.empty(R)
    if not kernels.pl_keys(weights, seeds, out.view(np.float64), mode, amax, lb):
        raise ValueError("logw must be finite")
    return _pl_finish(kernels, out, weights, seeds, mode, amax, lb)


def _pl_finish(kernels, out, weights, seeds, mode, amax, lb):
    """``out`` (R, n) int64 holds the packed keys (as float64 bit patterns): sort them as values
    in place and turn them into the orders.  numpy's sort of float64 is vectorised
    (x86-simd-sort): at n = 10^4 it took half the time of a compiled LSD radix sort of the same
    keys here (1.9 against 3.8 ms for 64 rows), which this module used before."""
    out.view(np.float64).sort(axis=1)
    kernels.pl_extract(out, weights, seeds, mode, amax, lb)
    return out


def _qs_sample(weights, seeds, lowbits=None):
    """Shared fast QuickSort path (also used by ``LogWeights.sample``) on the kernels' state
    ``weights`` (a plain tuple)."""
    S = weights[0]
    out = np.empty(S.shape, dtype=np.int64)
    lb = _lowbits(S.shape[1]) if lowbits is None else int(lowbits)
    if not _kern().qs_rows(weights, seeds, out, lb):
        raise ValueError("logw must be finite")
    return out


def plackett_luce_rows(logw: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """One PL order per row of ``logw`` (R, n), row r driven only by ``seeds[r]`` (uint64).

    Exponential race ``argsort_u(E_u / w_u)`` (log form ``argsort_u(log E_u - a_u)`` for rows
    of range > 600); see the module docstring.
    """
    a = _rows2d(logw)
    return _pl_sample(_uncached(a), _seeds(seeds, a.shape[0]))


def quicksort_rows(logw: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """One QuickSort (Algorithm 2) order per row of ``logw`` (R, n), row r driven only by
    ``seeds[r]`` (uint64); see :func:`quicksort_reference` for the algorithm."""
    a = _rows2d(logw)
    return _qs_sample(_uncached(a), _seeds(seeds, a.shape[0]))


def _draw_seeds(rng: np.random.Generator, m: int) -> np.ndarray:
    return rng.integers(0, 2**64, size=m, dtype=np.uint64)


def _public_rows(logw: np.ndarray, size: int | None) -> tuple[np.ndarray, int, bool]:
    """``(a, m, squeeze)``: validated log-weights, (n,) when one vector serves all ``m`` orders
    (never copied ``m`` times) or (R, n) with ``m = R``."""
    a = np.asarray(logw, dtype=np.float64)
    if size is not None:
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
            raise ValueError(f"size must be None or an integer >= 0, got {size!r}")
    if a.ndim == 1:
        return np.ascontiguousarray(a), (1 if size is None else int(size)), size is None
    if a.ndim != 2:
        raise ValueError(f"logw must have shape (n,) or (R, n), got {a.shape}")
    if size is not None and int(size) != a.shape[0]:
        raise ValueError("size must be None (or equal R) when logw has shape (R, n)")
    return np.ascontiguousarray(a), a.shape[0], False


def plackett_luce(logw: np.ndarray, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
    """Plackett–Luce orders (Algorithm 3) by the exponential race (Gumbel-max trick).

    ``order = argsort(log E_u - a_u)`` with ``E_u ~ Exp(1)`` i.i.d. is the PL law exactly
    (theory §2.3).  One uint64 seed per order is drawn from ``rng``; the orders are those of
    :func:`plackett_luce_rows` on the (broadcast) rows with these seeds.  A single vector ``logw``
    (n,) is neither copied nor re-weighted per order.
    """
    a, m, squeeze = _public_rows(logw, size)
    seeds = _draw_seeds(rng, m)
    if a.ndim == 2:
        out = plackett_luce_rows(a, seeds)
    else:
        kernels = _kern()
        n = a.shape[0]
        lb = _lowbits(n)
        out = np.empty((m, n), dtype=np.int64)
        mode = np.empty(m, dtype=np.int8)
        amax = np.empty(m)
        if not kernels.pl_keys_shared(a, seeds, out.view(np.float64), mode, amax, lb):
            raise ValueError("logw must be finite")
        S = np.broadcast_to(a, (m, n))  # read only for ties of the truncated keys (rare)
        out = _pl_finish(kernels, out, _uncached(S), seeds, mode, amax, lb)
    return out[0] if squeeze else out


def quicksort(logw: np.ndarray, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
    """QuickSort orders (Algorithm 2), one per row; see :func:`quicksort_reference`.

    One uint64 seed per order is drawn from ``rng``; the orders come from :func:`quicksort_rows`
    (a single vector ``logw`` (n,) is not copied per order).
    """
    a, m, squeeze = _public_rows(logw, size)
    seeds = _draw_seeds(rng, m)
    if a.ndim == 2:
        out = quicksort_rows(a, seeds)
    else:
        out = np.empty((m, a.shape[0]), dtype=np.int64)
        if not _kern().qs_rows_shared(a, seeds, out, _lowbits(a.shape[0])):
            raise ValueError("logw must be finite")
    return out[0] if squeeze else out


def plackett_luce_sequential(logw: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The literal sequential Algorithm 3 (reference for tests; O(n^2)).

    Repeatedly draws the next item among the remaining ones with probability proportional to
    its weight.
    """
    a = _check_logw(logw)
    if a.ndim != 1:
        raise ValueError("plackett_luce_sequential takes a single logw vector of shape (n,)")
    remaining = list(range(a.shape[0]))
    out = []
    while remaining:
        la = a[remaining]
        p = np.exp(la - la.max())
        p /= p.sum()
        j = int(rng.choice(len(remaining), p=p))
        out.append(remaining.pop(j))
    return np.array(out, dtype=np.int64)


def quicksort_reference(logw: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Algorithm 2 literally, iteratively (explicit stack, no recursion limit); reference.

    Pick a uniform pivot ``p``; each other item ``x`` goes left of ``p`` (before it) with
    probability ``w_x / (w_x + w_p) = expit(a_x - a_p)``, independently; recurse on both sides.
    """
    a = _check_logw(logw)
    if a.ndim != 1:
        raise ValueError("quicksort_reference takes a single logw vector of shape (n,)")
    out: list[int] = []
    stack: list[list[int] | int] = [list(range(a.shape[0]))]
    while stack:
        seg = stack.pop()
        if isinstance(seg, int):
            out.append(seg)
            continue
        if len(seg) <= 1:
            out.extend(seg)
            continue
        p = seg[int(rng.integers(len(seg)))]
        rest = [x for x in seg if x != p]
        u = rng.random(len(rest))
        before = u < expit(a[rest] - a[p])
        left = [x for x, b in zip(rest, before, strict=True) if b]
        right = [x for x, b in zip(rest, before, strict=True) if not b]
        stack.extend([right, p, left])  # LIFO: left is processed first
    return np.array(out, dtype=np.int64)
