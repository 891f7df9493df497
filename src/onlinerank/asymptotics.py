"""Exact decisions of the Section 4 / §5 comparisons of closed-form bounds (theory §3.3), with SymPy.

Each comparison of the paper says: Theorem 3.1's bound ``n sqrt(T M ln 2)`` beats a baseline's
bound (Hedge over the n! rankings, FPL, PermELearn) by ``Omega(f)``, ``f`` the claimed factor.
For closed forms that is a statement about one function,

    r(n, k, T) = (baseline bound / Theorem 3.1) / f(n, k),

over the paper's domain (integers n >= 2, 1 <= k <= n/2 for k-choice, T >= 1): ``Omega(f)``
holds iff ``inf r > 0``.  This module writes ``r`` as a SymPy expression, in two parity cases
n = 2m and n = 2m + 1 where a floor occurs (``D = floor(n^2/2)`` for FPL, ``M = floor(n^2/4)``
and ``|U| = n // 2`` for subsets), with ``ln n! = loggamma(n + 1)``, and decides the infimum:

1. T: the sign of dr/dT on the domain (SymPy's assumptions, all factors positive) -> the
   infimum over T >= 1 is at T -> oo (non-increasing) or T = 1 (non-decreasing);
2. k: the sign of dr/dk with n = 2k + j (even n), n = 2k + 1 + j (odd n), k = 1 + a, j, a >= 0
   -> the minimising end k = 1 or k = floor(n/2);
3. n: the remaining g(n) is proven positive (product/quotient of positive factors, with
   ``ln n! >= ln 2 > 0``) and its limit L is computed (Gruntz; ``ln n! = rho(n) n ln n`` with
   ``rho -> 1`` proven once).  g > 0 at every n and L > 0 give ``inf > 0`` (finitely many n lie
   below any level under L); L = 0 on a path gives ``inf = 0``: the claim is false there.

The infimum c itself is exact where SymPy proves g monotone in n (c = g(2) or g(3), or c = L);
where g has ln n!, as every Hedge case, ``g = rho^alpha h(n)`` with ``rho = ln n! / (n ln n)``
proven increasing (:func:`rho_increasing`), so g is increasing when SymPy proves h
non-decreasing, and when it proves h non-increasing ``g(n) >= rho(N)^alpha lim h`` for n >= N
bounds the tail above the minimum over the first n (interval arithmetic).  Otherwise c is the
minimum over n <= 10^4 and the limit, not proven, and the result says which (``c_exact``).  The
relaxation of k to a real interval only widens the domain, so the signs proven there hold at the
integers; the boundary values used are integers.

The expressions are this module's own transcription of the closed forms; :func:`cross_check`
ties them to :mod:`onlinerank.bounds` through the rows of
:func:`onlinerank.comparison.bound_comparison_rows` (relative difference <= 1e-12).
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import mpmath
import sympy as sp
from sympy.series.gruntz import gruntz

from .cited_bounds import CITED_BOUNDS, FPL, HEDGE, PERMELEARN, CitedBound

__all__ = [
    "COMPARISONS",
    "CLAIMED_FACTOR",
    "CROSS_CHECK_RTOL",
    "GRID_MAX_N",
    "OmegaResult",
    "ratio_expression",
    "claimed_expression",
    "decide",
    "cross_check",
    "pretty",
    "rho_increasing",
]

#: n, k, T: the paper's integers, as positive symbols (the domain constraints n >= 2,
#: 1 <= k <= n/2, T >= 1 enter through the substitutions of _domain)
n, k, T = sp.symbols("n k T", positive=True)
_a, _j = sp.symbols("a j", nonnegative=True)
#: ln n! in the sign decisions (it depends on n only, and ln n! >= ln 2 > 0 for integers n >= 2)
_LNFACT = sp.Symbol("Lambda", positive=True)
#: rho(n) = ln(n!) / (n ln n), a positive factor with limit 1 (:func:`_rho_limit`)
_RHO = sp.Symbol("rho", positive=True)
LN2 = sp.log(2)
LNFACT = sp.loggamma(n + 1)

#: every (method, family) whose bound the comparison table has (the cited bounds' declarations,
#: :data:`onlinerank.cited_bounds.CITED_BOUNDS`)
COMPARISONS = tuple((m, f) for m, cited in CITED_BOUNDS.items() for f in cited.claimed)
#: the paper's claimed factors (theory §3.3 [P]) in SymPy syntax over n, k, as the declarations
#: state them; the numbers of :func:`onlinerank.bounds.claimed_factor` come from the same
#: declarations (tied by :func:`cross_check`)
CLAIMED_FACTOR = {(m, f): CITED_BOUNDS[m].claimed[f].expression for m, f in COMPARISONS}
#: the largest relative difference allowed between the expressions and the table's numbers
CROSS_CHECK_RTOL = 1e-12
#: where monotonicity in n is not proven, c is the minimum over n <= GRID_MAX_N and the limit
GRID_MAX_N = 10_000

_PARITIES = ("even", "odd")
#: first n and grid step of each case: even n, odd n, or every n (no floor in the closed forms)
_FIRST_N = {"even": 2, "odd": 3, "all": 2}
_STEP = {"even": 2, "odd": 2, "all": 1}


def _floors(parity: str) -> dict[str, sp.Expr]:
    """The floors of the closed forms at n of the given parity: ``D = floor(n^2/2)``,
    ``M_subset = floor(n^2/4)``, ``half = n // 2``, and the largest k (k <= n/2)."""
    if parity == "even":
        return {"D": n**2 / 2, "M_subset": n**2 / 4, "half": n / 2, "k_max": n / 2}
    if parity == "odd":
        return {"D": (n**2 - 1) / 2, "M_subset": (n**2 - 1) / 4, "half": (n - 1) / 2, "k_max": (n - 1) / 2}
    raise ValueError(f"parity must be 'even' or 'odd', got {parity!r}")


