"""Statistics behind every verdict: intervals, the one verdict rule, growth exponents.

The verdict rule (the report's legend, the same for every claim):

* ``PASS`` — the whole interval lies on the claim's side of the threshold;
* ``FAIL`` — the whole interval lies on the other side;
* ``INCONCLUSIVE`` — the interval straddles the threshold.

For a claim ``statistic <= threshold`` that is ``hi <= threshold`` / ``lo > threshold``; for
``statistic >= threshold`` it is ``lo >= threshold`` / ``hi < threshold``.  A claim tested on ``m``
cells uses simultaneous intervals (two-sided at level ``1 - alpha/m``, Bonferroni), so the
family-wise error of the claim's verdicts is at most ``alpha``: Student t with ``R - 1`` degrees of
freedom for a mean of ``R`` replicates (:func:`bonferroni_t`), the normal quantile for sums of many
Bernoulli draws (:func:`bonferroni_z`).  Deterministic cells (exact formulas,
every replicate equal) have zero-width intervals ``[value, value]`` and say so in their method.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = [
    "VERDICTS",
    "normal_sf",
    "z_two_sided",
    "bonferroni_z",
    "bonferroni_t",
    "welch_satterthwaite_df",
    "interval_verdict",
    "normal_interval",
    "abs_interval",
    "combine_verdicts",
    "asymptotic_exponent",
]

VERDICTS = ("PASS", "FAIL", "INCONCLUSIVE")


def normal_sf(z: float) -> float:
    """``P(Z > z)`` for a standard normal Z (no scipy needed)."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def z_two_sided(level: float) -> float:
    """The normal quantile ``z`` with ``P(|Z| <= z) = level`` (bisection on erfc; no scipy)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    lo, hi = 0.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 2 * normal_sf(mid) > 1 - level:
            lo = mid
        else:
            hi = mid
    return hi


def bonferroni_z(m: int, alpha: float) -> tuple[float, float]:
    """``(z, level)`` of the simultaneous two-sided intervals for ``m`` cells at family-wise
    error ``alpha``: each interval has level ``1 - alpha/m``."""
    level = 1.0 - alpha / max(1, int(m))
    return z_two_sided(level), level


def bonferroni_t(m: int, alpha: float, df: float) -> tuple[float, float]:
    """``(q, level)`` of the simultaneous two-sided Student-t intervals of ``m`` replicate means at
    family-wise error ``alpha``: ``q`` is the ``1 - alpha/(2m)`` quantile of Student's t with ``df``
    degrees of freedom (``R - 1`` for a mean of ``R`` replicates; the normal quantile for an
    infinite ``df``).  With few replicates the normal quantile is too small: at ``m = 232`` and
    ``R = 16`` it is 3.7 where t with 15 degrees of freedom gives 4.84."""
    level = 1.0 - alpha / max(1, int(m))
    if not math.isfinite(df):
        return z_two_sided(level), level
    if df < 1:
        raise ValueError(f"Student t needs at least 1 degree of freedom, got {df!r}")
    from scipy.stats import t as student_t  # lazy: SciPy loads where an interval is computed

    return float(student_t.ppf(1.0 - (1.0 - level) / 2.0, df)), level


def welch_satterthwaite_df(variances: Sequence[float], dfs: Sequence[float]) -> float:
    """Effective degrees of freedom of a sum of independent variance estimates ``variances``
    with ``dfs`` degrees of freedom each (Welch–Satterthwaite): ``(sum v)^2 / sum(v^2 / df)``.
    It lies between the smallest ``df`` and their sum; terms with zero variance do not count;
    infinite when every variance is zero (then the interval has zero width anyway)."""
    num = sum(variances)
    den = sum(v * v / d for v, d in zip(variances, dfs, strict=True) if v > 0)
    return math.inf if den == 0 else num * num / den


def interval_verdict(lo: float, hi: float, threshold: float, direction: str) -> str:
    """The one verdict rule of the report (module docstring)."""
    if direction == "<=":
        if hi <= threshold:
            return "PASS"
        return "FAIL" if lo > threshold else "INCONCLUSIVE"
    if direction == ">=":
        if lo >= threshold:
            return "PASS"
        return "FAIL" if hi < threshold else "INCONCLUSIVE"
    raise ValueError(f"direction must be '<=' or '>=', got {direction!r}")


def normal_interval(mean: float, sem: float, z: float) -> tuple[float, float]:
    """``mean -+ z sem``; a zero standard error gives the point ``[mean, mean]``; an unknown one
    (NaN: a single replicate) the whole line."""
    if sem is None or not math.isfinite(sem):
        return -math.inf, math.inf
    return mean - z * sem, mean + z * sem


def abs_interval(lo: float, hi: float) -> tuple[float, float]:
    """Interval for ``|x|`` from an interval ``[lo, hi]`` for ``x`` (equivalence claims)."""
    if lo <= 0.0 <= hi:
        return 0.0, max(-lo, hi)
    return min(abs(lo), abs(hi)), max(abs(lo), abs(hi))


def combine_verdicts(verdicts: Sequence[str]) -> str:
    """A claim's verdict from its cells: FAIL if any cell fails, else INCONCLUSIVE if any is
    undecided, else PASS."""
    if "FAIL" in verdicts:
        return "FAIL"
    return "INCONCLUSIVE" if "INCONCLUSIVE" in verdicts else "PASS"


def asymptotic_exponent(
    x: Sequence[float],
    means: Sequence[float],
    sems: Sequence[float],
    rng: np.random.Generator,
    n_boot: int = 2000,
    level: float = 0.95,
    bound: Sequence[float] | None = None,
) -> dict:
    """Growth exponent at the large end of a grid, with sampling *and* truncation error.

    An O(x^b) statement is about large x; a least-squares slope over the whole grid averages in the
    pre-asymptotic part (e.g. regret ~ c sqrt(T) - d has local slopes above 1/2 that tend to 1/2).
    The estimate is therefore the local log-log slope over the two largest grid values,
    ``s_top``.  Its interval is the parametric-bootstrap percentile interval at ``level`` (cells
    are independent simulations: each draw replaces every mean by ``N(mean, sem^2)``), widened on
    both sides by the Richardson-type truncation estimate ``tau = |s_top - s_prev|``, the change
    from the previous local slope (the remaining distance to the limit is below ``tau`` when the
    local slopes converge at least geometrically with ratio 1/2 per grid step).  A genuinely
    faster growth keeps a constant local slope (``tau = 0``: e.g. T^0.6 gives [0.6, 0.6]);
    a log factor gives slopes that decrease too slowly for the interval to reach 1/2.

    ``bound`` (values of a reference curve on the same grid) gives its local slope over the same
    two points.  Needs at least three increasing grid values.  Returns a dict: ``estimate,
    ci_low, ci_high, tau, local`` (all local slopes), ``ols`` (whole-grid least-squares slope, for
    reference), ``bound_slope``.
    """
    lx = np.log(np.asarray(x, dtype=float))
    mu = np.asarray(means, dtype=float)
    if lx.size < 3 or np.any(np.diff(lx) <= 0):
        raise ValueError("asymptotic_exponent needs >= 3 increasing grid values")
    se = np.nan_to_num(np.asarray(sems, dtype=float), nan=0.0)
    floor = 1e-12 * float(np.max(np.abs(mu)))
    local = np.diff(np.log(np.maximum(mu, floor))) / np.diff(lx)
    s_top, tau = float(local[-1]), float(abs(local[-1] - local[-2]))
    draws = mu[None, -2:] + se[None, -2:] * rng.standard_normal((n_boot, 2))
    draws = np.log(np.maximum(draws, floor))
    boot = (draws[:, 1] - draws[:, 0]) / (lx[-1] - lx[-2])
    lo, hi = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2])
    ols = float(np.polyfit(lx, np.log(np.maximum(mu, floor)), 1)[0])
    bslope = math.nan
    if bound is not None:
        b = np.log(np.asarray(bound, dtype=float))
        bslope = float((b[-1] - b[-2]) / (lx[-1] - lx[-2]))
    return {
        "estimate": s_top,
        "ci_low": float(min(lo, s_top)) - tau,
        "ci_high": float(max(hi, s_top)) + tau,
        "tau": tau,
        "local": local.tolist(),
        "ols": ols,
        "bound_slope": bslope,
    }
