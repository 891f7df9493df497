"""onlinerank.timing: which parts of a round are timed for which n, how often and in how many
processes, the exponent fits and their intervals over the processes (on synthetic timings with
known laws, process effects and noise), argument checks, and two real timing runs whose exponents
lie within each other's intervals (the measured numbers are wall clock: that test states its
statistical tolerance)."""

import math

import numpy as np
import pytest

from onlinerank.timing import per_round_seconds, process_rows, repeat_seconds, runtime_rows
from onlinerank.timing_fits import (
    excess_exponent,
    fit_exponent,
    process_exponent,
    process_ratio,
    student_t_quantile,
)


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
    s = per_round_seconds({"name": "onlinerank"}, n=6, rounds=3, repeats=2, sample=True)
    assert set(s) == {"update", "sample", "sweeps"}
    assert s["update"] > 0 and s["sample"] > 0
    assert math.isnan(s["sweeps"])  # no Sinkhorn sweeps
    s = per_round_seconds({"name": "onlinerank"}, n=6, rounds=3, repeats=1, sample=False)
    assert s["update"] > 0 and math.isnan(s["sample"])
    pe = per_round_seconds({"name": "permelearn"}, n=5, rounds=2, repeats=1, sample="first-step")
    assert pe["sample"] > 0 and pe["sweeps"] >= 1  # Sinkhorn sweeps per update are counted


def test_per_round_seconds_refuses_bad_sample_arguments():
    with pytest.raises(ValueError, match="sample must be True, False or 'first-step'"):
        per_round_seconds({"name": "onlinerank"}, n=4, rounds=1, sample="all", repeats=3)
    with pytest.raises(ValueError, match="has no sample_first_step"):
        per_round_seconds({"name": "ftl"}, n=4, rounds=1, sample="first-step", repeats=3)


def test_repeat_seconds_keeps_the_repeats_apart():
    r = repeat_seconds({"name": "permelearn"}, n=5, rounds=3, repeats=4, sample=True)
    assert set(r) == {"update", "sample", "sweeps"}
    for part in r.values():
        assert part.shape == (4,) and np.all(part > 0)
    pr = per_round_seconds({"name": "onlinerank"}, n=5, rounds=2, repeats=3, sample=False)
    assert math.isnan(pr["sample"]) and math.isnan(pr["sweeps"])


def _settings(sec: dict):
    from onlinerank.config import load_settings

    learners = {"pl": {"name": "onlinerank"}, "pe": {"name": "permelearn"}}
    return load_settings(
        {"seed": 0, "learners": learners, "adversaries": {"u": {"name": "uniform"}}, "runtime": sec}
    )


def test_runtime_rows_time_the_parts_each_n_allows():
    sec = {
        "learners": ["pl", "pe"],
        "n": [4, 6, 8, 10],
        "max_n": {"pl": 8},  # pl is skipped at n = 10
        "max_sample_n": {"pl": 4, "pe": 4},  # whole draws up to n = 4
        "max_partial_sample_n": {"pe": 6},  # pe: first step only at n = 6, update only beyond
        "seconds_per_point": 0.002,
        "repeats": 5,
        "processes": 2,
    }
    settings = _settings(sec)
    rows = runtime_rows(settings.learners, settings.runtime)
    parts: dict[tuple[str, int], list[str]] = {}
    reps: dict[tuple[str, int, str], list[tuple[int, int]]] = {}
    for r in rows:
        key = (r["learner"], r["n"])
        if r["part"] not in parts.setdefault(key, []):
            parts[key].append(r["part"])
        reps.setdefault((*key, r["part"]), []).append((r["process"], r["repeat"]))
    assert parts[("pl", 4)] == ["update", "sample", "round"]
    assert parts[("pl", 6)] == parts[("pl", 8)] == ["update"]
    assert ("pl", 10) not in parts
    assert parts[("pe", 4)] == ["update", "sample", "round", "sweep"]
    assert parts[("pe", 6)] == ["update", "sample_first_step", "round_lower", "sweep"]
    assert parts[("pe", 8)] == parts[("pe", 10)] == ["update", "sweep"]
    # five separate timings of every part in each of the two processes, numbered over both
    want = [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (1, 5), (1, 6), (1, 7), (1, 8), (1, 9)]
    assert all(v == want for v in reps.values())
    assert [r["learner"] for r in rows] == sorted((r["learner"] for r in rows), key=["pl", "pe"].index)
    by = {(r["learner"], r["n"], r["part"], r["repeat"]): r for r in rows}
    for rep in range(10):
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
        assert r["name"] == settings.learners[r["learner"]].name
        assert math.isnan(r["sweeps_per_round"]) == (r["learner"] == "pl")
    # the repeats are separate timings, not copies of one
    assert len({by[("pe", 8, "update", rep)]["seconds_per_round"] for rep in range(10)}) > 1


