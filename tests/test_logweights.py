"""LogWeights, the per-replicate state of OnlineRank (theory §2.1, §2.5).

Oracles, independent of the package:

* exact expected pairwise loss by enumeration of all n! orders under the exact Plackett-Luce and
  QuickSort laws (Fraction arithmetic from the float weights), n <= 6;
* 60-digit Decimal evaluation of ``sum expit(a_v - a_c)`` (huge log-weights, wide ranges);
* Monte Carlo means of the pairwise loss of sampled orders (within 5 standard errors);
* reference values G3;
* recomputation from scratch of every cache after long runs of updates.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from laws import pl_law, qs_law

from onlinerank.logweights import LogWeights


def ellell(order, s) -> Fraction:
    """Pairwise loss (2.2) by its O(n^2) definition, exactly."""
    tot = Fraction(0)
    for i, u in enumerate(order):
        for v in order[i + 1 :]:  # u before v
            if s[v] > s[u]:
                tot += s[v] - s[u]
    return tot


def ellell_np(orders: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Pairwise loss of each row of ``orders`` against ``s`` (R, n), O(n^2) definition."""
    pos = np.argsort(orders, axis=1)
    before = pos[:, :, None] < pos[:, None, :]  # u before v
    gap = np.maximum(s[:, None, :] - s[:, :, None], 0.0)  # [s_v - s_u]_+
    return np.sum(gap * before, axis=(1, 2))


def dense_of(items: np.ndarray, n: int) -> np.ndarray:
    s = np.zeros((items.shape[0], n))
    np.put_along_axis(s, items, 1.0, axis=1)
    return s


def law_of(a_row: np.ndarray, law_fn) -> dict[tuple[int, ...], Fraction]:
    """Exact law (rational arithmetic) for the float weights ``exp(a - max a)``."""
    a_row = np.asarray(a_row, dtype=np.float64)
    return law_fn([Fraction(math.exp(x - a_row.max())) for x in a_row])


def exact_expected(law: dict, s_row: np.ndarray) -> Fraction:
    s = [Fraction(float(x)) for x in s_row]
    return sum(p * ellell(o, s) for o, p in law.items())


def dexpit(x: Decimal) -> Decimal:
    return 1 / (1 + (-x).exp())


def decimal_loss_items(a_row: np.ndarray, chosen) -> float:
    with localcontext() as ctx:
        ctx.prec = 60
        ctx.Emax = 10**8
        ctx.Emin = -(10**8)
        a = [Decimal(float(x)) for x in a_row]
        tot = Decimal(0)
        for c in chosen:
            for v in range(len(a)):
                if v not in chosen:
                    tot += dexpit(a[v] - a[c])
        return float(tot)


def decimal_loss_dense(a_row: np.ndarray, s_row: np.ndarray) -> float:
    with localcontext() as ctx:
        ctx.prec = 60
        ctx.Emax = 10**8
        ctx.Emin = -(10**8)
        a = [Decimal(float(x)) for x in a_row]
        s = [Decimal(float(x)) for x in s_row]
        tot = Decimal(0)
        for u in range(len(a)):
            for v in range(len(a)):
                if s[v] > s[u]:
                    tot += (s[v] - s[u]) * dexpit(a[u] - a[v])
        return float(tot)


def random_items(rng, R, n, k):
    return np.stack([rng.choice(n, size=k, replace=False) for _ in range(R)]).astype(np.int64)


# --------------------------------------------------------------------------------------------------
# reference values G3
# --------------------------------------------------------------------------------------------------
def _golden_state(R: int = 4) -> LogWeights:
    lw = LogWeights(0.5, R, 4)
    for item, times in ((0, 3), (1, 1), (3, 2)):  # S = (3, 1, 0, 2)
        for _ in range(times):
            lw.add_items(np.full((R, 1), item))
    np.testing.assert_array_equal(lw.S, np.tile([3.0, 1.0, 0.0, 2.0], (R, 1)))
    return lw


def test_golden_g3_single_choice_expected_position_loss():
    lw = _golden_state()
    got = lw.expected_loss_items(np.arange(4)[:, None])
    golden = [
        0.8289076139744968965027230,
        1.731058578630004879251159,
        2.171092386025503103497277,
        1.268941421369995120748841,
    ]
    np.testing.assert_allclose(got, golden, rtol=2e-16)


