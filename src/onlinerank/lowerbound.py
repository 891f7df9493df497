"""The randomized lower-bound construction (theory §4; paper §3, lower-bound theorem).

The adversary
-------------
The adversary ignores the learner and draws its feedback i.i.d.: a uniform single item
``u_t`` (single choice, ``k = 1``) or a uniform ``k``-subset ``U_t`` (k-choice).  Because the
sequence is independent of the rankings ``pi_t``, every algorithm pays the same expected loss
``E L_T(Alg) = T k (n-k) / 2`` for the pairwise loss (theory §4.1), while the best fixed ranking
in hindsight sorts the items by their frequencies ``f(u)``.  Writing ``D = f(1) - f(2)``,

    E[Regret] = 1/2 sum_{u<v} E|f(u) - f(v)| = n(n-1)/4 * E|D|            (theory §4.1, boxed)

and, since each round moves ``D`` by +1/-1 with probability ``q = k(n-k)/(n(n-1))`` each and
leaves it unchanged otherwise,

    E[Regret] = n(n-1)/4 * sum_{N=1}^T Binom(T, r)(N) e_N,   r = 2q,  e_N = E|S_N|
                                                                     (theory §4.2, boxed)

where ``S_N`` is the simple random walk.  Because this holds for *every* algorithm, some fixed
sequence forces at least this much expected regret on any given algorithm; the value grows like
``sqrt(n(n-1)k(n-k)T) / (2 sqrt(pi))`` (theory §4.3), i.e. ``Omega(n^{3/2} sqrt(kT))``.

What this module computes
-------------------------
* the exact expected regret, in float (log space, no underflow for huge ``T``) and in exact
  rational arithmetic (:func:`exact_regret`), and for all horizons ``1..T`` at once through the
  recurrence ``E|D_{T+1}| = E|D_T| + r P(D_T = 0)`` (:func:`exact_regret_all`);
* the asymptotic value with its ``1/(rT)`` correction (:func:`asymptotic_regret`);
* the paper's own route through negative association and the CLT, ``alpha + beta + gamma``
  (theory §4.4: :func:`kappa`, :func:`alpha_beta_gamma`, :func:`joint_tail_prob`,
  :func:`negative_association_gap`);
* explicit lower bounds valid for all ``T`` and the resulting explicit ``h(n)``
  (theory §4.5: :func:`lower_bound_holder`, :func:`lower_bound_sharp`,
  :func:`lower_bound_berry_esseen`, :func:`h_explicit_holder`, :func:`h_c`, :func:`h_c_scan`);
* a Monte Carlo sampler of the adversary's frequency vectors and the hindsight regret of an
  algorithm that pays exactly its expectation (:func:`sample_frequencies`,
  :func:`hindsight_regret_from_frequencies`).

Numerics
--------
Binomial probabilities are evaluated in log space with Loader's saddle-point formula (the one
behind R's ``dbinom``): ``log b(N; T, r)`` is assembled from Stirling remainders and the
deviance ``bd0``, so it keeps full relative precision even for ``T = 10^7``, where the naive
``gammaln(T+1) - gammaln(N+1) - gammaln(T-N+1)`` cancels about eight digits.  For the same reason
``log e_N = log(2m+1) + log C(2m, m) - 2m log 2`` is computed as
``log(2m+1) + stirlerr(2m) - 2 stirlerr(m) - log(pi m)/2``.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

# scipy.stats and scipy.integrate (~0.4 s of import, most of a table job's start-up) are imported
# by the three functions that use them, so the steps that need only the closed forms skip them
from scipy import special

__all__ = [
    "UPPER_LOWER_RATIO",
    "RouteBounds",
    "abs_walk_mean",
    "alpha_beta_gamma",
    "asymptotic_regret",
    "exact_regret",
    "exact_regret_all",
    "expected_alg_loss",
    "expected_best_loss",
    "h_c",
    "h_c_scan",
    "h_c_limit",
    "h_explicit_holder",
    "h_integer",
    "hindsight_regret_from_frequencies",
    "joint_tail_prob",
    "kappa",
    "lazy_walk_abs_mean",
    "lower_bound_berry_esseen",
    "lower_bound_holder",
    "lower_bound_sharp",
    "negative_association_gap",
    "normalized_regret_minimum",
    "q_r",
    "sample_frequencies",
]

#: Theorem 3.1's optimally tuned upper bound ``sqrt(n(n-1)k(n-k)T ln 2)`` divided by the
#: asymptotic random-adversary regret ``sqrt(n(n-1)k(n-k)T)/(2 sqrt(pi))`` (theory §4.3,
#: "Upper vs lower"): ``2 sqrt(pi ln 2)``, the same for every ``n`` and ``k``.
UPPER_LOWER_RATIO: float = 2.0 * math.sqrt(math.pi * math.log(2.0))

#: Shevtsova (2011) Berry-Esseen constant for i.i.d. summands (theory §4.5 c).
C_BE: float = 0.4748

_LN_2PI = math.log(2.0 * math.pi)
_LN_PI = math.log(math.pi)
_SQRT_PI = math.sqrt(math.pi)
# Terms of a binomial law further than this from its mean are below exp(-400) relative to the
# peak (Bernstein: exponent >= min(delta^2/(4 var), 3 delta/4) >= 400), far below float64 eps.
_TAIL_SD = 40.0
_TAIL_ABS = 800.0


# --------------------------------------------------------------------------------------------
# argument validation
# --------------------------------------------------------------------------------------------


def _as_int(name: str, value, minimum: int | None = None) -> int:
    """``value`` as a Python int (integral floats accepted); ValueError naming ``name``."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if isinstance(value, numbers.Integral):
        out = int(value)
    elif isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer():
        out = int(cast(float, value))  # an integral real number (float, Fraction, ...)
    else:
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and out < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return out


def _check_nk(n, k) -> tuple[int, int]:
    n = _as_int("n", n, 2)
    k = _as_int("k", k)
    if not 1 <= k <= n - 1:
        raise ValueError(f"k must satisfy 1 <= k <= n-1 = {n - 1}, got k={k!r}")
    return n, k


def _check_T(T) -> int:
    return _as_int("T", T, 1)


def _T_array(T) -> np.ndarray:
    """Validated array of horizons (floats) for the vectorised closed forms."""
    arr = np.asarray(T, dtype=np.float64)
    if not np.all(np.isfinite(arr)) or np.any(arr < 1) or np.any(arr != np.floor(arr)):
        raise ValueError(f"T must be an integer >= 1 (or an array of such), got {T!r}")
    return arr


