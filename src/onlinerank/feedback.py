"""Feedback vectors and losses of the online ranking game (theory §1, paper §2).

Conventions
-----------
* Items are ``0..n-1``.  A batch of rankings is an integer array ``orders`` of shape ``(R, n)``:
  ``orders[r, i]`` is the item at position ``i + 1`` (best first).
* A batch of feedback vectors is a float array ``s`` of shape ``(R, n)``, one row per replicate
  (or one row per round for a sequence of shape ``(T, n)``).
* Position loss (2.1): ``ell(pi, s) = sum_u (pi(u) - 1) s(u)`` (the top position costs 0).
* Pairwise loss (2.2): ``ellell(pi, s) = sum_{u != v} [s(v) - s(u)]_+ [u before v]``.
* Identity (theory §1, [X]): ``ell - ellell = sum_{u<v} min(s(u), s(v))`` for every real ``s``.

The :class:`Feedback` container carries a batch either compactly (the chosen items of a discrete
choice, shape ``(R, k)``) or densely (``(R, n)`` values); the dense form is built only on demand,
so the single-choice path stays O(n) per round with small constants.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "FAMILIES",
    "Feedback",
    "single_choice",
    "k_choice",
    "subset_feedback",
    "spearman_feedback",
    "graded_feedback",
    "position_loss",
    "pairwise_loss",
    "pair_min_sum",
    "pair_abs_sum",
    "complexity_M",
    "family_M",
    "spearman_rho",
    "FeedbackBlock",
]

#: feedback families: name -> description
FAMILIES = {
    "single": "single choice: s = e_u (one chosen item per round)",
    "kchoice": "k-choice: s = 1_U with |U| = k <= n/2",
    "subset": "arbitrary subsets: s = 1_U, any U (the adversaries here use |U| = n // 2)",
    "spearman": "Spearman rank aggregation: s = -sigma, sigma a ranking (positions 1..n)",
    "graded": "graded relevance: real-valued s",
}


def _as2d(a: np.ndarray) -> tuple[np.ndarray, bool]:
    a = np.asarray(a)
    if a.ndim == 1:
        return a[None, :], True
    if a.ndim != 2:
        raise ValueError(f"expected an array of shape (n,) or (R, n), got shape {a.shape}")
    return a, False


def single_choice(items: np.ndarray, n: int) -> np.ndarray:
    """Dense single-choice feedback ``s = e_u`` for chosen items of shape ``(R,)`` -> ``(R, n)``."""
    items = np.asarray(items, dtype=np.int64).reshape(-1)
    return k_choice(items[:, None], n)


def k_choice(items: np.ndarray, n: int) -> np.ndarray:
    """Dense k-choice feedback ``s = 1_U`` from chosen items of shape ``(R, k)`` -> ``(R, n)``.

    Raises ``ValueError`` if an item is out of range or repeated within a row.
    """
    items = np.asarray(items, dtype=np.int64)
    if items.ndim != 2:
        raise ValueError(f"items must have shape (R, k), got {items.shape}")
    if items.size and (items.min() < 0 or items.max() >= n):
        raise ValueError(f"item ids must lie in 0..{n - 1}")
    s = np.zeros((items.shape[0], n))
    np.put_along_axis(s, items, 1.0, axis=1)
    if items.shape[1] and not np.all(s.sum(axis=1) == items.shape[1]):
        raise ValueError("an item is repeated within a round of k-choice feedback")
    return s


def subset_feedback(mask: np.ndarray) -> np.ndarray:
    """Dense feedback ``s = 1_U`` for arbitrary subsets given as a boolean mask ``(R, n)``."""
    return np.asarray(mask, dtype=bool).astype(np.float64)


def spearman_feedback(sigma: np.ndarray) -> np.ndarray:
    """Spearman feedback ``s = -sigma`` where ``sigma[r, u]`` is the position (1..n) of item u.

    (theory §1: with this ``s`` the position loss is ``-rho + n(n+1)/2``.)
    """
    sigma = np.asarray(sigma)
    s2, _ = _as2d(sigma)
    n = s2.shape[1]
    if not np.array_equal(np.sort(s2, axis=1), np.broadcast_to(np.arange(1, n + 1), s2.shape)):
        raise ValueError("sigma must hold the positions 1..n of a ranking in every row")
    return -sigma.astype(np.float64)


def graded_feedback(scores: np.ndarray) -> np.ndarray:
    """Real-valued (graded relevance) feedback; only checks that it is finite."""
    s = np.asarray(scores, dtype=np.float64)
    if not np.all(np.isfinite(s)):
        raise ValueError("graded feedback must be finite")
    return s


def position_loss(orders: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Position loss (2.1) ``sum_u (pi(u) - 1) s(u)`` for each row; shapes ``(R, n)`` or ``(n,)``."""
    o2, squeeze = _as2d(orders)
    s2, _ = _as2d(s)
    vals = np.take_along_axis(np.broadcast_to(s2, o2.shape), o2, axis=1)
    out = vals @ np.arange(o2.shape[1], dtype=np.float64)
    return out[0] if squeeze else out


