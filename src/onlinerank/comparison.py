"""The Section 4 comparison table: each cited baseline's regret bound
(:data:`onlinerank.cited_bounds.CITED_BOUNDS`) over Theorem 3.1's, as n and k grow, next to the
factor the paper claims (theory §3.3).  Closed forms only.

The horizon grows with n, ``T = ceil(T_factor * n ln n)``, so every comparison is in the regime
``T >> n log n`` the paper means (PermELearn's bound has an additive ``n ln n`` term that a fixed
``T`` would let dominate as n grows).  Two kinds of sweeps: over ``n`` at fixed ``k`` (every
family), and over ``k`` at fixed ``n`` (k-choice).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from . import bounds as B
from .cited_bounds import CITED_BOUNDS
from .feedback import family_M

if TYPE_CHECKING:
    from .settings import BoundComparison

__all__ = ["METHODS", "CLAIMED", "comparison_horizon", "bound_comparison_rows", "bound_comparison_markdown"]

#: the cited baselines compared, in the order of the table (their declarations)
METHODS = tuple(CITED_BOUNDS)
#: the factor the paper claims for each (method, family), as text
CLAIMED = {(m, f): c.text for m, cited in CITED_BOUNDS.items() for f, c in cited.claimed.items()}


def comparison_horizon(n: int, t_factor: float) -> int:
    """``T = ceil(t_factor * n ln n)``: the horizon of the comparison at n (``T >> n log n``)."""
    return max(1, math.ceil(float(t_factor) * n * math.log(n)))


def _row(fam: str, n: int, k: int, T: int, m: str, sweep: str) -> dict | None:
    try:
        b = float(B.comparison_bound(m, fam, n, T, k))
    except (ValueError, KeyError):
        return None
    thm = float(B.theorem31_paper(n, T, family_M(fam, n, k)))
    cf = float(B.claimed_factor(m, fam, n, k))
    return {
        "family": fam,
        "sweep": sweep,
        "n": int(n),
        "k": int(k),
        "T": T,
        "method": m,
        "bound": b,
        "thm31": thm,
        "ratio": b / thm,
        "claimed": CLAIMED.get((m, fam), ""),
        "claimed_value": cf,
        "ratio_over_claimed": b / thm / cf if cf > 0 else math.nan,
    }


def bound_comparison_rows(sec: BoundComparison) -> list[dict]:
    """Rows (family, sweep, n, k, T, method, bound, thm31, ratio, claimed factor, ratio/claimed):
    sweeps over ``sec.n`` (k = 1, or each of ``sec.k`` for k-choice) and, for k-choice, over
    ``sec.k_sweep.k`` at ``n = sec.k_sweep.n``; ``T`` from :func:`comparison_horizon` with
    ``sec.T_factor``.  ``sec``: the typed settings' ``bound_comparison``
    (:class:`onlinerank.settings.BoundComparison`; theory §3.3)."""
    tf = sec.T_factor
    rows = []
    for fam in sec.families:
        for k in sec.k if fam == "kchoice" else (1,):
            for n in sec.n:
                if fam == "kchoice" and 2 * k > n:
                    continue
                T = comparison_horizon(n, tf)
                rows += [r for m in METHODS if (r := _row(fam, n, k, T, m, "n")) is not None]
        ks = sec.k_sweep
        if fam == "kchoice" and ks:
            n = int(ks.n)
            T = comparison_horizon(n, tf)
            for k in ks.k:
                if 2 * k <= n:
                    rows += [r for m in METHODS if (r := _row(fam, n, k, T, m, "k")) is not None]
    return rows


def bound_comparison_markdown(rows: list[dict], t_factor: float) -> str:
    """Markdown table: ratio of each bound to Theorem 3.1 (n sqrt(T M ln 2))."""
    out = [
        "# Comparison bounds over Theorem 3.1",
        "",
        "Each entry is (baseline's regret bound) / (Theorem 3.1's bound n√(TM ln 2)) with the family's "
        f"exact M, at T = ⌈{t_factor:g} n ln n⌉ (so T ≫ n log n, the regime of Section 4). The last "
        "column divides by the paper's claimed growth factor without constants: Ω holds iff it is "
        "bounded away from 0 over n ≥ 2, 1 ≤ k ≤ n/2, T ≥ 1. The claims sec4.* and sec5.* in "
        "claims.md decide that exactly (SymPy, `onlinerank.asymptotics`: the infimum and the limit) "
        "and check their formulas against every row here. Formulas and assumptions: "
        "`onlinerank.bounds` (theory §3.3).",
        "",
        "| family | sweep | k | n | T | method | baseline bound | Thm 3.1 | ratio | paper's claim | "
        "ratio / claimed factor |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['family']} | {r['sweep']} | {r['k']} | {r['n']} | {r['T']} | {r['method']} | "
            f"{r['bound']:.4g} | {r['thm31']:.4g} | {r['ratio']:.3f} | {r['claimed']} | "
            f"{r['ratio_over_claimed']:.3f} |"
        )
    return "\n".join(out) + "\n"
