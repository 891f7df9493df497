"""Exact laws of QuickSort and Plackett–Luce against reference values G3/G4 (values derived by hand and by an
independent single-order recursion) and Lemma 6.1."""

from fractions import Fraction as F

import pytest

from onlinerank.laws import pair_marginals, plackett_luce_law, quicksort_law, total_variation


def test_golden_g4_weights_1_2_4():
    qs, pl = quicksort_law((1, 2, 4)), plackett_luce_law((1, 2, 4))
    expect_qs = {
        (0, 1, 2): F(7, 135),
        (0, 2, 1): F(2, 27),
        (1, 0, 2): F(2, 27),
        (1, 2, 0): F(28, 135),
        (2, 0, 1): F(28, 135),
        (2, 1, 0): F(52, 135),
    }
    expect_pl = {
        (0, 1, 2): F(1, 21),
        (0, 2, 1): F(2, 21),
        (1, 0, 2): F(2, 35),
        (1, 2, 0): F(8, 35),
        (2, 0, 1): F(4, 21),
        (2, 1, 0): F(8, 21),
    }
    assert qs == expect_qs and pl == expect_pl
    assert total_variation(qs, pl) == F(8, 189)


def test_golden_g4_weights_1_2_3_4():
    qs, pl = quicksort_law((1, 2, 3, 4)), plackett_luce_law((1, 2, 3, 4))
    for order, q, p in [
        ((0, 1, 2, 3), F(29, 3150), F(1, 105)),
        ((3, 2, 1, 0), F(419, 3150), F(2, 15)),
        ((3, 0, 1, 2), F(307, 9450), F(2, 75)),
        ((2, 3, 0, 1), F(3, 50), F(2, 35)),
        ((1, 2, 3, 0), F(167, 3150), F(3, 50)),
    ]:
        assert qs[order] == q and pl[order] == p, order
    assert sum(qs.values()) == 1 and sum(pl.values()) == 1


@pytest.mark.parametrize("w", [(1, 2, 3, 4), (5, 1, 2, 2, 9), (1, 1, 1)])
def test_lemma61_for_both_laws(w):
    for law in (quicksort_law(w), plackett_luce_law(w)):
        for (u, v), p in pair_marginals(law).items():
            assert p == F(w[u], w[u] + w[v])


def test_equal_weights_give_the_uniform_law_and_bad_weights_are_refused():
    assert set(quicksort_law((2, 2, 2)).values()) == {F(1, 6)}
    with pytest.raises(ValueError, match="positive"):
        plackett_luce_law((1, 0, 2))
    with pytest.raises(ValueError, match="n <= 8"):
        quicksort_law(range(1, 10))