def _scalar_or_array(out: np.ndarray, like) -> float | np.ndarray:
    return float(out) if np.ndim(like) == 0 else out


# --------------------------------------------------------------------------------------------
# basic parameters
# --------------------------------------------------------------------------------------------


def q_r(n: int, k: int = 1) -> tuple[float, float]:
    """``(q, r)`` of theory §4.1-4.2.

    ``q = k(n-k)/(n(n-1)) = P(s(v)=1, s(u)=0)`` for a fixed ordered pair and a uniform
    ``k``-subset, and ``r = 2q`` is the probability that a round moves ``D = f(u) - f(v)``.
    """
    n, k = _check_nk(n, k)
    q = k * (n - k) / (n * (n - 1))
    return q, 2.0 * q


def _r_fraction(n: int, k: int) -> Fraction:
    return Fraction(2 * k * (n - k), n * (n - 1))


def _r_and_one_minus(n: int, k: int) -> tuple[float, float]:
    """``r`` and ``1 - r`` each rounded once from exact integers (no cancellation)."""
    den = n * (n - 1)
    return 2 * k * (n - k) / den, (den - 2 * k * (n - k)) / den


# --------------------------------------------------------------------------------------------
# accurate log-space building blocks (Loader 2000)
# --------------------------------------------------------------------------------------------


def _stirlerr_table() -> np.ndarray:
    """``stirlerr(m) = ln m! - (m + 1/2) ln m + m - ln sqrt(2 pi)`` for m = 1..16, to ~1e-30."""
    pi = Decimal("3.14159265358979323846264338327950288419716939937510582097494459")
    out = np.zeros(17)
    with localcontext() as ctx:
        ctx.prec = 50
        half_ln_2pi = (2 * pi).ln() / 2
        for m in range(1, 17):
            dm = Decimal(m)
            v = Decimal(math.factorial(m)).ln() - (dm + Decimal("0.5")) * dm.ln() + dm
            out[m] = float(v - half_ln_2pi)
    return out


_STIRLERR_SMALL = _stirlerr_table()


def _stirlerr(x: np.ndarray) -> np.ndarray:
    """Stirling remainder ``ln x! - ln(sqrt(2 pi x) (x/e)^x)`` for integer ``x >= 1`` (array).

    Exact table for ``x <= 16``, asymptotic series with terms up to ``x^-13`` beyond (error
    below 1e-17 there).  ``x = 0`` returns 0 (callers never use it).
    """
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    small = x <= 16
    out[small] = _STIRLERR_SMALL[x[small].astype(np.int64)]
    big = ~small
    if np.any(big):
        xb = x[big]
        x2 = 1.0 / (xb * xb)
        series = 1.0 / 156.0
        for coef in (-691.0 / 360360.0, 1.0 / 1188.0, -1.0 / 1680.0, 1.0 / 1260.0, -1.0 / 360.0, 1.0 / 12.0):
            series = coef + series * x2
        out[big] = series / xb
    return out


def _bd0(x: np.ndarray, m: np.ndarray | float) -> np.ndarray:
    """Loader's deviance ``x ln(x/m) + m - x >= 0``, accurate also when ``x ~ m``."""
    x = np.asarray(x, dtype=np.float64)
    m = np.broadcast_to(np.asarray(m, dtype=np.float64), x.shape)
    out = special.xlogy(x, x / m) + m - x
    close = np.abs(x - m) < 0.1 * (x + m)
    if np.any(close):
        xc, mc = x[close], m[close]
        v = (xc - mc) / (xc + mc)
        s = (xc - mc) * v
        ej = 2.0 * xc * v
        v2 = v * v
        for j in range(1, 200):
            ej = ej * v2
            s_new = s + ej / (2 * j + 1)
            if np.array_equal(s_new, s):
                break
            s = s_new
        out[close] = s
    return out


def _binom_logpmf(N: np.ndarray, T: int, p: float, one_minus_p: float) -> np.ndarray:
    """``ln P(Bin(T, p) = N)`` for integer arrays ``N`` in ``[0, T]``, full relative precision.

    ``one_minus_p`` is passed separately so that it can be computed without cancellation.
    """
    N = np.asarray(N, dtype=np.float64)
    out = np.full(N.shape, -np.inf)
    if one_minus_p == 0.0:  # p == 1: all mass at T
        out[N == T] = 0.0
        return out
    at0 = N == 0
    atT = N == T
    out[at0] = T * math.log1p(-p) if p < 0.5 else T * math.log(one_minus_p)
    out[atT] = T * math.log(p)
    mid = ~(at0 | atT)
    if np.any(mid):
        x = N[mid]
        Tf = float(T)
        lc = (
            _stirlerr(np.array([Tf]))[0]
            - _stirlerr(x)
            - _stirlerr(Tf - x)
            - _bd0(x, Tf * p)
            - _bd0(Tf - x, Tf * one_minus_p)
        )
        lf = _LN_2PI + np.log(x) + np.log1p(-x / Tf)
        out[mid] = lc - 0.5 * lf
    return out


def _log_abs_walk_mean(N: np.ndarray) -> np.ndarray:
    """``ln e_N`` for integer ``N >= 1`` (array); see :func:`abs_walk_mean`."""
    N = np.asarray(N, dtype=np.float64)
    m = np.floor((N - 1.0) / 2.0)
    out = np.log(2.0 * m + 1.0)
    pos = m >= 1
    mp = m[pos]
    # ln(C(2m, m) 4^-m) = stirlerr(2m) - 2 stirlerr(m) - ln(pi m)/2
    out[pos] += _stirlerr(2.0 * mp) - 2.0 * _stirlerr(mp) - 0.5 * (_LN_PI + np.log(mp))
    return out


def abs_walk_mean(N: ArrayLike) -> float | np.ndarray:
    """``e_N = E|S_N|`` for the simple +-1 random walk (theory §4.2, reference values G8).

    ``e_{2m+1} = e_{2m+2} = (2m+1) C(2m, m) 4^{-m}`` and ``e_0 = 0``.  Evaluated in log space as
    ``ln e_N = ln(2m+1) + ln C(2m,m) - 2m ln 2``, where the binomial part is assembled from
    Stirling remainders (gammaln-exact for small ``m``) so that no digits cancel for large ``N``.
    Accepts a scalar or an array of non-negative integers.
    """
    arr = np.asarray(N, dtype=np.float64)
    if np.any(arr < 0) or np.any(arr != np.floor(arr)) or not np.all(np.isfinite(arr)):
        raise ValueError(f"N must be a non-negative integer (or array of such), got {N!r}")
    flat = arr.reshape(-1)
    out: np.ndarray = np.zeros(flat.shape)
    pos = flat >= 1
    out[pos] = np.exp(_log_abs_walk_mean(flat[pos]))
    out = out.reshape(arr.shape)
    return _scalar_or_array(out, N)


