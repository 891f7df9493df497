"""Exact laws of the two sorting procedures over all n! orders (tiny n), in rational arithmetic.

* Plackett–Luce (Algorithm 3, theory §2.3): ``P(o) = prod_i w_{o_i} / sum_{j >= i} w_{o_j}``.
* QuickSort (Algorithm 2, theory §2.2): the pivot is uniform among the m items of the segment;
  an order ``o`` arises with pivot ``o_i`` exactly when the items before it went left (each with
  probability ``w_x / (w_x + w_p)``) and the items after it went right, and both sides were then
  sorted into ``o[:i]`` and ``o[i+1:]``:
  ``P(o) = sum_i (1/m) prod_{x in o[:i]} w_x/(w_x+w_p) prod_{x in o[i+1:]} w_p/(w_x+w_p)
  P(o[:i]) P(o[i+1:])``.

Both have the pairwise marginals ``w_u / (w_u + w_v)`` (Lemma 6.1, theory §2.4); the full laws
differ (e.g. ``w = (1, 2, 4)``: 7/135 against 1/21 for the order (0, 1, 2)).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from fractions import Fraction
from functools import cache

__all__ = ["plackett_luce_law", "quicksort_law", "pair_marginals", "total_variation"]


def _weights(w: Iterable[float | Fraction]) -> tuple[Fraction, ...]:
    out = tuple(Fraction(x) for x in w)
    if len(out) < 1 or any(x <= 0 for x in out):
        raise ValueError(f"weights must be positive, got {w!r}")
    if len(out) > 8:
        raise ValueError(f"exact laws enumerate n! orders: n <= 8, got n={len(out)}")
    return out


def plackett_luce_law(w: Iterable[float | Fraction]) -> dict[tuple[int, ...], Fraction]:
    """``{order: probability}`` of Plackett–Luce with weights ``w`` (theory §2.3)."""
    w = _weights(w)
    law = {}
    for o in itertools.permutations(range(len(w))):
        p, rest = Fraction(1), sum(w)
        for x in o:
            p *= w[x] / rest
            rest -= w[x]
        law[o] = p
    return law


def quicksort_law(w: Iterable[float | Fraction]) -> dict[tuple[int, ...], Fraction]:
    """``{order: probability}`` of QuickSort (Algorithm 2) with weights ``w`` (module docstring)."""
    w = _weights(w)

    @cache
    def prob(o: tuple[int, ...]) -> Fraction:
        m = len(o)
        if m <= 1:
            return Fraction(1)
        total = Fraction(0)
        for i, p in enumerate(o):
            q = Fraction(1, m)
            for x in o[:i]:
                q *= w[x] / (w[x] + w[p])
            for x in o[i + 1 :]:
                q *= w[p] / (w[x] + w[p])
            if q:
                total += q * prob(o[:i]) * prob(o[i + 1 :])
        return total

    return {o: prob(o) for o in itertools.permutations(range(len(w)))}


def pair_marginals(law: dict[tuple[int, ...], Fraction]) -> dict[tuple[int, int], Fraction]:
    """``{(u, v): P(u before v)}`` of a law over orders."""
    n = len(next(iter(law)))
    out = {(u, v): Fraction(0) for u in range(n) for v in range(n) if u != v}
    for o, p in law.items():
        pos = {x: i for i, x in enumerate(o)}
        for u, v in out:
            if pos[u] < pos[v]:
                out[(u, v)] += p
    return out


def total_variation(a: dict, b: dict) -> Fraction:
    """Total-variation distance of two laws over the same orders."""
    return sum((abs(a[o] - b.get(o, 0)) for o in a), Fraction(0)) / 2
