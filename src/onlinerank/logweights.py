"""State of OnlineRank for R replicates: log-weights ``a = eta * S`` (THEORY §2.1, §2.5).

:class:`LogWeights` owns the cumulative scores and everything computed from them each round:
the exact expected pairwise loss of the coming ranking (from the pairwise marginals
``expit(a_u - a_v)``, Lemma 6.1 + linearity, THEORY §2.5) and the two samplers.  Keeping this state
in one place lets the fast paths maintain caches incrementally (one coordinate changes per round
for single choice) while callers only see the maths.
"""

from __future__ import annotations

import numpy as np

from .samplers import expit, pair_probs, plackett_luce_rows, quicksort_rows

__all__ = ["LogWeights"]


class LogWeights:
    """Cumulative scores ``S`` (R, n) and learning rate ``eta``; ``a = eta * S``."""

    def __init__(self, eta: float, reps: int, n: int) -> None:
        self.eta = float(eta)
        self.S = np.zeros((reps, n))

    @property
    def a(self) -> np.ndarray:
        """Log-weights ``eta * S``, shape (R, n)."""
        return self.eta * self.S

    # --- updates -------------------------------------------------------------------------------
    def add_items(self, items: np.ndarray) -> None:
        """``S[r, items[r]] += 1`` (binary feedback given by its chosen items, shape (R, k))."""
        rows = np.arange(self.S.shape[0])[:, None]
        self.S[rows, items] += 1.0

    def add_dense(self, s: np.ndarray) -> None:
        """``S += s`` for dense feedback (R, n)."""
        self.S += s

    # --- exact expected losses (THEORY §2.5) ---------------------------------------------------
    def expected_loss_items(self, items: np.ndarray) -> np.ndarray:
        """``E[ellell]`` when the chosen items are ``items`` (R, k): sum over chosen c and unchosen
        v of ``P(v before c)``.  O(kn) per replicate.

        Uses ``sum_{c in U} sum_{v in V} expit(a_v - a_c) - k^2/2`` (pairs inside U sum to C(k,2)
        and the diagonal terms to k/2).
        """
        a = self.a
        ac = np.take_along_axis(a, items, axis=1)  # (R, k)
        k = items.shape[1]
        tot = np.zeros(a.shape[0])
        for j in range(k):
            tot += expit(a - ac[:, j:j + 1]).sum(axis=1)
        return tot - k * k / 2.0

    def expected_loss_dense(self, s: np.ndarray) -> np.ndarray:
        """``E[ellell] = sum_{u,v} [s_v - s_u]_+ P(u before v)`` for dense s (R, n). O(n^2)."""
        a = self.a
        out = np.empty(a.shape[0])
        for r in range(a.shape[0]):
            gap = np.maximum(s[r][None, :] - s[r][:, None], 0.0)  # [s_v - s_u]_+ at (u, v)
            out[r] = np.sum(gap * expit(a[r][:, None] - a[r][None, :]))
        return out

    # --- sampling --------------------------------------------------------------------------------
    def sample(self, sampler: str, seeds: np.ndarray) -> np.ndarray:
        """One order per replicate from ``"plackett-luce"`` or ``"quicksort"``; row r uses seeds[r]."""
        if sampler == "plackett-luce":
            return plackett_luce_rows(self.a, seeds)
        if sampler == "quicksort":
            return quicksort_rows(self.a, seeds)
        raise ValueError(f"unknown sampler {sampler!r}")

    def pair_probs(self) -> np.ndarray:
        """Pairwise marginals (R, n, n) of the coming ranking."""
        return pair_probs(self.a)
