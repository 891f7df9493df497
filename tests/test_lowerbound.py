"""Tests for onlinerank.lowerbound (theory §4, reference values G7/G8).

Every assertion compares against an independent computation: brute-force enumeration of
feedback sequences and rankings, exact laws of the frequency vector in Fraction arithmetic,
direct multinomial sums, 40-digit Decimal evaluation with ratio recurrences (no lgamma), scipy's
quadrature and binomial functions, or Monte Carlo.
"""

from __future__ import annotations

import itertools
import math
import time
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, special, stats

from onlinerank import lowerbound as lb

# --------------------------------------------------------------------------------------------
# independent reference implementations
# --------------------------------------------------------------------------------------------


def pairwise_loss_binary(order: tuple[int, ...], chosen: frozenset[int]) -> int:
    """ll(pi, 1_U): number of pairs with a chosen item ranked below a non-chosen one."""
    loss = 0
    for i, u in enumerate(order):
        for v in order[i + 1 :]:
            if v in chosen and u not in chosen:
                loss += 1
    return loss


def brute_force_regret(n: int, k: int, T: int) -> tuple[Fraction, list]:
    """E[Regret] by enumerating all subset sequences and all n! rankings (tiny cases only).

    Also returns (sequence, L*_ll) pairs for checking the frequency identity.
    """
    subsets = [frozenset(c) for c in itertools.combinations(range(n), k)]
    orders = list(itertools.permutations(range(n)))
    total = Fraction(0)
    records = []
    for seq in itertools.product(subsets, repeat=T):
        best = min(sum(pairwise_loss_binary(o, s) for s in seq) for o in orders)
        records.append((seq, best))
        # E L_T(Alg) = T k(n-k)/2 for every algorithm (uniform ranking: each pair wrong w.p. 1/2)
        alg = Fraction(sum(sum(pairwise_loss_binary(o, s) for o in orders) for s in seq), len(orders))
        total += alg - best
    return total / len(subsets) ** T, records


def frequency_law(n: int, k: int, T: int) -> dict[tuple[int, ...], Fraction]:
    """Exact law of the sorted frequency vector after T uniform k-subsets (DP, Fractions)."""
    subsets = list(itertools.combinations(range(n), k))
    w = Fraction(1, len(subsets))
    law = {tuple([0] * n): Fraction(1)}
    for _ in range(T):
        new: dict[tuple[int, ...], Fraction] = {}
        for f, pr in law.items():
            for s in subsets:
                g = list(f)
                for u in s:
                    g[u] += 1
                key = tuple(sorted(g))
                new[key] = new.get(key, 0) + pr * w
        law = new
    return law


def regret_from_law(n: int, k: int, T: int) -> Fraction:
    law = frequency_law(n, k, T)
    e_best = Fraction(0)
    for f, pr in law.items():
        l_ell = sum(min(a, b) for a, b in itertools.combinations(f, 2))
        e_best += pr * (l_ell - T * math.comb(k, 2))
    return Fraction(T * k * (n - k), 2) - e_best


def decimal_regret(n: int, k: int, T: int, prec: int = 40) -> Decimal:
    """theory §4.2 in `prec`-digit Decimal: binomial weights from the ratio recurrence around
    the mode (normalised by their sum), e_N from e_{2m+3} = e_{2m+1} (2m+3)/(2m+2)."""
    r = Fraction(2 * k * (n - k), n * (n - 1))
    with localcontext() as ctx:
        ctx.prec = prec
        rd = Decimal(r.numerator) / Decimal(r.denominator)
        one_minus = Decimal(r.denominator - r.numerator) / Decimal(r.denominator)
        ratio = rd / one_minus
        mean = T * float(r)
        sd = math.sqrt(T * float(r) * (1 - float(r)))
        lo = max(0, int(mean - 60 * sd - 200))
        hi = min(T, int(mean + 60 * sd + 200))
        n0 = min(max(int((T + 1) * float(r)), lo), hi)
        w = {n0: Decimal(1)}
        for N in range(n0, hi):
            w[N + 1] = w[N] * (T - N) / (N + 1) * ratio
        for N in range(n0, lo, -1):
            w[N - 1] = w[N] * N / ((T - N + 1) * ratio)
        e = [Decimal(0), Decimal(1), Decimal(1)]
        for N in range(3, hi + 1):
            e.append(e[N - 2] * N / (N - 1) if N % 2 == 1 else e[N - 1])
        z = sum(w.values())
        s = sum(w[N] * e[N] for N in range(lo, hi + 1))
        return Decimal(n * (n - 1)) / 4 * s / z


