"""onlinerank.lower_tables: the lower-bound stage's tables, against brute-force enumeration of the
random adversary (tiny n, T), the definitions of h_c and of the route's bound, and the Binomial law."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from onlinerank import lowerbound
from onlinerank.lower_tables import T_grid, abg_rows, exact_curve_rows, frequency_rows, hc_rows, minimum_rows
from onlinerank.settings import Curves, Frequencies, HcGrid, Horizons, Route
from onlinerank.tables import columns

LN2 = math.log(2)


def _curves(n: int, k: int) -> Curves:
    """The curves' grid at one (n, k) (the minimum's builder reads n and k only)."""
    return Curves(n=(n,), k=(k,), T=Horizons(min=1, max=2, points=2))


def brute_force_regret(n: int, k: int, T: int) -> Fraction:
    """E[regret] of any algorithm against uniform k-subsets, by enumerating every sequence:
    ``T k(n-k)/2 - E[L*]`` with ``L* = sum_{u<v} min(f_u, f_v) - T C(k, 2)`` (theory §4.1)."""
    subsets = list(itertools.combinations(range(n), k))
    total = Fraction(0)
    for seq in itertools.product(subsets, repeat=T):
        f = [0] * n
        for s in seq:
            for u in s:
                f[u] += 1
        best = sum(min(f[u], f[v]) for u, v in itertools.combinations(range(n), 2)) - T * math.comb(k, 2)
        total += best
    return Fraction(T * k * (n - k), 2) - total / len(subsets) ** T


def test_T_grid_is_distinct_sorted_integers_between_the_ends():
    g = T_grid(Horizons(min=1, max=10_000, points=12))
    assert g.dtype.kind == "i"
    assert g[0] == 1 and g[-1] == 10_000
    assert np.all(np.diff(g) > 0)
    assert len(g) == 12
    assert list(T_grid(Horizons(min=1, max=4, points=10))) == [1, 2, 3, 4]  # duplicates merged


def test_exact_curves_against_enumeration_of_every_sequence():
    sec = Curves(n=(3, 4), k=(1, 2), T=Horizons(min=1, max=4, points=4))
    rows = exact_curve_rows(sec)
    assert {(r["n"], r["k"]) for r in rows} == {(3, 1), (4, 1), (4, 2)}  # k = 2 > 3/2 skipped
    assert all(tuple(r) == columns("lower_curves") for r in rows)
    for r in rows:
        n, k, T = r["n"], r["k"], r["T"]
        assert r["exact"] == pytest.approx(float(brute_force_regret(n, k, T)), rel=1e-12, abs=1e-12)
        assert r["scale"] == pytest.approx(n**1.5 * math.sqrt(k * T))
        assert r["thm31_paper"] == pytest.approx(n * math.sqrt(T * k * (n - k) * LN2))
        assert r["thm31_optimal"] == pytest.approx(math.sqrt(n * (n - 1) * T * k * (n - k) * LN2))
        assert r["exact"] <= r["thm31_optimal"]  # Theorem 3.1 bounds every algorithm's worst case


def test_explicit_lower_bounds_are_below_the_exact_regret_where_they_hold():
    sec = Curves(n=(5, 10), k=(1, 2), T=Horizons(min=1, max=10_000, points=15))
    for r in exact_curve_rows(sec):
        assert r["sharp"] <= r["exact"] * (1 + 1e-12)
        if r["T"] >= r["h_holder"]:
            assert r["holder"] <= r["exact"] * (1 + 1e-12)


def test_h_c_is_the_first_horizon_from_which_the_regret_stays_above_c_n32_sqrt_T():
    rows = hc_rows(HcGrid(n=(4, 8, 16), c=(0.05, 0.2, 10.0), k=1))
    assert len(rows) == 9
    for r in rows:
        n, c = r["n"], r["c"]
        assert r["limit"] == pytest.approx(lowerbound.h_c_limit(n, 1))
        if c >= r["limit"]:
            assert r["h_c"] == -1  # c at or above the limit: never for good
            continue
        h = r["h_c"]
        Ts = np.arange(1, 20_001)
        exact = lowerbound.exact_regret_all(n, int(Ts[-1]))[1:]  # T = 1..20000 in O(T)
        assert exact[[0, 99, 19_999]] == pytest.approx(
            [float(lowerbound.exact_regret(n, T)) for T in (1, 100, 20_000)]
        )
        ok = exact >= c * n**1.5 * np.sqrt(Ts)
        assert ok[h - 1 :].all()
        assert h == 1 or not ok[h - 2]
    assert [r["h_c"] for r in rows if r["c"] == 10.0] == [-1, -1, -1]
    assert len({r["h_c"] for r in rows if r["c"] == 0.2}) > 1  # not a constant


def test_route_rows_bound_the_exact_regret_from_below():
    sec = Route(n=10, T=200, k=1, j=(0.5, 1, 2, 3))
    rows = abg_rows(sec)
    exact = float(lowerbound.exact_regret(10, 200))
    assert [r["j"] for r in rows] == [0.5, 1.0, 2.0, 3.0]
    for r in rows:
        assert tuple(r) == columns("lower_abg")
        assert r["exact_regret"] == pytest.approx(exact)
        assert r["regret_lower"] <= exact
        assert r["alg_loss"] == pytest.approx(200 * 9 / 2)  # T k(n-k)/2
        assert r["exact_best_loss_position"] == pytest.approx(r["alg_loss"] - exact)  # k = 1: C(k,2) = 0
    assert np.all(np.diff([r["regret_lower"] for r in rows]) > 0)  # sharper as j grows here


def test_frequency_rows_histogram_next_to_the_binomial_pmf():
    sec = Frequencies(n=6, T=30, k=1, reps=4000)
    rows = frequency_rows(sec, seed=5)
    assert rows == frequency_rows(sec, seed=5)  # a named random stream
    assert [r["count"] for r in rows] != [r["count"] for r in frequency_rows(sec, seed=6)]
    xs = [r["x"] for r in rows]
    assert xs == list(range(xs[0], xs[-1] + 1))
    p = 1 / 6
    for r in rows:
        assert r["pmf"] == pytest.approx(math.comb(30, r["x"]) * p ** r["x"] * (1 - p) ** (30 - r["x"]))
        assert r["freq"] == r["count"] / 4000
    assert 1 - 2e-6 <= sum(r["pmf"] for r in rows) <= 1 + 1e-12
    assert sum(r["count"] for r in rows) <= 4000
    r = rows[0]
    assert r["regret_exact"] == pytest.approx(float(lowerbound.exact_regret(6, 30)))
    assert abs(r["regret_mc_mean"] - r["regret_exact"]) < 4 * r["regret_mc_sem"]
    # the histogram follows the law: total variation over the window is small for 4000 draws
    assert 0.5 * sum(abs(r["freq"] - r["pmf"]) for r in rows) < 0.05


@pytest.mark.parametrize(("n", "k"), [(3, 1), (4, 1), (4, 2), (5, 2), (6, 3)])
def test_the_minimum_over_every_T_from_h_is_the_brute_force_minimum(n, k):
    """Theorem 3.3's statistic (theory §4.5 e): the minimum over every integer T >= ceil(h) found by
    the recurrence and certified by bound (b) equals the minimum over every integer T of a range
    three times the scanned one, each T from exact rational arithmetic (to T = 400) or the log-space
    sum (beyond): two routes independent of the recurrence."""
    rows = minimum_rows(_curves(n, k))
    assert len(rows) == 1
    m = rows[0]
    assert m["T_from"] == math.ceil(Fraction(n * (n - 1), 2 * k * (n - k)))  # h(n, k) = 1/r, exactly
    scale = n**1.5 * math.sqrt(k)
    ratios = {}
    for T in range(m["T_from"], 3 * m["T_to"] + 1):
        exact = lowerbound.exact_regret(n, T, k, exact=True) if T <= 400 else lowerbound.exact_regret(n, T, k)
        ratios[T] = float(exact) / (scale * math.sqrt(T))
    T_min = min(ratios, key=ratios.get)
    assert m["T_min"] == T_min
    assert m["ratio_min"] == pytest.approx(ratios[T_min], rel=1e-12)
    assert m["exact"] == pytest.approx(float(lowerbound.exact_regret(n, T_min, k, exact=True)), rel=1e-12)
    # the certificate: bound (b) over the scale is at least the minimum from T_to on
    for T in (m["T_to"], 2 * m["T_to"], 10**6):
        assert lowerbound.lower_bound_sharp(n, T, k) / (scale * math.sqrt(T)) >= m["ratio_min"]
    assert m["bound_ratio_at_T_to"] >= m["ratio_min"] and m["limit"] == lowerbound.h_c_limit(n, k)


def test_the_minimum_is_below_every_horizon_of_a_log_grid():
    """At n = 50, k = 1 the old log grid's first horizon above h = 25 was T = 27 (ratio 0.2385); the
    minimum over every T is at T = 25 itself (0.2352, from the exact rational value)."""
    m = minimum_rows(_curves(50, 1))[0]
    assert (m["T_from"], m["T_min"]) == (25, 25)
    exact25 = float(lowerbound.exact_regret(50, 25, 1, exact=True)) / (50**1.5 * 5)
    assert m["ratio_min"] == pytest.approx(exact25, rel=1e-12) and round(exact25, 4) == 0.2352
    grid = [T for T in T_grid(Horizons(min=1, max=10**7, points=60)) if T >= 25]
    assert grid[0] == 27
    assert all(
        float(lowerbound.exact_regret(50, int(T))) / (50**1.5 * math.sqrt(T)) > m["ratio_min"] for T in grid
    )
