"""Closed-form bounds of the paper (theory §3, §3.3).  Pure, vectorised functions.

Theorem 3.1 (theory §3.1, boxed): for every ``eta > 0``

    E[Regret] <= C(n,2) ln2 / eta + eta T M / 2                          (sharp form)

and with the paper's rate ``eta_p = n sqrt(ln 2 / (T M))`` the paper's statement
``E[Regret] <= n sqrt(T M ln 2)`` (using C(n,2) <= n^2/2).  theory §3.2 [X] shows the paper's
condition ``eta <= 1`` (``eta * max|s_u - s_v| <= 1``) is unnecessary.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from .cited_bounds import CITED_BOUNDS, FPL, HEDGE, PERMELEARN, CitedBound
from .feedback import family_M

__all__ = [
    "LN2",
    "eta_paper",
    "eta_optimal",
    "resolve_eta",
    "eta_text",
    "ran_at_paper_eta",
    "corollary32_stated_M",
    "rate_parameter",
    "theorem31",
    "theorem31_sharp",
    "theorem31_paper",
    "theorem31_optimal",
    "corollary32",
    "spearman_bound",
]

LN2 = math.log(2.0)


def eta_paper(n: float | np.ndarray, T: ArrayLike, M: float | np.ndarray) -> float | np.ndarray:
    """The paper's learning rate ``eta = n sqrt(ln 2) / sqrt(T M)`` (Theorem 3.1 proof, [P])."""
    return n * np.sqrt(LN2 / (np.asarray(T, dtype=np.float64) * M))


def eta_optimal(n: float | np.ndarray, T: ArrayLike, M: float | np.ndarray) -> float | np.ndarray:
    """The rate minimising the sharp bound: ``eta* = sqrt(n(n-1) ln 2 / (T M))`` (theory §3.2 [X])."""
    return np.sqrt(n * (n - 1) * LN2 / (np.asarray(T, dtype=np.float64) * M))


def rate_parameter(
    value: str | float, name: str, words: tuple[str, ...], allow_zero: bool = False
) -> str | float:
    """A learner's rate parameter given as one of ``words`` (e.g. "tuned") or a finite number
    > 0 (>= 0 with ``allow_zero``): returns the word or the float, else a ``ValueError`` naming
    ``name``."""
    kind = "a number >= 0" if allow_zero else "a positive number"
    if isinstance(value, str):
        if value not in words:
            raise ValueError(f"{name} must be {', '.join(map(repr, words))} or {kind}, got {value!r}")
        return value
    value = float(value)
    if not ((value >= 0 if allow_zero else value > 0) and math.isfinite(value)):
        finite = "a finite number >= 0" if allow_zero else "a positive finite number"
        raise ValueError(f"{name} must be {finite}, got {value!r}")
    return value


#: Corollary 3.2's stated M of each family (theory §3.2 table): upper bounds on the exact M
STATED_M_FAMILIES = ("single", "kchoice", "subset")


def corollary32_stated_M(family: str, n: int, k: int = 1) -> float:
    """The M that Corollary 3.2 states for ``family``: ``n`` (single choice), ``kn`` (k-choice),
    ``n^2/4`` (arbitrary subsets), each at least the exact M (theory §3.2); a learner tuned with
    it (``eta="stated"``) is the corollary at its own rate."""
    if family == "single":
        return float(n)
    if family == "kchoice":
        return float(k * n)
    if family == "subset":
        return n * n / 4.0
    raise ValueError(
        f"eta 'stated': Corollary 3.2 states M only for {', '.join(STATED_M_FAMILIES)}, not {family!r}"
    )


def resolve_eta(eta: str | float, n: int, T: int, M: float, family: str = "", k: int = 1) -> float:
    """``eta`` given as "paper" (``n sqrt(ln 2/(T M))``), "optimal", "stated" (the paper's rate
    with Corollary 3.2's stated M of ``family``, :func:`corollary32_stated_M`) or a positive
    float -> a float."""
    eta = rate_parameter(eta, "eta", ("paper", "optimal", "stated"))
    if eta == "paper":
        return float(eta_paper(n, T, M))
    if eta == "stated":
        return float(eta_paper(n, T, corollary32_stated_M(family, n, k)))
    if eta == "optimal":
        return float(eta_optimal(n, T, M))
    return cast(float, eta)  # not a word: rate_parameter returned a float


def eta_text(eta: str | float | None) -> str:
    """A learning-rate rule of :func:`resolve_eta` as written in legends and titles (theory §3.2):
    the paper's η_p, η* or a number."""
    if eta in (None, "paper"):
        return "η_p"
    if eta == "optimal":
        return "η*"
    try:
        return f"η = {float(eta):g}"
    except (TypeError, ValueError):
        return f"η = {eta}"


