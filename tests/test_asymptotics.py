"""onlinerank.asymptotics: the Section 4 / §5 Omega statements decided exactly (theory §3.3).

The constants against hand-derived closed forms and against the numeric bounds of
onlinerank.bounds (an independent code path) at the point where the infimum lies; the
monotonicity the decision proves, spot-checked numerically; wrong claimed factors decided false
with their path; the expressions tied to the table rows of onlinerank.comparison.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from onlinerank import asymptotics as A
from onlinerank import bounds as B
from onlinerank.comparison import bound_comparison_rows
from onlinerank.pipeline import code_inputs
from onlinerank.settings import BoundComparison, KSweep

LN2 = math.log(2)
ROOT = Path(__file__).resolve().parents[1]

#: (method, family) -> (kind, c, n where c is attained (None: approached as n -> oo), L), by hand
EXPECTED = {
    ("hedge", "single"): ("symbolic", 1 / math.sqrt(8 * LN2), 2, 1 / math.sqrt(2 * LN2)),
    ("hedge", "kchoice"): ("symbolic", 1 / math.sqrt(8 * LN2), 2, 1 / (2 * math.sqrt(LN2))),
    ("hedge", "subset"): (
        "symbolic",
        math.sqrt(2 * math.log(6) / (54 * LN2 * math.log(3))),  # n = 3: M = 2, ln 3! = ln 6
        3,
        1 / math.sqrt(8 * LN2),
    ),
    ("hedge", "spearman"): ("symbolic", 1 / (4 * math.sqrt(LN2)), 2, 1 / math.sqrt(6 * LN2)),
    ("fpl", "single"): ("identity", 4 / (3 * math.sqrt(LN2)), 3, math.sqrt(2 / LN2)),
    ("fpl", "kchoice"): ("identity", 4 / (3 * math.sqrt(LN2)), 3, math.sqrt(2 / LN2)),
    ("fpl", "subset"): ("identity", 4 * math.sqrt(3) / (9 * math.sqrt(LN2)), 3, 1 / math.sqrt(LN2)),
    ("fpl", "spearman"): ("symbolic", math.sqrt(2 / LN2), None, math.sqrt(2 / LN2)),
    ("permelearn", "single"): ("symbolic", 1 / math.sqrt(2 * LN2), 2, 1 / math.sqrt(LN2)),
    ("permelearn", "kchoice"): ("symbolic", 1 / math.sqrt(2 * LN2), 2, 1 / math.sqrt(LN2)),
    ("permelearn", "subset"): ("symbolic", 1 / math.sqrt(2 * LN2), 2, math.sqrt(2 / LN2)),
    ("permelearn", "spearman"): ("symbolic", 1 / math.sqrt(2 * LN2), 2, math.sqrt(6 / LN2)),
}
#: T -> oo for the numeric evaluation (PermELearn's additive n ln n term is then < 1e-14 relative)
T_INF = 1e32


def numeric(method, family, n, k=1, T=T_INF):
    """(baseline bound / Theorem 3.1) / claimed factor from the numeric code (onlinerank.bounds)."""
    return float(B.ratio_to_theorem31(method, family, n, T, k) / B.claimed_factor(method, family, n, k))


@pytest.mark.parametrize(("method", "family"), sorted(EXPECTED))
def test_constants_and_verdict(method, family):
    kind, c, at, L = EXPECTED[(method, family)]
    res = A.decide(method, family)
    assert res.holds is True and res.positive and res.limit_positive
    assert res.kind == kind
    assert res.c == pytest.approx(c, rel=1e-12)
    assert res.limit == pytest.approx(L, rel=1e-12)
    if at is None:
        assert "n → ∞ (not attained)" in res.where
    else:
        assert res.where.startswith(f"n = {at}")
        # the numeric bounds at that point (k = 1 is the minimising k at n = 2 and 3)
        assert numeric(method, family, at) == pytest.approx(c, rel=1e-9)
    assert c > 1e-9  # the claims' threshold separates every one of them from 0


def test_where_names_k_and_T():
    assert A.decide("hedge", "kchoice").where == "n = 2, k = n/2"
    assert A.decide("hedge", "kchoice").limit_path == "even n → ∞, k = n/2"
    assert A.decide("permelearn", "kchoice").where == "n = 2, k = 1, T → ∞"
    assert A.decide("permelearn", "spearman").limit_path == "n → ∞, T → ∞"
    assert "T" not in A.decide("fpl", "kchoice").where  # T cancels


def test_fpl_kchoice_is_an_identity_for_even_n():
    res = A.decide("fpl", "kchoice")
    assert res.identity == "ratio / claimed factor = √(2)/√(ln(2)) for every even n, k, T"
    assert "algebraic identity" in res.steps[0]
    for n, k, T in ((10, 1, 5), (100, 37, 10**6), (1000, 500, 1)):
        assert numeric("fpl", "kchoice", n, k, T) == pytest.approx(math.sqrt(2 / LN2), rel=1e-13)
    # odd n: sqrt(2/ln 2) sqrt(1 - 1/n^2) for every k
    for n, k in ((3, 1), (101, 50)):
        assert numeric("fpl", "kchoice", n, k) == pytest.approx(
            math.sqrt(2 / LN2 * (1 - 1 / n**2)), rel=1e-13
        )


@pytest.mark.parametrize(("method", "family"), sorted(EXPECTED))
def test_limits_against_large_n(method, family):
    """The numeric ratio at the infimum's k and T approaches L: O(1/n) off for FPL and PermELearn,
    O(1/ln n) for Hedge (ln n! / (n ln n) -> 1 slowly)."""
    L = A.decide(method, family).limit
    for n in (10**6, 10**6 + 1):
        k = n // 2 if (method, family) == ("hedge", "kchoice") else 1
        v = numeric(method, family, n, k)
        assert v == pytest.approx(L, rel=0.05 if method == "hedge" else 1e-5)


def test_the_proven_monotonicity_holds_numerically():
    Ts = [1, 10, 10**3, 10**6, 10**9]
    for family in ("single", "kchoice", "subset", "spearman"):  # PermELearn: decreasing in T
        for n in (2, 3, 10, 101, 1000):
            v = [numeric("permelearn", family, n, 1, T) for T in Ts]
            assert all(a >= b for a, b in zip(v, v[1:], strict=False)), (family, n)
    for n in (4, 5, 100, 1001):
        ks = range(1, n // 2 + 1)
        hedge = [numeric("hedge", "kchoice", n, k) for k in ks]
        assert all(a >= b for a, b in zip(hedge, hedge[1:], strict=False))  # decreasing: k = n/2
        perm = [numeric("permelearn", "kchoice", n, k) for k in ks]
        assert all(a <= b for a, b in zip(perm, perm[1:], strict=False))  # increasing (T -> oo): k = 1
        fpl = [numeric("fpl", "kchoice", n, k) for k in ks]
        assert max(fpl) - min(fpl) < 1e-12  # independent of k
    # in n where the decision proves it: PermELearn increasing, FPL Spearman decreasing per parity
    for start in (2, 3):
        ns = range(start, 2000, 2)
        perm = [numeric("permelearn", "spearman", n) for n in ns]
        assert all(a <= b for a, b in zip(perm, perm[1:], strict=False))
        fpl = [numeric("fpl", "spearman", n) for n in ns]
        assert all(a >= b for a, b in zip(fpl, fpl[1:], strict=False))
        assert min(fpl) > math.sqrt(2 / LN2)  # approached, never attained
    steps = " ".join(A.decide("permelearn", "kchoice").steps)
    assert "∂/∂T ≤ 0" in steps and "∂/∂k ≥ 0" in steps and "dg/dn ≥ 0" in steps
    assert "∂/∂k ≤ 0" in " ".join(A.decide("hedge", "kchoice").steps)


@pytest.mark.parametrize("family", ["single", "kchoice", "subset", "spearman"])
def test_hedge_constant_is_proven_and_is_the_grid_minimum(family):
    """Every Hedge constant (g has ln n!) is a proven infimum — rho = ln n!/(n ln n) increasing —
    and equals the minimum of the numeric bounds (onlinerank.bounds) over every n of 2..10^4 at the
    minimising k (n/2 or (n-1)/2 for k-choice), a second method."""
    res = A.decide("hedge", family)
    steps = " ".join(res.steps)
    assert res.c_exact and "not proven" not in steps and "ρ(n) = ln n!/(n ln n) is increasing" in steps
    v = [numeric("hedge", family, n, max(1, n // 2)) for n in range(2, A.GRID_MAX_N + 1)]
    assert min(v) == pytest.approx(res.c, rel=1e-12)


def test_hedge_kchoice_odd_n_minimum_is_certified_by_the_tail_bound():
    """Odd n, k = (n-1)/2: g = rho^(1/2) h with h decreasing; the minimum over odd n is at n = 5,
    certified by rho(N)^(1/2) lim h above it from N on (the even case's n = 2 is the overall c)."""
    res = A.decide("hedge", "kchoice")
    odd = next(s for s in res.steps if s.startswith("odd n: g = ρ^(1/2)"))
    assert "non-increasing" in odd and odd.endswith("inf at n = 5")
    odd_values = {n: numeric("hedge", "kchoice", n, (n - 1) // 2) for n in range(3, 20001, 2)}
    assert min(odd_values, key=odd_values.get) == 5


def test_ln_factorial_over_n_ln_n_is_increasing():
    """rho(n) = ln n! / (n ln n): the proof's threshold is the first N >= 4 with sqrt(N) >= 1 + ln N
    (13), and rho increases at every n up to 10^6 (lgamma, a second computation)."""
    N, text = A.rho_increasing()
    assert N == 13 and math.sqrt(12) < 1 + math.log(12) and math.sqrt(13) >= 1 + math.log(13)
    assert "increasing for n ≥ 2" in text
    rho = [math.lgamma(n + 1) / (n * math.log(n)) for n in range(2, 10**6)]
    assert all(a < b for a, b in zip(rho, rho[1:], strict=False))
    assert rho[0] == pytest.approx(0.5) and rho[-1] < 1


def test_an_unproven_constant_is_labelled_a_grid_minimum():
    """Where neither SymPy nor the rho argument proves the infimum, c is the minimum over n <= 10^4
    and the limit, and the result says so (c_exact False, "not proven"), never "exact"."""
    res = A.decide("hedge", "single", "sqrt(log(n))*n**2/((n-3)**2+1)")
    assert not res.c_exact and "not proven" in " ".join(res.steps)


@pytest.mark.parametrize(
    ("method", "family", "claimed", "path"),
    [
        ("hedge", "kchoice", "sqrt(n*log(n))", "even n → ∞, k = 1"),
        ("fpl", "kchoice", "sqrt(n)*log(n)", "even n → ∞, k = 1"),
        ("permelearn", "spearman", "sqrt(n*log(n))", "n → ∞, T → ∞"),
    ],
)
def test_a_wrong_claimed_factor_is_decided_false_with_its_path(method, family, claimed, path):
    res = A.decide(method, family, claimed)
    assert res.holds is False and not res.limit_positive
    assert res.c == 0.0 and res.limit == 0.0
    assert res.where == res.limit_path == path
    assert "the Ω statement is false" in res.steps[-1]


GRID = BoundComparison(
    families=("single", "kchoice", "subset", "spearman"),
    n=(2, 3, 4, 5, 10, 11, 100, 1001, 10000),
    k=(1, 2, 7),
    k_sweep=KSweep(n=1000, k=(1, 3, 64, 499, 500)),
    T_factor=1000,
)


@pytest.mark.parametrize(("method", "family"), sorted(EXPECTED))
def test_the_expressions_are_the_codes_bounds(method, family):
    rows = bound_comparison_rows(GRID)
    res = A.decide(method, family)
    diff, count = A.cross_check(res, rows)
    assert count >= 9 and diff <= A.CROSS_CHECK_RTOL
    # and the check can fail: one row off by 1e-9
    mine = [dict(r) for r in rows if (r["method"], r["family"]) == (method, family)]
    mine[-1]["ratio_over_claimed"] *= 1 + 1e-9
    assert A.cross_check(res, mine)[0] > A.CROSS_CHECK_RTOL


def test_the_claimed_factors_are_the_codes():
    for n, k in ((7, 3), (1000, 10)):
        for method, family in A.COMPARISONS:
            f = A.claimed_expression(method, family).subs({A.n: n, A.k: k})
            assert float(f) == pytest.approx(float(B.claimed_factor(method, family, n, k)), rel=1e-14)


def test_the_module_does_not_depend_on_the_engine():
    paths = [Path(p) for p in code_inputs(ROOT / "src" / "onlinerank" / "asymptotics.py", root=ROOT)]
    assert not {p.name for p in paths} & {"simulate.py", "bounds.py"}
    assert not any("_kernels" in p.parts for p in paths)
    # the claims step reruns when the module changes (imported inside the claim builders)
    from onlinerank.claims import MODULES

    modules = [ROOT / "src" / Path(*m.__name__.split(".")).with_suffix(".py") for m in MODULES]
    claims = {
        Path(p).name for p in code_inputs(ROOT / "workflow" / "scripts" / "claims.py", *modules, root=ROOT)
    }
    assert "asymptotics.py" in claims


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="no comparison"):
        A.decide("hedge", "graded")
    with pytest.raises(ValueError, match="parity"):
        A.ratio_expression("hedge", "subset", "both")
