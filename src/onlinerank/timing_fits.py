"""Growth exponents and ratios of timings, with intervals over the timing processes (theory
§2.1-2.3, §3.3): the statistics of the runtime claims and the runtime figure.  numpy and scipy's
Student t only: reading timings does not load the engine that made them (:mod:`onlinerank.timing`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "fit_exponent",
    "excess_exponent",
    "slopes",
    "student_t_quantile",
    "process_exponent",
    "process_ratio",
]


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


def student_t_quantile(level: float, df: int) -> float:
    """The two-sided Student t quantile ``q`` with ``P(|T| <= q) = level`` for ``df`` degrees of
    freedom (scipy's, imported here only)."""
    from scipy.stats import t as student_t  # lazy: SciPy loads where an interval is computed

    return float(student_t.ppf((1 + level) / 2, df))


def _by_process(values: Sequence[float], level: float) -> dict:
    """``estimate, lo, hi, level, processes, df, per_process``: the mean of one statistic per
    process and its Student-t interval with ``processes - 1`` degrees of freedom."""
    v = np.asarray(values, float)
    if v.size < 2:
        raise ValueError(f"{v.size} timing process(es); an interval over processes needs >= 2")
    est = float(v.mean())
    half = student_t_quantile(level, v.size - 1) * float(v.std(ddof=1)) / np.sqrt(v.size)
    return {
        "estimate": est,
        "lo": est - half,
        "hi": est + half,
        "level": level,
        "processes": int(v.size),
        "df": int(v.size - 1),
        "per_process": [float(x) for x in v],
    }


def process_exponent(
    ns: Sequence[int], processes: Sequence[Sequence[ArrayLike]], level: float = 0.95, excess: bool = False
) -> dict:
    """Growth exponent of timings made in several processes, with a random-effects interval over
    the processes (theory §2.1-2.3, §3.3).  ``processes[p][i]`` holds the repeats of process
    ``p`` at ``ns[i]``.

    Each process gives its own exponent: :func:`fit_exponent` (``excess``:
    :func:`excess_exponent`) of its per-n medians.  A process's exponent carries its own repeat
    noise and whatever it shares over all its timings (memory layout, caches, the machine's speed
    during those seconds): the run-to-run variation, which the repeats of one process do not show.
    The estimate is the mean of the processes' exponents and the interval the Student-t interval
    of that mean at ``level`` with ``processes - 1`` degrees of freedom (the processes are
    independent draws of a whole timing run: a one-way random-effects model, balanced, whose
    grand mean has exactly this interval when the processes' exponents are normal).  Returns
    ``estimate, lo, hi, level, processes, df, per_process``."""
    n = np.asarray(ns, float)
    if n.size < 2:
        raise ValueError("an exponent needs timings at two or more n")
    ref = np.log(n * np.log(n)) if excess else np.zeros_like(n)
    per = []
    for p, reps in enumerate(processes):
        if len(reps) != n.size:
            raise ValueError(f"process {p} has timings at {len(reps)} n, not {n.size}")
        med = np.array([np.median(np.asarray(r, float)) for r in reps])
        per.append(float(slopes(np.log(n), np.log(med) - ref)[0]))
    return _by_process(per, level)


def process_ratio(num: Sequence[ArrayLike], den: Sequence[ArrayLike], level: float = 0.95) -> dict:
    """Ratio of two timings made in the same processes, with a random-effects interval over the
    processes (theory §3.3): ``num[p]`` and ``den[p]`` are the repeats of process ``p``.  Each
    process gives the log of the ratio of its medians; the estimate is the exponential of their
    mean (a geometric mean of the processes' ratios), the interval the exponential of the
    Student-t interval of that mean at ``level`` with ``processes - 1`` degrees of freedom (as in
    :func:`process_exponent`).  Returns ``estimate, lo, hi, level, processes, df, per_process``
    (the processes' ratios)."""
    if len(num) != len(den):
        raise ValueError(f"{len(num)} processes timed the numerator, {len(den)} the denominator")
    logs = [
        float(np.log(np.median(np.asarray(a, float)) / np.median(np.asarray(b, float))))
        for a, b in zip(num, den, strict=True)
    ]
    fit = _by_process(logs, level)
    return {
        **fit,
        "estimate": float(np.exp(fit["estimate"])),
        "lo": float(np.exp(fit["lo"])),
        "hi": float(np.exp(fit["hi"])),
        "per_process": [float(np.exp(x)) for x in logs],
    }
