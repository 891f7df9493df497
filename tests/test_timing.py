"""onlinerank.timing: which parts of a round are timed for which n and how often, the exponent fits
and their intervals from the repeats (on synthetic timings with known laws and noise), and
argument checks (the measured numbers are wall clock: only their structure is tested)."""

import math

import numpy as np
import pytest

from onlinerank.timing import per_round_seconds, repeat_seconds, runtime_rows
from onlinerank.timing_fits import excess_exponent, fit_exponent, repeat_exponent, repeat_ratio


def test_fit_exponent_recovers_a_power_law():
    ns = np.array([10, 100, 1000, 5000])
    assert fit_exponent(ns, 3e-7 * ns**1.7) == pytest.approx(1.7, abs=1e-12)
    assert fit_exponent([2, 4, 8], [5.0, 5.0, 5.0]) == pytest.approx(0.0, abs=1e-12)
    # noisy data: the least-squares slope of log(seconds) on log(n), by its normal equations
    ns, secs = [1, 2, 4, 8], [1.1, 2.0 / 1.1, 4.0 * 1.1, 8.0 / 1.1]
    x, y = [math.log(v) for v in ns], [math.log(v) for v in secs]
    mx, my = sum(x) / 4, sum(y) / 4
    slope = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True)) / sum((a - mx) ** 2 for a in x)
    assert fit_exponent(ns, secs) == pytest.approx(slope, rel=1e-12)
    assert slope < 1.0  # the noise pattern tilts it below the noiseless 1


def test_per_round_seconds_parts():
    s = per_round_seconds({"name": "onlinerank"}, n=6, rounds=3, repeats=2)
    assert set(s) == {"update", "sample", "sweeps"}
    assert s["update"] > 0 and s["sample"] > 0
    assert math.isnan(s["sweeps"])  # no Sinkhorn sweeps
    s = per_round_seconds({"name": "onlinerank"}, n=6, rounds=3, repeats=1, sample=False)
    assert s["update"] > 0 and math.isnan(s["sample"])
    pe = per_round_seconds({"name": "permelearn"}, n=5, rounds=2, repeats=1, sample="first-step")
    assert pe["sample"] > 0 and pe["sweeps"] >= 1  # Sinkhorn sweeps per update are counted


def test_per_round_seconds_refuses_bad_sample_arguments():
    with pytest.raises(ValueError, match="sample must be True, False or 'first-step'"):
        per_round_seconds({"name": "onlinerank"}, n=4, rounds=1, sample="all")
    with pytest.raises(ValueError, match="has no sample_first_step"):
        per_round_seconds({"name": "ftl"}, n=4, rounds=1, sample="first-step")


def test_repeat_seconds_keeps_the_repeats_apart():
    r = repeat_seconds({"name": "permelearn"}, n=5, rounds=3, repeats=4)
    assert set(r) == {"update", "sample", "sweeps"}
    for part in r.values():
        assert part.shape == (4,) and np.all(part > 0)
    pr = per_round_seconds({"name": "onlinerank"}, n=5, rounds=2, repeats=3, sample=False)
    assert math.isnan(pr["sample"]) and math.isnan(pr["sweeps"])


def test_runtime_rows_time_the_parts_each_n_allows():
    learners = {"pl": {"name": "onlinerank"}, "pe": {"name": "permelearn"}}
    sec = {
        "learners": ["pl", "pe"],
        "n": [4, 6, 8, 10],
        "max_n": {"pl": 8},  # pl is skipped at n = 10
        "max_sample_n": {"pl": 4, "pe": 4},  # whole draws up to n = 4
        "max_partial_sample_n": {"pe": 6},  # pe: first step only at n = 6, update only beyond
        "seconds_per_point": 0.002,
        "repeats": 5,
    }
    from onlinerank.config import load_settings

    settings = load_settings(
        {"seed": 0, "learners": learners, "adversaries": {"u": {"name": "uniform"}}, "runtime": sec}
    )
    rows = runtime_rows(settings.learners, settings.runtime)
    parts: dict[tuple[str, int], list[str]] = {}
    reps: dict[tuple[str, int, str], list[int]] = {}
    for r in rows:
        key = (r["learner"], r["n"])
        if r["part"] not in parts.setdefault(key, []):
            parts[key].append(r["part"])
        reps.setdefault((*key, r["part"]), []).append(r["repeat"])
    assert parts[("pl", 4)] == ["update", "sample", "round"]
    assert parts[("pl", 6)] == parts[("pl", 8)] == ["update"]
    assert ("pl", 10) not in parts
    assert parts[("pe", 4)] == ["update", "sample", "round", "sweep"]
    assert parts[("pe", 6)] == ["update", "sample_first_step", "round_lower", "sweep"]
    assert parts[("pe", 8)] == parts[("pe", 10)] == ["update", "sweep"]
    assert all(v == [0, 1, 2, 3, 4] for v in reps.values())  # five separate timings of every part
    by = {(r["learner"], r["n"], r["part"], r["repeat"]): r for r in rows}
    for rep in range(5):
        for lab, n, whole in (("pl", 4, "round"), ("pe", 4, "round"), ("pe", 6, "round_lower")):
            first = "sample" if whole == "round" else "sample_first_step"
            total = (
                by[(lab, n, "update", rep)]["seconds_per_round"]
                + by[(lab, n, first, rep)]["seconds_per_round"]
            )
            assert by[(lab, n, whole, rep)]["seconds_per_round"] == total  # within the same repeat
        sweep = by[("pe", 8, "sweep", rep)]
        assert sweep["seconds_per_round"] == pytest.approx(
            by[("pe", 8, "update", rep)]["seconds_per_round"] / max(sweep["sweeps_per_round"], 1.0)
        )
    for r in rows:
        assert r["seconds_per_round"] > 0 and 2 <= r["rounds_timed"] <= 2000
        assert r["name"] == learners[r["learner"]]["name"]
        assert math.isnan(r["sweeps_per_round"]) == (r["learner"] == "pl")
    # the repeats are separate timings, not copies of one
    assert len({by[("pe", 8, "update", rep)]["seconds_per_round"] for rep in range(5)}) > 1


