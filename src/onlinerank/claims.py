"""Every verdict is data: claims of the paper -> rows of the claims table (ARCHITECTURE §1.7).

Each row: ``claim`` (what the paper says), ``cell`` (where it was tested), ``statistic`` (what was
measured), ``value``, ``bound``, ``ratio = value / bound``, a confidence interval (``ci_low``,
``ci_high``, ``ci_method``, ``level``), the number of replicates, the ``verdict`` and the figure
that shows it.

Verdicts: PASS (the claim holds beyond the interval), FAIL (it is violated beyond the interval),
INCONCLUSIVE (the interval straddles the bound).  A claim tested on many cells controls the
family-wise error with Holm's step-down procedure on one-sided normal tests: a cell PASSes only
if ``H0: E[statistic] >= bound`` is rejected at the Holm-adjusted level, and FAILs only if
``H0: E[statistic] <= bound`` is rejected at that level.  Deterministic quantities (exact
formulas, standard error 0) are compared directly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["normal_sf", "holm", "upper_bound_verdicts", "fit_loglog_slope", "row",
           "ALPHA", "Z95"]

ALPHA = 0.05
Z95 = 1.959963984540054


def normal_sf(z: float) -> float:
    """P(Z > z) for a standard normal Z (no scipy needed)."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def holm(pvals: Sequence[float], alpha: float = ALPHA) -> np.ndarray:
    """Holm's step-down procedure: boolean array, True where the hypothesis is rejected."""
    p = np.asarray(pvals, dtype=float)
    m = p.size
    rejected = np.zeros(m, dtype=bool)
    for rank, idx in enumerate(np.argsort(p, kind="stable")):
        if p[idx] <= alpha / (m - rank):
            rejected[idx] = True
        else:
            break
    return rejected


def row(claim: str, cell: str, statistic: str, value: float, bound: float, *, ci_low=math.nan,
        ci_high=math.nan, ci_method: str = "", level: float = math.nan, reps: int = 0,
        verdict: str, figure: str = "", note: str = "") -> dict:
    ratio = value / bound if bound not in (0, 0.0) and math.isfinite(bound) else math.nan
    return {"claim": claim, "cell": cell, "statistic": statistic, "value": float(value),
            "bound": float(bound), "ratio": float(ratio), "ci_low": float(ci_low),
            "ci_high": float(ci_high), "ci_method": ci_method, "level": float(level),
            "reps": int(reps), "verdict": verdict, "figure": figure, "note": note}


def upper_bound_verdicts(means: Sequence[float], sems: Sequence[float], bounds: Sequence[float],
                         alpha: float = ALPHA) -> tuple[list[str], float]:
    """Verdicts for "E[statistic] <= bound" on many cells with Holm control.

    Returns the verdicts and the per-family confidence level used for the reported intervals
    (Bonferroni-style ``1 - alpha/m`` two-sided, which contains Holm's decisions).
    """
    means, sems, bounds = (np.asarray(x, dtype=float) for x in (means, sems, bounds))
    m = means.size
    if m == 0:
        return [], math.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (means - bounds) / sems
    p_pass = np.array([normal_sf(-zz) if s > 0 else (0.0 if mu < b else 1.0)
                       for zz, s, mu, b in zip(z, sems, means, bounds, strict=True)])
    p_fail = np.array([normal_sf(zz) if s > 0 else (0.0 if mu > b else 1.0)
                       for zz, s, mu, b in zip(z, sems, means, bounds, strict=True)])
    passed = holm(p_pass, alpha)
    failed = holm(p_fail, alpha)
    verdicts = ["PASS" if p else "FAIL" if f else "INCONCLUSIVE"
                for p, f in zip(passed, failed, strict=True)]
    return verdicts, 1.0 - alpha / m


def fit_loglog_slope(x: Sequence[float], means: Sequence[float], sems: Sequence[float],
                     rng: np.random.Generator, n_boot: int = 2000,
                     level: float = 0.95) -> tuple[float, float, float]:
    """Least-squares slope of log(mean) on log(x), with a parametric bootstrap interval.

    The cells at different x are independent simulations, so each bootstrap draw replaces every
    mean by ``N(mean, sem^2)`` (truncated at a tiny positive value) and refits.  Returns
    (slope, ci_low, ci_high) with percentile limits at ``level``.
    """
    lx = np.log(np.asarray(x, dtype=float))
    mu = np.asarray(means, dtype=float)
    se = np.nan_to_num(np.asarray(sems, dtype=float), nan=0.0)
    A = np.vstack([lx, np.ones_like(lx)]).T
    slope = float(np.linalg.lstsq(A, np.log(mu), rcond=None)[0][0])
    draws = mu[None, :] + se[None, :] * rng.standard_normal((n_boot, mu.size))
    draws = np.log(np.maximum(draws, 1e-12 * mu.max()))
    coef = np.linalg.lstsq(A, draws.T, rcond=None)[0][0]
    lo, hi = np.quantile(coef, [(1 - level) / 2, (1 + level) / 2])
    return slope, float(lo), float(hi)