def test_a_process_times_its_points_in_alternating_order(monkeypatch):
    """Even processes time the n of a learner upwards, odd ones downwards (a drift of the machine's
    speed then tilts their exponents in opposite directions); the rows carry the process."""
    import onlinerank.timing as timing

    seen: list[tuple[int, int]] = []

    def fake(spec, n, rounds, *, repeats, seed=0, sample):
        seen.append((n, repeats))
        return {"update": 1.0, "sample": 1.0, "sweeps": math.nan}

    monkeypatch.setattr(timing, "per_round_seconds", fake)
    monkeypatch.setattr(
        timing,
        "repeat_seconds",
        lambda spec, n, rounds, *, repeats, seed=0, sample: {
            "update": np.ones(repeats),
            "sample": np.ones(repeats),
            "sweeps": np.full(repeats, math.nan),
        },
    )
    settings = _settings({"learners": ["pl"], "n": [300, 4, 50], "repeats": 5})
    sec = settings.runtime
    up = process_rows(settings.learners, sec, process=2)
    assert [n for n, _ in seen] == [4, 50, 300]
    seen.clear()
    down = process_rows(settings.learners, sec, process=3)
    assert [n for n, _ in seen] == [300, 50, 4]
    assert {r["process"] for r in up} == {2} and {r["process"] for r in down} == {3}
    assert [r["repeat"] for r in up if r["n"] == 4 and r["part"] == "update"] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("concurrent", [1, 2])
def test_a_failing_timing_process_names_itself(monkeypatch, concurrent):
    """A timing process that fails stops the table with its stderr, not with a half table."""
    sec = _settings(
        {"learners": ["pl"], "n": [4, 6], "repeats": 5, "seconds_per_point": 0.001, "concurrent": concurrent}
    )
    monkeypatch.setattr("sys.executable", "/bin/false")
    with pytest.raises(RuntimeError, match="timing process 0 failed"):
        runtime_rows(sec.learners, sec.runtime)


@pytest.mark.parametrize("concurrent, most", [(1, 1), (2, 2), (3, 3), (8, 4)])
def test_timing_processes_run_the_configured_number_at_a_time(monkeypatch, concurrent, most):
    """``runtime.concurrent`` timing processes run at a time (at most ``processes``), started in
    the order of their number; the pooled table does not depend on how many ran together."""
    import threading
    import time

    import onlinerank.timing as timing

    lock, running, peak, started = threading.Lock(), [0], [0], []
    # the first wave passes only when all of its processes run at once (a timeout fails the test)
    first_wave = threading.Barrier(most, timeout=30)

    def fake(learners, sec, process):
        with lock:
            started.append(process)
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        if process < most:
            first_wave.wait()
        time.sleep(0.01)
        with lock:
            running[0] -= 1
        return [
            {
                "learner": "pl",
                "n": n,
                "part": "update",
                "process": process,
                "repeat": rep,
                "seconds_per_round": 1.0,
            }
            for n in (6, 4)
            for rep in range(2)
        ]

    monkeypatch.setattr(timing, "timing_process", fake)
    settings = _settings(
        {"learners": ["pl"], "n": [4, 6], "repeats": 5, "processes": 4, "concurrent": concurrent}
    )
    rows = runtime_rows(settings.learners, settings.runtime)
    assert peak[0] == most
    assert started[: min(concurrent, 4)] == sorted(started[: min(concurrent, 4)]) and sorted(started) == [
        0,
        1,
        2,
        3,
    ]
    if concurrent == 1:
        assert started == [0, 1, 2, 3]
    assert [(r["n"], r["process"], r["repeat"]) for r in rows] == [
        (n, p, p * 5 + rep) for n in (4, 6) for p in range(4) for rep in range(2)
    ]


# ---- the statistics of the timing claims, on synthetic timings with known laws and noise ----

GRID = np.array([1000, 2000, 3000, 10000, 30000, 100000])


def synthetic(law, rng, processes=4, repeats=5, sigma=0.1, tau=0.0):
    """``processes`` timing processes of ``repeats`` timings per n of ``law(n)``: multiplicative
    log-normal noise of sd ``sigma`` per timing, and per process a random tilt of the exponent
    (normal, sd ``tau``: what a process shares over all its timings)."""
    out = []
    for _ in range(processes):
        tilt = tau * rng.standard_normal()
        out.append(
            [law(n) * (n / GRID[0]) ** tilt * np.exp(sigma * rng.standard_normal(repeats)) for n in GRID]
        )
    return out