# --------------------------------------------------------------------------------------------
# exact expected regret
# --------------------------------------------------------------------------------------------


def _binom_window(T: int, p: float, one_minus_p: float) -> tuple[int, int]:
    """Integer window ``[lo, hi]`` outside which Bin(T, p) has relative mass < exp(-400)."""
    mean = T * p
    w = _TAIL_SD * math.sqrt(T * p * one_minus_p) + _TAIL_ABS
    return max(0, math.floor(mean - w)), min(T, math.ceil(mean + w))


def _expected_abs_D_float(T: int, r: float, one_minus_r: float) -> float:
    """``E|D_T| = sum_N Bin(T, r)(N) e_N`` in log space (theory §4.2)."""
    lo, hi = _binom_window(T, r, one_minus_r)
    lo = max(lo, 1)  # e_0 = 0
    if hi < lo:
        return 0.0
    N = np.arange(lo, hi + 1, dtype=np.float64)
    lt = _binom_logpmf(N, T, r, one_minus_r) + _log_abs_walk_mean(N)
    mx = float(np.max(lt))
    if mx == -np.inf:
        return 0.0
    return math.exp(mx) * float(np.sum(np.exp(lt - mx)))


def _expected_abs_D_fraction(T: int, r: Fraction) -> Fraction:
    """Exact ``E|D_T|`` as a Fraction, with the common denominator ``b^T 4^M``.

    With ``r = a/b`` in lowest terms, ``c = b - a`` and ``M = floor((T-1)/2)``, the integers
    ``U_N = C(T, N) a^N c^{T-N} w_N``, ``w_N = e_N 4^M``, satisfy

        U_{N-1} = U_N * N c / ((T-N+1) a) * w_{N-1}/w_N,   w_{2m+2}/w_{2m+3} = (2m+2)/(2m+3),

    so each step costs a few big-int-by-small-int operations (all divisions are exact).
    """
    a, b = r.numerator, r.denominator
    c = b - a
    M = (T - 1) // 2
    U = a**T * (2 * M + 1) * math.comb(2 * M, M)  # U_T: w_T = (2M+1) C(2M, M)
    total = U
    for N in range(T, 1, -1):
        num = N * c
        den = (T - N + 1) * a
        if N % 2 == 1:  # N = 2m+3 -> N-1 = 2m+2, w ratio (2m+2)/(2m+3) = (N-1)/N
            num *= N - 1
            den *= N
        U = U * num // den
        total += U
    return Fraction(total, b**T * 4**M)


def lazy_walk_abs_mean(T: int, r: Fraction) -> float:
    """``E|D_T|`` for the lazy walk that moves +1 or -1 with probability ``r/2`` each per round
    (theory §4.2), in float: the sum of :func:`exact_regret` without its factor ``n(n-1)/4``, with
    ``r`` and ``1 - r`` each rounded once from the exact rational (so ``n(n-1)/4`` times it is
    :func:`exact_regret` bit for bit when ``r = 2k(n-k)/(n(n-1))``)."""
    T = _check_T(T)
    r = Fraction(r)
    if not 0 <= r <= 1:
        raise ValueError(f"r must be a probability, got {r!r}")
    if r == 0:  # the walk never moves
        return 0.0
    return _expected_abs_D_float(T, float(r), float(1 - r))


def exact_regret(n: int, T: ArrayLike, k: int = 1, exact: bool = False) -> float | Fraction | np.ndarray:
    """Exact expected regret of every algorithm against the random adversary (theory §4.2).

        E[Regret] = n(n-1)/4 * sum_{N=1}^T C(T,N) r^N (1-r)^{T-N} e_N,  r = 2k(n-k)/(n(n-1)).

    Float mode (default) sums the terms in log space (Loader binomial log-pmf plus
    :func:`abs_walk_mean` logs, shifted by their maximum before exponentiating), over the window
    of ``N`` within ``40 sd + 800`` of the mean ``rT``; every omitted term is below ``exp(-400)``
    of the largest one, so this is the full ``O(T)`` sum to float precision at ``O(sqrt(T))``
    cost.  No underflow for ``T`` up to 1e7 and beyond.  ``T`` may be an array of horizons
    (evaluated one by one).

    ``exact=True`` returns a ``fractions.Fraction`` computed in exact integer arithmetic
    over the common denominator ``b^T 4^M`` (``r = a/b``); ``T`` must then be a scalar.
    """
    n, k = _check_nk(n, k)
    if np.ndim(T) > 0:
        if exact:
            raise ValueError(f"T must be a scalar when exact=True, got {T!r}")
        Ts = _T_array(T)
        return np.array([exact_regret(n, int(t), k) for t in Ts.reshape(-1)]).reshape(Ts.shape)
    T = _check_T(T)
    scale = Fraction(n * (n - 1), 4)
    if exact:
        return scale * _expected_abs_D_fraction(T, _r_fraction(n, k))
    r, one_minus_r = _r_and_one_minus(n, k)
    return n * (n - 1) / 4.0 * _expected_abs_D_float(T, r, one_minus_r)


def _central_prob_iter(r: float, one_minus_r: float):
    """Yield ``P(D_t = 0)`` for t = 0, 1, 2, ...  (lazy walk, moves w.p. ``r``).

    ``P(D_t = 0) = [x^0] ((1-r) + r/2 (x + 1/x))^t`` is a generalised central trinomial
    coefficient; its generating function ``((1-(1-r)z)^2 - r^2 z^2)^{-1/2}`` gives

        t c_t = (2t-1)(1-r) c_{t-1} - (t-1)(1-2r) c_{t-2},   c_0 = 1, c_1 = 1-r.

    The characteristic roots are 1 and ``1-2r`` with ``|1-2r| <= 1``; ``c_t ~ t^{-1/2}`` is the
    dominant solution, so the forward recurrence is stable.
    """
    one_minus_2r = one_minus_r - r
    c_prev, c = 1.0, one_minus_r
    yield c_prev
    yield c
    t = 2
    while True:
        c_prev, c = c, ((2 * t - 1) * one_minus_r * c - (t - 1) * one_minus_2r * c_prev) / t
        yield c
        t += 1


