"""Tables of the lower-bound stage (theory §4): exact curves, explicit bounds, the minimum of
Theorem 3.3's statistic over every horizon, h_c(n), the alpha/beta/gamma route and the frequency
law.  Everything here is exact (closed forms or exact finite sums) except :func:`frequency_rows`,
which samples the construction (and says so).  Each builder takes its part of the typed settings'
``lowerbound`` section (:class:`onlinerank.settings.LowerBound`)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

import numpy as np

from . import bounds, lowerbound
from .seeding import stream

if TYPE_CHECKING:
    from .settings import Curves, Frequencies, HcGrid, Horizons, Route

__all__ = ["T_grid", "exact_curve_rows", "minimum_rows", "hc_rows", "abg_rows", "frequency_rows"]


def T_grid(spec: Horizons) -> np.ndarray:
    """Distinct integer horizons, log-spaced between ``min`` and ``max`` (``points`` of them)."""
    return np.unique(np.round(np.geomspace(spec.min, spec.max, spec.points))).astype(int)


def _pairs(sec: Curves) -> Iterator[tuple[int, int]]:
    for n in sec.n:
        for k in sec.k:
            if 1 <= k and 2 * k <= n:
                yield int(n), int(k)


def exact_curve_rows(sec: Curves) -> list[dict]:
    """Per (n, k, T): the exact random-adversary regret of every algorithm (§4.2), its asymptote
    and corrected asymptote (§4.3), bounds (a) Hölder, (b) sharp-rate, (c) Berry–Esseen (§4.5),
    and Theorem 3.1 at the paper's and the optimal eta with M = k(n-k) (the sandwich)."""
    rows = []
    Ts = T_grid(sec.T)
    for n, k in _pairs(sec):
        M = float(k * (n - k))
        exact = np.asarray(lowerbound.exact_regret(n, Ts, k), dtype=float)
        for T, ex in zip(Ts, exact, strict=True):
            T = int(T)
            scale = n**1.5 * math.sqrt(k * T)
            rows.append(
                {
                    "n": n,
                    "k": k,
                    "T": T,
                    "scale": scale,
                    "exact": float(ex),
                    "asymptotic": float(lowerbound.asymptotic_regret(n, T, k)),
                    "asymptotic_corrected": float(lowerbound.asymptotic_regret(n, T, k, corrected=True)),
                    "holder": float(lowerbound.lower_bound_holder(n, T, k)),
                    "sharp": float(lowerbound.lower_bound_sharp(n, T, k)),
                    "berry_esseen": float(lowerbound.lower_bound_berry_esseen(n, T, k)),
                    "thm31_paper": float(bounds.theorem31_paper(n, T, M)),
                    "thm31_optimal": float(bounds.theorem31_optimal(n, T, M)),
                    "h_holder": lowerbound.h_explicit_holder(n, k),
                }
            )
    return rows


def minimum_rows(sec: Curves) -> list[dict]:
    """Per (n, k) of the curves: the minimum over every integer T >= ceil(h(n, k)) of the exact
    regret over n^{3/2} sqrt(kT) and its horizon (theory §4.5 e), with the scanned range and the
    certificate beyond it (:func:`onlinerank.lowerbound.normalized_regret_minimum`)."""
    rows = []
    for n, k in _pairs(sec):
        m = lowerbound.normalized_regret_minimum(n, k)
        rows.append(
            {
                "n": n,
                "k": k,
                "T_from": m["T_from"],
                "T_to": m["T_to"],
                "T_min": m["T_min"],
                "exact": m["exact_min"],
                "scale": m["scale_min"],
                "ratio_min": m["ratio_min"],
                "limit": m["limit"],
                "bound_ratio_at_T_to": m["bound_ratio_at_T_to"],
            }
        )
    return rows


def hc_rows(sec: HcGrid) -> list[dict]:
    """h_c(n): the smallest T0 with exact regret >= c n^{3/2} sqrt(kT) for all T >= T0 (§4.5 d),
    certified beyond the scanned range by bound (b)."""
    rows = []
    k = int(sec.k)
    for c in sec.c:
        for n in sec.n:
            if 2 * k > n:
                continue
            limit = lowerbound.h_c_limit(n, k)
            if c >= limit:
                rows.append({"n": n, "k": k, "c": c, "limit": limit, "h_c": -1})
                continue
            rows.append(
                {
                    "n": int(n),
                    "k": k,
                    "c": float(c),
                    "limit": limit,
                    "h_c": int(lowerbound.h_c(int(n), float(c), k)),
                }
            )
    return rows


def abg_rows(sec: Route) -> list[dict]:
    """The paper's route (§4.4) for each j: alpha, beta, gamma bounds (exact Binomial sums),
    the implied regret lower bound, its CLT form, and the exact E[L*] and regret."""
    rows = []
    n, T, k = int(sec.n), int(sec.T), int(sec.k)
    exact_reg = float(lowerbound.exact_regret(n, T, k))
    best_ell = float(lowerbound.expected_best_loss(n, T, k)) + T * math.comb(k, 2)
    for j in sec.j:
        rb = lowerbound.alpha_beta_gamma(n, T, float(j), k)
        d = {f: getattr(rb, f) for f in rb.__dataclass_fields__}
        rows.append(
            {
                "n": n,
                "k": k,
                "T": T,
                "j": float(j),
                **{
                    key: (float(v) if isinstance(v, (float, int, np.floating)) else v)
                    for key, v in d.items()
                    if key not in ("n", "k", "T", "j")
                },
                "kappa": lowerbound.kappa(float(j)),
                "exact_regret": exact_reg,
                "exact_best_loss_position": best_ell,
            }
        )
    return rows


def frequency_rows(sec: Frequencies, seed: int) -> list[dict]:
    """Monte Carlo of the construction: histogram of item 0's frequency over ``reps`` sampled
    sequences, next to the Binomial(T, k/n) pmf (sampled, not exact: the pmf is the exact law)."""
    # lazy: scipy.stats costs most of a table job's start-up; only this table needs it
    from scipy.stats import binom

    n, T, k, reps = int(sec.n), int(sec.T), int(sec.k), int(sec.reps)
    rng = stream(seed, "lower", "frequencies", n, k, T)
    f = lowerbound.sample_frequencies(n, T, reps, rng, k)
    counts = np.bincount(f[:, 0], minlength=T + 1)
    regret = cast(np.ndarray, lowerbound.hindsight_regret_from_frequencies(f, T, k))  # f is 2-d
    mean, se = float(regret.mean()), float(regret.std(ddof=1) / math.sqrt(reps))
    pmf = binom.pmf(np.arange(T + 1), T, k / n)
    lo, hi = int(binom.ppf(1e-6, T, k / n)), int(binom.isf(1e-6, T, k / n))
    return [
        {
            "n": n,
            "k": k,
            "T": T,
            "reps": reps,
            "x": x,
            "count": int(counts[x]),
            "freq": counts[x] / reps,
            "pmf": float(pmf[x]),
            "regret_mc_mean": mean,
            "regret_mc_sem": se,
            "regret_exact": float(lowerbound.exact_regret(n, T, k)),
        }
        for x in range(lo, hi + 1)
    ]