def test_excess_exponent_is_the_slope_beyond_n_log_n():
    n = GRID.astype(float)
    assert excess_exponent(n, 3e-8 * n * np.log(n)) == pytest.approx(0.0, abs=1e-12)
    assert excess_exponent(n, 3e-8 * n**1.2 * np.log(n)) == pytest.approx(0.2, abs=1e-12)
    # quadratic: the slope of log(n / ln n), 1 - (slope of log ln n), about 0.89 on this grid
    x, y = np.log(n), np.log(n / np.log(n))
    ls = float(np.sum((x - x.mean()) * (y - y.mean())) / np.sum((x - x.mean()) ** 2))
    assert excess_exponent(n, 1e-9 * n**2) == pytest.approx(ls, rel=1e-12)
    assert 0.85 < ls < 0.92


def test_process_exponent_is_the_mean_of_the_processes_fits_with_a_student_t_interval():
    """The value is the mean of each process's fit to its per-n medians (numpy's polyfit here), the
    interval mean ± t(0.975; P-1) s / sqrt(P) (the t quantile from its tabulated value)."""
    procs = synthetic(lambda n: 2e-8 * n * np.log(n), np.random.default_rng(1), tau=0.05)
    fit = process_exponent(GRID, procs, 0.95, excess=True)
    per = [
        np.polyfit(np.log(GRID), np.log([np.median(r) for r in p] / (GRID * np.log(GRID))), 1)[0]
        for p in procs
    ]
    assert fit["per_process"] == pytest.approx(per, abs=1e-12)
    assert fit["estimate"] == pytest.approx(np.mean(per), abs=1e-12)
    assert student_t_quantile(0.95, 3) == pytest.approx(3.182446, abs=1e-6)  # tables of Student t
    half = 3.182446 * np.std(per, ddof=1) / 2
    assert (fit["lo"], fit["hi"]) == pytest.approx((np.mean(per) - half, np.mean(per) + half), abs=1e-6)
    assert (fit["processes"], fit["df"], fit["level"]) == (4, 3, 0.95)
    raw = process_exponent(GRID, synthetic(lambda n: 1e-9 * n**2, np.random.default_rng(3)), 0.975)
    assert raw["estimate"] == pytest.approx(2.0, abs=0.05)  # without ``excess``: of the seconds


def test_process_exponent_passes_n_log_n_and_fails_a_quadratic_round():
    """sec4.runtime's test (excess exponent <= 0.5) on timings with 10% noise and process tilts of
    sd 0.05, fixed seeds."""
    thr = 0.5
    fit = process_exponent(
        GRID, synthetic(lambda n: 2e-8 * n * np.log(n), np.random.default_rng(1), tau=0.05), 0.975, True
    )
    assert fit["lo"] < fit["estimate"] < fit["hi"] <= thr  # PASS, and not zero width
    assert abs(fit["estimate"]) < 0.1
    quad = process_exponent(
        GRID, synthetic(lambda n: 1e-9 * n**2, np.random.default_rng(3), tau=0.05), 0.975, True
    )
    assert thr < quad["lo"] < quad["estimate"] < quad["hi"]  # FAIL
    assert quad["estimate"] == pytest.approx(0.89, abs=0.1)


def coverage(tau, seed, tables=400, processes=4):
    """How often the 95% interval of :func:`process_exponent` covers the true excess exponent 0.1
    of t = c n^1.1 ln n with log-normal noise of sd 0.2 per timing and process tilts of sd
    ``tau``, and how often the same interval made of one process's repeats only (the repeats as if
    they were processes: what an interval from one process sees) covers it."""
    rng = np.random.default_rng(seed)
    hits = one = 0
    est = []
    for _ in range(tables):
        procs = synthetic(lambda n: 1e-8 * n**1.1 * np.log(n), rng, processes, sigma=0.2, tau=tau)
        fit = process_exponent(GRID, procs, 0.95, excess=True)
        hits += fit["lo"] <= 0.1 <= fit["hi"]
        est.append(fit["estimate"])
        alone = process_exponent(GRID, [[[r[i]] for r in procs[0]] for i in range(5)], 0.95, True)
        one += alone["lo"] <= 0.1 <= alone["hi"]
    return hits, one, np.array(est)


def test_the_interval_over_processes_covers_the_true_exponent_despite_process_effects():
    """With process tilts of sd 0.1 (the run-to-run variation, twice the repeat noise's effect on
    a fit) the 95% interval over 4 processes covers the true exponent in 95% of 400 synthetic
    tables within binomial error (at least 367 = 380 - 3 x 4.36, the binomial sd), and the
    estimate is unbiased (mean within 3 standard errors of 0.1); an interval made of the repeats
    of one process covers it far less often (fewer than 300), which is why the timings run in
    several processes."""
    hits, one, est = coverage(0.1, 20240611)
    assert hits >= 367, hits
    assert abs(est.mean() - 0.1) < 3 * est.std() / np.sqrt(est.size)
    assert one < 300, one