def exact_regret_all(n: int, T_max: int, k: int = 1) -> np.ndarray:
    """Exact expected regret for all horizons ``T = 0..T_max`` at once, ``O(T_max)`` total.

    Consequence of theory §4.1-4.2 (an [X] identity checked against :func:`exact_regret` in the
    tests): for ``d != 0`` a symmetric +-1 step leaves ``E|d + X| = |d|``, so

        E|D_{T+1}| = E|D_T| + r P(D_T = 0),

    and ``P(D_T = 0)`` follows a three-term recurrence (see ``_central_prob_iter``).  Returns a
    float array of length ``T_max + 1`` with entry 0 equal to 0.
    """
    n, k = _check_nk(n, k)
    T_max = _as_int("T_max", T_max, 0)
    r, one_minus_r = _r_and_one_minus(n, k)
    out = np.empty(T_max + 1)
    e = 0.0
    out[0] = 0.0
    it = _central_prob_iter(r, one_minus_r)
    for t in range(1, T_max + 1):
        e += r * next(it)
        out[t] = e
    return out * (n * (n - 1) / 4.0)


def expected_alg_loss(n: int, T: ArrayLike, k: int = 1) -> float | np.ndarray:
    """``E L_T(Alg) = T k (n-k) / 2`` for the pairwise loss, any algorithm (theory §4.1)."""
    n, k = _check_nk(n, k)
    Ts = _T_array(T)
    return _scalar_or_array(Ts * (k * (n - k) / 2.0), T)


def expected_best_loss(
    n: int, T: ArrayLike, k: int = 1, exact: bool = False
) -> float | Fraction | np.ndarray:
    """``E L_T(pi*) = T k(n-k)/2 - E[Regret]`` for the pairwise loss (theory §4.1-4.2, G7).

    For k-choice this is ``E L*_{ll}``; the position loss ``ell`` adds ``T C(k,2)``.
    With ``exact=True`` returns a Fraction.
    """
    n, k = _check_nk(n, k)
    if exact:
        T = _check_T(T)
        return Fraction(T * k * (n - k), 2) - exact_regret(n, T, k, exact=True)
    return expected_alg_loss(n, T, k) - exact_regret(n, T, k)


def asymptotic_regret(n: int, T: ArrayLike, k: int = 1, corrected: bool = False) -> float | np.ndarray:
    """Asymptotic expected regret (theory §4.3).

    ``sqrt(n(n-1)k(n-k)T) / (2 sqrt(pi))``, multiplied by ``1 - (1-r)/(8rT)`` when
    ``corrected`` (the next term; the remainder is ``O((rT)^-2)``).  Vectorised over ``T``.
    """
    n, k = _check_nk(n, k)
    Ts = _T_array(T)
    r, one_minus_r = _r_and_one_minus(n, k)
    out = np.sqrt(n * (n - 1) * k * (n - k) * Ts) / (2.0 * _SQRT_PI)
    if corrected:
        out = out * (1.0 - one_minus_r / (8.0 * r * Ts))
    return _scalar_or_array(out, T)


# --------------------------------------------------------------------------------------------
# the paper's route (theory §4.4)
# --------------------------------------------------------------------------------------------


def _int_phi_phibar(j: float) -> float:
    """``int_{-j}^{j} Phi(z) Phi(-z) dz`` in closed form.

    From ``d/dz [z Phi^2 + 2 phi Phi] = Phi^2 + 2 phi^2`` and
    ``int_0^j phi^2 = erf(j)/(4 sqrt pi)``:
    ``2 [j Phi(j) Phi(-j) + phi(j) (1 - 2 Phi(j))] + erf(j)/sqrt(pi)``.
    """
    if math.isinf(j):
        return 1.0 / _SQRT_PI
    Pj, Pmj = special.ndtr(j), special.ndtr(-j)
    phij = math.exp(-0.5 * j * j) / math.sqrt(2.0 * math.pi)
    return 2.0 * (j * Pj * Pmj - phij * math.erf(j / math.sqrt(2.0))) + math.erf(j) / _SQRT_PI


def kappa(j: float, method: str = "closed") -> float:
    """``kappa(j) = int_{-j}^{j} Phi(z)Phi(-z) dz - phi(j) + j Phi(-j)`` (theory §4.4, reference values G8).

    The paper's route gives ``E[Regret] >= 1/2 n(n-1) sigma (kappa(j) - o(1))``.
    ``method="closed"`` uses the closed form of the integral (see ``_int_phi_phibar``),
    ``method="quad"`` uses ``scipy.integrate.quad``.  ``kappa(inf) = 1/sqrt(pi)``.
    """
    j = float(j)
    if not j >= 0:
        raise ValueError(f"j must be >= 0, got {j!r}")
    if math.isinf(j):
        return 1.0 / _SQRT_PI
    if method == "closed":
        integral = _int_phi_phibar(j)
    elif method == "quad":
        from scipy import integrate  # lazy: ~0.4 s of import, see the module's imports

        integral = (
            2.0
            * integrate.quad(
                lambda z: special.ndtr(z) * special.ndtr(-z), 0.0, j, epsabs=1e-14, epsrel=1e-13
            )[0]
        )
    else:
        raise ValueError(f"method must be 'closed' or 'quad', got {method!r}")
    phij = math.exp(-0.5 * j * j) / math.sqrt(2.0 * math.pi)
    return integral - phij + j * float(special.ndtr(-j))


@dataclass(frozen=True)
class RouteBounds:
    """Output of :func:`alpha_beta_gamma` (theory §4.4).

    ``alpha + beta + gamma`` (``total``) is an UPPER bound on ``E L*_ell``; hence
    ``alg_loss - total`` (``regret_lower``) is a LOWER bound on the expected regret.  The
    ``*_clt`` fields are the paper's CLT approximations, ``regret_clt = scale * kappa(j)`` with
    ``scale = 1/2 n(n-1) sigma``.
    """

    n: int
    T: int
    k: int
    j: float
    p: float
    mu: float
    sigma: float
    alpha: float
    beta: float
    gamma: float
    total: float
    alg_loss: float
    regret_lower: float
    scale: float
    alpha_clt: float
    beta_clt: float
    gamma_clt: float
    regret_clt: float


def _binom_sf_ge(x: np.ndarray, T: int, p: float) -> np.ndarray:
    """``P(Bin(T, p) >= x)`` for integer arrays ``x``."""
    from scipy import stats  # lazy: ~0.4 s of import, see the module's imports

    return stats.binom.sf(np.asarray(x, dtype=np.float64) - 1.0, T, p)


