"""onlinerank.timing: which parts of a round are timed for which n, the exponent fit, and argument
checks (the numbers themselves are wall clock: only their structure is tested)."""

import math

import numpy as np
import pytest

from onlinerank.timing import fit_exponent, per_round_seconds, runtime_rows


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


def test_runtime_rows_time_the_parts_each_n_allows():
    learners = {"pl": {"name": "onlinerank"}, "pe": {"name": "permelearn"}}
    sec = {
        "learners": ["pl", "pe"],
        "n": [4, 6, 8, 10],
        "max_n": {"pl": 8},  # pl is skipped at n = 10
        "max_sample_n": {"pl": 4, "pe": 4},  # whole draws up to n = 4
        "max_partial_sample_n": {"pe": 6},  # pe: first step only at n = 6, update only beyond
        "seconds_per_point": 0.002,
    }
    rows = runtime_rows(learners, sec)
    parts: dict[tuple[str, int], list[str]] = {}
    for r in rows:
        parts.setdefault((r["learner"], r["n"]), []).append(r["part"])
    assert parts[("pl", 4)] == ["update", "sample", "round"]
    assert parts[("pl", 6)] == parts[("pl", 8)] == ["update"]
    assert ("pl", 10) not in parts
    assert parts[("pe", 4)] == ["update", "sample", "round", "sweep"]
    assert parts[("pe", 6)] == ["update", "sample_first_step", "round_lower", "sweep"]
    assert parts[("pe", 8)] == parts[("pe", 10)] == ["update", "sweep"]
    by = {(r["learner"], r["n"], r["part"]): r for r in rows}
    for lab, n, whole in (("pl", 4, "round"), ("pe", 4, "round"), ("pe", 6, "round_lower")):
        first = "sample" if whole == "round" else "sample_first_step"
        total = by[(lab, n, "update")]["seconds_per_round"] + by[(lab, n, first)]["seconds_per_round"]
        assert by[(lab, n, whole)]["seconds_per_round"] == total
    for r in rows:
        assert r["seconds_per_round"] > 0 and 2 <= r["rounds_timed"] <= 2000
        assert r["name"] == learners[r["learner"]]["name"]
        assert math.isnan(r["sweeps_per_round"]) == (r["learner"] == "pl")
    sweep = by[("pe", 8, "sweep")]
    assert sweep["seconds_per_round"] == pytest.approx(
        by[("pe", 8, "update")]["seconds_per_round"] / max(sweep["sweeps_per_round"], 1.0)
    )