def ran_at_paper_eta(r: Mapping) -> bool:
    """Whether a simulation table's row ran at the paper's rate η_p = n sqrt(ln 2/(T M)) (theory
    §3.2): its recorded ``eta`` (the rate the learner resolved) equals the one
    :func:`resolve_eta` gives for ``"paper"`` at the row's n, T, M, family and k.  The same
    computation on the same numbers (the table keeps floats exactly), so equality is exact; NaN (a
    learner without a rate) is never equal."""
    return r["eta"] == resolve_eta("paper", int(r["n"]), int(r["T"]), float(r["M"]), r["family"], int(r["k"]))


def theorem31_sharp(
    n: float | np.ndarray, T: ArrayLike, M: float | np.ndarray, eta: ArrayLike
) -> float | np.ndarray:
    """``C(n,2) ln 2 / eta + eta T M / 2`` — the boxed bound of theory §3.1, valid for every eta>0."""
    eta = np.asarray(eta, dtype=np.float64)
    return n * (n - 1) / 2 * LN2 / eta + eta * np.asarray(T, dtype=np.float64) * M / 2


def theorem31(
    n: float | np.ndarray, T: ArrayLike, M: float | np.ndarray, eta: ArrayLike | None = None
) -> float | np.ndarray:
    """Theorem 3.1, the boxed bound of theory §3.1 at learning rate ``eta``.

    ``eta=None`` means the paper's rate, where the value is ``(n - 1/2) sqrt(T M ln 2)``
    (reference values G2 ``B_sharp(eta_p)``); see :func:`theorem31_paper` for the paper's rounded
    statement ``n sqrt(T M ln 2)``.
    """
    if eta is None:
        eta = eta_paper(n, T, M)
    return theorem31_sharp(n, T, M, eta)


def theorem31_paper(n: float | np.ndarray, T: ArrayLike, M: float | np.ndarray) -> float | np.ndarray:
    """The paper's statement of Theorem 3.1: ``E[Regret] <= n sqrt(T M ln 2)`` at ``eta_p``."""
    return n * np.sqrt(np.asarray(T, dtype=np.float64) * M * LN2)


def theorem31_optimal(n: float | np.ndarray, T: ArrayLike, M: float | np.ndarray) -> float | np.ndarray:
    """The sharp bound at its optimal rate: ``sqrt(n(n-1) T M ln 2)`` (theory §3.2 [X])."""
    return np.sqrt(n * (n - 1) * np.asarray(T, dtype=np.float64) * M * LN2)


def corollary32(family: str, n: int, T: ArrayLike, k: int = 1) -> float | np.ndarray:
    """Corollary 3.2 at the paper's rate with the exact M of the family: ``n sqrt(T M ln 2)``.

    single ``n sqrt((n-1) T ln2) <= n^{3/2} sqrt(T ln 2)``; k-choice ``n sqrt(k(n-k) T ln 2)``;
    subsets ``(n^2/2) sqrt(T ln 2)`` (with M = n^2/4).
    """
    return theorem31_paper(n, T, family_M(family, n, k))


def spearman_bound(n: int, T: ArrayLike) -> float | np.ndarray:
    """Spearman corollary (paper §5): ``n^2 sqrt((n^2-1) T ln 2 / 12) = O(n^3 sqrt T)``."""
    return theorem31_paper(n, T, family_M("spearman", n))


# ---------------------------------------------------------------------------------------------
# Comparison bounds (theory §3.3; paper Section 4 and §5).  Regrets of the baselines in the
# game's units (pairwise loss; position-loss regrets are identical, theory §1).  All [R]:
# standard forms of the cited results, not quotes of the paper.
# ---------------------------------------------------------------------------------------------

__all__ += [
    "BINARY_FAMILIES",
    "ln_factorial",
    "hedge_loss_range",
    "hedge_bound",
    "hedge_bound_spearman",
    "hedge_bound_family",
    "fpl_parameters",
    "fpl_bound",
    "fpl_bound_family",
    "permelearn_scale",
    "permelearn_l_est",
    "permelearn_bound",
    "permelearn_bound_spearman",
    "permelearn_bound_family",
    "yasutake_bound",
    "comparison_bound",
    "ratio_to_theorem31",
    "claimed_factor",
]

#: feedback families whose s is a 0/1 indicator
BINARY_FAMILIES = ("single", "kchoice", "subset")


