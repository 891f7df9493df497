"""Samplers of OnlineRank (theory §2.2-§2.4): exact laws, Lemma 6.1, and the fast samplers.

Oracles, independent of the package:

* the full QuickSort law by exact recursion over the pivot and the independent left/right coin
  flips (Fraction or Decimal arithmetic); the full Plackett-Luce law by its product formula;
* reference values G3/G4 values;
* chi-square goodness of fit of sampled orders against those laws (fixed seeds; a fit is accepted
  at p > 1e-3 and a misfit must reach p < 1e-6);
* math.log for the compiled logarithm; math.exp in the plain logistic formula for the compiled one.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from laws import marginal, pl_law, qs_law
from scipy import stats

from onlinerank import samplers
from onlinerank._kernels import onlinerank as kernels
from onlinerank.logweights import LogWeights
from onlinerank.samplers import (
    expit,
    pair_probs,
    plackett_luce,
    plackett_luce_rows,
    plackett_luce_sequential,
    quicksort,
    quicksort_reference,
    quicksort_rows,
)

P_ACCEPT = 1e-3  # a correct sampler fits its law at p > P_ACCEPT
P_REJECT = 1e-6  # a wrong law must be rejected at p < P_REJECT
N_FAST = 200_000  # samples for the compiled samplers
N_REF = 12_000  # samples for the literal (slow) references


# --------------------------------------------------------------------------------------------------
# exact laws (oracles: tests/laws.py) and goodness of fit
# --------------------------------------------------------------------------------------------------
def codes(orders: np.ndarray) -> np.ndarray:
    n = orders.shape[1]
    return orders @ (n ** np.arange(n - 1, -1, -1))


def chisq_p(orders: np.ndarray, law: dict) -> float:
    """p-value of the chi-square goodness of fit of sampled orders to an exact law."""
    n = orders.shape[1]
    keys = list(law)
    exp_p = np.array([float(law[k]) for k in keys])
    idx = {int(codes(np.array([k]))[0]): i for i, k in enumerate(keys)}
    c, cnt = np.unique(codes(orders), return_counts=True)
    obs = np.zeros(len(keys))
    for ci, k in zip(c, cnt, strict=True):
        obs[idx[int(ci)]] = k  # KeyError if an order outside the law's support appears
    assert obs.sum() == orders.shape[0] and len(keys) == math.factorial(n)
    return float(stats.chisquare(obs, exp_p * obs.sum() / exp_p.sum()).pvalue)


def two_sample_p(a: np.ndarray, b: np.ndarray) -> float:
    ca, cb = codes(a), codes(b)
    cats = np.union1d(ca, cb)
    table = np.array([[np.sum(ca == c) for c in cats], [np.sum(cb == c) for c in cats]])
    return float(stats.chi2_contingency(table).pvalue)


F = Fraction
WEIGHT_VECTORS = [
    (F(1), F(2), F(4)),
    (F(1), F(2), F(3), F(4)),
    (F(1),) * 5,
    (F(3), F(7), F(1), F(9), F(4)),
    (F(5), F(1)),
    (F(2),),
]


# --------------------------------------------------------------------------------------------------
# Lemma 6.1 and the full laws (exact)
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("w", WEIGHT_VECTORS, ids=lambda w: ",".join(map(str, w)))
def test_lemma_6_1_exact(w):
    for law in (qs_law(w), pl_law(w)):
        assert sum(law.values()) == 1
        assert len(law) == math.factorial(len(w))
        for u in range(len(w)):
            for v in range(len(w)):
                if u != v:
                    assert marginal(law, u, v) == w[u] / (w[u] + w[v])


@pytest.mark.parametrize("w", WEIGHT_VECTORS, ids=lambda w: ",".join(map(str, w)))
def test_full_laws_differ_unless_uniform(w):
    q, p = qs_law(w), pl_law(w)
    if len(set(w)) == 1:
        assert all(x == F(1, math.factorial(len(w))) for x in q.values())
        assert q == p
    elif len(w) >= 3:
        assert q != p


def test_golden_g4_124():
    w = (F(1), F(2), F(4))
    q, p = qs_law(w), pl_law(w)
    assert q == {
        (0, 1, 2): F(7, 135),
        (0, 2, 1): F(2, 27),
        (1, 0, 2): F(2, 27),
        (1, 2, 0): F(28, 135),
        (2, 0, 1): F(28, 135),
        (2, 1, 0): F(52, 135),
    }
    assert p == {
        (0, 1, 2): F(1, 21),
        (0, 2, 1): F(2, 21),
        (1, 0, 2): F(2, 35),
        (1, 2, 0): F(8, 35),
        (2, 0, 1): F(4, 21),
        (2, 1, 0): F(8, 21),
    }
    assert sum(abs(q[o] - p[o]) for o in q) / 2 == F(8, 189)


def test_golden_g4_1234():
    w = (F(1), F(2), F(3), F(4))
    q, p = qs_law(w), pl_law(w)
    table = {
        (0, 1, 2, 3): (F(29, 3150), F(1, 105)),
        (3, 2, 1, 0): (F(419, 3150), F(2, 15)),
        (3, 0, 1, 2): (F(307, 9450), F(2, 75)),
        (2, 3, 0, 1): (F(3, 50), F(2, 35)),
        (1, 2, 3, 0): (F(167, 3150), F(3, 50)),
    }
    for o, (qs_v, pl_v) in table.items():
        assert q[o] == qs_v and p[o] == pl_v
    # G3 (a): the marginal table, identical for both laws
    for u in range(4):
        for v in range(4):
            if u != v:
                assert marginal(q, u, v) == marginal(p, u, v) == F(u + 1, u + v + 2)


def test_golden_g3_g4_onlinerank_weights_decimal():
    """S = (3,1,0,2), eta = 0.5: weights exp(0.5 S) in 40-digit Decimal arithmetic."""
    with localcontext() as ctx:
        ctx.prec = 40
        w = tuple((Decimal("0.5") * s).exp() for s in (3, 1, 0, 2))
        q, p = qs_law(w), pl_law(w)
        tol = Decimal("1e-24")
        assert abs(q[(0, 3, 1, 2)] - Decimal("0.1473087251487571934882943")) < tol
        assert abs(p[(0, 3, 1, 2)] - Decimal("0.1434619656684837657249627")) < tol
        assert abs(q[(2, 1, 3, 0)] - Decimal("0.007913055429575236954872626")) < tol
        assert abs(p[(2, 1, 3, 0)] - Decimal("0.007142550692924951059420280")) < tol
        golden = {
            (0, 1): "0.7310585786300048792511592",
            (0, 2): "0.8175744761936436596072172",
            (0, 3): "0.6224593312018545646389006",
            (1, 3): "0.3775406687981454353610994",
            (2, 3): "0.2689414213699951207488408",
            (2, 0): "0.1824255238063563403927828",
        }
        P = pair_probs(0.5 * np.array([3.0, 1.0, 0.0, 2.0]))
        for (u, v), val in golden.items():
            assert abs(marginal(q, u, v) - Decimal(val)) < tol
            assert abs(marginal(p, u, v) - Decimal(val)) < tol
            assert P[u, v] == pytest.approx(float(val), rel=1e-15)


def test_pair_probs_and_expit():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(3, 6)) * 50
    P = pair_probs(a)
    assert P.shape == (3, 6, 6)
    assert np.all(np.diagonal(P, axis1=1, axis2=2) == 0)
    off = ~np.eye(6, dtype=bool)
    np.testing.assert_allclose((P + P.transpose(0, 2, 1))[:, off], 1.0, rtol=1e-15)
    x = np.array([-800.0, -40.0, -1e-3, 0.0, 2.5, 40.0, 800.0])
    ref = [1 / (1 + math.exp(-v)) if v > -700 else math.exp(v) for v in x]
    np.testing.assert_allclose(expit(x), ref, rtol=1e-15)
    assert pair_probs(a[0]).shape == (6, 6)


# --------------------------------------------------------------------------------------------------
# sampled orders against the exact laws (chi-square)
# --------------------------------------------------------------------------------------------------
W4 = (F(1), F(2), F(3), F(4))
LOGW4 = np.log(np.array([1.0, 2.0, 3.0, 4.0]))


def _lw_with(logw: np.ndarray, R: int) -> LogWeights:
    lw = LogWeights(1.0, R, logw.shape[0])
    lw.add_dense(np.broadcast_to(logw, (R, logw.shape[0])))
    return lw


def _lw_powers_of_two(R: int) -> LogWeights:
    """eta = ln 2 and integer scores (0,1,2,3): weights (1,2,4,8), histogram/weight caches."""
    lw = LogWeights(math.log(2.0), R, 4)
    for item, times in ((1, 1), (2, 2), (3, 3)):
        for _ in range(times):
            lw.add_items(np.full((R, 1), item))
    return lw


SAMPLERS = {
    "plackett_luce": lambda lg, N, rng: plackett_luce(lg, rng, size=N),
    "quicksort": lambda lg, N, rng: quicksort(lg, rng, size=N),
    "plackett_luce_rows": lambda lg, N, rng: plackett_luce_rows(
        np.tile(lg, (N, 1)), rng.integers(0, 2**64, size=N, dtype=np.uint64)
    ),
    "quicksort_rows": lambda lg, N, rng: quicksort_rows(
        np.tile(lg, (N, 1)), rng.integers(0, 2**64, size=N, dtype=np.uint64)
    ),
    "LogWeights.sample(plackett-luce)": lambda lg, N, rng: _lw_with(lg, N).sample(
        "plackett-luce", rng.integers(0, 2**64, size=N, dtype=np.uint64)
    ),
    "LogWeights.sample(quicksort)": lambda lg, N, rng: _lw_with(lg, N).sample(
        "quicksort", rng.integers(0, 2**64, size=N, dtype=np.uint64)
    ),
}


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_fast_sampler_fits_its_law(name):
    rng = np.random.default_rng(12345)
    orders = SAMPLERS[name](LOGW4, N_FAST, rng)
    assert orders.dtype == np.int64 and orders.shape == (N_FAST, 4)
    own, other = (qs_law(W4), pl_law(W4)) if "quick" in name else (pl_law(W4), qs_law(W4))
    assert chisq_p(orders, own) > P_ACCEPT
    assert chisq_p(orders, other) < P_REJECT  # (1,2,3,4): the two laws are told apart


@pytest.mark.parametrize("sampler", ["plackett-luce", "quicksort"])
def test_logweights_sample_integer_scores_fits_law(sampler):
    lw = _lw_powers_of_two(N_FAST)
    orders = lw.sample(sampler, np.arange(N_FAST, dtype=np.uint64) * np.uint64(7919))
    w = (F(1), F(2), F(4), F(8))
    law = qs_law(w) if sampler == "quicksort" else pl_law(w)
    assert chisq_p(orders, law) > P_ACCEPT


def test_quicksort_rejected_against_plackett_luce_124():
    rng = np.random.default_rng(7)
    lg = np.log(np.array([1.0, 2.0, 4.0]))
    w = (F(1), F(2), F(4))
    orders = quicksort(lg, rng, size=N_FAST)
    assert chisq_p(orders, qs_law(w)) > P_ACCEPT
    assert chisq_p(orders, pl_law(w)) < P_REJECT
    orders = plackett_luce(lg, rng, size=N_FAST)
    assert chisq_p(orders, pl_law(w)) > P_ACCEPT
    assert chisq_p(orders, qs_law(w)) < P_REJECT


def test_literal_references_fit_laws_and_agree_with_fast():
    rng = np.random.default_rng(2024)
    ref_pl = np.array([plackett_luce_sequential(LOGW4, rng) for _ in range(N_REF)])
    ref_qs = np.array([quicksort_reference(LOGW4, rng) for _ in range(N_REF)])
    assert chisq_p(ref_pl, pl_law(W4)) > P_ACCEPT
    assert chisq_p(ref_qs, qs_law(W4)) > P_ACCEPT
    fast_pl = plackett_luce(LOGW4, rng, size=N_REF)
    fast_qs = quicksort(LOGW4, rng, size=N_REF)
    assert two_sample_p(ref_pl, fast_pl) > P_ACCEPT
    assert two_sample_p(ref_qs, fast_qs) > P_ACCEPT
    assert two_sample_p(ref_qs, fast_pl) < P_REJECT  # the references are told apart, too


def test_shapes():
    rng = np.random.default_rng(0)
    lg = np.array([0.0, 1.0, -2.0])
    for f in (plackett_luce, quicksort):
        assert f(lg, rng).shape == (3,)
        assert f(lg, rng, size=5).shape == (5, 3)
        assert f(np.zeros((4, 3)), rng).shape == (4, 3)
        assert f(np.zeros((4, 3)), rng, size=4).shape == (4, 3)
        with pytest.raises(ValueError):
            f(np.zeros((4, 3)), rng, size=5)
        with pytest.raises(ValueError):
            f(np.array([0.0, np.nan]), rng)
        with pytest.raises(ValueError):
            f(np.array([0.0, np.inf]), rng)
    for f in (plackett_luce_rows, quicksort_rows):
        with pytest.raises(ValueError):
            f(np.zeros((2, 3)), np.zeros(3, dtype=np.uint64))
        with pytest.raises(ValueError):
            f(np.array([[0.0, np.nan]]), np.zeros(1, dtype=np.uint64))
        assert f(np.zeros((2, 0)), np.zeros(2, dtype=np.uint64)).shape == (2, 0)


# --------------------------------------------------------------------------------------------------
# numerics: huge log-weights and dynamic ranges
# --------------------------------------------------------------------------------------------------
def _pair_freq_test(orders, first, second, p_first_before_second):
    pos = np.argsort(orders, axis=1)
    x = np.mean(pos[:, first] < pos[:, second])
    se = math.sqrt(p_first_before_second * (1 - p_first_before_second) / orders.shape[0])
    assert abs(x - p_first_before_second) < 5 * se


@pytest.mark.parametrize("offset", [1e6, -1e6, 123456.789])
def test_huge_offset_law(offset):
    rng = np.random.default_rng(3)
    lg = offset + LOGW4
    assert chisq_p(plackett_luce(lg, rng, size=N_FAST), pl_law(W4)) > P_ACCEPT
    assert chisq_p(quicksort(lg, rng, size=N_FAST), qs_law(W4)) > P_ACCEPT


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_dynamic_range_log_form(name):
    """Row range > 1500 (log form): everything is deterministic except the pair (1, 2), which
    keeps its ratio 1 : 2 for both laws; plus a row of range 598 (smallest weight e^-598)."""
    rng = np.random.default_rng(11)
    N = 40_000
    lg = np.array([-1e6, 2000.0, 2000.0 + math.log(2.0), 1e6, 0.0, 1e6 - 1000.0])
    orders = SAMPLERS[name](lg, N, rng)
    assert np.all(orders[:, 0] == 3) and np.all(orders[:, 1] == 5)
    assert np.all(orders[:, 4] == 4) and np.all(orders[:, 5] == 0)
    _pair_freq_test(orders, 2, 1, 2.0 / 3.0)
    lg = np.array([0.0, 598.0, 598.0 + math.log(2.0)])
    orders = SAMPLERS[name](lg, N, rng)
    assert np.all(orders[:, 2] == 0)
    _pair_freq_test(orders, 2, 1, 2.0 / 3.0)


def test_compiled_log_accuracy():

    rng = np.random.default_rng(5)
    xs = np.concatenate(
        [
            rng.random(20_000),
            rng.random(2_000) * 1e-12,
            1.0 - rng.random(2_000) * 1e-12,
            rng.random(2_000) * 40.0,
            [2.0**-53, 0.5, 1.0 - 2.0**-53, 1.0, 2**-0.5, 2**0.5, 36.7, 1e300],
        ]
    )
    for x in xs:
        got = kernels._log(float(x))
        ref = math.log(float(x))
        assert abs(got - ref) <= math.ulp(ref) + 1e-300


def test_compiled_exp_accuracy():

    rng = np.random.default_rng(6)
    xs = np.concatenate(
        [
            rng.uniform(-700.0, 700.0, 20_000),
            rng.uniform(-1.0, 1.0, 5_000),
            rng.uniform(-1e-8, 1e-8, 1_000),
            [0.0, -0.0, 700.0, -700.0, 0.5 * math.log(2), -0.5 * math.log(2)],
        ]
    )
    for x in xs:
        got = kernels._exp(float(x))
        ref = math.exp(float(x))
        assert abs(got - ref) <= math.ulp(ref)


def _expit_formula(x: float) -> float:
    """The logistic function as the kernels compute it without their shortcuts (math.exp)."""
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def test_compiled_expit_shortcuts_are_bit_for_bit():
    """The compiled expit returns 1.0 above 37 and 0.0 below -750 without calling exp, and
    ``_expit_sum`` skips a term below 2**-53 once the sum reaches 1: the same bits as the plain
    formula and the plain running sum (the log-form rows of a long popularity run are mostly such
    terms)."""
    rng = np.random.default_rng(7)
    edges = [36.0, 36.7, 36.73, 36.74, 37.0, 37.5, 40.0, 700.0, 1e300, math.inf]
    xs = np.concatenate(
        [
            rng.uniform(-900.0, 900.0, 20_000),
            rng.uniform(-40.0, 40.0, 20_000),
            rng.uniform(-760.0, -700.0, 5_000),
            edges,
            [-x for x in edges],
            [-708.4, -744.4, -745.1, -745.2, -746.0, -749.9, -750.0, -750.1, 0.0, -0.0],
        ]
    )
    for x in xs:
        got, ref = kernels._expit(float(x)), _expit_formula(float(x))
        assert got == ref and math.copysign(1.0, got) == math.copysign(1.0, ref), x
    for span in (1.0, 30.0, 80.0, 600.0, 2000.0):
        # half the rows decreasing (items by popularity), half shuffled
        S = np.sort(rng.uniform(0.0, span, size=(40, 60)), axis=1)[:, ::-1].copy()
        S[20:] = rng.permuted(S[20:], axis=1)
        for r in range(S.shape[0]):
            ac = float(S[r, rng.integers(60)])
            lo, hi = sorted(rng.integers(0, 61, size=2))
            ref = 0.0
            for v in range(lo, hi):
                ref += _expit_formula(1.0 * S[r, v] - ac)
            assert kernels._expit_sum(S, 1.0, r, lo, hi, ac) == ref


def test_tie_repair_of_packed_keys():
    """Dropping almost the whole mantissa makes most keys tie: the repair must restore the exact
    order of the untruncated keys (the same order as with the default number of low bits)."""
    rng = np.random.default_rng(9)
    R, n = 7, 300
    S = np.ascontiguousarray(
        rng.normal(size=(R, n)) * np.array([[0.1], [1], [5], [50], [300], [2000], [1e5]])
    )
    seeds = rng.integers(0, 2**64, size=R, dtype=np.uint64)
    base = samplers._pl_sample(samplers._uncached(S), seeds)
    for bits in (20, 45, 52):
        got = samplers._pl_sample(samplers._uncached(S), seeds, lowbits=bits)
        np.testing.assert_array_equal(got, base)


def test_quicksort_close_calls_settled_exactly():
    """QuickSort draws its coins from packed (weight, item) records; the close calls are settled
    with the exact weights, so the orders do not depend on how many bits the packing takes."""
    rng = np.random.default_rng(10)
    R, n = 8, 300
    S = np.ascontiguousarray(
        rng.normal(size=(R, n)) * np.array([[0.1], [1], [5], [50], [300], [2000], [1e5], [0.0]])
    )
    S[5] += 1e6  # huge log-weights in the log form
    seeds = rng.integers(0, 2**64, size=R, dtype=np.uint64)
    base = samplers._qs_sample(samplers._uncached(S), seeds)
    for bits in (20, 45, 50, 52):
        got = samplers._qs_sample(samplers._uncached(S), seeds, lowbits=bits)
        np.testing.assert_array_equal(got, base)


def test_quicksort_realised_loss_sorts_only_what_the_chosen_items_need():
    """The simulator's QuickSort loss (``play_items``) sorts only the segments that hold a chosen
    item; each segment draws from its own stream, so the chosen items' positions are those of the
    whole order drawn with the same seed (``sample``): checked on rows of every scale (weight and
    log forms), with ties, for every number of chosen items, at n up to 300."""
    from onlinerank.seeding import draw_seeds

    rng = np.random.default_rng(11)
    for n in (1, 2, 3, 5, 17, 64, 300):
        R = 6
        S = np.ascontiguousarray(rng.normal(size=(R, n)) * np.array([[0.0], [0.1], [1], [20], [700], [1e4]]))
        S[1] = np.round(S[1] * 10)  # ties
        for k in sorted(k for k in {1, 2, n // 2, n - 1, n} if 1 <= k <= n):
            lw = LogWeights(1.0, R, n)
            lw.add_dense(S)
            keys = rng.integers(0, 2**64, size=R, dtype=np.uint64)
            t0 = int(rng.integers(1, 10**6))
            items = np.stack([rng.choice(n, size=k, replace=False) for _ in range(R)])[:, None, :]
            order = lw.sample("quicksort", draw_seeds(keys, t0))
            pos = np.argsort(order, axis=1)
            want = np.take_along_axis(pos, items[:, 0, :], axis=1).sum(axis=1) - k * (k - 1) / 2
            exp_loss, loss = np.zeros(R), np.zeros(R)
            lw.play_items(items, "quicksort", keys, t0, exp_loss, loss)
            np.testing.assert_array_equal(loss, want, err_msg=f"n={n} k={k}")


# --------------------------------------------------------------------------------------------------
# properties (hypothesis): every output is a permutation
# --------------------------------------------------------------------------------------------------
@st.composite
def logw_rows(draw, max_rows=3):
    n = draw(st.integers(1, 200))
    rows = draw(st.integers(1, max_rows))
    huge = st.floats(-1e6, 1e6, allow_nan=False)
    pool = draw(st.lists(huge | st.floats(-3, 3), min_size=1, max_size=4))  # ties
    elem = st.sampled_from(pool) | huge | st.floats(-700, 700)
    vals = draw(st.lists(elem, min_size=n * rows, max_size=n * rows))
    return np.array(vals, dtype=np.float64).reshape(rows, n)


def _is_perm(o, n):
    return o.dtype == np.int64 and np.array_equal(np.sort(o, axis=-1), np.broadcast_to(np.arange(n), o.shape))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(lg=logw_rows(), seed=st.integers(0, 2**64 - 1))
def test_outputs_are_permutations(lg, seed):
    R, n = lg.shape
    rng = np.random.default_rng(seed % 2**32)
    seeds = np.array([(seed + 977 * r) % 2**64 for r in range(R)], dtype=np.uint64)
    assert _is_perm(plackett_luce(lg[0], rng), n)
    assert _is_perm(quicksort(lg[0], rng), n)
    assert _is_perm(plackett_luce(lg[0], rng, size=2), n)
    assert _is_perm(quicksort(lg, rng), n)
    assert _is_perm(plackett_luce_rows(lg, seeds), n)
    assert _is_perm(quicksort_rows(lg, seeds), n)
    lw = LogWeights(1.0, R, n)
    lw.add_dense(lg)
    assert _is_perm(lw.sample("plackett-luce", seeds), n)
    assert _is_perm(lw.sample("quicksort", seeds), n)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    n=st.integers(1, 200),
    eta=st.sampled_from([0.0, 0.3, 50.0, 1e4]),
    rounds=st.integers(0, 60),
    seed=st.integers(0, 2**32 - 1),
)
def test_logweights_sample_permutations_after_updates(n, eta, rounds, seed):
    rng = np.random.default_rng(seed)
    lw = LogWeights(eta, 3, n)
    for _ in range(rounds):
        lw.add_items(rng.integers(0, n, size=(3, 1)))
    seeds = rng.integers(0, 2**64, size=3, dtype=np.uint64)
    assert _is_perm(lw.sample("plackett-luce", seeds), n)
    assert _is_perm(lw.sample("quicksort", seeds), n)


# --------------------------------------------------------------------------------------------------
# seeding: a row's order depends on its own seed and log-weights only
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("f", [plackett_luce_rows, quicksort_rows])
def test_rows_do_not_depend_on_the_batch(f):
    rng = np.random.default_rng(21)
    R, n = 37, 150
    scale = rng.choice([0.01, 1.0, 30.0, 1e3, 1e6], size=(R, 1))  # weight and log forms
    lg = rng.normal(size=(R, n)) * scale + rng.choice([0.0, 1e6], size=(R, 1))
    seeds = rng.integers(0, 2**64, size=R, dtype=np.uint64)
    whole = f(lg, seeds)
    out = np.empty_like(whole)
    cuts = np.sort(rng.choice(np.arange(1, R), size=6, replace=False))
    blocks = np.split(rng.permutation(R), cuts)
    for b in blocks:
        out[b] = f(lg[b], seeds[b])
    np.testing.assert_array_equal(out, whole)
    np.testing.assert_array_equal(f(lg, seeds), whole)  # same seeds, same orders
    other = f(lg, seeds + np.uint64(1))
    assert np.mean(np.all(other == whole, axis=1)) < 0.5  # different seeds, different orders


def test_public_samplers_follow_the_generator():
    lg = np.linspace(0, 3, 50)
    for f in (plackett_luce, quicksort):
        a = f(lg, np.random.default_rng(99), size=4)
        b = f(lg, np.random.default_rng(99), size=4)
        np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------------------------------
# the public samplers: speed changes only, the same orders
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("f, rows", [(plackett_luce, plackett_luce_rows), (quicksort, quicksort_rows)])
@pytest.mark.parametrize("n", [1, 7, 300, 2048, 5000])
@pytest.mark.parametrize("scale", [0.0, 0.7, 40.0])
def test_public_samplers_are_the_rows_path_on_broadcast_rows(f, rows, n, scale):
    """One vector for m orders (shared weights, no copy; keys sorted inside the output array) gives exactly
    the orders of the rows path on the broadcast array with the seeds drawn from the generator,
    in the weight form and in the log form (scale 40: range > 600)."""
    a = np.random.default_rng(n).normal(size=n) * scale
    m = 5
    want = rows(np.broadcast_to(a, (m, n)).copy(), np.random.default_rng(7).integers(0, 2**64, m, np.uint64))
    np.testing.assert_array_equal(f(a, np.random.default_rng(7), size=m), want)
    np.testing.assert_array_equal(f(a, np.random.default_rng(7)), want[0])
    two = np.stack([a, a[::-1]])
    want2 = rows(two, np.random.default_rng(8).integers(0, 2**64, 2, np.uint64))
    np.testing.assert_array_equal(f(two, np.random.default_rng(8)), want2)


def test_public_samplers_reject_bad_arguments():
    rng = np.random.default_rng(0)
    for f in (plackett_luce, quicksort):
        with pytest.raises(ValueError, match="size must be None or an integer >= 0"):
            f(np.zeros(3), rng, size=-1)
        with pytest.raises(ValueError, match="size must be None"):
            f(np.zeros((2, 3)), rng, size=3)
        with pytest.raises(ValueError, match="logw must have shape"):
            f(np.zeros((2, 3, 4)), rng)
        with pytest.raises(ValueError, match="logw must be finite"):
            f(np.array([0.0, np.inf]), rng, size=2)