def _family_M(family: str, parity: str) -> sp.Expr:
    """M of a family (theory §1.1): n-1, k(n-k), floor(n^2/4), n^2(n^2-1)/12."""
    table = {
        "single": n - 1,
        "kchoice": k * (n - k),
        "subset": _floors(parity)["M_subset"],
        "spearman": n**2 * (n**2 - 1) / 12,
    }
    if family not in table:
        raise ValueError(f"family must be one of {', '.join(table)}, got {family!r}")
    return table[family]


def _chosen(family: str, parity: str) -> sp.Expr:
    """|U| per round of a binary family: 1, k, n // 2 (the subset adversaries play |U| = n // 2)."""
    return {"single": sp.Integer(1), "kchoice": k, "subset": _floors(parity)["half"]}[family]


def _hedge_bound(family: str, parity: str) -> sp.Expr:
    """Hedge over the n! rankings, ``L sqrt(T ln(n!)/2)`` (theory §3.3)."""
    L = (n**3 - n) / 6 if family == "spearman" else _family_M(family, parity)
    return L * sp.sqrt(T * LNFACT / 2)


def _fpl_bound(family: str, parity: str) -> sp.Expr:
    """FPL, ``2 sqrt(D R A T)`` (theory §3.3)."""
    spearman = family == "spearman"
    R = (n**3 - n) / 6 if spearman else _family_M(family, parity)
    A = n * (n + 1) / 2 if spearman else _chosen(family, parity)
    return 2 * sp.sqrt(_floors(parity)["D"] * R * A * T)


def _permelearn_bound(family: str, parity: str) -> sp.Expr:
    """PermELearn, ``c (sqrt(2 L_est n ln n) + n ln n)`` (theory §3.3)."""
    spearman = family == "spearman"
    scale = (n - 1) ** 2 if spearman else n - 1
    l_est = T * n / 4 if spearman else T * _chosen(family, parity) / 2
    return scale * (sp.sqrt(2 * l_est * n * sp.log(n)) + n * sp.log(n))


#: each cited bound's formula as a SymPy expression (theory §3.3)
_BASELINE_BOUND: dict[CitedBound, Callable[[str, str], sp.Expr]] = {
    HEDGE: _hedge_bound,
    FPL: _fpl_bound,
    PERMELEARN: _permelearn_bound,
}


def baseline_bound(method: str, family: str, parity: str) -> sp.Expr:
    """The cited baseline's regret bound as a SymPy expression in n, k, T (theory §3.3): Hedge
    ``L sqrt(T ln(n!)/2)``, FPL ``2 sqrt(D R A T)``, PermELearn ``c (sqrt(2 L_est n ln n) + n ln n)``;
    the same forms as :func:`onlinerank.bounds.comparison_bound`."""
    cited = CITED_BOUNDS.get(method)
    if cited is None:
        raise ValueError(f"method must be one of {', '.join(CITED_BOUNDS)}, got {method!r}")
    _family_M(family, parity)  # a family of the comparison (ValueError naming it otherwise)
    return _BASELINE_BOUND[cited](family, parity)


