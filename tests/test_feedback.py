"""Losses, the identity ell - ellell = sum_pairs min(s), M (reference values G1), hindsight optimum."""

import itertools
import math

import numpy as np
import pytest

from onlinerank import complexity_M, family_M, pairwise_loss, position_loss
from onlinerank.feedback import (
    Feedback,
    k_choice,
    pair_abs_sum,
    pair_min_sum,
    single_choice,
    spearman_feedback,
    spearman_rho,
)
from onlinerank.hindsight import best_order, hindsight_loss, hindsight_loss_of_sequence


def pairwise_loss_definition(order, s):
    """The O(n^2) definition (2.2): sum over ordered pairs u before v of [s(v) - s(u)]_+."""
    n = len(order)
    tot = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            u, v = order[i], order[j]
            tot += max(s[v] - s[u], 0.0)
    return tot


def position_loss_definition(order, s):
    return sum(i * s[u] for i, u in enumerate(order))


def test_losses_match_definitions_and_identity():
    rng = np.random.default_rng(1)
    for n in (1, 2, 3, 5, 8):
        s = rng.normal(size=n)
        for order in itertools.permutations(range(n)) if n <= 5 else [rng.permutation(n)]:
            order = np.array(order)
            ell = position_loss(order, s)
            ll = pairwise_loss(order, s)
            assert ell == pytest.approx(position_loss_definition(order, s), abs=1e-12)
            assert ll == pytest.approx(pairwise_loss_definition(order, s), abs=1e-12)
            mins = sum(min(s[u], s[v]) for u, v in itertools.combinations(range(n), 2))
            assert ell - ll == pytest.approx(mins, abs=1e-12)


def test_identity_special_cases():
    """theory §1: single choice ell == ellell; k-choice difference C(k,2); Spearman -(n+1)n(n-1)/3."""
    rng = np.random.default_rng(2)
    n = 7
    order = rng.permutation(n)
    s1 = single_choice([3], n)[0]
    assert position_loss(order, s1) == pairwise_loss(order, s1)
    s3 = k_choice([[0, 4, 6]], n)[0]
    assert position_loss(order, s3) - pairwise_loss(order, s3) == 3
    for n in (3, 4, 5):
        sigma = rng.permutation(n) + 1
        s = spearman_feedback(sigma)
        d = position_loss(np.arange(n), s) - pairwise_loss(np.arange(n), s)
        assert d == pytest.approx(-(n + 1) * n * (n - 1) / 3)
    # -rho = ellell(pi, -sigma) - sum i^2 (theory §1)
    sigma = rng.permutation(6) + 1
    order = rng.permutation(6)
    rho = spearman_rho(order, sigma)
    pos = np.empty(6)
    pos[order] = np.arange(1, 7)
    assert rho == pytest.approx(float(pos @ sigma))
    assert -rho == pytest.approx(pairwise_loss(order, -sigma) - sum(i * i for i in range(1, 7)))


@pytest.mark.parametrize(
    "n, single, k2, subset, spear, spear_range",
    [
        (3, 2, 2, 2, 6, 4),
        (4, 3, 4, 4, 20, 10),
        (5, 4, 6, 6, 50, 20),
        (6, 5, 8, 9, 105, 35),
        (8, 7, 12, 16, 336, 84),
        (10, 9, 16, 25, 825, 165),
    ],
)
def test_M_golden_G1(n, single, k2, subset, spear, spear_range):
    assert family_M("single", n) == single
    assert family_M("kchoice", n, 2) == k2
    assert family_M("subset", n) == subset
    assert family_M("spearman", n) == spear
    # brute-force maximum of the defining sum over the family's vectors
    if n <= 6:
        subsets = [np.array(m, float) for m in itertools.product([0, 1], repeat=n)]
        assert complexity_M(np.array(subsets)) == subset
        assert complexity_M(np.array([v for v in subsets if v.sum() == 2])) == k2
        assert complexity_M(np.eye(n)) == single
        perms = np.array(list(itertools.permutations(range(1, n + 1))), float)
        assert complexity_M(-perms) == pytest.approx(spear)
        # Spearman loss range max_pi ellell(pi, -sigma) = (n^3 - n)/6 (G1 last column)
        sigma = perms[0]
        rng_max = max(pairwise_loss(np.array(o), -sigma) for o in itertools.permutations(range(n)))
        assert rng_max == spear_range