def ln_factorial(n: ArrayLike) -> float | np.ndarray:
    """``ln(n!)`` elementwise (exact log-gamma; no scipy)."""
    arr = np.asarray(n, dtype=np.float64)
    out = np.vectorize(lambda x: math.lgamma(x + 1.0), otypes=[np.float64])(arr)
    return out if out.ndim else float(out)


def _chosen(family: str, n: ArrayLike, k: int) -> int | np.ndarray:
    """``|U|`` per round of a binary family: 1 (single), k (kchoice), n//2 (subset: the adversaries
    of this project play ``|U| = n//2``)."""
    if family == "single":
        return 1
    if family == "kchoice":
        return k
    if family == "subset":
        return np.asarray(n) // 2
    raise ValueError(f"family {family!r} is not binary")


def _binary_M(family: str, n: ArrayLike, k: int) -> float | np.ndarray:
    """:func:`~onlinerank.feedback.family_M` of a binary family (``ValueError`` otherwise)."""
    if family not in BINARY_FAMILIES:
        raise ValueError(f"family {family!r} is not binary")
    return family_M(family, n, k)


def hedge_loss_range(
    family: str, n: ArrayLike, k: int = 1, M: float | np.ndarray | None = None
) -> float | np.ndarray:
    """Per-round range ``L`` of ``ellell`` (Hedge's tuning, theory §3.3).

    Binary families: ``L = M`` (``n-1``, ``k(n-k)``, ``floor(n^2/4)``; max ``ellell = |U|(n-|U|)``).
    Spearman: ``(n^3-n)/6``.  Graded (needs ``M``): ``sqrt(C(n,2) M)`` by Cauchy–Schwarz,
    ``ellell <= sum_{u<v} |s_u - s_v| <= sqrt(C(n,2) M)`` ([X]; ``M`` alone is no bound there).
    """
    if family in BINARY_FAMILIES:
        return _binary_M(family, n, k)
    nn = np.asarray(n, dtype=np.float64)
    if family == "spearman":
        return (nn**3 - nn) / 6.0
    if family == "graded":
        if M is None:
            raise ValueError("hedge_loss_range: graded feedback needs M")
        return np.sqrt(nn * (nn - 1) / 2 * M)
    raise ValueError(f"hedge_loss_range: unknown family {family!r}")


def hedge_bound(n: ArrayLike, T: ArrayLike, M: float | np.ndarray) -> float | np.ndarray:
    """Hedge over all ``n!`` rankings, binary feedback: ``M sqrt(T ln(n!) / 2)``.

    Assumptions: losses in ``[0, L]`` with ``L = M`` (binary ``s``, theory §3.3), ``N = n!``
    experts, ``beta = sqrt(8 ln N / T) / L`` (Cesa-Bianchi & Lugosi 2006, Thm 2.2).
    """
    return M * np.sqrt(np.asarray(T, dtype=np.float64) * ln_factorial(n) / 2.0)


def hedge_bound_spearman(n: ArrayLike, T: ArrayLike) -> float | np.ndarray:
    """Hedge over all ``n!`` rankings, Spearman feedback: ``((n^3-n)/6) sqrt(T ln(n!) / 2)``.

    Loss range ``L = max ellell(pi, -sigma) = (n^3-n)/6`` (theory §1.1, §3.3); otherwise as
    :func:`hedge_bound`.  ``O(n^{3.5} sqrt(T log n))``.
    """
    return hedge_bound(n, T, hedge_loss_range("spearman", n))


def hedge_bound_family(family: str, n: ArrayLike, T: ArrayLike, k: int = 1) -> float | np.ndarray:
    """:func:`hedge_bound` / :func:`hedge_bound_spearman` for a named family (subsets:
    ``L = floor(n^2/4)``)."""
    if family == "spearman":
        return hedge_bound_spearman(n, T)
    return hedge_bound(n, T, _binary_M(family, n, k))


