"""The best fixed ranking in hindsight and its loss in closed form (theory §1 "Offline optimum").

Sorting by the cumulative score ``S`` in decreasing order minimises every pair simultaneously, so::

    L_T(pi*) = sum_{u<v} min(A_uv, B_uv)
             = 1/2 sum_t sum_{u<v} |s_t(u) - s_t(v)|  -  1/2 sum_{u<v} |S(u) - S(v)|.

The first term accumulates one number per round (``k(n-k)/2`` for a k-choice), the second needs
only the final ``S`` (O(n log n)), so the simulator never stores the sequence.
"""

from __future__ import annotations

import numpy as np

from .feedback import pair_abs_sum

__all__ = ["best_order", "hindsight_loss", "hindsight_loss_of_sequence"]


def best_order(S: np.ndarray) -> np.ndarray:
    """A best fixed ranking: items by decreasing cumulative score, ties by item id (stable)."""
    S = np.asarray(S, dtype=np.float64)
    return np.argsort(-S, axis=-1, kind="stable")


def hindsight_loss(S: np.ndarray, abs_total: np.ndarray | float) -> np.ndarray:
    """``L_T(pi*)`` from the cumulative scores ``S`` (..., n) and
    ``abs_total = sum_t sum_{u<v} |s_t(u) - s_t(v)|`` (theory §1)."""
    return 0.5 * (np.asarray(abs_total, dtype=np.float64) - pair_abs_sum(S))


def hindsight_loss_of_sequence(seq: np.ndarray) -> float | np.ndarray:
    """``min_pi sum_t ellell(pi, s_t)`` for an explicit sequence ``seq`` of shape (T, n) (a float),
    or for a batch of sequences (..., T, n) (an array): :func:`hindsight_loss` of its cumulative
    scores and summed pair gaps (the one formula; checked against enumeration in the tests)."""
    seq = np.asarray(seq, dtype=np.float64)
    if seq.ndim < 2:
        raise ValueError(f"seq must have shape (T, n) or (..., T, n), got {seq.shape}")
    out = hindsight_loss(
        seq.sum(axis=-2), pair_abs_sum(seq.reshape(-1, seq.shape[-1])).reshape(seq.shape[:-1]).sum(-1)
    )
    return float(out) if seq.ndim == 2 else out