def e_exact(N: int) -> Fraction:
    if N == 0:
        return Fraction(0)
    m = (N - 1) // 2
    return Fraction((2 * m + 1) * math.comb(2 * m, m), 4**m)


def joint_tail_direct(n: int, k: int, T: int, x: int) -> Fraction:
    """P(f(u) >= x, f(v) >= x) from the four-cell multinomial law of the pair (Fractions)."""
    den = n * (n - 1)
    p11 = Fraction(k * (k - 1), den)
    p10 = Fraction(k * (n - k), den)
    p00 = 1 - p11 - 2 * p10
    tot = Fraction(0)
    for c in range(T + 1):
        for a in range(T + 1 - c):
            for b in range(T + 1 - c - a):
                if c + a >= x and c + b >= x:
                    d = T - c - a - b
                    coef = math.factorial(T) // (
                        math.factorial(c) * math.factorial(a) * math.factorial(b) * math.factorial(d)
                    )
                    tot += coef * p11**c * p10 ** (a + b) * p00**d
    return tot


# --------------------------------------------------------------------------------------------
# exact formula vs enumeration (reference values G7)
# --------------------------------------------------------------------------------------------

G7 = [
    (3, 1, 6, Fraction(64, 27)),
    (4, 1, 9, Fraction(328185, 65536)),
    (6, 1, 12, Fraction(354122075, 30233088)),
    (4, 2, 6, Fraction(128, 27)),
    (5, 2, 8, Fraction(10815411, 1250000)),
    (6, 3, 6, Fraction(560169, 50000)),
]


@pytest.mark.parametrize(("n", "k", "T", "value"), G7)
def test_golden_g7_exact(n, k, T, value):
    assert lb.exact_regret(n, T, k, exact=True) == value
    assert lb.exact_regret(n, T, k) == pytest.approx(float(value), rel=1e-13)
    assert lb.expected_best_loss(n, T, k, exact=True) == Fraction(T * k * (n - k), 2) - value


@pytest.mark.parametrize(("n", "k", "T", "value"), G7)
def test_golden_g7_by_frequency_law(n, k, T, value):
    """Method 2 of G7: exact law of the frequency vector, L* from sorted frequencies."""
    assert regret_from_law(n, k, T) == value


@pytest.mark.parametrize(("n", "k", "T"), [(3, 1, 4), (4, 1, 4), (4, 2, 3), (5, 2, 2), (3, 2, 4)])
def test_brute_force_sequences_and_rankings(n, k, T):
    expected, records = brute_force_regret(n, k, T)
    assert lb.exact_regret(n, T, k, exact=True) == expected
    # identity L*_ll = sum_pairs min(f) - T C(k,2), via the regret of an "expected" algorithm
    for seq, best in records:
        f = np.zeros(n, dtype=np.int64)
        for s in seq:
            f[list(s)] += 1
        got = lb.hindsight_regret_from_frequencies(f, T, k)
        assert got == T * k * (n - k) / 2 - best


@pytest.mark.parametrize(("n", "k", "T"), [(3, 1, 9), (4, 2, 7), (5, 1, 10), (7, 3, 5)])
def test_exact_vs_frequency_law_more(n, k, T):
    assert lb.exact_regret(n, T, k, exact=True) == regret_from_law(n, k, T)


def test_golden_10_1_100():
    ref = Decimal("79.88132531635616581380")
    assert lb.exact_regret(10, 100) == pytest.approx(float(ref), rel=1e-12)
    frac = lb.exact_regret(10, 100, exact=True)
    assert abs(Decimal(frac.numerator) / Decimal(frac.denominator) - ref) < Decimal("1e-18")
    assert lb.expected_best_loss(10, 100) == pytest.approx(370.1186746836438341861, rel=1e-12)


def test_rational_and_float_agree_on_grid():
    for n, k in [(2, 1), (3, 1), (4, 2), (5, 2), (10, 1), (10, 5), (17, 4), (50, 3)]:
        for T in [1, 2, 3, 8, 31, 100, 257, 1000, 2000]:
            fr = lb.exact_regret(n, T, k, exact=True)
            assert lb.exact_regret(n, T, k) == pytest.approx(float(fr), rel=1e-12), (n, k, T)