def test_process_ratio_is_the_geometric_mean_of_the_processes_ratios():
    rng = np.random.default_rng(5)
    num = [0.5 * np.exp(0.1 * rng.standard_normal(5)) for _ in range(4)]
    den = [1e-4 * np.exp(0.1 * rng.standard_normal(5)) for _ in range(4)]
    r = process_ratio(num, den, 0.95)
    logs = [np.log(np.median(a) / np.median(b)) for a, b in zip(num, den, strict=True)]
    assert r["per_process"] == pytest.approx(np.exp(logs), rel=1e-12)
    assert r["estimate"] == pytest.approx(np.exp(np.mean(logs)), rel=1e-12)
    half = 3.182446 * np.std(logs, ddof=1) / 2
    assert r["lo"] == pytest.approx(np.exp(np.mean(logs) - half), rel=1e-6)
    assert r["hi"] == pytest.approx(np.exp(np.mean(logs) + half), rel=1e-6)
    assert r["lo"] < r["estimate"] < r["hi"]


def test_one_process_gives_no_interval():
    with pytest.raises(ValueError, match="needs >= 2"):
        process_exponent([1000, 2000], [[[1.0, 1.1], [2.0, 2.1]]])
    with pytest.raises(ValueError, match="two or more n"):
        process_exponent([1000], [[[1.0]], [[1.1]]])
    with pytest.raises(ValueError, match="process 1 has timings at 1 n, not 2"):
        process_exponent([1000, 2000], [[[1.0], [2.0]], [[1.0]]])
    with pytest.raises(ValueError, match="2 processes timed the numerator, 1 the denominator"):
        process_ratio([[1.0], [1.1]], [[1.0]])


@pytest.mark.slow
def test_two_independent_timing_runs_lie_within_each_others_intervals():
    """The runtime table made twice (each run: 4 fresh processes of 5 repeats, OnlineRank with
    Plackett-Luce at n = 300, 1000, 3000), and each run's sec4.runtime exponent lies within the
    other run's interval: the intervals hold the variation between timing processes (the repeats
    of one process spread by 0.01-0.03, processes by up to 0.2).

    The two runs' processes alternate (A0, B0, A1, B1, ...), so that both runs meet the same
    machine: here the other test worker's load, which changes from test to test and moves every
    process of a run made while it lasts.  Made one after the other, the two runs failed this
    test in 2 of about 16 suite runs (run A at -0.946 and -0.970, run B's interval from -0.927
    and -0.932).  The pipeline's timing job holds the machine to itself (the table rule's
    threads), so that no other job loads it during a run.

    Tolerance: the claim's interval at alpha = 0.001 (one cell: level 0.999).  If the processes'
    exponents are independent normal draws around the machine's exponent, run B's mean falls
    outside run A's interval mean ± t(0.9995; 3) s / 2 with probability P(|T_3| > t(0.9995; 3) /
    sqrt(2)) = 0.0028 (T_3: Student t with 3 degrees of freedom), so this test fails by chance
    in at most 0.56% of sessions (either direction)."""
    import copy

    import yaml
    from conftest import ROOT

    from onlinerank.claims import REGISTRY
    from onlinerank.claims.report import evaluate
    from onlinerank.config import load_settings
    from onlinerank.timing import pooled_rows, timing_process

    cfg = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    cfg["runtime"] = {
        "learners": ["onlinerank-pl"],
        "n": [300, 1000, 3000],
        "repeats": 5,
        "processes": 4,
        "seconds_per_point": 0.02,
        "fit_min_n": 300,
    }
    cfg["claims"]["alpha"] = 0.001
    settings = load_settings(cfg, ROOT / "src" / "onlinerank" / "config.schema.yaml")
    sec = settings.runtime
    made: list[list[dict]] = [[], []]
    for process in range(sec.processes):
        for run in made:
            run += timing_process(settings.learners, sec, process)
    runs = []
    for rows in made:
        table = pooled_rows(rows, sec)
        rec = evaluate(REGISTRY["sec4.runtime"], {"runtime": copy.deepcopy(table)}, settings, 0.001)
        (cell,) = rec["cells"]
        assert "99.90% Student-t interval" in cell["method"] and "with 3 degrees of freedom" in cell["method"]
        runs.append(cell)
    a, b = runs
    assert a["lo"] <= b["value"] <= a["hi"], (a, b)
    assert b["lo"] <= a["value"] <= b["hi"], (a, b)