def _route_exact(S: float, T: int, p: float, lo: float, hi: float) -> tuple[float, float, float]:
    """The bounds on alpha, beta and gamma (theory §4.4), exact from Bin(T, p), for the window
    (lo, hi] = (mu - j sigma, mu + j sigma]: alpha covers x = 1..floor(lo), beta the window,
    gamma x > floor(hi)."""
    x_alpha_end = min(T, max(0, math.floor(lo)))
    x_beta_end = min(T, max(0, math.floor(hi)))
    alpha = S * x_alpha_end
    xb = np.arange(x_alpha_end + 1, x_beta_end + 1)
    beta = S * float(np.sum(_binom_sf_ge(xb, T, p) ** 2))
    _, g_end = _binom_window(T, p, 1.0 - p)
    xg = np.arange(x_beta_end + 1, min(T, g_end + 1) + 1)
    gamma = S * float(np.sum(_binom_sf_ge(xg, T, p)))
    return alpha, beta, gamma


def _route_clt(S: float, mu: float, sigma: float, j: float) -> tuple[float, float, float]:
    """The CLT approximations of alpha, beta and gamma (theory §4.4): ``S (mu - j sigma)``,
    ``S sigma int_{-j}^{j} Phi(-z)^2 dz`` and ``S sigma (phi(j) - j Phi(-j))``."""
    scale = S * sigma
    phij = math.exp(-0.5 * j * j) / math.sqrt(2.0 * math.pi)
    alpha_clt = S * (mu - j * sigma)
    beta_clt = scale * (j - _int_phi_phibar(j))  # int_{-j}^{j} Phi(-z)^2 = j - int Phi Phi(-)
    gamma_clt = scale * (phij - j * float(special.ndtr(-j)))
    return alpha_clt, beta_clt, gamma_clt


def alpha_beta_gamma(n: int, T: int, j: float, k: int = 1) -> RouteBounds:
    """The paper's decomposition ``E L_T(pi*) = alpha + beta + gamma`` and its bounds (theory §4.4).

    With ``p = k/n``, ``mu = T p`` and ``sigma = sqrt(T p (1-p))`` (each ``f(u) ~ Bin(T, p)``),

        E L*_ell = 1/2 n(n-1) sum_{x=1}^T P(f(u) >= x, f(v) >= x),

    split into ``x <= mu - j sigma`` (alpha), ``mu - j sigma < x <= mu + j sigma`` (beta) and
    ``x > mu + j sigma`` (gamma).  Returned bounds, all computed exactly from Bin(T, p):

    * ``alpha <= 1/2 n(n-1) #{integers 1 <= x <= mu - j sigma}``  (probabilities <= 1);
    * ``beta  <= 1/2 n(n-1) sum_mid P(f >= x)^2``  (negative association, Joag-Dev-Proschan);
    * ``gamma <= 1/2 n(n-1) sum_{x > mu + j sigma} P(f >= x)
      = 1/2 n(n-1) E(f - floor(mu + j sigma))_+``
      (the paper writes ``E(f - mu - j sigma)_+``, which is smaller, hence not a valid bound,
      unless ``mu + j sigma`` is an integer).

    ``total = alpha + beta + gamma`` is therefore an UPPER bound on ``E L*_ell`` and
    ``regret_lower = 1/2 n(n-1) mu - total`` a LOWER bound on the expected regret
    (``1/2 n(n-1) mu = T k (n-1)/2 = E L_T(Alg)`` for the position loss ``ell``; regrets for
    ``ell`` and ``ll`` coincide, theory §1).  For single choice ``ell = ll``.
    The CLT approximations are ``alpha ~ S (mu - j sigma)``,
    ``beta ~ S sigma int_{-j}^{j} Phi(-z)^2 dz``, ``gamma ~ S sigma (phi(j) - j Phi(-j))`` with
    ``S = n(n-1)/2``, so that ``regret ~ S sigma kappa(j)``.
    """
    n, k = _check_nk(n, k)
    T = _check_T(T)
    j = float(j)
    if not (j > 0 and math.isfinite(j)):
        raise ValueError(f"j must be a finite positive number, got {j!r}")
    S = 0.5 * n * (n - 1)
    p = k / n
    mu = T * p
    sigma = math.sqrt(T * p * (1.0 - p))
    alpha, beta, gamma = _route_exact(S, T, p, mu - j * sigma, mu + j * sigma)
    total = alpha + beta + gamma
    alg_loss = S * mu
    scale = S * sigma
    alpha_clt, beta_clt, gamma_clt = _route_clt(S, mu, sigma, j)
    return RouteBounds(
        n=n,
        T=T,
        k=k,
        j=j,
        p=p,
        mu=mu,
        sigma=sigma,
        alpha=alpha,
        beta=beta,
        gamma=gamma,
        total=total,
        alg_loss=alg_loss,
        regret_lower=alg_loss - total,
        scale=scale,
        alpha_clt=alpha_clt,
        beta_clt=beta_clt,
        gamma_clt=gamma_clt,
        regret_clt=scale * kappa(j),
    )