def test_exact_regret_array_T():
    Ts = np.array([1, 5, 50, 500])
    got = lb.exact_regret(7, Ts, 2)
    assert got.shape == (4,)
    for T, g in zip(Ts, got, strict=True):
        assert g == lb.exact_regret(7, int(T), 2)


def test_exact_regret_all_matches_boxed_formula():
    for n, k, T_max in [(2, 1, 60), (10, 1, 3000), (7, 3, 2000), (50, 1, 5000)]:
        allv = lb.exact_regret_all(n, T_max, k)
        assert allv[0] == 0.0
        for T in [1, 2, 3, 4, 17, T_max // 3, T_max]:
            assert allv[T] == pytest.approx(lb.exact_regret(n, T, k), rel=1e-12), (n, k, T)
    allv = lb.exact_regret_all(5, 40, 2)
    for T in [1, 2, 10, 40]:
        assert allv[T] == pytest.approx(float(lb.exact_regret(5, T, 2, exact=True)), rel=1e-13)


def test_n2_degenerate_case():
    # r = 1: D = +-1 every round, E|D_T| = e_T; regret = e_T / 2
    for T in range(1, 30):
        assert lb.exact_regret(2, T, exact=True) == e_exact(T) / 2
        assert lb.exact_regret(2, T) == pytest.approx(float(e_exact(T)) / 2, rel=1e-14)


# --------------------------------------------------------------------------------------------
# G8: e_N, kappa, constants
# --------------------------------------------------------------------------------------------


def test_abs_walk_mean_g8():
    golden = [
        0,
        1,
        1,
        Fraction(3, 2),
        Fraction(3, 2),
        Fraction(15, 8),
        Fraction(15, 8),
        Fraction(35, 16),
        Fraction(35, 16),
        Fraction(315, 128),
        Fraction(315, 128),
        Fraction(693, 256),
        Fraction(693, 256),
    ]
    got = lb.abs_walk_mean(np.arange(13))
    for N, g in enumerate(golden):
        # direct summation over the 2^N paths' binomial law
        direct = sum(Fraction(math.comb(N, h), 2**N) * abs(2 * h - N) for h in range(N + 1))
        assert direct == g == e_exact(N)
        assert got[N] == pytest.approx(float(g), rel=1e-15, abs=0)
    assert lb.abs_walk_mean(0) == 0.0
    assert isinstance(lb.abs_walk_mean(5), float)


def test_abs_walk_mean_large_N_precision():
    for N in [17, 18, 101, 1000, 12345, 10**5, 2 * 10**5 + 1]:
        m = (N - 1) // 2
        ref = (2 * m + 1) * math.comb(2 * m, m) / 4**m  # correctly rounded int division
        assert lb.abs_walk_mean(N) == pytest.approx(ref, rel=5e-15), N


def test_kappa_g8():
    assert math.floor(lb.kappa(1) * 1e6) / 1e6 == pytest.approx(0.328713, abs=1e-12)
    assert math.floor(lb.kappa(2) * 1e6) / 1e6 == pytest.approx(0.538921, abs=1e-12)
    # G8 prints 0.563044, which is kappa(3) = 0.5630436541... ROUNDED (truncation gives 0.563043,
    # contrary to the reference values' "digits are truncated" convention, theory §6); accept
    # either within 1e-6.
    assert lb.kappa(3) == pytest.approx(0.563044, abs=1e-6)
    assert lb.kappa(3) == pytest.approx(0.5630436541939, abs=1e-12)
    assert lb.kappa(math.inf) == pytest.approx(0.5641895835, abs=1e-10)
    assert lb.kappa(math.inf) == 1 / math.sqrt(math.pi)


def test_kappa_closed_form_vs_quadrature():
    for j in [0.0, 0.3, 1, 1.7, 2, 3, 5, 12]:
        integral = integrate.quad(lambda z: special.ndtr(z) * special.ndtr(-z), -j, j, epsabs=1e-14)[0]
        ref = integral - stats.norm.pdf(j) + j * stats.norm.sf(j)
        assert lb.kappa(j) == pytest.approx(ref, abs=1e-13)
        assert lb.kappa(j, method="quad") == pytest.approx(ref, abs=1e-13)
    assert lb.kappa(40) == pytest.approx(1 / math.sqrt(math.pi), abs=1e-14)
    with pytest.raises(ValueError, match="j"):
        lb.kappa(-1)


def test_constants():
    assert lb.UPPER_LOWER_RATIO == pytest.approx(2.951329253271211778777, rel=1e-15)
    assert 1 / lb.UPPER_LOWER_RATIO == pytest.approx(0.338830375801552498309, rel=1e-15)
    # the ratio: optimally tuned Theorem 3.1 bound over the asymptotic lower bound
    for n, k in [(5, 1), (10, 3), (100, 50)]:
        T = 1000
        upper = math.sqrt(n * (n - 1) * k * (n - k) * T * math.log(2))
        assert upper / lb.asymptotic_regret(n, T, k) == pytest.approx(lb.UPPER_LOWER_RATIO, rel=1e-14)
    assert lb.h_c_limit(10) == pytest.approx(9 / (20 * math.sqrt(math.pi)), rel=1e-15)


def test_q_r():
    q, r = lb.q_r(10)
    assert q == pytest.approx(0.1, rel=1e-15)
    assert r == pytest.approx(2 / 10, rel=1e-15)
    q, r = lb.q_r(6, 3)
    assert (q, r) == (pytest.approx(9 / 30), pytest.approx(18 / 30))


# --------------------------------------------------------------------------------------------
# asymptotics (theory §4.3)
# --------------------------------------------------------------------------------------------


def test_asymptotic_golden():
    assert lb.asymptotic_regret(10, 100) == pytest.approx(80.28558523, rel=1e-9)
    ratio = lb.exact_regret(10, 100) / lb.asymptotic_regret(10, 100)
    assert ratio == pytest.approx(0.994965, abs=5e-7)
    assert lb.asymptotic_regret(10, 100, corrected=True) == pytest.approx(80.28558523 * 0.995, rel=1e-9)
    arr = lb.asymptotic_regret(10, np.array([100, 400]))
    assert arr[1] == pytest.approx(2 * arr[0], rel=1e-15)


@pytest.mark.parametrize(("n", "k"), [(10, 1), (5, 2), (50, 1), (20, 7), (3, 1), (9, 4)])
def test_correction_term_coefficient(n, k):
    _, r = lb.q_r(n, k)
    coef = []
    for lam in [100, 1000, 10_000]:
        T = round(lam / r)
        ex = lb.exact_regret(n, T, k)
        coef.append((1 - ex / lb.asymptotic_regret(n, T, k)) * 8 * r * T / (1 - r))
    assert abs(coef[-1] - 1) < 0.05
    assert abs(coef[-1] - 1) < abs(coef[0] - 1) + 1e-9


def test_sandwich_for_lambda_at_least_one():
    for n, k in [(3, 1), (10, 1), (10, 5), (40, 9)]:
        h = lb.h_explicit_holder(n, k)
        assert h == pytest.approx(n * (n - 1) / (2 * k * (n - k)))
        for T in sorted({math.ceil(h), math.ceil(h) + 1, 3 * math.ceil(h), 1000}):
            ex = lb.exact_regret(n, T, k)
            s = math.sqrt(2 * n * (n - 1) * k * (n - k) * T)
            assert s / 8 <= ex <= s / 4
            assert lb.lower_bound_holder(n, T, k) >= s / 8 * (1 - 1e-14)
    assert lb.h_explicit_holder(11) == pytest.approx(5.5)


# --------------------------------------------------------------------------------------------
# explicit bounds (theory §4.5)
# --------------------------------------------------------------------------------------------

GRID_T = np.array([1, 2, 3, 4, 5, 7, 10, 20, 50, 100, 300, 1000, 3000, 10**4, 3 * 10**4, 10**5])


@pytest.mark.parametrize("n", [3, 4, 5, 7, 10, 20, 50, 101, 200])
def test_bounds_never_exceed_exact(n):
    for k in sorted({1, 2, n // 3, n // 2} - {0}):
        ex = lb.exact_regret(n, GRID_T, k)
        a = lb.lower_bound_holder(n, GRID_T, k)
        b = lb.lower_bound_sharp(n, GRID_T, k)
        c = np.array([lb.lower_bound_berry_esseen(n, int(T), k) for T in GRID_T])
        assert np.all(a <= ex * (1 + 1e-12))  # equality at T = 1 (D in {-1, 0, 1})
        assert np.all(b <= ex)
        assert np.all(c <= ex)
        assert np.all(c >= 0)
    # (a) is exact at T = 1
    assert lb.lower_bound_holder(n, 1) == pytest.approx(lb.exact_regret(n, 1), rel=1e-14)


def test_berry_esseen_sum_is_the_written_formula():
    """Vectorised windowed sum vs the literal sum over x = 1..T."""
    for n, k, T in [(10, 1, 1000), (7, 3, 333), (50, 1, 20000), (4, 2, 12)]:
        p = k / n
        mu, sig = T * p, math.sqrt(T * p * (1 - p))
        eps = 0.4748 * (1 - 2 * p * (1 - p)) / sig
        tot = 0.0
        for x in range(1, T + 1):
            z = (x - 1 - mu) / sig
            up, down = 0.5 * math.erfc(z / math.sqrt(2)), 0.5 * math.erfc(-z / math.sqrt(2))
            tot += max(up - eps, 0) * max(down - eps, 0)
        assert lb.lower_bound_berry_esseen(n, T, k) == pytest.approx(
            0.5 * n * (n - 1) * tot, rel=1e-12, abs=1e-12
        )


def test_berry_esseen_closed_form_claim():
    """theory §4.5 (c): sigma >= 10 implies regret >= 0.0884 n(n-1) sigma (checked on a grid,
    also against the sum form it is derived from)."""
    for n, k in [(3, 1), (10, 1), (10, 5), (50, 1), (50, 25)]:
        p = k / n
        T0 = math.ceil(100 * n * n / (k * (n - k)))
        for T in [T0, 3 * T0, 30 * T0]:
            sig = math.sqrt(T * p * (1 - p))
            assert sig >= 10
            closed = 0.0884 * n * (n - 1) * sig
            assert closed <= lb.lower_bound_berry_esseen(n, T, k) <= lb.exact_regret(n, T, k)


def test_sharp_bound_ratio_monotone_and_tends_to_one():
    lam = np.logspace(-3, 8, 2000)
    s = np.sqrt(lam + 1)
    g = (s - 1 - 0.5 / s) / np.sqrt(lam)
    assert np.all(np.diff(g) > 0)
    assert g[-1] == pytest.approx(1, abs=2e-4)
    # the derivative numerator identity used in the h_c docstring: s - 1/(2 s^2) > 0
    s = np.linspace(1, 50, 1000)
    lhs = (1 + 1 / (2 * s**2)) * (s**2 - 1) - s * (s - 1 - 1 / (2 * s))
    assert np.allclose(lhs, s - 1 / (2 * s**2), rtol=1e-12, atol=1e-12)
    # (b) bound over the exact limit constant -> 1
    n, T = 30, 10**7
    lam = 2 / n * T
    lim = n * (n - 1) / 4 * math.sqrt(2 / math.pi) * math.sqrt(lam)
    s1 = math.sqrt(lam + 1)
    assert lb.lower_bound_sharp(n, T) / lim == pytest.approx((s1 - 1 - 0.5 / s1) / math.sqrt(lam), rel=1e-12)
    assert lb.lower_bound_sharp(n, T) / lim == pytest.approx(1, abs=2e-3)


def test_e_N_lower_bound_used_in_sharp_bound():
    N = np.arange(0, 200_001)
    e = lb.abs_walk_mean(N)
    assert np.all(e >= math.sqrt(2 / math.pi) * (np.sqrt(N + 1) - 1) - 1e-12)
    assert np.all(e[1:] >= math.sqrt(2 / math.pi) * N[1:] / np.sqrt(N[1:] + 1) * (1 - 1e-12))


# --------------------------------------------------------------------------------------------
# h_c (theory §4.5 d)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "c", "k"),
    [
        (10, 0.1, 1),
        (10, 0.2, 1),
        (20, 0.2, 1),
        (50, 0.23, 1),
        (10, 0.23, 1),
        (12, 0.15, 3),
        (2, 0.12, 1),
        (5, 0.18, 2),
    ],
)
def test_h_c_matches_direct_scan(n, c, k):
    h = lb.h_c(n, c, k)
    assert isinstance(h, int)
    _, r = lb.q_r(n, k)
    # (b) certifies beyond T1 <= the point where G(rT) >= c/c_inf; scan well past it
    T1 = lb._sharp_certified_T(n, c, k)
    assert lb.h_c_scan(n, c, k, T_max=T1 + 50) == h
    # definition: fails at h-1 (if h > 1), holds from h on (spot checks beyond T1 too)
    target = c * n**1.5 * math.sqrt(k)
    if h > 1:
        assert lb.exact_regret(n, h - 1, k) < target * math.sqrt(h - 1)
    for T in [h, h + 1, 2 * h, T1, 10 * T1, 1000 * T1]:
        assert lb.exact_regret(n, T, k) >= target * math.sqrt(T)


def test_h_c_rejects_c_at_or_above_limit():
    lim = (10 - 1) / (2 * 10 * math.sqrt(math.pi))
    with pytest.raises(ValueError, match="c"):
        lb.h_c(10, lim)
    with pytest.raises(ValueError, match="c"):
        lb.h_c(10, 0.3)
    with pytest.raises(ValueError, match="c"):
        lb.h_c(10, 0.0)
    lim_k = math.sqrt(9 * 7) / (2 * math.sqrt(math.pi) * 10)
    with pytest.raises(ValueError, match="c"):
        lb.h_c(10, lim_k * 1.0001, 3)
    assert lb.h_c(10, lim_k * 0.9, 3) >= 1


def test_h_c_linear_in_n():
    # h_c(n) ~ lambda*(c / c_inf) n / 2 : doubling n roughly doubles h_c
    h = [lb.h_c(n, 0.2) for n in (100, 200, 400)]
    assert 1.6 < h[1] / h[0] < 2.4
    assert 1.6 < h[2] / h[1] < 2.4


# --------------------------------------------------------------------------------------------
# the paper's route (theory §4.4)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "k", "T"), [(3, 1, 7), (5, 1, 9), (4, 2, 6), (5, 2, 7), (6, 3, 5)])
def test_joint_tail_prob_vs_direct_multinomial(n, k, T):
    xs = np.arange(-1, T + 3)
    got = lb.joint_tail_prob(n, T, xs, k)
    for x, g in zip(xs, got, strict=True):
        ref = joint_tail_direct(n, k, T, int(x))
        assert g == pytest.approx(float(ref), abs=1e-14), (n, k, T, x)
    assert isinstance(lb.joint_tail_prob(n, T, 2, k), float)


@pytest.mark.parametrize(
    ("n", "k", "T"), [(3, 1, 10), (5, 1, 40), (10, 1, 100), (4, 2, 12), (6, 3, 20), (10, 2, 40), (8, 4, 30)]
)
def test_negative_association(n, k, T):
    assert lb.negative_association_gap(n, T, k) <= 1e-15
    # the sum of joint tails is E L*_ell (theory §4.1 / §4.4)
    tails = lb.joint_tail_prob(n, T, np.arange(1, T + 1), k)
    l_ell = 0.5 * n * (n - 1) * tails.sum()
    assert l_ell - T * math.comb(k, 2) == pytest.approx(lb.expected_best_loss(n, T, k), rel=1e-12)


@pytest.mark.parametrize(
    ("n", "k", "T", "j"),
    [(10, 1, 100, 1), (10, 1, 100, 2), (5, 2, 40, 1.5), (20, 3, 600, 3), (6, 3, 12, 1), (50, 1, 10**4, 2)],
)
def test_route_total_is_upper_bound_on_best_loss(n, k, T, j):
    rb = lb.alpha_beta_gamma(n, T, j, k)
    l_ell_exact = T * k * (n - 1) / 2 - lb.exact_regret(n, T, k)
    assert rb.total >= l_ell_exact
    assert rb.regret_lower <= lb.exact_regret(n, T, k)
    assert rb.alg_loss == pytest.approx(T * k * (n - 1) / 2)
    assert rb.total == pytest.approx(rb.alpha + rb.beta + rb.gamma)
    # independent evaluation of the three pieces from scipy's binomial law
    p = k / n
    mu, sig = T * p, math.sqrt(T * p * (1 - p))
    S = n * (n - 1) / 2
    xs = np.arange(1, T + 1)
    P = stats.binom.sf(xs - 1, T, p)
    a_mask = xs <= mu - j * sig
    g_mask = xs > mu + j * sig
    b_mask = ~(a_mask | g_mask)
    assert rb.alpha == pytest.approx(S * a_mask.sum())
    assert rb.beta == pytest.approx(S * np.sum(P[b_mask] ** 2), rel=1e-12)
    assert rb.gamma == pytest.approx(S * np.sum(P[g_mask]), rel=1e-10, abs=1e-12)
    # and the exact split of E L*_ell obeys the bounds piece by piece
    J = lb.joint_tail_prob(n, T, xs, k) if T <= 2000 else None
    if J is not None:
        assert S * J[a_mask].sum() <= rb.alpha + 1e-9
        assert S * J[b_mask].sum() <= rb.beta + 1e-9
        assert S * J[g_mask].sum() <= rb.gamma + 1e-9


def test_route_clt_tends_to_kappa():
    for j in [1, 2, 3]:
        vals = []
        for T in [10**3, 10**5, 10**7]:
            rb = lb.alpha_beta_gamma(10, T, j)
            vals.append(rb.regret_lower / rb.scale)
            assert rb.regret_clt == pytest.approx(rb.scale * lb.kappa(j))
            assert rb.alg_loss - (rb.alpha_clt + rb.beta_clt + rb.gamma_clt) == pytest.approx(
                rb.regret_clt, rel=1e-9
            )
        assert abs(vals[-1] - lb.kappa(j)) < 2e-3
        assert abs(vals[-1] - lb.kappa(j)) < abs(vals[0] - lb.kappa(j))
    # j -> inf loses only sqrt((n-1)/n) against the exact constant
    n = 10
    rb = lb.alpha_beta_gamma(n, 10**6, 1)
    exact_const = lb.asymptotic_regret(n, 10**6) / rb.scale
    assert lb.kappa(math.inf) / exact_const == pytest.approx(math.sqrt((n - 1) / n), rel=1e-12)


# --------------------------------------------------------------------------------------------
# Monte Carlo
# --------------------------------------------------------------------------------------------


def test_monte_carlo_single_choice():
    rng = np.random.default_rng(np.random.SeedSequence(2024))
    f = lb.sample_frequencies(10, 100, 200_000, rng)
    assert f.shape == (200_000, 10) and f.dtype == np.int64
    assert np.all(f.sum(axis=1) == 100)
    reg = lb.hindsight_regret_from_frequencies(f, 100, 1)
    mean, se = reg.mean(), reg.std(ddof=1) / math.sqrt(reg.size)
    assert abs(mean - lb.exact_regret(10, 100)) < 4 * se
    assert se < 0.05


def test_monte_carlo_k_choice():
    rng = np.random.default_rng(np.random.SeedSequence(2024))
    n, k, T, reps = 8, 3, 40, 40_000
    f = lb.sample_frequencies(n, T, reps, rng, k=k)
    assert f.shape == (reps, n)
    assert np.all(f.sum(axis=1) == T * k)
    assert np.all(f <= T)
    # each item's frequency is Bin(T, k/n)
    assert f.mean() == pytest.approx(T * k / n, rel=5e-3)
    assert f[:, 0].var() == pytest.approx(T * k / n * (1 - k / n), rel=0.05)
    reg = lb.hindsight_regret_from_frequencies(f, T, k)
    mean, se = reg.mean(), reg.std(ddof=1) / math.sqrt(reg.size)
    assert abs(mean - lb.exact_regret(n, T, k)) < 4 * se


def test_k_subset_sampler_rounds_are_subsets():
    rng = np.random.default_rng(np.random.SeedSequence(7))
    f = lb.sample_frequencies(6, 1, 5000, rng, k=4)
    assert set(np.unique(f)) <= {0, 1}
    assert np.all(f.sum(axis=1) == 4)
    # uniform over the C(6,4) = 15 subsets
    codes = f @ (1 << np.arange(6))
    counts = np.bincount(codes, minlength=64)[
        [sum(1 << i for i in c) for c in itertools.combinations(range(6), 4)]
    ]
    assert counts.sum() == 5000
    chi2 = ((counts - 5000 / 15) ** 2 / (5000 / 15)).sum()
    assert stats.chi2.sf(chi2, 14) > 1e-4


def test_hindsight_identity_random_sequences_brute_force():
    """L*_ll = sum_pairs min(f) - T C(k, 2) against min over all 5! rankings."""
    rng = np.random.default_rng(np.random.SeedSequence(11))
    n = 5
    orders = list(itertools.permutations(range(n)))
    for k in [1, 2, 3]:
        for T in [1, 4, 9]:
            seq = [frozenset(rng.choice(n, size=k, replace=False).tolist()) for _ in range(T)]
            best = min(sum(pairwise_loss_binary(o, s) for s in seq) for o in orders)
            f = np.zeros(n, dtype=np.int64)
            for s in seq:
                f[list(s)] += 1
            got = lb.hindsight_regret_from_frequencies(f[None, :], T, k)
            assert got.shape == (1,)
            assert got[0] == T * k * (n - k) / 2 - best


# --------------------------------------------------------------------------------------------
# extremes: underflow, speed, precision
# --------------------------------------------------------------------------------------------


def test_no_underflow_huge_T():
    v = lb.exact_regret(10**5, 10**7)
    assert math.isfinite(v) and v > 0
    assert v == pytest.approx(lb.asymptotic_regret(10**5, 10**7, corrected=True), rel=1e-6)
    w = lb.exact_regret(100, 10**6)
    assert w == pytest.approx(lb.asymptotic_regret(100, 10**6, corrected=True), rel=1e-9)
    for n, k, T in [(3, 1, 10**7), (10, 5, 10**7), (2, 1, 10**7 + 1), (1000, 1, 1)]:
        x = lb.exact_regret(n, T, k)
        assert math.isfinite(x) and x > 0


def test_speed_exact_regret():
    lb.exact_regret(100, 10**6)
    t0 = time.perf_counter()
    for _ in range(5):
        lb.exact_regret(100, 10**6)
    assert (time.perf_counter() - t0) / 5 < 0.2


@pytest.mark.parametrize(
    ("n", "k", "T"),
    [
        (100, 1, 10**6),
        (10**5, 1, 10**7),
        (1000, 1, 10**7),
        (3, 1, 10**5),
        (10, 5, 2 * 10**5),
        (37, 11, 54321),
    ],
)
def test_float_vs_decimal_high_precision(n, k, T):
    ref = decimal_regret(n, k, T)
    assert lb.exact_regret(n, T, k) == pytest.approx(float(ref), rel=5e-15)


def test_float_vs_fraction_moderate_T():
    for n, k, T in [(10, 1, 2000), (7, 2, 1999), (100, 1, 2000)]:
        fr = lb.exact_regret(n, T, k, exact=True)
        assert lb.exact_regret(n, T, k) == pytest.approx(float(fr), rel=1e-13)
        assert float(decimal_regret(n, k, T)) == pytest.approx(float(fr), rel=1e-15)


def test_float_vs_scipy_boost_pmf():
    """Another independent route: scipy's (Boost) binomial pmf times exact e_N."""
    for n, k, T in [(10, 1, 3000), (6, 2, 2500)]:
        _, r = lb.q_r(n, k)
        N = np.arange(1, T + 1)
        e = np.array([float(e_exact(int(m))) for m in N])
        ref = n * (n - 1) / 4 * np.sum(stats.binom.pmf(N, T, r) * e)
        assert lb.exact_regret(n, T, k) == pytest.approx(ref, rel=1e-12)


# --------------------------------------------------------------------------------------------
# validation and simple closed forms
# --------------------------------------------------------------------------------------------


def test_expected_losses():
    assert lb.expected_alg_loss(10, 100) == 450.0
    assert lb.expected_alg_loss(6, 6, 3) == 27.0
    assert lb.expected_best_loss(10, 100) == pytest.approx(370.1186746836438341861, rel=1e-12)
    assert lb.expected_best_loss(6, 3 * 2, 3) == pytest.approx(15.79662, rel=1e-12)


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((1, 10, 1), "n"),
        ((2.5, 10, 1), "n"),
        ((5, 10, 0), "k"),
        ((5, 10, 5), "k"),
        ((5, 0, 1), "T"),
        ((5, 3.5, 1), "T"),
        ((5, -2, 1), "T"),
        ((True, 3, 1), "n"),
    ],
)
def test_validation(args, name):
    n, T, k = args
    with pytest.raises(ValueError, match=name):
        lb.exact_regret(n, T, k)
    with pytest.raises(ValueError, match=name):
        lb.exact_regret(n, T, k, exact=True)


def test_validation_other_functions():
    with pytest.raises(ValueError, match="k"):
        lb.q_r(4, 4)
    with pytest.raises(ValueError, match="j"):
        lb.alpha_beta_gamma(10, 100, 0)
    with pytest.raises(ValueError, match="rng"):
        lb.sample_frequencies(5, 10, 3, np.random.SeedSequence(1))
    with pytest.raises(ValueError, match="T"):
        lb.lower_bound_sharp(5, 0)
    assert lb.exact_regret(5, 10.0) == lb.exact_regret(5, 10)