# ---- the statistics of the timing claims, on synthetic timings with known laws and noise ----

GRID = np.array([1000, 2000, 3000, 10000, 30000, 100000])


def synthetic(law, rng, repeats=5, sigma=0.1):
    """``repeats`` timings per n of ``law(n)`` with multiplicative log-normal noise (median 1)."""
    return [law(n) * np.exp(sigma * rng.standard_normal(repeats)) for n in GRID]


def test_excess_exponent_is_the_slope_beyond_n_log_n():
    n = GRID.astype(float)
    assert excess_exponent(n, 3e-8 * n * np.log(n)) == pytest.approx(0.0, abs=1e-12)
    assert excess_exponent(n, 3e-8 * n**1.2 * np.log(n)) == pytest.approx(0.2, abs=1e-12)
    # quadratic: the slope of log(n / ln n), 1 - (slope of log ln n), about 0.89 on this grid
    x, y = np.log(n), np.log(n / np.log(n))
    ls = float(np.sum((x - x.mean()) * (y - y.mean())) / np.sum((x - x.mean()) ** 2))
    assert excess_exponent(n, 1e-9 * n**2) == pytest.approx(ls, rel=1e-12)
    assert 0.85 < ls < 0.92


def test_repeat_exponent_passes_n_log_n_and_fails_a_quadratic_round():
    """sec4.runtime's test (excess exponent <= 0.5) on timings with 10% noise, fixed seeds."""
    thr = 0.5
    fit = repeat_exponent(
        GRID,
        synthetic(lambda n: 2e-8 * n * np.log(n), np.random.default_rng(1)),
        np.random.default_rng(2),
        0.975,
        excess=True,
    )
    assert fit["lo"] < fit["estimate"] < fit["hi"] <= thr  # PASS, and not zero width
    assert abs(fit["estimate"]) < 0.05
    quad = repeat_exponent(
        GRID,
        synthetic(lambda n: 1e-9 * n**2, np.random.default_rng(3)),
        np.random.default_rng(4),
        0.975,
        excess=True,
    )
    assert thr < quad["lo"] < quad["estimate"] < quad["hi"]  # FAIL
    assert quad["estimate"] == pytest.approx(0.89, abs=0.05)
    # without ``excess``: the exponent of the seconds themselves
    raw = repeat_exponent(
        GRID, synthetic(lambda n: 1e-9 * n**2, np.random.default_rng(3)), np.random.default_rng(4), 0.975
    )
    assert raw["estimate"] == pytest.approx(2.0, abs=0.05)


def coverage(repeats, seed, tables=200):
    """How often the 95% interval of :func:`repeat_exponent` covers the true excess exponent 0.1 of
    t = c n^1.1 ln n with log-normal noise of sd 0.2, and the estimates."""
    rng = np.random.default_rng(seed)
    hits, est = 0, []
    for _ in range(tables):
        law = synthetic(lambda n: 1e-8 * n**1.1 * np.log(n), rng, repeats=repeats, sigma=0.2)
        fit = repeat_exponent(GRID, law, rng, 0.95, draws=1000, excess=True)
        hits += fit["lo"] <= 0.1 <= fit["hi"]
        est.append(fit["estimate"])
    return hits, np.array(est)


def test_repeat_exponent_interval_covers_the_true_exponent():
    """With 5 repeats the 95% interval covers the true exponent in at least 95% of 200 synthetic
    tables (fixed seed) and the estimate is unbiased (mean within 3 standard errors of 0.1).  With
    2 repeats it does not reach 95% (the reason for runtime.repeats >= 5; config/README.md)."""
    hits, est = coverage(5, 20240611)
    assert hits >= 190, hits
    assert abs(est.mean() - 0.1) < 3 * est.std() / np.sqrt(est.size)
    hits2, _ = coverage(2, 1)
    assert hits2 < 190, hits2


def test_repeat_ratio_is_the_ratio_of_medians_with_a_repeat_interval():
    rng = np.random.default_rng(5)
    num, den = 0.5 * np.exp(0.1 * rng.standard_normal(5)), 1e-4 * np.exp(0.1 * rng.standard_normal(5))
    r = repeat_ratio(num, den, np.random.default_rng(6), 0.95)
    assert r["estimate"] == pytest.approx(np.median(num) / np.median(den), rel=1e-12)
    assert r["lo"] < r["estimate"] < r["hi"]
    assert r["lo"] >= num.min() / den.max() and r["hi"] <= num.max() / den.min()  # ratios of repeats


def test_one_timing_gives_no_interval():
    with pytest.raises(ValueError, match="needs >= 2"):
        repeat_exponent([1000, 2000], [[1.0], [2.0, 2.1]], np.random.default_rng(0))
    with pytest.raises(ValueError, match="two or more n"):
        repeat_exponent([1000], [[1.0, 1.1]], np.random.default_rng(0))