def claimed_expression(method: str, family: str, claimed: str | None = None) -> sp.Expr:
    """The claimed factor as a SymPy expression over the positive symbols n, k (``claimed``:
    SymPy syntax; default :data:`CLAIMED_FACTOR`)."""
    text = CLAIMED_FACTOR[(method, family)] if claimed is None else claimed
    return sp.sympify(text, locals={"n": n, "k": k})


def ratio_expression(method: str, family: str, parity: str, claimed: str | None = None) -> sp.Expr:
    """``(baseline bound / (n sqrt(T M ln 2))) / claimed factor`` at n of ``parity``, simplified
    (theory §3.3: the statistic of the claims sec4.* and sec5.*)."""
    thm = n * sp.sqrt(T * _family_M(family, parity) * LN2)
    r = baseline_bound(method, family, parity) / thm / claimed_expression(method, family, claimed)
    return _tidy(r, family, parity)


def _tidy(expr: sp.Expr, family: str, case: str) -> sp.Expr:
    """Factored, with ``|x| = x``, ``(x y)^e = x^e y^e`` and ``(x^a)^b = x^(ab)`` where x, y > 0 on
    the domain (a sign as in ``-(k - n)`` is moved into its factor first): shorter expressions,
    equal on the domain."""
    expr = sp.factor(expr)
    expr = expr.replace(lambda x: x.is_Pow and x.base.is_Add, lambda x: sp.Pow(sp.factor(x.base), x.exp))
    expr = expr.replace(
        lambda x: isinstance(x, sp.Abs) and _is_positive(x.args[0], family, case), lambda x: x.args[0]
    )

    def split(p: sp.Pow) -> sp.Expr:
        base, ex = p.as_base_exp()
        c, terms = base.as_coeff_mul()
        terms = list(terms)
        if c < 0:
            i = next((i for i, t in enumerate(terms) if t.is_Add and _is_positive(-t, family, case)), None)
            if i is None:
                return p
            terms[i], c = sp.expand(-terms[i]), -c
        if not all(_is_positive(t, family, case) for t in terms):
            return p
        return sp.Mul(sp.Pow(c, ex), *(sp.Pow(t, ex) for t in terms))

    expr = expr.replace(lambda x: x.is_Pow and x.base.is_Mul and x.exp.is_Rational, split)
    return expr.replace(
        lambda x: x.is_Pow and x.base.is_Pow and _is_positive(x.base.base, family, case),
        lambda x: sp.Pow(x.base.base, x.base.exp * x.exp),
    )


# ---------------------------------------------------------------------------------------------
# deciding signs on the domain
# ---------------------------------------------------------------------------------------------


def _domain(family: str, parity: str) -> dict:
    """Substitutions turning the domain into nonnegative a, j: k = 1 + a and n = 2k + j (even) or
    2k + 1 + j (odd) for k-choice; n = 2 + j, 3 + j or 2 + j (every n) otherwise (a real
    relaxation of the integers).  ``family=""``: the domain in n alone (k eliminated)."""
    if family == "kchoice":
        kk = 1 + _a
        return {n: 2 * kk + _j + (0 if parity == "even" else 1), k: kk}
    return {n: _FIRST_N[parity] + _j}


def _sign(expr: sp.Expr, family: str, parity: str) -> int | None:
    """+1 if ``expr >= 0`` on the domain, -1 if ``<= 0``, 0 if it is 0 there, None if SymPy's
    assumptions decide neither (tried on the expression, its factored and simplified forms)."""
    e = expr.subs(LNFACT, _LNFACT).subs(_domain(family, parity), simultaneous=True)
    seen: list[sp.Expr] = []
    for form in (lambda x: x, sp.factor, sp.simplify):
        cand = form(e)
        if any(cand == s for s in seen):
            continue
        seen.append(cand)
        if cand.is_zero:
            return 0
        if cand.is_nonnegative:
            return 1
        if cand.is_nonpositive:
            return -1
    return None


def _is_positive(expr: sp.Expr, family: str, parity: str) -> bool:
    e = expr.subs(LNFACT, _LNFACT).subs(_domain(family, parity), simultaneous=True)
    return bool(e.is_positive or sp.factor(e).is_positive)


