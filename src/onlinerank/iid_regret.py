"""Exact expected losses and regret of every learner against an i.i.d. adversary that ignores it
(theory §4.6): the closed-form cells of the simulation tables.

Let the feedback ``s_t`` be i.i.d., independent of the learner, with exchangeable items: the
difference ``X = s_t(u) - s_t(v)`` has the same law for every pair ``u != v`` (then a symmetric
one), given by the adversary's ``pair_difference_law`` hook.  Whatever the learner's ranking
``pi_t`` (a function of the past and of its own randomness), ``s_t`` is independent of it, so each
pair costs ``E[X_+] = E|X| / 2`` per round in expectation, and with the offline optimum of theory
§1, for every learner and every horizon t::

    E L_t(Alg)    = t * n(n-1)/4 * E|X|,
    E[Regret_t]   = 1/2 sum_{u<v} E|S_t(u) - S_t(v)| = n(n-1)/4 * E|D_t|,
    E L_t(pi*)    = E L_t(Alg) - E[Regret_t],

where ``D_t`` is the sum of t independent copies of X.  For binary feedback (X in {-1, 0, 1}) D is
the lazy walk of theory §4.2 and ``E|D_t|`` its exact formula (:mod:`onlinerank.lowerbound`); for
any other law (Spearman: the difference of two positions of a uniform ranking) ``E|D_t|`` is the
finite Fejér sum :func:`abs_sum_mean`, exact up to rounding.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from fractions import Fraction

import numpy as np

from .lowerbound import lazy_walk_abs_mean

__all__ = [
    "abs_sum_mean",
    "check_law",
    "expected_best",
    "expected_loss",
    "expected_regret",
]

#: grid points of the Fejér sum evaluated per vectorised chunk
_CHUNK = 1 << 15


def check_law(law: Mapping[int, Fraction | int | float]) -> dict[int, Fraction]:
    """The law ``{difference: probability}`` of ``X = s(u) - s(v)`` (theory §4.6) with exact
    rational probabilities, or a one-line ``ValueError``: integer differences, probabilities in
    [0, 1] summing to 1, and symmetric (``P(d) = P(-d)``, as exchangeable items give)."""
    out: dict[int, Fraction] = {}
    for d, p in law.items():
        if isinstance(d, bool) or not isinstance(d, int | np.integer):
            raise ValueError(f"law: differences must be integers, got {d!r}")
        q = Fraction(p)
        if not 0 <= q <= 1:
            raise ValueError(f"law: P({d}) = {p!r} is not a probability")
        if q:
            out[int(d)] = out.get(int(d), Fraction(0)) + q
    if sum(out.values()) != 1:
        raise ValueError(f"law: probabilities sum to {float(sum(out.values()))!r}, not 1")
    asym = [d for d, q in out.items() if out.get(-d, Fraction(0)) != q]
    if asym:
        raise ValueError(f"law: not symmetric, P({asym[0]}) != P({-asym[0]})")
    return out


def _is_lazy_walk(law: Mapping[int, Fraction]) -> bool:
    return set(law) <= {-1, 0, 1}


def _fejer_abs_mean(law: Mapping[int, Fraction], T: int) -> float:
    """``E|D_T|`` by the Fejér sum over the ``M = T max|X| + 1`` points ``theta_j = 2 pi j / M``::

        E|D_T| = (1/M) [ T E[X^2] + sum_{j=1}^{M-1} (1 - phi(theta_j)^T) / (1 - cos theta_j) ],

    with ``phi`` the characteristic function of X (real: X is symmetric).  It is exact because
    ``(1 - cos d theta) / (1 - cos theta)`` is the Fejér kernel ``sum_{|m|<|d|} (|d| - |m|)
    e^{i m theta}``, whose mean over the M points is ``|d|`` for ``|d| <= M``.  Every term is
    non-negative; ``1 - phi = sum_d P(d) 2 sin^2(d theta / 2)`` is formed without cancellation."""
    d = np.array([x for x in law if x != 0], dtype=np.float64)
    p = np.array([float(law[int(x)]) for x in d])
    if d.size == 0:
        return 0.0
    M = T * int(np.max(np.abs(d))) + 1
    total = T * float(np.sum(p * d * d))
    for lo in range(1, M, _CHUNK):
        theta = 2.0 * math.pi * np.arange(lo, min(M, lo + _CHUNK), dtype=np.float64) / M
        g = (p[None, :] * 2.0 * np.sin(0.5 * theta[:, None] * d[None, :]) ** 2).sum(axis=1)
        num = np.empty_like(g)
        inner = g < 1.0  # phi > 0: 1 - phi^T = -expm1(T log(1 - g)), no cancellation
        num[inner] = -np.expm1(T * np.log1p(-g[inner]))
        num[~inner] = 1.0 - (1.0 - g[~inner]) ** T
        total += float(np.sum(num / (2.0 * np.sin(0.5 * theta) ** 2)))
    return total / M


def abs_sum_mean(law: Mapping[int, Fraction | int | float], T: int) -> float:
    """``E|D_T|`` for ``D_T`` the sum of ``T`` independent draws of the symmetric law ``law``
    (theory §4.6): the lazy walk's exact formula of theory §4.2 when X takes the values -1, 0, 1,
    else the Fejér sum (module docstring), ``O(T max|X| |support|)``."""
    if isinstance(T, bool) or not isinstance(T, int | np.integer) or T < 0:
        raise ValueError(f"T must be an integer >= 0, got {T!r}")
    return _abs_sum_mean(tuple(sorted(check_law(law).items())), int(T))


@functools.lru_cache(maxsize=1 << 12)
def _abs_sum_mean(law: tuple[tuple[int, Fraction], ...], T: int) -> float:
    """:func:`abs_sum_mean` of a checked law given as sorted items (every learner of a cell, and
    every cell of a grid point, asks for the same values)."""
    exact = dict(law)
    if T == 0:
        return 0.0
    if _is_lazy_walk(exact):
        return lazy_walk_abs_mean(T, 2 * exact.get(1, Fraction(0)))
    return _fejer_abs_mean(exact, T)


def expected_regret(n: int, law: Mapping[int, Fraction | int | float], T: int) -> float:
    """Every learner's exact expected regret ``n(n-1)/4 E|D_T|`` at horizon ``T`` (theory §4.6; for
    a uniform k-subset the value of :func:`onlinerank.lowerbound.exact_regret`, bit for bit)."""
    return n * (n - 1) / 4.0 * abs_sum_mean(law, T)


def expected_loss(n: int, law: Mapping[int, Fraction | int | float], T: int) -> float:
    """Every learner's exact expected pairwise loss ``T n(n-1)/4 E|X|`` over ``T`` rounds (theory
    §4.1, §4.6), rounded once from the exact rational."""
    exact = check_law(law)
    return float(T * Fraction(n * (n - 1), 4) * sum(abs(d) * p for d, p in exact.items()))


def expected_best(n: int, law: Mapping[int, Fraction | int | float], T: int) -> float:
    """The expected loss of the best ranking in hindsight, ``E L_T(pi*) = E L_T(Alg) - E[Regret_T]``
    (theory §1, §4.6)."""
    return expected_loss(n, law, T) - expected_regret(n, law, T)