def test_golden_g3_pair_probs():
    P = _golden_state(1).pair_probs()[0]
    golden = {
        (0, 1): 0.7310585786300048792511592,
        (0, 2): 0.8175744761936436596072172,
        (0, 3): 0.6224593312018545646389006,
        (1, 3): 0.3775406687981454353610994,
        (2, 3): 0.2689414213699951207488408,
        (2, 0): 0.1824255238063563403927828,
    }
    for (u, v), val in golden.items():
        assert P[u, v] == pytest.approx(val, rel=2e-16)


# --------------------------------------------------------------------------------------------------
# exact expected loss = enumeration over all n! orders (PL and QuickSort laws)
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_expected_loss_items_equals_enumeration(n):
    rng = np.random.default_rng(100 + n)
    R = 4
    for eta, rounds in ((0.7, 3 * n), (2.5, 2 * n)):
        lw = LogWeights(eta, R, n)
        for _ in range(rounds):
            lw.add_items(rng.integers(0, n, size=(R, 1)))
        laws = [
            [law_of(lw.a[r], f) for f in ((pl_law, qs_law) if n <= 5 or r == 0 else (pl_law,))]
            for r in range(R)
        ]
        for k in (1, 2, 3):
            if k > n:
                continue
            items = random_items(rng, R, n, k)
            got = lw.expected_loss_items(items)
            s = dense_of(items, n)
            for r in range(R):
                for law in laws[r]:
                    ex = exact_expected(law, s[r])
                    assert got[r] == pytest.approx(float(ex), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_expected_loss_dense_equals_enumeration(n):
    rng = np.random.default_rng(200 + n)
    R = 3
    lw = LogWeights(0.9, R, n)
    lw.add_dense(rng.normal(size=(R, n)) * 2.0)
    s = rng.normal(size=(R, n)) * 3.0
    s[0, : n // 2] = s[0, 0]  # ties in s
    got = lw.expected_loss_dense(s)
    for r in range(R):
        for law_fn in (pl_law, qs_law) if n <= 5 or r == 0 else (pl_law,):
            ex = exact_expected(law_of(lw.a[r], law_fn), s[r])
            assert got[r] == pytest.approx(float(ex), rel=1e-12)


# --------------------------------------------------------------------------------------------------
# exact expected loss = Monte Carlo mean of sampled orders
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sampler", ["plackett-luce", "quicksort"])
def test_expected_loss_matches_monte_carlo(sampler):
    rng = np.random.default_rng(31)
    R, n = 40_000, 9
    lw = LogWeights(0.4, R, n)
    base = rng.integers(0, 6, size=n)
    for item in range(n):
        for _ in range(int(base[item])):
            lw.add_items(np.full((R, 1), item))
    orders = lw.sample(sampler, rng.integers(0, 2**64, size=R, dtype=np.uint64))
    for items in (np.full((R, 1), 3), np.tile([1, 4, 7], (R, 1))):
        exact = lw.expected_loss_items(items)
        assert np.ptp(exact) < 1e-12
        loss = ellell_np(orders, dense_of(items, n))
        se = loss.std() / math.sqrt(R)
        assert abs(loss.mean() - exact[0]) < 5 * se
    s = np.tile(rng.normal(size=n), (R, 1))
    exact = lw.expected_loss_dense(s)
    loss = ellell_np(orders, s)
    assert abs(loss.mean() - exact[0]) < 5 * loss.std() / math.sqrt(R)


# --------------------------------------------------------------------------------------------------
# numerics: |eta S| up to 1e6, dynamic ranges > 1500, every computation path
# --------------------------------------------------------------------------------------------------
def _numerics_states():
    """LogWeights exercising every path: histogram, cached weights, log form."""
    rng = np.random.default_rng(41)
    n = 24
    states = []
    # integer scores, few values, huge eta: histogram path, ranges up to 1500+
    lw = LogWeights(75.0, 3, n)
    for _ in range(60):
        lw.add_items(rng.integers(0, 3, size=(3, 1)))
    states.append(lw)
    # real scores: cached weights (|a| ~ 1e6, small and near-limit ranges) and log form (> 1500)
    lw = LogWeights(1.0, 5, n)
    S = np.stack(
        [
            1e6 + rng.normal(size=n) * 100.0,
            -1e6 + np.linspace(0.0, 599.0, n),
            1e6 + np.arange(n) * 1e-3,
            rng.normal(size=n) * 1000.0,
            np.concatenate([np.full(n // 2, -1e6), np.full(n - n // 2, 1e6)]) + rng.normal(size=n),
        ]
    )
    lw.add_dense(S)
    states.append(lw)
    # integer scores with many distinct values (no histogram), weights then log form
    lw = LogWeights(0.9, 2, n)
    lw.add_dense(np.stack([rng.permutation(n) * 20.0, rng.permutation(n) * 100.0]))
    states.append(lw)
    return states


def test_numerics_paths_are_all_exercised():
    states = _numerics_states()
    wmode = np.concatenate([lw._form for lw in states])
    hd = np.concatenate([lw._hist_sizes for lw in states])
    assert set(wmode.tolist()) == {0, 1}
    assert (hd >= 0).any() and (hd < 0).any()


@pytest.mark.parametrize("k", [1, 2, 3])
def test_numerics_expected_loss_items_vs_decimal(k):
    rng = np.random.default_rng(50 + k)
    for lw in _numerics_states():
        R, n = lw.S.shape
        for _ in range(3):
            items = random_items(rng, R, n, k)
            got = lw.expected_loss_items(items)
            assert np.all(np.isfinite(got))
            for r in range(R):
                ref = decimal_loss_items(lw.a[r], set(items[r].tolist()))
                assert got[r] == pytest.approx(ref, rel=1e-12, abs=1e-300)


def test_numerics_expected_loss_dense_vs_decimal():
    rng = np.random.default_rng(60)
    for lw in _numerics_states():
        R, n = lw.S.shape
        s = rng.normal(size=(R, n)) * rng.choice([1e-3, 1.0, 1e3], size=(R, 1))
        got = lw.expected_loss_dense(s)
        assert np.all(np.isfinite(got))
        for r in range(R):
            assert got[r] == pytest.approx(decimal_loss_dense(lw.a[r], s[r]), rel=1e-12)


def test_numerics_references_agree():
    rng = np.random.default_rng(61)
    for lw in _numerics_states():
        R, n = lw.S.shape
        items = random_items(rng, R, n, 2)
        np.testing.assert_allclose(
            lw.expected_loss_items(items), lw.reference_loss_items(items), rtol=1e-12, atol=1e-300
        )
        s = rng.normal(size=(R, n))
        np.testing.assert_allclose(lw.expected_loss_dense(s), lw.reference_loss_dense(s), rtol=1e-12)


# --------------------------------------------------------------------------------------------------
# incremental caches stay consistent
# --------------------------------------------------------------------------------------------------
def _check_caches(lw: LogWeights) -> None:
    from onlinerank._kernels import onlinerank as kernels

    a = lw.eta * lw._S
    for r in range(lw._S.shape[0]):
        if lw._form[r] == 0:
            x = a[r] - lw._shift[r]
            assert x.min() >= -kernels.LO and x.max() <= kernels.HI
            np.testing.assert_allclose(lw._weights[r], np.exp(x), rtol=1e-15)  # no drift
        if lw._hist_sizes[r] >= 0:
            v, c = np.unique(lw._S[r], return_counts=True)
            d = lw._hist_sizes[r]
            np.testing.assert_array_equal(lw._hist_values[r, :d], v)
            np.testing.assert_array_equal(lw._hist_counts[r, :d], c)


@pytest.mark.parametrize("eta", [0.2, 15.0])
def test_caches_consistent_after_many_updates(eta):
    rng = np.random.default_rng(71)
    R, n = 6, 40
    lw = LogWeights(eta, R, n)
    p = rng.dirichlet(np.full(n, 0.7))
    choices = rng.choice(n, size=(10_000, R, 1), p=p)
    seen_log_form = False
    for t in range(10_000):
        lw.add_items(choices[t])
        seen_log_form |= bool(lw._form.any())
        if t % 2500 == 2499:
            _check_caches(lw)
            items = random_items(rng, R, n, 1)
            fresh = LogWeights(eta, R, n)
            fresh.S = lw.S
            np.testing.assert_allclose(
                lw.expected_loss_items(items), fresh.expected_loss_items(items), rtol=1e-12, atol=1e-300
            )
            np.testing.assert_allclose(
                lw.expected_loss_items(items), lw.reference_loss_items(items), rtol=1e-12, atol=1e-300
            )
            r = t % R
            want = decimal_loss_items(lw.a[r], {int(items[r, 0])})
            assert lw.expected_loss_items(items)[r] == pytest.approx(want, rel=1e-12, abs=1e-300)
    assert np.all(lw._S.sum(axis=1) == 10_000)
    assert seen_log_form == (eta > 1)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 8, 16, 17, 40])
def test_histogram_of_every_row_is_numpys_unique(n):
    """``hist_build`` (insertion sort up to n = 16, the library sort above) gives each row's
    distinct values and counts as ``np.unique`` does, or -1 for a row with a non-integer score or
    more than ``capacity`` values."""
    from onlinerank._kernels import onlinerank as kernels

    rng = np.random.default_rng(90 + n)
    R = 60
    S = rng.integers(-3, 4, size=(R, n)).astype(float)
    S[::4] = rng.integers(0, 2, size=S[::4].shape)  # few distinct values
    S[1::7, 0] += 0.5  # non-integer
    S[2::9] *= 1e3
    lw = LogWeights(0.1, R, n)
    values, counts, sizes, capacity = lw._histogram()
    kernels.hist_build(S, (values, counts, sizes, capacity))
    for r in range(R):
        v, c = np.unique(S[r], return_counts=True)
        if np.any(v != np.floor(v)) or v.size > capacity:
            assert sizes[r] == -1, r
        else:
            assert sizes[r] == v.size
            np.testing.assert_array_equal(values[r, : v.size], v)
            np.testing.assert_array_equal(counts[r, : v.size], c)


def test_histogram_switches_off_and_weights_take_over():
    rng = np.random.default_rng(81)
    R, n = 3, 16  # at most n // 4 = 4 distinct values are tracked
    lw = LogWeights(0.3, R, n)
    for _ in range(200):
        lw.add_items(rng.integers(0, n, size=(R, 1)))
    assert np.all(lw._hist_sizes < 0)
    _check_caches(lw)
    items = random_items(rng, R, n, 2)
    np.testing.assert_allclose(lw.expected_loss_items(items), lw.reference_loss_items(items), rtol=1e-12)


def test_setters_rebuild_caches():
    rng = np.random.default_rng(91)
    lw = LogWeights(0.2, 3, 10)
    for _ in range(30):
        lw.add_items(rng.integers(0, 10, size=(3, 1)))
    items = random_items(rng, 3, 10, 1)
    lw.eta = 80.0
    _check_caches(lw)
    np.testing.assert_allclose(
        lw.expected_loss_items(items), lw.reference_loss_items(items), rtol=1e-12, atol=1e-300
    )
    with pytest.raises(ValueError):
        lw.S[0, 0] = 1.0  # read-only view: the caches cannot be bypassed
    lw.S = np.zeros((3, 10))
    np.testing.assert_allclose(lw.expected_loss_items(items), 4.5)
    with pytest.raises(ValueError):
        lw.add_items(np.full((3, 1), 10))
    with pytest.raises(ValueError):
        lw.expected_loss_items(np.array([[1, 2], [3, 3], [0, 1]]))
    with pytest.raises(ValueError):
        lw.add_dense(np.zeros((3, 9)))
    with pytest.raises(ValueError):
        lw.sample("gumbel", np.zeros(3, dtype=np.uint64))


def test_uniform_state_values():
    lw = LogWeights(0.7, 2, 7)
    np.testing.assert_allclose(lw.expected_loss_items(np.array([[0], [6]])), 3.0)
    np.testing.assert_allclose(lw.expected_loss_items(np.array([[0, 1], [2, 6]])), 5.0)
    s = np.tile(np.arange(7.0), (2, 1))
    np.testing.assert_allclose(
        lw.expected_loss_dense(s), 0.5 * sum(v - u for u in range(7) for v in range(u + 1, 7))
    )
    assert lw.expected_loss_items(np.zeros((2, 0), dtype=np.int64)).tolist() == [0.0, 0.0]


# --------------------------------------------------------------------------------------------------
# seeding: replicates are independent of the batch they are computed in
# --------------------------------------------------------------------------------------------------
def _run(eta, R, n, rows, items, dense, seeds, rounds):
    lw = LogWeights(eta, R, n)
    out = []
    for t in range(rounds):
        for sampler in ("plackett-luce", "quicksort"):
            out.append(lw.sample(sampler, seeds[t, rows]))
        out.append(lw.expected_loss_items(items[t, rows]))
        if t % 10 == 9:
            out.append(lw.expected_loss_dense(dense[t, rows]))
            lw.add_dense(dense[t, rows])
        else:
            lw.add_items(items[t, rows])
    return out


@pytest.mark.parametrize("eta", [0.3, 40.0])
def test_replicates_do_not_depend_on_the_batch(eta):
    rng = np.random.default_rng(101)
    R, n, rounds = 6, 30, 40
    items = np.stack([random_items(rng, R, n, 2) for _ in range(rounds)])
    dense = rng.normal(size=(rounds, R, n))
    seeds = rng.integers(0, 2**64, size=(rounds, R), dtype=np.uint64)
    whole = _run(eta, R, n, np.arange(R), items, dense, seeds, rounds)
    for block in (np.array([4, 0, 2]), np.array([5, 1, 3])):
        part = _run(eta, 3, n, block, items, dense, seeds, rounds)
        for w, p in zip(whole, part, strict=True):
            np.testing.assert_array_equal(w[block], p)


@pytest.mark.parametrize("n", [1, 2, 5, 12, 40])
def test_dense_rows_are_sorted_as_numpys_stable_argsort_orders_them(n):
    """``sort_dense_rows`` (the compiled inputs of the dense expected loss) equals numpy's stable
    argsort and gathers bit for bit, ties in item order (graded feedback has many), for contiguous
    and strided feedback; a non-finite entry is refused."""
    from onlinerank._kernels import onlinerank as kernels

    rng = np.random.default_rng(120 + n)
    R = 7
    lw = LogWeights(0.37, R, n)
    lw.add_dense(rng.normal(size=(R, n)) * 30.0)
    for s in (
        rng.integers(0, 4, size=(R, n)).astype(float),  # graded: ties
        -(np.argsort(rng.random((R, n)), axis=1) + 1.0),  # Spearman
        rng.normal(size=(R, 2 * n))[:, ::2],  # a strided view
    ):
        order = np.argsort(s, axis=1, kind="stable")
        want = (
            np.take_along_axis(s, order, axis=1),
            np.take_along_axis(lw._weights, order, axis=1),
            np.take_along_axis(lw._S, order, axis=1) * lw._eta,
        )
        got = np.empty((R, n)), np.empty((R, n)), np.empty((R, n))
        assert kernels.sort_dense_rows(s, lw._weights, lw._S, lw._eta, *got)
        for g, w in zip(got, want, strict=True):
            assert g.tobytes() == np.ascontiguousarray(w).tobytes()
    bad = np.zeros((R, n))
    bad[R - 1, n - 1] = np.nan
    with pytest.raises(ValueError, match="finite"):
        lw.expected_loss_dense(bad)


def test_dense_parallel_path_matches_serial_and_reference():
    from onlinerank import logweights
    from onlinerank._kernels import onlinerank as kernels

    rng = np.random.default_rng(111)
    R, n = 4, 300
    assert R * n * n >= logweights._PARALLEL_PAIRS
    lw = LogWeights(0.05, R, n)
    lw.add_dense(rng.normal(size=(R, n)) * np.array([[1.0], [100.0], [1e4], [3e4]]))
    assert set(lw._form.tolist()) == {0, 1}
    s = -(np.argsort(rng.random((R, n)), axis=1) + 1.0)  # Spearman feedback
    got = lw.expected_loss_dense(s)
    np.testing.assert_allclose(got, lw.reference_loss_dense(s), rtol=1e-12)
    order = np.argsort(s, axis=1, kind="stable")
    ss = np.ascontiguousarray(np.take_along_axis(s, order, axis=1))
    ws = np.ascontiguousarray(np.take_along_axis(lw._weights, order, axis=1))
    la = np.ascontiguousarray(np.take_along_axis(lw.a, order, axis=1))
    part = np.empty((R, (n + 1) // 2))
    kernels.expected_loss_dense_serial(ss, ws, la, lw._form, part)
    np.testing.assert_array_equal(part.sum(axis=1), got)  # thread count does not matter