def test_pair_sums_by_sorting_match_pairs():
    rng = np.random.default_rng(3)
    s = rng.normal(size=(4, 9))
    for row, a, m in zip(s, pair_abs_sum(s), pair_min_sum(s), strict=True):
        pairs = list(itertools.combinations(row, 2))
        assert a == pytest.approx(sum(abs(x - y) for x, y in pairs))
        assert m == pytest.approx(sum(min(x, y) for x, y in pairs))


def test_feedback_container_compact_equals_dense():
    rng = np.random.default_rng(4)
    n, R = 9, 5
    items = np.stack([rng.choice(n, 3, replace=False) for _ in range(R)])
    fb = Feedback(n, items=items, family="kchoice")
    dense = Feedback(n, values=k_choice(items, n))
    orders = np.stack([rng.permutation(n) for _ in range(R)])
    np.testing.assert_allclose(fb.pairwise_loss(orders), dense.pairwise_loss(orders))
    np.testing.assert_allclose(fb.pair_abs_sum(), dense.pair_abs_sum())
    np.testing.assert_allclose(fb.pair_min_sum(), dense.pair_min_sum())
    S1, S2 = np.zeros((R, n)), np.zeros((R, n))
    fb.add_to(S1)
    dense.add_to(S2)
    np.testing.assert_array_equal(S1, S2)


def test_bad_feedback_is_rejected():
    with pytest.raises(ValueError, match="repeated"):
        k_choice([[1, 1]], 4)
    with pytest.raises(ValueError, match="0..3"):
        k_choice([[4]], 4)
    with pytest.raises(ValueError, match="positions"):
        spearman_feedback([1, 1, 2])
    with pytest.raises(ValueError):
        Feedback(3)


def test_hindsight_optimum_matches_brute_force():
    """L_T(pi*) closed form == min over all n! rankings (theory §1, §5.5)."""
    rng = np.random.default_rng(5)
    for n, T, kind in [(4, 7, "real"), (5, 6, "binary"), (5, 9, "single"), (4, 5, "spearman")]:
        if kind == "real":
            seq = rng.normal(size=(T, n))
        elif kind == "binary":
            seq = (rng.random((T, n)) < 0.4).astype(float)
        elif kind == "single":
            seq = single_choice(rng.integers(n, size=T), n)
        else:
            seq = -np.stack([rng.permutation(n) + 1 for _ in range(T)]).astype(float)
        brute = min(
            pairwise_loss(np.broadcast_to(np.array(o), seq.shape), seq).sum()
            for o in itertools.permutations(range(n))
        )
        abs_total = pair_abs_sum(seq).sum()
        assert hindsight_loss(seq.sum(0), abs_total) == pytest.approx(brute, abs=1e-9)
        assert hindsight_loss_of_sequence(seq) == pytest.approx(brute, abs=1e-9)
        order = best_order(seq.sum(0))
        assert pairwise_loss(np.broadcast_to(order, seq.shape), seq).sum() == pytest.approx(brute)
        batch = np.stack([seq, seq[::-1] * 2.0, seq[:1].repeat(T, axis=0)])  # (3, T, n): a batch
        want = [hindsight_loss_of_sequence(x) for x in batch]
        np.testing.assert_allclose(hindsight_loss_of_sequence(batch), want, atol=1e-9)
        np.testing.assert_allclose(want[1], 2 * brute, atol=1e-9)  # order of rounds is irrelevant


def test_M_identity_sum_of_squares():
    rng = np.random.default_rng(6)
    s = rng.normal(size=(3, 7))
    direct = max(sum((r[u] - r[v]) ** 2 for u, v in itertools.combinations(range(7), 2)) for r in s)
    assert complexity_M(s) == pytest.approx(direct)
    assert math.isclose(family_M("kchoice", 10, 3), 21)


def test_family_M_on_arrays_equals_the_scalar_formula():
    """One formula for M: integer arrays of n (and k) give the scalar values elementwise, and
    bounds.py's binary-family M is the same function."""
    from onlinerank import bounds

    ns = np.array([2, 3, 10, 101, 4000])
    for fam in ("single", "subset", "spearman"):
        got = family_M(fam, ns)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, [family_M(fam, int(n)) for n in ns])
    np.testing.assert_array_equal(family_M("kchoice", ns, 2), [family_M("kchoice", int(n), 2) for n in ns])
    np.testing.assert_array_equal(family_M("kchoice", 40, np.array([1, 4, 16])), [39.0, 144.0, 384.0])
    np.testing.assert_array_equal(bounds.hedge_loss_range("subset", ns), family_M("subset", ns))
    assert family_M("spearman", 4) == 20.0 and family_M("subset", 5) == 6.0
    with pytest.raises(ValueError, match="no closed form for family 'graded'"):
        family_M("graded", ns)