def pair_min_sum(s: np.ndarray) -> np.ndarray:
    """``sum_{u<v} min(s(u), s(v))`` per row, in O(n log n) by sorting (theory §1 identity)."""
    s2, squeeze = _as2d(s)
    n = s2.shape[1]
    srt = np.sort(s2, axis=1)
    out = srt @ np.arange(n - 1, -1, -1, dtype=np.float64)
    return out[0] if squeeze else out


def pair_abs_sum(s: np.ndarray) -> np.ndarray:
    """``sum_{u<v} |s(u) - s(v)|`` per row, in O(n log n) by sorting."""
    s2, squeeze = _as2d(s)
    n = s2.shape[1]
    srt = np.sort(s2, axis=1)
    out = srt @ (2.0 * np.arange(n) - (n - 1))
    return out[0] if squeeze else out


def pairwise_loss(orders: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Pairwise loss (2.2) for each row, computed as ``ell - sum_pairs min(s)`` in O(n log n).

    The identity ``ell - ellell = sum_{u<v} min(s(u), s(v))`` (theory §1) is tested against the
    O(n^2) definition in the test suite.
    """
    return position_loss(orders, s) - pair_min_sum(s)


def complexity_M(s: np.ndarray) -> float:
    """The invariant M (2.3): ``max_t sum_{u<v} (s_t(u) - s_t(v))^2`` over the rows of ``s``.

    Uses ``sum_{u<v} (x_u - x_v)^2 = n sum x^2 - (sum x)^2`` (theory §1.1).
    """
    s2, _ = _as2d(np.asarray(s, dtype=np.float64))
    n = s2.shape[1]
    if np.all(s2 == np.round(s2)) and np.abs(s2).max(initial=0) < 2**20:
        tot = s2.sum(axis=1)  # integer-valued: exact in float64
        return float(np.max(n * np.einsum("ij,ij->i", s2, s2) - tot * tot))
    c = s2 - s2.mean(axis=1, keepdims=True)  # real-valued: centring avoids cancellation
    return float(np.max(n * np.einsum("ij,ij->i", c, c)))


def family_M(family: str, n: ArrayLike, k: ArrayLike = 1) -> float | np.ndarray:
    """Exact M of a feedback family (theory §1.1 table); the one formula of the project.

    single ``n-1``; kchoice ``k(n-k)``; subset ``floor(n^2/4)``; spearman ``n^2(n^2-1)/12``.
    ``n`` (and ``k``) may be integers (returns a float) or integer arrays (returns a float64
    array of their broadcast shape).  ``graded`` has no family value: compute it from the data with
    :func:`~onlinerank.feedback.complexity_M`.
    """
    if np.ndim(n) == 0 and np.ndim(k) == 0:
        n, k = int(cast(int, n)), int(cast(int, k))  # 0-d: a Python or NumPy integer
        if family == "single":
            return float(n - 1)
        if family == "kchoice":
            return float(k * (n - k))
        if family == "subset":
            return float(n * n // 4)
        if family == "spearman":
            return n * n * (n * n - 1) / 12.0
    else:
        n = np.asarray(n, dtype=np.int64)
        k = np.asarray(k, dtype=np.int64)
        if family == "single":
            return (n - 1).astype(np.float64)
        if family == "kchoice":
            return (k * (n - k)).astype(np.float64)
        if family == "subset":
            return (n * n // 4).astype(np.float64)
        if family == "spearman":
            return (n * n * (n * n - 1)).astype(np.float64) / 12.0
    raise ValueError(f"family_M: no closed form for family {family!r}; use complexity_M(s)")


def spearman_rho(orders: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Unnormalised Spearman correlation ``rho(pi, sigma) = sum_u pi(u) sigma(u)`` (paper §5)."""
    return position_loss(orders, sigma) + np.asarray(sigma).sum(axis=-1)


@dataclass
class Feedback:
    """A batch of feedback vectors for R replicates (one round).

    Exactly one of ``items`` (chosen items, shape ``(R, k)``; binary feedback with ``|U| = k``) and
    ``values`` (dense real feedback, shape ``(R, n)``) is given.
    """

    n: int
    items: np.ndarray | None = None
    values: np.ndarray | None = None
    family: str = "graded"
    _dense: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if (self.items is None) == (self.values is None):
            raise ValueError("Feedback needs exactly one of items= or values=")
        if self.items is not None:
            self.items = np.asarray(self.items, dtype=np.int64)
            if self.items.ndim == 1:
                self.items = self.items[:, None]
        else:
            self.values = np.asarray(self.values, dtype=np.float64)
            self._dense = self.values

    @property
    def reps(self) -> int:
        return cast(np.ndarray, self.items if self.items is not None else self.values).shape[0]

    @property
    def k(self) -> int | None:
        """Number of chosen items when the batch is a discrete choice, else ``None``."""
        return None if self.items is None else self.items.shape[1]

    @property
    def dense(self) -> np.ndarray:
        """The ``(R, n)`` float array ``s``."""
        if self._dense is None:
            self._dense = k_choice(cast(np.ndarray, self.items), self.n)
        return self._dense

    def pair_abs_sum(self) -> np.ndarray:
        """``sum_{u<v} |s(u) - s(v)|`` per replicate (k(n-k) for a k-choice)."""
        if self.items is not None:
            k = self.items.shape[1]
            return np.full(self.reps, float(k * (self.n - k)))
        return pair_abs_sum(cast(np.ndarray, self.values))

    def pair_min_sum(self) -> np.ndarray:
        """``sum_{u<v} min(s(u), s(v))`` per replicate (C(k,2) for a k-choice)."""
        if self.items is not None:
            k = self.items.shape[1]
            return np.full(self.reps, math.comb(k, 2) * 1.0)
        return pair_min_sum(cast(np.ndarray, self.values))

    def add_to(self, S: np.ndarray) -> None:
        """``S += s`` in place (cumulative scores)."""
        if self.items is not None:
            rows = np.arange(S.shape[0])[:, None]
            S[rows, self.items] += 1.0
        else:
            S += self.values

    def pairwise_loss(self, orders: np.ndarray) -> np.ndarray:
        """Realised pairwise loss of ``orders`` (R, n) against this feedback."""
        if self.items is not None:
            # position of each chosen item: ell = sum of (position - 1); ellell = ell - C(k,2)
            inv = np.empty_like(orders)
            np.put_along_axis(inv, orders, np.arange(orders.shape[1])[None, :], axis=1)
            pos = np.take_along_axis(inv, self.items, axis=1)
            k = self.items.shape[1]
            return pos.sum(axis=1).astype(np.float64) - math.comb(k, 2)
        return pairwise_loss(orders, cast(np.ndarray, self.values))


@dataclass
class FeedbackBlock:
    """The feedback of ``B`` consecutive rounds for R replicates (the block protocol of the engine).

    Exactly one of ``items`` (chosen items, shape ``(R, B, k)``, int64) and ``values`` (dense
    feedback, shape ``(R, B, n)``, float64) is given; both are C-contiguous, replicate-major, so a
    compiled learner plays a replicate's whole block while its state is in cache.
    :meth:`round` is the per-round view (a :class:`Feedback`).  Built by
    ``Adversary.feedback_block`` (or :meth:`of` from one round's :class:`Feedback`).
    """

    n: int
    items: np.ndarray | None = None
    values: np.ndarray | None = None
    family: str = "graded"
    _single: Feedback | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if (self.items is None) == (self.values is None):
            raise ValueError("FeedbackBlock needs exactly one of items= or values=")
        if self.items is not None:
            self.items = np.ascontiguousarray(self.items, dtype=np.int64)
            if self.items.ndim != 3:
                raise ValueError(f"items must have shape (R, B, k), got {self.items.shape}")
        else:
            self.values = np.ascontiguousarray(self.values, dtype=np.float64)
            if self.values.ndim != 3 or self.values.shape[2] != self.n:
                raise ValueError(f"values must have shape (R, B, n={self.n}), got {self.values.shape}")

    @classmethod
    def of(cls, fb: Feedback) -> FeedbackBlock:
        """A block of one round holding ``fb`` itself (``round(0) is fb``)."""
        if fb.items is not None:
            out = cls(fb.n, items=fb.items[:, None, :], family=fb.family)
        else:
            out = cls(fb.n, values=cast(np.ndarray, fb.values)[:, None, :], family=fb.family)
        out._single = fb
        return out

    @classmethod
    def stack(cls, rounds: list[Feedback]) -> FeedbackBlock:
        """Consecutive rounds of the same form (items of one width, or values) as one block."""
        fb0 = rounds[0]
        if len(rounds) == 1:
            return cls.of(fb0)
        if fb0.items is not None:
            items = [cast(np.ndarray, f.items) for f in rounds]
            return cls(fb0.n, items=np.stack(items, axis=1), family=fb0.family)
        values = [cast(np.ndarray, f.values) for f in rounds]
        return cls(fb0.n, values=np.stack(values, axis=1), family=fb0.family)

    @property
    def reps(self) -> int:
        return cast(np.ndarray, self.items if self.items is not None else self.values).shape[0]

    @property
    def rounds(self) -> int:
        """Number of rounds B in the block."""
        return cast(np.ndarray, self.items if self.items is not None else self.values).shape[1]

    def round(self, b: int) -> Feedback:
        """Round ``b`` (0-based within the block) as a :class:`Feedback` holding C-contiguous
        ``(R, k)`` / ``(R, n)`` arrays, laid out like the arrays of a per-round adversary."""
        if self._single is not None and b == 0:
            return self._single
        if self.items is not None:
            return Feedback(self.n, items=self.items[:, b, :].copy(), family=self.family)
        return Feedback(self.n, values=cast(np.ndarray, self.values)[:, b, :].copy(), family=self.family)

    def add_to(self, S: np.ndarray) -> None:
        """``S += s_t`` for every round, in round order (exactly the per-round additions)."""
        if self.items is not None:
            from ._kernels.feedback import add_item_counts  # lazy: numba loads the kernels where they run

            add_item_counts(S, self.items)
        else:
            values = cast(np.ndarray, self.values)
            for b in range(self.rounds):
                S += values[:, b, :]

    def add_pair_abs_sum(self, total: np.ndarray) -> None:
        """``total += sum_{u<v} |s_t(u) - s_t(v)|`` for every round, in round order.

        Choice feedback adds the integer ``k(n-k)`` per round, so one addition of ``B k(n-k)``
        is the same float (every partial sum is an integer below 2**53)."""
        if self.items is not None:
            k = self.items.shape[2]
            total += float(self.rounds * k * (self.n - k))
        else:
            values = cast(np.ndarray, self.values)
            for b in range(self.rounds):
                total += pair_abs_sum(values[:, b, :])