def _min_tail_all(n: int, T: int, k: int) -> np.ndarray:
    """``P(min(f(u), f(v)) >= x)`` for x = 0..T+1, exactly (float) from the pair's law.

    Per round the pair ``(1_{u in U}, 1_{v in U})`` is (1,1) w.p. ``a = k(k-1)/(n(n-1))``,
    (1,0) and (0,1) w.p. ``q`` each, (0,0) otherwise.  With ``C`` = #(1,1) rounds and ``N`` =
    #(1,0)+(0,1) rounds, ``(C, N)`` is trinomial and, given ``N``, the (0,1)-count is
    Bin(N, 1/2); ``min(f(u), f(v)) = C + min(A, N - A)``.  Cost ``O(T^3)`` through one matrix
    product (k = 1 collapses to ``C = 0``); intended for ``T`` up to a few thousand.
    """
    den = n * (n - 1)
    a = k * (k - 1) / den
    two_q = 2 * k * (n - k) / den
    d = (den - k * (k - 1) - 2 * k * (n - k)) / den
    cmax = T if k >= 2 else 0
    c = np.arange(cmax + 1, dtype=np.float64)[:, None]
    m = np.arange(T + 1, dtype=np.float64)[None, :]
    rest = T - c - m
    valid = rest >= 0
    restc = np.where(valid, rest, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = (
            special.gammaln(T + 1.0)
            - special.gammaln(c + 1.0)
            - special.gammaln(m + 1.0)
            - special.gammaln(restc + 1.0)
            + special.xlogy(c, a)
            + special.xlogy(m, two_q)
            + special.xlogy(restc, d)
        )
    P_cm = np.where(valid, np.exp(logp), 0.0)  # (cmax+1, T+1)
    # G[m, y] = P(min(A, m - A) >= y), A ~ Bin(m, 1/2), for y = 0..T+1
    from scipy import stats  # lazy: ~0.4 s of import, see the module's imports

    mm = np.arange(T + 1, dtype=np.float64)[:, None]
    y = np.arange(T + 2, dtype=np.float64)[None, :]
    G = stats.binom.cdf(mm - y, mm, 0.5) - stats.binom.cdf(y - 1.0, mm, 0.5)
    G = np.where(2 * y <= mm, G, 0.0)
    G[:, 0] = 1.0
    H = P_cm @ G  # H[c, y] = P(C = c, min(A, N-A) >= y)
    x = np.arange(T + 2)[:, None]
    cc = np.arange(cmax + 1)[None, :]
    idx = np.clip(x - cc, 0, T + 1)
    out = H[cc, idx].sum(axis=1)
    return np.clip(out, 0.0, 1.0)


def joint_tail_prob(n: int, T: int, x: ArrayLike, k: int = 1) -> float | np.ndarray:
    """``P(f(u) >= x, f(v) >= x)`` for two fixed items, exactly (theory §4.4).

    Single choice: from the trinomial law of ``(f(u), f(v))``; k-subsets: from the four-cell law
    of the pair (both / only u / only v / neither), see ``_min_tail_all``.  ``x`` may be an
    integer or an integer array; ``x <= 0`` gives 1 and ``x > T`` gives 0.
    """
    n, k = _check_nk(n, k)
    T = _check_T(T)
    xa = np.asarray(x)
    if not np.all(xa == np.floor(xa)):
        raise ValueError(f"x must be an integer (or integer array), got {x!r}")
    tail = _min_tail_all(n, T, k)
    idx = np.clip(xa.astype(np.int64), 0, T + 1)
    out = tail[idx]
    return _scalar_or_array(out, x)


def negative_association_gap(n: int, T: int, k: int = 1) -> float:
    """``max_{1<=x<=T} [P(f(u)>=x, f(v)>=x) - P(f(u)>=x) P(f(v)>=x)]`` (theory §4.4).

    Negative association of multinomial / k-subset counts makes this ``<= 0``; this is the
    step ``beta <= 1/2 n(n-1) sum P(f >= x)^2`` checked numerically (up to rounding ~1e-16).
    """
    n, k = _check_nk(n, k)
    T = _check_T(T)
    tail = _min_tail_all(n, T, k)
    x = np.arange(1, T + 1)
    marg = _binom_sf_ge(x, T, k / n)
    return float(np.max(tail[1 : T + 1] - marg**2))


# --------------------------------------------------------------------------------------------
# explicit bounds (theory §4.5)
# --------------------------------------------------------------------------------------------


def lower_bound_holder(n: int, T: ArrayLike, k: int = 1) -> float | np.ndarray:
    """theory §4.5 (a): ``E[Regret] >= n(n-1)/4 * lam / sqrt(3 lam + 1 - 3r)``, ``lam = rT``.

    Valid for ALL ``T >= 1`` (Hölder: ``E|D| >= (E D^2)^{3/2} / (E D^4)^{1/2}`` with
    ``E D^2 = lam``, ``E D^4 = 3 lam^2 + lam (1 - 3r)``).  For ``lam >= 1`` it implies
    ``E[Regret] >= sqrt(2 n(n-1) k(n-k) T) / 8``.  Vectorised over ``T``.
    """
    n, k = _check_nk(n, k)
    Ts = _T_array(T)
    r, one_minus_r = _r_and_one_minus(n, k)
    lam = r * Ts
    out = n * (n - 1) / 4.0 * lam / np.sqrt(3.0 * lam + 1.0 - 3.0 * r)
    return _scalar_or_array(out, T)


def h_explicit_holder(n: int, k: int = 1) -> float:
    """``h(n, k) = n(n-1) / (2 k (n-k)) = 1/r`` from theory §4.5 (a).

    For ``T >= h`` (i.e. ``rT >= 1``) bound (a) gives ``E[Regret] >= sqrt(2n(n-1)k(n-k)T)/8``;
    ``n/2`` for single choice (so ``h(n) = ceil(n/2)`` as an integer horizon).
    """
    n, k = _check_nk(n, k)
    return n * (n - 1) / (2.0 * k * (n - k))


def _sharp_g(lam: np.ndarray) -> np.ndarray:
    s = np.sqrt(lam + 1.0)
    return s - 1.0 - 0.5 / s


def lower_bound_sharp(n: int, T: ArrayLike, k: int = 1) -> float | np.ndarray:
    """theory §4.5 (b): ``n(n-1)/4 sqrt(2/pi) (sqrt(lam+1) - 1 - 1/(2 sqrt(lam+1)))``, ``lam = rT``.

    Valid for ALL ``T >= 1`` (it is negative, hence trivial, for ``lam < sqrt(3)/2 = 0.866``,
    where ``sqrt(lam+1) - 1 - 1/(2 sqrt(lam+1))`` changes sign).  Proof:
    ``e_N >= sqrt(2/pi) (sqrt(N+1) - 1)`` for all ``N >= 0`` and ``sqrt`` is above its
    quadratic expansion at ``mu = lam + 1``; ``Var N = lam(1-r) <= lam``.  Its ratio to
    ``sqrt(lam)`` increases to 1, so the bound reaches the exact constant at rate
    ``O(lam^{-1/2})``.  Vectorised over ``T``.
    """
    n, k = _check_nk(n, k)
    Ts = _T_array(T)
    r, _ = _r_and_one_minus(n, k)
    out = n * (n - 1) / 4.0 * math.sqrt(2.0 / math.pi) * _sharp_g(r * Ts)
    return _scalar_or_array(out, T)


def lower_bound_berry_esseen(n: int, T: int, k: int = 1) -> float:
    """theory §4.5 (c): the Berry-Esseen version of the paper's route, as an exact finite sum.

        E[Regret] >= 1/2 n(n-1) sum_{x=1}^T (Phi(-z_x) - eps)_+ (Phi(z_x) - eps)_+,

    ``z_x = (x - 1 - mu)/sigma``, ``eps = C_BE (1 - 2p(1-p))/sigma``, ``C_BE = 0.4748``
    (Shevtsova 2011), ``p = k/n``.  Valid for ALL ``T >= 1``: regret =
    ``1/2 n(n-1) sum_x [P_x - P(f(u)>=x, f(v)>=x)] >= 1/2 n(n-1) sum_x P_x (1 - P_x)`` by negative
    association, and ``|P_x - Phi(-z_x)| <= eps``.  Only the ``x`` where both factors are
    positive are evaluated (vectorised).
    """
    n, k = _check_nk(n, k)
    T = _check_T(T)
    p = k / n
    mu = T * p
    sigma = math.sqrt(T * p * (1.0 - p))
    eps = C_BE * (1.0 - 2.0 * p * (1.0 - p)) / sigma
    if eps >= 0.5:
        return 0.0
    zc = float(-special.ndtri(eps))  # both factors positive iff |z| < zc
    x_lo = max(1, math.floor(mu + 1.0 - zc * sigma) - 1)
    x_hi = min(T, math.ceil(mu + 1.0 + zc * sigma) + 1)
    if x_hi < x_lo:
        return 0.0
    z = (np.arange(x_lo, x_hi + 1, dtype=np.float64) - 1.0 - mu) / sigma
    terms = np.maximum(special.ndtr(-z) - eps, 0.0) * np.maximum(special.ndtr(z) - eps, 0.0)
    return 0.5 * n * (n - 1) * float(np.sum(terms))


# --------------------------------------------------------------------------------------------
# numerical h_c(n) (theory §4.5 d)
# --------------------------------------------------------------------------------------------


def h_c_limit(n: int, k: int = 1) -> float:
    """``lim_{T->inf} E[Regret] / (n^{3/2} sqrt(kT)) = sqrt((n-1)(n-k)) / (2 sqrt(pi) n)``.

    (theory §4.3/4.5 d; ``(n-1)/(2 n sqrt(pi))`` for ``k = 1``.)  ``h_c`` exists iff ``c`` is
    below this.
    """
    n, k = _check_nk(n, k)
    return math.sqrt((n - 1) * (n - k)) / (2.0 * _SQRT_PI * n)


def _check_c(n: int, c, k: int) -> float:
    c = float(c)
    lim = h_c_limit(n, k)
    if not (0.0 < c < lim):
        raise ValueError(
            f"c must satisfy 0 < c < lim E[Regret]/(n^1.5 sqrt(kT)) = {lim!r} for n={n}, k={k}; got c={c!r}"
        )
    return c


def _sharp_ratio(lam: float) -> float:
    """``(sqrt(lam+1) - 1 - 1/(2 sqrt(lam+1))) / sqrt(lam)``: bound (b) over its limit."""
    s = math.sqrt(lam + 1.0)
    return (s - 1.0 - 0.5 / s) / math.sqrt(lam)


def _sharp_certified_T(n: int, c: float, k: int) -> int:
    """Smallest ``T1`` with bound (b) >= ``c n^{3/2} sqrt(k T)`` for every ``T >= T1``."""
    rho = c / h_c_limit(n, k)
    r, _ = _r_and_one_minus(n, k)
    lo, hi = 0.0, 4.0
    while _sharp_ratio(hi) < rho:
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _sharp_ratio(mid) >= rho:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-12 * hi:
            break
    T1 = max(1, math.ceil(hi / r))
    target = c * n**1.5 * math.sqrt(k)
    while lower_bound_sharp(n, T1, k) < target * math.sqrt(T1):  # guard against rounding
        T1 += 1
    return T1


def h_c(n: int, c: float, k: int = 1, *, max_scan: int = 10**8) -> int:
    """Smallest ``T0`` with ``E[Regret](n, T, k) >= c n^{3/2} sqrt(kT)`` for ALL ``T >= T0``.

    theory §4.5 (d) (``c n^{3/2} sqrt(T)`` for ``k = 1``).  Method:

    1. Bound (b) divided by ``n^{3/2} sqrt(kT)`` equals ``h_c_limit(n, k) * G(lam)`` with
       ``G(lam) = (sqrt(lam+1) - 1 - 1/(2 sqrt(lam+1))) / sqrt(lam)``, ``lam = rT``.  ``G`` is
       increasing: with ``s = sqrt(lam+1) > 1``, ``G = (s - 1 - 1/(2s)) / sqrt(s^2 - 1)`` and
       ``sign G'(s) = sign[(1 + 1/(2s^2))(s^2 - 1) - s (s - 1 - 1/(2s))] = sign[s - 1/(2s^2)] > 0``.
       Hence, once (b) certifies the inequality at ``T1``, it certifies it for all ``T >= T1``;
       ``T1`` is found by bisection on ``lam``.
    2. The exact regret is scanned for ``T = 1..T1`` with the O(1)-per-step recurrence of
       :func:`exact_regret_all` (constant memory); the answer is one plus the last failing
       ``T`` (1 if none fails).

    Raises ValueError unless ``0 < c < h_c_limit(n, k)`` (no ``T0`` exists otherwise), and if
    the certification horizon ``T1`` exceeds ``max_scan`` (``c`` extremely close to the limit;
    the scan costs about 0.5 s per million horizons).
    """
    n, k = _check_nk(n, k)
    c = _check_c(n, c, k)
    T1 = _sharp_certified_T(n, c, k)
    if T1 > max_scan:
        raise ValueError(
            f"c={c!r} is so close to the limit {h_c_limit(n, k)!r} that bound (b) certifies only "
            f"from T1={T1}, beyond max_scan={max_scan}"
        )
    r, one_minus_r = _r_and_one_minus(n, k)
    # E|D_T| >= K sqrt(T)  <=>  E|D_T|^2 >= K^2 T,  K = 4 c n^{3/2} sqrt(k) / (n(n-1))
    K2 = (4.0 * c * n**1.5 * math.sqrt(k) / (n * (n - 1))) ** 2
    last_fail = 0
    e = 0.0
    it = _central_prob_iter(r, one_minus_r)
    for t in range(1, T1 + 1):
        e += r * next(it)
        if e * e < K2 * t:
            last_fail = t
    return last_fail + 1


def h_integer(n: int, k: int = 1) -> int:
    """``ceil(h(n, k))``, ``h = n(n-1) / (2k(n-k))`` of theory §4.5 (a), in exact arithmetic: the
    first integer horizon of the lower-bound theorem (``ceil(n/2)`` for single choice)."""
    n, k = _check_nk(n, k)
    return math.ceil(Fraction(n * (n - 1), 2 * k * (n - k)))


def normalized_regret_minimum(n: int, k: int = 1, *, max_scan: int = 10**8) -> dict:
    """The minimum over every integer ``T >= ceil(h(n, k))`` of the exact regret over
    ``n^{3/2} sqrt(kT)``, the statistic of Theorem 3.3 (theory §4.5 e), and where it is attained.

    Every integer ``T`` from ``T_from = ceil(h)`` on is evaluated with the O(1)-per-step recurrence
    of :func:`exact_regret_all`; the scan stops at the first ``T_to`` where bound (b) divided by
    ``n^{3/2} sqrt(kT)`` — ``h_c_limit(n, k) G(rT)``, ``G`` increasing (see :func:`h_c`) — reaches
    the running minimum (relative margin 1e-9 for the rounding of both).  Bound (b) holds for
    every ``T``, so every ``T > T_to`` has a ratio above the minimum: the minimum over
    ``[T_from, T_to]`` is the minimum over all ``T >= h``.  Returns ``T_from``, ``T_to``,
    ``T_min``, ``ratio_min``, ``exact_min`` (the regret at ``T_min``), ``scale_min``
    (``n^{3/2} sqrt(k T_min)``), ``limit`` (``h_c_limit``) and ``bound_ratio_at_T_to``.  Raises
    ValueError if ``T_to`` would exceed ``max_scan``."""
    n, k = _check_nk(n, k)
    T_from = h_integer(n, k)
    r, one_minus_r = _r_and_one_minus(n, k)
    limit = h_c_limit(n, k)
    pair = n * (n - 1) / 4.0
    rate = n**1.5 * math.sqrt(k)
    best, T_min, e, e_min = math.inf, T_from, 0.0, 0.0
    it = _central_prob_iter(r, one_minus_r)
    for t in range(1, max_scan + 1):
        e += r * next(it)  # E|D_t|
        if t < T_from:
            continue
        ratio = pair * e / (rate * math.sqrt(t))
        if ratio < best:
            best, T_min, e_min = ratio, t, e
        certified = limit * _sharp_ratio(r * t)
        if certified >= best * (1.0 + 1e-9):
            return {
                "T_from": T_from,
                "T_to": t,
                "T_min": T_min,
                "ratio_min": best,
                "exact_min": pair * e_min,
                "scale_min": rate * math.sqrt(T_min),
                "limit": limit,
                "bound_ratio_at_T_to": certified,
            }
    raise ValueError(f"bound (b) does not reach the minimum {best!r} by T = {max_scan} (n={n}, k={k})")


def h_c_scan(n: int, c: float, k: int = 1, *, T_max: int) -> int:
    """Plain direct scan: one plus the last ``T <= T_max`` with
    ``exact_regret(n, T, k) < c n^{3/2} sqrt(kT)`` (1 if none).  Each ``T`` is evaluated
    independently with the boxed formula of theory §4.2.  Equals :func:`h_c` whenever
    ``T_max`` is at least the certification horizon of bound (b).
    """
    n, k = _check_nk(n, k)
    c = float(c)
    T_max = _check_T(T_max)
    r, one_minus_r = _r_and_one_minus(n, k)
    target = c * n**1.5 * math.sqrt(k)
    last_fail = 0
    for t in range(1, T_max + 1):
        val = n * (n - 1) / 4.0 * _expected_abs_D_float(t, r, one_minus_r)
        if val < target * math.sqrt(t):
            last_fail = t
    return last_fail + 1


# --------------------------------------------------------------------------------------------
# Monte Carlo (no learner involved)
# --------------------------------------------------------------------------------------------


def sample_frequencies(n: int, T: int, reps: int, rng: np.random.Generator, k: int = 1) -> np.ndarray:
    """Item frequencies ``f`` of ``reps`` independent runs of the random adversary, (reps, n).

    ``k = 1``: one multinomial draw per replicate.  ``k >= 2``: each round's uniform
    ``k``-subset is the set of the ``k`` smallest of ``n`` i.i.d. uniforms (``argpartition``),
    processed in chunks of at most ~4e6 uniforms so memory stays bounded.
    """
    n, k = _check_nk(n, k)
    T = _check_T(T)
    reps = _as_int("reps", reps, 1)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng)!r}")
    if k == 1:
        return rng.multinomial(T, np.full(n, 1.0 / n), size=reps).astype(np.int64)
    total_rounds = reps * T
    out = np.zeros(reps * n, dtype=np.int64)
    chunk = max(1, 4_000_000 // n)
    for start in range(0, total_rounds, chunk):
        m = min(chunk, total_rounds - start)
        u = rng.random((m, n))
        items = np.argpartition(u, k - 1, axis=1)[:, :k]
        rep0, rep1 = start // T, (start + m - 1) // T  # replicates touched by this chunk
        local = (np.arange(start, start + m) // T - rep0)[:, None]
        width = (rep1 - rep0 + 1) * n
        out[rep0 * n : rep0 * n + width] += np.bincount((local * n + items).ravel(), minlength=width)
    return out.reshape(reps, n)


def _sum_pair_min(f: np.ndarray) -> np.ndarray:
    """``sum_{u<v} min(f_u, f_v)`` along the last axis in O(n log n): the i-th smallest value
    (0-based) is the minimum of ``n - 1 - i`` pairs."""
    fs = np.sort(np.asarray(f), axis=-1)
    n = fs.shape[-1]
    w = np.arange(n - 1, -1, -1, dtype=np.int64)
    return fs @ w


def hindsight_regret_from_frequencies(f: ArrayLike, T: int, k: int = 1) -> float | np.ndarray:
    """Regret of an algorithm paying exactly its expectation, from frequency vectors (..., n).

    ``E L_T(Alg) - L_T(pi*) = T k(n-k)/2 - L*_ll`` with (theory §4.1)
    ``L*_ell = sum_{u<v} min(f(u), f(v))`` and ``L*_ll = L*_ell - T C(k, 2)``.
    Its mean over the adversary's law is :func:`exact_regret`.
    """
    f = np.asarray(f)
    n = f.shape[-1]
    n, k = _check_nk(n, k)
    T = _check_T(T)
    l_star = _sum_pair_min(f) - T * (k * (k - 1) // 2)
    out = T * k * (n - k) / 2.0 - l_star.astype(np.float64)
    return _scalar_or_array(out, l_star)
