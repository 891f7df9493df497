"""Growth exponents and ratios of timings, with intervals over the timing repeats (theory §2.1-2.3,
§3.3): the statistics of the runtime claims and the runtime figure.  Only numpy: reading timings
does not load the engine that made them (:mod:`onlinerank.timing`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["fit_exponent", "excess_exponent", "slopes", "repeat_draws", "repeat_exponent", "repeat_ratio"]


def fit_exponent(ns: ArrayLike, secs: ArrayLike) -> float:
    """Least-squares slope of log(seconds) on log(n) (theory §2.1-2.3: n log n has a slope that
    tends to 1, n² a slope of 2)."""
    return float(np.polyfit(np.log(np.asarray(ns, float)), np.log(np.asarray(secs, float)), 1)[0])


def excess_exponent(ns: ArrayLike, secs: ArrayLike) -> float:
    """Least-squares slope of log(seconds / (n ln n)) on log(n): the growth beyond n log n
    (theory §2.1-2.3).  Tends to 0 for time c·n ln n (any c), is 1 − 1/ln n locally for c·n²."""
    n = np.asarray(ns, float)
    return fit_exponent(n, np.asarray(secs, float) / (n * np.log(n)))


def slopes(log_n: ArrayLike, log_t: ArrayLike) -> np.ndarray:
    """Least-squares slopes of each row of ``log_t`` (draws x points) on ``log_n`` (points)."""
    x = np.asarray(log_n, float)
    xc = x - x.mean()
    y = np.atleast_2d(np.asarray(log_t, float))
    return (y - y.mean(axis=1, keepdims=True)) @ xc / (xc @ xc)


def repeat_draws(samples: Sequence[ArrayLike], rng: np.random.Generator, draws: int) -> np.ndarray:
    """``(draws, len(samples))``: in each row one repeat drawn uniformly at random from each
    sample (the bootstrap over repeats of the timing claims; theory §2.1-2.3, §3.3).  Each sample
    needs at least two repeats: one timing has no spread to make an interval of."""
    cols = []
    for i, smp in enumerate(samples):
        v = np.asarray(smp, float)
        if v.size < 2:
            raise ValueError(f"sample {i} has {v.size} repeat(s); an interval over repeats needs >= 2")
        cols.append(v[rng.integers(v.size, size=draws)])
    return np.column_stack(cols)


def repeat_exponent(
    ns: Sequence[int],
    repeats: Sequence[ArrayLike],
    rng: np.random.Generator,
    level: float = 0.95,
    draws: int = 4000,
    excess: bool = False,
) -> dict:
    """Growth exponent of timings with ``repeats[i]`` (several timings) at ``ns[i]``, and its
    interval from the repeats (theory §2.1-2.3, §3.3).

    ``estimate``: :func:`fit_exponent` (``excess``: :func:`excess_exponent`) of the per-n medians
    of the repeats.  Interval: the percentile interval at ``level`` of the same fit to ``draws``
    tables made of one repeat per n drawn at random (:func:`repeat_draws`), stretched to contain
    the estimate.  It is the spread of a fit to *one* timing per n, wider than that of the median
    (about √(repeats) times for Gaussian noise): conservative, and it does not lean on the
    bootstrap of a median of five values.  Returns ``estimate, lo, hi, draws, level``."""
    n = np.asarray(ns, float)
    if n.size < 2:
        raise ValueError("an exponent needs timings at two or more n")
    ref = np.log(n * np.log(n)) if excess else np.zeros_like(n)
    med = np.array([np.median(np.asarray(r, float)) for r in repeats])
    log_n = np.log(n)
    est = float(slopes(log_n, np.log(med) - ref)[0])
    boot = slopes(log_n, np.log(repeat_draws(repeats, rng, draws)) - ref)
    return _percentile_interval(est, boot, level)


def repeat_ratio(
    num: ArrayLike, den: ArrayLike, rng: np.random.Generator, level: float = 0.95, draws: int = 4000
) -> dict:
    """Ratio of the medians of two sets of timing repeats and its interval (theory §3.3): the
    percentile interval at ``level`` of the ratio of one repeat of each drawn at random (as in
    :func:`repeat_exponent`), stretched to contain the estimate.  Returns ``estimate, lo, hi``."""
    est = float(np.median(np.asarray(num, float)) / np.median(np.asarray(den, float)))
    d = repeat_draws([num, den], rng, draws)
    return _percentile_interval(est, d[:, 0] / d[:, 1], level)


def _percentile_interval(est: float, draws: np.ndarray, level: float) -> dict:
    """``estimate, lo, hi, draws, level``: the percentile interval at ``level`` of the bootstrap
    ``draws``, stretched to contain the estimate ``est``."""
    lo, hi = np.quantile(draws, [(1 - level) / 2, (1 + level) / 2])
    return {
        "estimate": est,
        "lo": min(float(lo), est),
        "hi": max(float(hi), est),
        "draws": len(draws),
        "level": level,
    }