def fpl_parameters(
    family: str, n: ArrayLike, k: int = 1, M: float | np.ndarray | None = None
) -> tuple[np.ndarray, float | np.ndarray, np.ndarray]:
    """``(D, R, A)`` of Kalai–Vempala for rankings as position vectors (theory §3.3).

    ``D = floor(n^2/2)`` (l1 diameter); ``R`` = range of ``d . s``; ``A = max ||s||_1``:
    single ``(n-1, 1)``, kchoice ``(k(n-k), k)``, subset ``(floor(n^2/4), n//2)`` (``|U| = n//2``),
    spearman ``((n^3-n)/6, n(n+1)/2)``, graded (needs ``M``; FPL is invariant to a constant
    shift of ``s``, so centre it) ``(sqrt(C(n,2) M), sqrt(M))`` [X].
    """
    nn = np.asarray(n)
    D = (nn * nn // 2).astype(np.float64)
    if family in BINARY_FAMILIES:
        A = np.asarray(_chosen(family, nn, k), dtype=np.float64) * np.ones_like(D)
        return D, _binary_M(family, nn, k), A
    f = nn.astype(np.float64)
    if family == "spearman":
        return D, (f**3 - f) / 6.0, f * (f + 1) / 2.0
    if family == "graded":
        if M is None:
            raise ValueError("fpl_parameters: graded feedback needs M")
        return D, np.sqrt(f * (f - 1) / 2 * M), np.sqrt(M) * np.ones_like(D)
    raise ValueError(f"fpl_parameters: unknown family {family!r}")


def fpl_bound(
    n: object, T: ArrayLike, D: ArrayLike, R: float | np.ndarray, A: float | np.ndarray
) -> float | np.ndarray:
    """Kalai–Vempala FPL (2005): ``2 sqrt(D R A T)`` at ``epsilon = sqrt(D/(R A T))``.

    From ``E[cost] <= min-cost + eps R A T + D / eps`` (additive FPL with uniform noise on
    ``[0, 1/eps]^n``; theory §3.3).  ``n`` is unused (kept for a uniform signature).
    """
    del n
    return 2.0 * np.sqrt(np.asarray(D, dtype=np.float64) * R * A * np.asarray(T, dtype=np.float64))


def fpl_bound_family(family: str, n: ArrayLike, T: ArrayLike, k: int = 1) -> float | np.ndarray:
    """:func:`fpl_bound` with the family's ``(D, R, A)`` from :func:`fpl_parameters`.

    k-choice ``~ sqrt(2) n k sqrt((n-k) T) = O(n^{3/2} k sqrt T)``; Spearman ``~ n^{3.5} sqrt(T/6)``.
    """
    D, R, A = fpl_parameters(family, n, k)
    return fpl_bound(n, T, D, R, A)


def permelearn_scale(family: str, n: ArrayLike, M: float | np.ndarray | None = None) -> float | np.ndarray:
    """Divisor ``c`` putting the position-loss matrix ``j (s(u) - min s) / c`` into ``[0, 1]``:
    ``n-1`` (binary), ``(n-1)^2`` (Spearman), ``(n-1) sqrt(M)`` (graded)."""
    nn = np.asarray(n, dtype=np.float64)
    if family in BINARY_FAMILIES:
        return nn - 1
    if family == "spearman":
        return (nn - 1) ** 2
    if family == "graded":
        if M is None:
            raise ValueError("permelearn_scale: graded feedback needs M")
        return (nn - 1) * np.sqrt(M)
    raise ValueError(f"permelearn_scale: unknown family {family!r}")


def permelearn_l_est(family: str, n: ArrayLike, T: ArrayLike, k: int = 1) -> float | np.ndarray:
    """``L_est >= L_best`` in scaled units: the loss of a uniformly random ranking over T rounds.

    Binary ``T |U| / 2`` (single ``T/2``, k-choice ``T k/2``, subsets ``T (n//2)/2``), Spearman
    ``T n / 4``, graded ``T n / 2``.
    """
    T = np.asarray(T, dtype=np.float64)
    if family in BINARY_FAMILIES:
        return T * _chosen(family, n, k) / 2.0
    if family == "spearman":
        return T * np.asarray(n, dtype=np.float64) / 4.0
    if family == "graded":
        return T * np.asarray(n, dtype=np.float64) / 2.0
    raise ValueError(f"permelearn_l_est: unknown family {family!r}")


def _hw(n: ArrayLike, l_est: float | np.ndarray) -> float | np.ndarray:
    """Helmbold–Warmuth 2009 (Thm 5 as quoted in theory §3.3): ``sqrt(2 L_est n ln n) + n ln n``
    for loss matrices in ``[0,1]^{n x n}`` and ``eta = ln(1 + sqrt(2 n ln n / L_est))``."""
    nn = np.asarray(n, dtype=np.float64)
    nln = nn * np.log(nn)
    return np.sqrt(2.0 * l_est * nln) + nln


def permelearn_bound(n: ArrayLike, T: ArrayLike, k: int = 1) -> float | np.ndarray:
    """PermELearn, binary feedback with ``|U| = k``: ``(n-1)(sqrt(T k n ln n) + n ln n)``.

    Encoding ``L_t(u, j) = (j-1) s_t(u)/(n-1)`` in ``[0,1]``, ``L_best <= L_est = T k/2``; HW's
    bound times the scale ``n-1`` (theory §3.3).  ``O(n^{3/2} sqrt(T k log n))``.
    """
    nn = np.asarray(n, dtype=np.float64)
    return (nn - 1) * _hw(nn, np.asarray(T, dtype=np.float64) * k / 2.0)


def permelearn_bound_spearman(n: ArrayLike, T: ArrayLike) -> float | np.ndarray:
    """PermELearn, Spearman feedback: ``(n-1)^2 (n sqrt(T ln n / 2) + n ln n)`` [X derivation].

    Encoding ``L_t(u, j) = (j-1)(n - sigma_t(u))/(n-1)^2`` in ``[0,1]`` (``s = -sigma`` shifted
    by ``n``; a constant shift only adds column constants), ``L_best <= L_est = T n/4`` (a uniform
    ranking: ``sum_u (n - sigma(u)) (n-1)/2 / (n-1)^2 = n/4`` per round); HW's bound
    ``sqrt(2 L_est n ln n) + n ln n`` times the scale ``(n-1)^2``.  ``O(n^3 sqrt(T log n))``.
    """
    nn = np.asarray(n, dtype=np.float64)
    return (nn - 1) ** 2 * _hw(nn, np.asarray(T, dtype=np.float64) * nn / 4.0)


def permelearn_bound_family(family: str, n: ArrayLike, T: ArrayLike, k: int = 1) -> float | np.ndarray:
    """PermELearn's bound ``c (sqrt(2 L_est n ln n) + n ln n)`` for a named family
    (:func:`permelearn_scale`, :func:`permelearn_l_est`)."""
    return permelearn_scale(family, n) * _hw(n, permelearn_l_est(family, n, T, k))


def yasutake_bound(n: ArrayLike, T: ArrayLike) -> float | np.ndarray:
    """Yasutake et al. (2011/2012), order form only: ``n^2 sqrt(T ln n)`` with unit constant
    (theory §3.3 quotes ``O(n^2 sqrt(T ln n))`` as context; the constant is not known here)."""
    nn = np.asarray(n, dtype=np.float64)
    return nn * nn * np.sqrt(np.asarray(T, dtype=np.float64) * np.log(nn))


def _cited(method: str) -> CitedBound:
    """The declaration of the cited bound ``method`` (:data:`onlinerank.cited_bounds.CITED_BOUNDS`)."""
    try:
        return CITED_BOUNDS[method]
    except KeyError:
        raise ValueError(f"unknown method {method!r}; choose {', '.join(CITED_BOUNDS)}") from None


#: each cited bound's formula for a named family (theory §3.3)
_FAMILY_BOUND: dict[CitedBound, Callable[..., float | np.ndarray]] = {
    HEDGE: hedge_bound_family,
    FPL: fpl_bound_family,
    PERMELEARN: permelearn_bound_family,
}


def comparison_bound(method: str, family: str, n: ArrayLike, T: ArrayLike, k: int = 1) -> float | np.ndarray:
    """The regret bound of the cited baseline ``method`` (:data:`onlinerank.cited_bounds.CITED_BOUNDS`)
    for a named family."""
    return _FAMILY_BOUND[_cited(method)](family, n, T, k)


def ratio_to_theorem31(
    method: str, family: str, n: float | np.ndarray, T: ArrayLike, k: int = 1
) -> float | np.ndarray:
    """``comparison_bound / theorem31_paper`` with the family's exact M (Corollary 3.2 / the
    Spearman corollary): how much weaker the baseline's guarantee is than Theorem 3.1's."""
    M = family_M(family, n, k)
    return comparison_bound(method, family, n, T, k) / theorem31_paper(n, T, M)


def claimed_factor(method: str, family: str, n: ArrayLike, k: int = 1) -> float | np.ndarray:
    """The growth of :func:`ratio_to_theorem31` claimed in the paper (theory §3.3 [P]), without
    constants, as its declaration states it (:class:`onlinerank.cited_bounds.ClaimedFactor`):
    Hedge ``sqrt(log n)`` single, ``sqrt(k log n)`` k-choice, ``sqrt(n log n)`` subsets and
    Spearman; FPL ``sqrt(k)`` (binary k-choice, 1 single), ``sqrt(n)`` subsets and Spearman
    (``n^{3.5}`` vs ``n^3``); PermELearn ``sqrt(log n)`` (for ``T >> n log n``, where HW's
    additive ``n ln n`` term is negligible)."""
    factor = _cited(method).claimed.get(family)
    if factor is None:
        raise ValueError(f"no claimed factor for ({method!r}, {family!r})")
    return factor.value(np.asarray(n, dtype=np.float64), k)
