"""Randomised sorting procedures of OnlineRank (THEORY §2.2–§2.4, paper Algorithms 2 and 3).

All functions take *log-weights* ``logw`` (``a_u = eta * S(u)``), never weights, so that nothing
overflows for ``|logw|`` up to 1e6.  Lemma 6.1: both samplers satisfy
``P(u before v) = w_u / (w_u + w_v) = expit(a_u - a_v)`` (:func:`pair_probs`).

Shapes: ``logw`` of shape ``(n,)`` with ``size=None`` gives one order ``(n,)``; with ``size=m``
gives ``(m, n)``; ``logw`` of shape ``(R, n)`` gives one order per row, ``(R, n)``.
Orders list items best-first.
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


def _rows(logw: np.ndarray, size: int | None) -> tuple[np.ndarray, bool]:
    a = _check_logw(logw)
    if a.ndim == 1:
        if size is None:
            return a[None, :], True
        return np.broadcast_to(a, (int(size), a.shape[0])), False
    if size is not None and int(size) != a.shape[0]:
        raise ValueError("size must be None (or equal R) when logw has shape (R, n)")
    return a, False


def plackett_luce(logw: np.ndarray, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
    """Plackett–Luce orders (Algorithm 3) by the exponential race / Gumbel-max trick.

    ``order = argsort(log E_u - a_u)`` with ``E_u ~ Exp(1)`` i.i.d.; this is the PL law exactly
    (THEORY §2.3: the first arrival of independent exponential clocks with rates ``w_u`` is ``u``
    with probability ``w_u / sum w``, and the race is memoryless).
    """
    a, squeeze = _rows(logw, size)
    keys = np.log(rng.standard_exponential(a.shape)) - a
    out = np.argsort(keys, axis=1, kind="stable")
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
    stack: list[list[int]] = [list(range(a.shape[0]))]
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


def quicksort(logw: np.ndarray, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
    """QuickSort orders (Algorithm 2), one per row; see :func:`quicksort_reference`."""
    a, squeeze = _rows(logw, size)
    out = np.stack([quicksort_reference(row, rng) for row in a])
    return out[0] if squeeze else out


def plackett_luce_rows(logw: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """One PL order per row of ``logw`` (R, n), row r driven only by ``seeds[r]`` (uint64)."""
    a = _check_logw(logw)
    return np.stack([plackett_luce(a[r], np.random.default_rng(int(seeds[r])))
                     for r in range(a.shape[0])])


def quicksort_rows(logw: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """One QuickSort order per row of ``logw`` (R, n), row r driven only by ``seeds[r]``."""
    a = _check_logw(logw)
    return np.stack([quicksort_reference(a[r], np.random.default_rng(int(seeds[r])))
                     for r in range(a.shape[0])])
