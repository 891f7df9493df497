"""Closed-form bounds of the paper (THEORY §3, §3.3).  Pure, vectorised functions.

Theorem 3.1 (THEORY §3.1, boxed): for every ``eta > 0``

    E[Regret] <= C(n,2) ln2 / eta + eta T M / 2                          (sharp form)

and with the paper's rate ``eta_p = n sqrt(ln 2 / (T M))`` the paper's statement
``E[Regret] <= n sqrt(T M ln 2)`` (using C(n,2) <= n^2/2).  THEORY §3.2 [X] shows the paper's
condition ``eta <= 1`` (``eta * max|s_u - s_v| <= 1``) is unnecessary.
"""

from __future__ import annotations

import math

import numpy as np

from .feedback import family_M

__all__ = [
    "LN2",
    "eta_paper",
    "eta_optimal",
    "resolve_eta",
    "theorem31",
    "theorem31_sharp",
    "theorem31_paper",
    "theorem31_optimal",
    "corollary32",
    "spearman_bound",
]

LN2 = math.log(2.0)


def eta_paper(n, T, M):
    """The paper's learning rate ``eta = n sqrt(ln 2) / sqrt(T M)`` (Theorem 3.1 proof, [P])."""
    return n * np.sqrt(LN2 / (np.asarray(T, dtype=np.float64) * M))


def eta_optimal(n, T, M):
    """The rate minimising the sharp bound: ``eta* = sqrt(n(n-1) ln 2 / (T M))`` (THEORY §3.2 [X])."""
    return np.sqrt(n * (n - 1) * LN2 / (np.asarray(T, dtype=np.float64) * M))


def resolve_eta(eta, n: int, T: int, M: float) -> float:
    """``eta`` given as "paper", "optimal" or a positive float -> a float."""
    if isinstance(eta, str):
        if eta == "paper":
            return float(eta_paper(n, T, M))
        if eta == "optimal":
            return float(eta_optimal(n, T, M))
        raise ValueError(f"eta must be 'paper', 'optimal' or a positive number, got {eta!r}")
    eta = float(eta)
    if not (eta > 0 and math.isfinite(eta)):
        raise ValueError(f"eta must be a positive finite number, got {eta!r}")
    return eta


def theorem31_sharp(n, T, M, eta):
    """``C(n,2) ln 2 / eta + eta T M / 2`` — the boxed bound of THEORY §3.1, valid for every eta>0."""
    eta = np.asarray(eta, dtype=np.float64)
    return n * (n - 1) / 2 * LN2 / eta + eta * np.asarray(T, dtype=np.float64) * M / 2


def theorem31(n, T, M, eta=None):
    """Theorem 3.1, the boxed bound of THEORY §3.1 at learning rate ``eta``.

    ``eta=None`` means the paper's rate, where the value is ``(n - 1/2) sqrt(T M ln 2)``
    (GOLDEN G2 ``B_sharp(eta_p)``); see :func:`theorem31_paper` for the paper's rounded
    statement ``n sqrt(T M ln 2)``.
    """
    if eta is None:
        eta = eta_paper(n, T, M)
    return theorem31_sharp(n, T, M, eta)


def theorem31_paper(n, T, M):
    """The paper's statement of Theorem 3.1: ``E[Regret] <= n sqrt(T M ln 2)`` at ``eta_p``."""
    return n * np.sqrt(np.asarray(T, dtype=np.float64) * M * LN2)


def theorem31_optimal(n, T, M):
    """The sharp bound at its optimal rate: ``sqrt(n(n-1) T M ln 2)`` (THEORY §3.2 [X])."""
    return np.sqrt(n * (n - 1) * np.asarray(T, dtype=np.float64) * M * LN2)


def corollary32(family: str, n: int, T, k: int = 1):
    """Corollary 3.2 at the paper's rate with the exact M of the family: ``n sqrt(T M ln 2)``.

    single ``n sqrt((n-1) T ln2) <= n^{3/2} sqrt(T ln 2)``; k-choice ``n sqrt(k(n-k) T ln 2)``;
    subsets ``(n^2/2) sqrt(T ln 2)`` (with M = n^2/4).
    """
    return theorem31_paper(n, T, family_M(family, n, k))


def spearman_bound(n: int, T):
    """Spearman corollary (paper §5): ``n^2 sqrt((n^2-1) T ln 2 / 12) = O(n^3 sqrt T)``."""
    return theorem31_paper(n, T, family_M("spearman", n))
