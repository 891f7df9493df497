"""Exact laws of the two samplers of OnlineRank, by enumeration: the oracles of the test suite.

Independent of the package (no onlinerank import).  ``w`` are weights (not log-weights) of any
exact or float arithmetic type (``Fraction``, ``Decimal``, ``float``); the result maps every order
(a tuple of items, best first) to its probability in that arithmetic.

* :func:`pl_law` -- Plackett-Luce (Algorithm 3) by the product formula
  ``prod_i w_{o_i} / sum_{j >= i} w_{o_j}``;
* :func:`qs_law` -- QuickSort (Algorithm 2) by exact recursion over the uniform pivot and the
  independent left/right coins (``x`` before the pivot ``p`` with probability
  ``w_x / (w_x + w_p)``);
* :func:`pl_law_arrays` -- the Plackett-Luce law of log-weights in float64, vectorised, as arrays.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from itertools import permutations

import numpy as np

__all__ = ["pl_law", "qs_law", "pl_law_arrays", "marginal"]


def pl_law(w) -> dict[tuple[int, ...], object]:
    """Full Plackett-Luce law of the weights ``w`` by the product formula."""
    one = type(w[0])(1)
    out = {}
    for o in permutations(range(len(w))):
        pr = one
        for i in range(len(o)):
            pr = pr * w[o[i]] / sum(w[x] for x in o[i:])
        out[o] = pr
    return out


def qs_law(w) -> dict[tuple[int, ...], object]:
    """Full law of QuickSort (Algorithm 2) with weights ``w`` by exact recursion."""
    one = type(w[0])(1)

    @cache
    def law(items: tuple[int, ...]) -> dict[tuple[int, ...], object]:
        if len(items) <= 1:
            return {items: one}
        out: dict = defaultdict(lambda: 0 * one)
        for p in items:  # uniform pivot
            others = [x for x in items if x != p]
            for mask in range(1 << len(others)):  # independent coins: bit set = before p
                left = tuple(x for b, x in enumerate(others) if mask >> b & 1)
                right = tuple(x for b, x in enumerate(others) if not mask >> b & 1)
                pr = one
                for x in left:
                    pr = pr * w[x] / (w[x] + w[p])
                for x in right:
                    pr = pr * w[p] / (w[x] + w[p])
                for lo, pl in law(left).items():
                    for ro, pro in law(right).items():
                        out[lo + (p,) + ro] += pr * pl * pro / len(items)
        return dict(out)

    return law(tuple(range(len(w))))


def pl_law_arrays(a) -> tuple[np.ndarray, np.ndarray]:
    """All n! orders (n!, n) and their Plackett-Luce probabilities (n!,) for log-weights ``a``
    (weights ``exp(a - max a)``), float64."""
    a = np.asarray(a, dtype=np.float64)
    orders = np.array(list(permutations(range(a.size))), dtype=np.int64).reshape(-1, a.size)
    w = np.exp(a - a.max())[orders]  # (n!, n) weights in order
    tails = np.cumsum(w[:, ::-1], axis=1)[:, ::-1]  # sum_{j >= i} w_{o_j}
    return orders, np.prod(w / tails, axis=1)


def marginal(law: dict, u: int, v: int):
    """``P(u before v)`` under an enumerated law."""
    return sum(p for o, p in law.items() if o.index(u) < o.index(v))
