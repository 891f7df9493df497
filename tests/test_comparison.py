"""onlinerank.comparison: the Section 4 table of each baseline's bound over Theorem 3.1's, checked
against hand-written closed forms (the formulas themselves: tests/test_comparison_bounds.py)."""

import math

import pytest

from onlinerank.comparison import (
    CLAIMED,
    METHODS,
    bound_comparison_markdown,
    bound_comparison_rows,
    comparison_horizon,
)
from onlinerank.settings import BoundComparison, KSweep

LN2 = math.log(2)


def test_comparison_horizon_is_ceil_of_factor_n_ln_n():
    assert comparison_horizon(10, 100) == math.ceil(1000 * math.log(10))
    assert comparison_horizon(2, 0.5) == math.ceil(math.log(2))  # 0.69.. -> 1
    assert comparison_horizon(2, 1e-9) == 1  # at least one round
    for n in (3, 50, 1000):
        T = comparison_horizon(n, 7.5)
        assert T - 1 < 7.5 * n * math.log(n) <= T


SEC = BoundComparison(
    families=("single", "kchoice", "subset", "spearman"),
    n=(3, 10, 100),
    k=(2,),
    k_sweep=KSweep(n=40, k=(1, 4, 20, 21)),
    T_factor=10,
)


def test_rows_cover_the_sweeps_and_skip_k_above_n_over_2():
    rows = bound_comparison_rows(SEC)
    keys = [(r["family"], r["sweep"], r["n"], r["k"], r["method"]) for r in rows]
    assert len(keys) == len(set(keys))
    by_n = {(f, n) for f, s, n, k, m in keys if s == "n"}
    assert by_n == {(f, n) for f in SEC.families for n in SEC.n} - {("kchoice", 3)}  # 2k > n
    assert {k for f, s, n, k, m in keys if s == "k"} == {1, 4, 20}  # k = 21 > 40/2 is skipped
    assert all(f == "kchoice" and n == 40 for f, s, n, k, m in keys if s == "k")
    assert {m for *_, m in keys} == set(METHODS)


def test_hedge_single_row_against_its_closed_form():
    (r,) = [
        x for x in bound_comparison_rows(SEC) if (x["family"], x["n"], x["method"]) == ("single", 10, "hedge")
    ]
    n, T = 10, comparison_horizon(10, 10)
    hedge = (n - 1) * math.sqrt(T * math.log(math.factorial(n)) / 2)  # M sqrt(T ln n! / 2), M = n - 1
    thm = n * math.sqrt(T * (n - 1) * LN2)
    assert r["T"] == T
    assert r["bound"] == pytest.approx(hedge, rel=1e-12)
    assert r["thm31"] == pytest.approx(thm, rel=1e-12)
    assert r["ratio"] == pytest.approx(hedge / thm, rel=1e-12)
    assert r["claimed"] == CLAIMED[("hedge", "single")] == "Ω(√log n)"
    assert r["claimed_value"] == pytest.approx(math.sqrt(math.log(n)))
    assert r["ratio_over_claimed"] == pytest.approx(hedge / thm / math.sqrt(math.log(n)))


def test_fpl_kchoice_row_against_its_closed_form():
    (r,) = [
        x
        for x in bound_comparison_rows(SEC)
        if (x["family"], x["sweep"], x["k"], x["method"]) == ("kchoice", "k", 4, "fpl")
    ]
    n, k, T = 40, 4, comparison_horizon(40, 10)
    D, R, A = n * n // 2, k * (n - k), k
    assert r["bound"] == pytest.approx(2 * math.sqrt(D * R * A * T), rel=1e-12)
    assert r["thm31"] == pytest.approx(n * math.sqrt(T * k * (n - k) * LN2), rel=1e-12)
    assert r["claimed_value"] == pytest.approx(math.sqrt(k))


def test_every_row_is_consistent():
    for r in bound_comparison_rows(SEC):
        assert r["ratio"] == pytest.approx(r["bound"] / r["thm31"], rel=1e-14)
        assert r["ratio_over_claimed"] == pytest.approx(r["ratio"] / r["claimed_value"], rel=1e-14)
        assert r["claimed"] == CLAIMED[(r["method"], r["family"])]
        assert r["T"] == comparison_horizon(r["n"], SEC.T_factor)


def test_markdown_has_one_line_per_row():
    rows = bound_comparison_rows(SEC)
    md = bound_comparison_markdown(rows, 10)
    lines = md.splitlines()
    table = [ln for ln in lines if ln.startswith("| ") and not ln.startswith("| family")]
    assert len(table) == len(rows)
    assert "T = ⌈10 n ln n⌉" in md
    r = rows[0]
    assert table[0] == (
        f"| {r['family']} | {r['sweep']} | {r['k']} | {r['n']} | {r['T']} | {r['method']} | "
        f"{r['bound']:.4g} | {r['thm31']:.4g} | {r['ratio']:.3f} | {r['claimed']} | "
        f"{r['ratio_over_claimed']:.3f} |"
    )
    assert md.endswith("\n")