@functools.cache
def _rho_limit() -> sp.Expr:
    """lim ln(n!) / (n ln n) as n -> oo (Gruntz): 1."""
    return gruntz(LNFACT / (n * sp.log(n)), n, sp.oo)


def _rho_split(g: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """``(alpha, h)`` with ``g = rho(n)^alpha h(n)``, ``rho = ln n! / (n ln n)``, alpha a number and
    h free of ln n!; None when g has no such form."""
    g_rho = sp.expand_power_base(g.subs(LNFACT, _RHO * n * sp.log(n)), force=True)  # all bases > 0
    alpha = g_rho.as_powers_dict().get(_RHO, sp.Integer(0))
    h = g_rho / _RHO**alpha
    if not alpha.is_number or h.has(_RHO) or h.has(sp.I):
        return None
    return alpha, h


@contextlib.contextmanager
def _interval_digits(dps: int):
    """mpmath's interval context at ``dps`` digits for the block (restored after)."""
    iv = mpmath.iv
    old = iv.dps
    iv.dps = dps
    try:
        yield
    finally:
        iv.dps = old


def _rho_interval(m: int):
    """``rho(m) = ln m! / (m ln m)`` as an mpmath interval (``ln m!`` as the sum of ``ln i``)."""
    iv = mpmath.iv
    lnfact = sum((iv.log(iv.mpf(i)) for i in range(2, m + 1)), iv.mpf(0))
    return lnfact / (iv.mpf(m) * iv.log(iv.mpf(m)))


@functools.cache
def rho_increasing() -> tuple[int, str]:
    """Proof that ``rho(n) = ln n! / (n ln n)`` is strictly increasing over the integers n >= 2
    (theory-asymptotics, "ln n! / (n ln n) is increasing"); returns ``(N, text)``: from N on the
    argument below holds for every n, and below N each step rho(n) < rho(n + 1) is checked with
    interval arithmetic.

    With ``D_n = n ln n - ln n!``, ``rho(n) = 1 - D_n / (n ln n)`` and
    ``D_{n+1} = D_n + delta_n``, ``delta_n = n ln(1 + 1/n) < 1``.  So ``rho(n+1) > rho(n)`` iff
    ``delta_n n ln n < D_n ((n+1) ln(n+1) - n ln n)``; the bracket is the integral of
    ``1 + ln x`` over ``[n, n+1]``, above ``1 + ln n``, so ``n ln n <= D_n (1 + ln n)`` suffices.
    ``ln n! <= n ln n - n + 1 + ln n`` (``sum_{i<n} ln i <= int_1^n ln x dx``) gives
    ``D_n >= n - 1 - ln n``, and then it suffices that ``(1 + ln n)^2 <= n``, i.e.
    ``phi(n) = sqrt(n) - 1 - ln n >= 0``.  ``phi' = 1/(2 sqrt(x)) - 1/x >= 0`` for ``x >= 4``, so
    ``phi(N) >= 0`` at some ``N >= 4`` gives it for every ``n >= N``.  Raises ``ArithmeticError``
    if a check fails (it does not: N = 13)."""
    iv = mpmath.iv
    with _interval_digits(40):
        N = next(m for m in range(4, 1000) if (iv.sqrt(iv.mpf(m)) - 1 - iv.log(iv.mpf(m))).a >= 0)
        for m in range(2, N):
            if not _rho_interval(m).b < _rho_interval(m + 1).a:
                raise ArithmeticError(f"ln n!/(n ln n) is not increasing from n = {m} to {m + 1}")
    text = (
        f"ρ(n) = ln n!/(n ln n) is increasing for n ≥ 2 (proven: D_n = n ln n − ln n! ≥ n − 1 − ln n and "
        f"√n ≥ 1 + ln n for n ≥ {N}; ρ(n) < ρ(n+1) for 2 ≤ n < {N} by interval arithmetic)"
    )
    return N, text


def _limit_n(g: sp.Expr) -> tuple[sp.Expr, str]:
    """lim g(n) as n -> oo (Gruntz) and how it was computed.  With ln n! in g: ``ln n! = rho n ln n``
    and, when ``g = rho^alpha h(n)`` (alpha a number), ``lim g = lim h`` since ``rho -> 1``."""
    if not g.has(LNFACT):
        return gruntz(g, n, sp.oo), "Gruntz"
    split = _rho_split(g)
    if split is None:
        return gruntz(g, n, sp.oo), "Gruntz (with ln n!)"
    alpha, h = split
    rho = _rho_limit()
    return gruntz(h, n, sp.oo) * rho**alpha, (
        f"ln n! = ρ·n ln n with ρ → {rho} (Gruntz), g = ρ^({alpha})·h(n), lim h by Gruntz"
    )


# ---------------------------------------------------------------------------------------------
# the decision
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OmegaResult:
    """The decided Omega statement of one (method, family) comparison (see the module docstring).

    ``c`` is the infimum of ratio / claimed factor over the domain and ``where`` where it is
    attained or approached; ``limit`` is the smallest limit as n -> oo over the parity cases,
    reached along ``limit_path``; ``holds`` is True when ``c > 0`` is proven, False when a limit
    0 is proven, None when a step is undecided; ``c_exact`` says whether ``c`` is an exact
    infimum (monotonicity in n proven, or the limit) or the minimum over n <= 10^4 and the limit;
    ``identity`` states the algebraic identity when ``kind`` is "identity" (the ratio over the
    claimed factor is a constant for even n: the closed forms, not a measurement, give the claim).
    """

    method: str
    family: str
    claimed: str
    expression: str
    kind: str
    steps: tuple[str, ...]
    c: float
    c_expr: str
    where: str
    c_exact: bool
    limit: float
    limit_expr: str
    limit_path: str
    positive: bool
    limit_positive: bool
    holds: bool | None
    identity: str = ""
    cases: tuple[dict, ...] = field(default=(), repr=False)


def pretty(expr: sp.Expr | str) -> str:
    """A SymPy expression (or SymPy syntax) as text: ``ln`` for the natural log, ``ln(n!)`` for
    ``loggamma(n + 1)``, ``√`` for sqrt, ``^`` for powers and ``·`` for products."""
    s = sp.sstr(expr) if isinstance(expr, sp.Basic) else expr
    s = s.replace("loggamma(n + 1)", "ln(n!)").replace("log(", "ln(").replace("sqrt(", "√(")
    return s.replace("**", "^").replace("*", "·")


def _num(expr: sp.Expr) -> float:
    return float(sp.N(expr, 30)) if expr.is_finite is not False else math.inf


def _reduce_T(r: sp.Expr, family: str, case: str, steps: list[str]) -> tuple[sp.Expr, str, bool]:
    """Step 1: the infimum over T >= 1 (T cancels, or dr/dT has a sign on the domain)."""
    if not r.has(T):
        return r, "", True
    s = _sign(sp.diff(r, T), family, case)
    if s is not None and s <= 0:
        out = sp.factor(sp.limit(r, T, sp.oo))
        steps.append(
            f"{_LABEL[case]}: ∂/∂T ≤ 0 on the domain (SymPy assumptions on the factored derivative) → "
            f"inf over T ≥ 1 is the limit T → ∞: {pretty(out)}"
        )
        return out, "T → ∞", True
    if s is not None and s > 0:
        out = sp.factor(r.subs(T, 1))
        steps.append(f"{_LABEL[case]}: ∂/∂T ≥ 0 on the domain → inf over T ≥ 1 at T = 1: {pretty(out)}")
        return out, "T = 1", True
    steps.append(f"{_LABEL[case]}: the sign of ∂/∂T is not decided by SymPy")
    return r, "T undecided", False


def _reduce_k(r: sp.Expr, family: str, case: str, steps: list[str]) -> tuple[sp.Expr, str, bool]:
    """Step 2: the minimising end of 1 <= k <= floor(n/2) (dr/dk has a sign on the domain)."""
    if not r.has(k):
        return r, "", True
    kmax, shown = (n / 2, "n/2") if case == "even" else ((n - 1) / 2, "(n-1)/2")
    how = f"n = 2k{' + 1' if case == 'odd' else ''} + j, k = 1 + a, a, j ≥ 0 (SymPy assumptions)"
    s = _sign(sp.diff(r, k), family, case)
    if s == 0:
        steps.append(f"{_LABEL[case]}: ∂/∂k = 0 with {how}: independent of k")
        return r.subs(k, 1), "", True
    if s is not None:
        at, where = (1, "k = 1") if s > 0 else (kmax, f"k = {shown}")
        out = sp.factor(r.subs(k, at))
        sign = "≥" if s > 0 else "≤"
        steps.append(f"{_LABEL[case]}: ∂/∂k {sign} 0 with {how} → minimum at {where}: {pretty(out)}")
        return out, where, True
    steps.append(f"{_LABEL[case]}: the sign of ∂/∂k is not decided by SymPy")
    return r, "k undecided", False


def _infimum_n(g: sp.Expr, case: str, L: sp.Expr, steps: list[str]) -> dict:
    """Step 3 (the constant): inf of g(n) over the case's n.  Exact if g is constant or SymPy
    proves it monotone; else the minimum over n <= GRID_MAX_N and the limit (``exact`` False)."""
    n0 = _FIRST_N[case]
    if not g.has(n):
        return {"value": g, "at": "every n" if case == "all" else f"every {case} n", "exact": True}
    if g.has(LNFACT):
        proven = _infimum_with_rho(g, case, steps)
        if proven is not None:
            return proven
    s = None if g.has(LNFACT) else _sign(sp.diff(g, n), "", case)
    if s is not None and s > 0:
        steps.append(
            f"{_LABEL[case]}: dg/dn ≥ 0 for n ≥ {n0} (SymPy assumptions, n = {n0} + j) → inf at n = {n0}"
        )
        return {"value": sp.simplify(g.subs(n, n0)), "at": f"n = {n0}", "exact": True}
    if s is not None and s < 0:
        steps.append(
            f"{_LABEL[case]}: dg/dn ≤ 0 for n ≥ {n0} (SymPy assumptions, n = {n0} + j) → inf = the limit"
        )
        return {"value": L, "at": "n → ∞ (not attained)", "exact": True}
    why = "g involves ln n!" if g.has(LNFACT) else "the sign of dg/dn is not decided"
    f = sp.lambdify(n, g, modules="math")
    best_n = min(range(n0, GRID_MAX_N + 1, _STEP[case]), key=f)
    # exact at small n; a float beyond (SymPy would expand ln n! of a large integer)
    best = g.subs(n, best_n) if best_n <= 100 else sp.Float(f(best_n), 17)
    if _num(L) < _num(best):
        steps.append(
            f"{_LABEL[case]}: monotonicity in n not proven by SymPy ({why}); the limit is below the minimum "
            f"over n ≤ {GRID_MAX_N} ({_num(best):.6g} at n = {best_n}): inf = the limit"
        )
        return {"value": L, "at": "n → ∞ (not attained)", "exact": False}
    steps.append(
        f"{_LABEL[case]}: monotonicity in n not proven by SymPy ({why}); inf taken as the minimum over "
        f"{n0} ≤ n ≤ {GRID_MAX_N} (at n = {best_n}) and the limit"
    )
    return {"value": best, "at": f"n = {best_n}", "exact": False}


_LABEL = {"even": "even n", "odd": "odd n", "all": "every n ≥ 2"}


def _infimum_with_rho(g: sp.Expr, case: str, steps: list[str]) -> dict | None:
    """Step 3 for a g(n) with ln n!: ``g = rho^alpha h(n)`` with alpha > 0 and rho increasing
    (:func:`rho_increasing`).  If SymPy proves h non-decreasing, g is increasing: inf at the first
    n.  If it proves h non-increasing, ``g(n) >= rho(N)^alpha lim h`` for every n >= N, so the
    minimum of g over n < N is the infimum as soon as that bound reaches it (N <= GRID_MAX_N,
    checked in 40-digit interval arithmetic).  None when neither applies."""
    split = _rho_split(g)
    if split is None or not split[0].is_positive:
        return None
    alpha, h = split
    n0 = _FIRST_N[case]
    _, rho_text = rho_increasing()
    if rho_text not in steps:
        steps.append(rho_text)
    s = 1 if not h.has(n) else _sign(sp.diff(h, n), "", case)
    if s is not None and s > 0:
        how = "constant" if not h.has(n) else f"non-decreasing (SymPy assumptions, n = {n0} + j)"
        steps.append(
            f"{_LABEL[case]}: g = ρ^({alpha})·h(n) with h = {pretty(h)} {how} and ρ increasing → g "
            f"increasing, inf at n = {n0}"
        )
        return {"value": sp.simplify(g.subs(n, n0)), "at": f"n = {n0}", "exact": True}
    if s is None or s == 0:
        return None
    lim_h = gruntz(h, n, sp.oo)
    if not (lim_h.is_positive and lim_h.is_finite):
        return None  # the tail bound rho(N)^alpha lim h is 0: it certifies nothing
    g_mp = sp.lambdify(n, g, modules="mpmath")
    iv = mpmath.iv
    with _interval_digits(40), mpmath.workdps(50):
        bound_factor, power = _interval(lim_h), _interval(alpha)
        lnfact = iv.mpf(0)  # ln m! as an interval, summed as m grows
        last, best_n, best = 1, n0, None
        for m in range(n0, GRID_MAX_N + 1, _STEP[case]):
            for i in range(last + 1, m + 1):
                lnfact += iv.log(iv.mpf(i))
            last = m
            bound = (lnfact / (iv.mpf(m) * iv.log(iv.mpf(m)))) ** power * bound_factor
            if best is not None and bound.a > best.b:
                steps.append(
                    f"{_LABEL[case]}: g = ρ^({alpha})·h(n) with h = {pretty(h)} non-increasing (SymPy "
                    f"assumptions) and ρ increasing → g(n) ≥ ρ(N)^({alpha})·lim h for every n ≥ N; at "
                    f"N = {m} that bound exceeds the minimum of g over {n0} ≤ n < {m}, at n = {best_n} "
                    f"(interval arithmetic) → inf at n = {best_n}"
                )
                return {"value": g.subs(n, best_n), "at": f"n = {best_n}", "exact": True}
            if best is not None and best.a >= bound_factor.b:
                return None  # the bound stays below lim h, which the minimum already reaches
            v = mpmath.mpf(g_mp(m))
            val = iv.mpf([v - abs(v) * mpmath.mpf("1e-40"), v + abs(v) * mpmath.mpf("1e-40")])
            if best is None or val.b < best.a:
                best_n, best = m, val
            elif not val.a > best.b:
                return None  # two values too close to order
    return None


def _interval(expr: sp.Expr):
    """A constant expression as an mpmath interval: its 50-digit value (SymPy's evalf, which
    controls its error) widened by 10^-45 relative."""
    v = mpmath.mpf(str(sp.N(expr, 50)))
    w = abs(v) * mpmath.mpf("1e-45")
    return mpmath.iv.mpf([v - w, v + w])


def _path(case: dict, at_n: str) -> str:
    """Where in the domain: the n part (``n = 2``, ``n → ∞``), then k and T."""
    if at_n.startswith("n → ∞") and case["case"] != "all":
        at_n = f"{case['case']} {at_n}"
    return ", ".join(x for x in (at_n, case["where_k"], case["where_T"]) if x)


def _reduced_cases(exprs: dict, family: str, steps: list[str]) -> tuple[list[dict], bool]:
    """Each parity case's ratio reduced to g(n) (worst T, then worst k), with its positivity, its
    limit and its infimum over n; and whether every reduction was decided."""
    cases, decided = [], True
    for case, r in exprs.items():
        r_T, where_T, ok_T = _reduce_T(r, family, case, steps)
        g, where_k, ok_k = _reduce_k(r_T, family, case, steps)
        g = _tidy(g, "", case)
        positive = _is_positive(g, "", case)
        L, how = _limit_n(g)
        steps.append(
            f"{_LABEL[case]}: g(n) = {pretty(g)} > 0 {'proven' if positive else 'NOT proven'} "
            f"(product/quotient of positive factors; ln n! ≥ ln 2); lim g = {pretty(L)} ({how})"
        )
        inf = _infimum_n(g, case, L, steps)
        cases.append(
            {
                "case": case,
                "expression": r,
                "g": g,
                "limit": L,
                "positive": positive,
                "inf": inf,
                "where_T": where_T,
                "where_k": where_k,
            }
        )
        decided = decided and ok_T and ok_k
    return cases, decided


def _conclusion(cases: list[dict], decided: bool, steps: list[str]) -> tuple[bool | None, Any, bool, str]:
    """The Ω verdict from the cases: false when a limit is 0 (c = 0), true when g > 0 everywhere
    and every limit is positive (c = the smallest infimum), undecided otherwise; returns
    (holds, c, whether c is exact, where c is attained)."""
    lim_case = min(cases, key=lambda c: _num(c["limit"]))
    inf_case = min(cases, key=lambda c: _num(c["inf"]["value"]))
    positive = all(c["positive"] for c in cases)
    limit_positive = all(_num(c["limit"]) > 0 for c in cases)
    if not limit_positive and decided:
        where = _path(lim_case, "n → ∞")
        steps.append(f"lim = 0 along {where}: inf = 0, the Ω statement is false")
        return False, sp.Integer(0), True, where
    c_expr = inf_case["inf"]["value"]
    exact = all(c["inf"]["exact"] for c in cases)
    where = _path(inf_case, inf_case["inf"]["at"])
    if decided and positive and limit_positive:
        steps.append(
            f"g > 0 at every n and lim > 0 → inf > 0: c = {pretty(c_expr)} = {_num(c_expr):.6g} at {where}"
        )
        return True, c_expr, exact, where
    steps.append("a step is not decided: inf > 0 is not proven")
    return None, c_expr, exact, where


@functools.cache
def _decide(method: str, family: str, claimed: str) -> OmegaResult:
    steps: list[str] = []
    exprs = {p: ratio_expression(method, family, p, claimed) for p in _PARITIES}
    # one case for every n when no floor enters (k-choice keeps both: k <= n/2 vs (n-1)/2)
    if family != "kchoice" and exprs["even"] == exprs["odd"]:
        exprs = {"all": exprs["even"]}
        steps.append("no floor in the closed forms: one case for every n ≥ 2")
    first = next(iter(exprs))
    identity = (
        f"ratio / claimed factor = {pretty(exprs[first])} for every {_LABEL[first]}, k, T"
        if not exprs[first].free_symbols
        else ""
    )
    if identity:
        steps.append(f"{identity}: an algebraic identity of the closed forms, not evidence of growth")
    cases, decided = _reduced_cases(exprs, family, steps)
    holds, c_expr, exact, where = _conclusion(cases, decided, steps)
    lim_case = min(cases, key=lambda c: _num(c["limit"]))
    return OmegaResult(
        method=method,
        family=family,
        claimed=pretty(claimed),
        expression="; ".join(f"{_LABEL[c['case']]}: {pretty(c['expression'])}" for c in cases),
        kind="identity" if identity else "symbolic",
        identity=identity,
        steps=tuple(steps),
        c=_num(c_expr),
        c_expr=pretty(c_expr),
        where=where,
        c_exact=exact,
        limit=_num(lim_case["limit"]),
        limit_expr=pretty(lim_case["limit"]),
        limit_path=_path(lim_case, "n → ∞"),
        positive=all(c["positive"] for c in cases),
        limit_positive=all(_num(c["limit"]) > 0 for c in cases),
        holds=holds,
        cases=tuple(cases),
    )


def decide(method: str, family: str, claimed: str | None = None) -> OmegaResult:
    """Decide ``(baseline bound / Theorem 3.1) = Omega(claimed factor)`` over the paper's domain
    (theory §3.3; the steps are in the module docstring).  ``claimed``: a factor in SymPy syntax
    over n, k (default :data:`CLAIMED_FACTOR`).  Cached: each comparison is decided once."""
    if (method, family) not in CLAIMED_FACTOR:
        raise ValueError(f"no comparison ({method!r}, {family!r}); choose from {COMPARISONS}")
    return _decide(method, family, CLAIMED_FACTOR[(method, family)] if claimed is None else claimed)


def cross_check(result: OmegaResult, rows: Iterable[Mapping]) -> tuple[float, int]:
    """The largest relative difference between ``result``'s expression and the rows' numbers
    ``ratio_over_claimed`` (rows of :func:`onlinerank.comparison.bound_comparison_rows` of the
    same method and family; 50-digit evaluation), and the number of rows compared (theory §3.3)."""

    fns = {c["case"]: sp.lambdify((n, k, T), c["expression"], modules="mpmath") for c in result.cases}
    worst, count = 0.0, 0
    with mpmath.workdps(50):
        for r in rows:
            if (r["method"], r["family"]) != (result.method, result.family):
                continue
            case = "all" if "all" in fns else ("even" if r["n"] % 2 == 0 else "odd")
            exact = fns[case](mpmath.mpf(r["n"]), mpmath.mpf(r["k"]), mpmath.mpf(r["T"]))
            worst = max(worst, float(abs(mpmath.mpf(r["ratio_over_claimed"]) - exact) / abs(exact)))
            count += 1
    return worst, count
