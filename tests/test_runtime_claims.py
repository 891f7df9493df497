"""The timing claims (onlinerank.claims.runtime) on synthetic runtime tables with known laws,
log-normal noise between the repeats and a per-process factor (fixed seeds): verdicts, intervals
over the processes that are never zero width, and methods that say how the interval was made."""

import copy
import math

import numpy as np
import pytest
import yaml
from conftest import ROOT

from onlinerank.claims import REGISTRY
from onlinerank.claims.report import evaluate
from onlinerank.config import load_settings

TIMING = ("sec4.runtime", "beyond.runtime.permelearn", "beyond.runtime.speedup")
N_OR = [300, 1000, 2000, 3000, 10000, 30000, 100000]
N_PE = [300, 1000, 2000, 3000]


@pytest.fixture(scope="module")
def config():
    cfg = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    cfg["runtime"].update(fit_min_n=1000, permelearn_min_exponent=1.7, speedup=100)
    return load_settings(cfg, ROOT / "src" / "onlinerank" / "config.schema.yaml")


def table(onlinerank, seed, sigma=0.1, repeats=5, processes=4, tau=0.05):
    """Rows as :func:`onlinerank.timing.runtime_rows` makes them: OnlineRank's round takes
    ``onlinerank(n)`` seconds, PermELearn's sweep 1e-8 n² (4 sweeps per update), its first
    Birkhoff step 1e-9 n³ (timed up to n = 1000); every timing times exp(sigma N(0, 1)), and every
    timing of a process and learner times (n / 300)^(tau N(0, 1)) (what a process shares)."""
    rng = np.random.default_rng(seed)
    rows = []
    tilt = {}

    def add(label, name, n, part, law, sweeps=math.nan):
        for p in range(processes):
            if (label, p) not in tilt:
                tilt[(label, p)] = tau * rng.standard_normal()
            for rep in range(repeats):
                rows.append(
                    {
                        "learner": label,
                        "name": name,
                        "n": n,
                        "part": part,
                        "process": p,
                        "repeat": p * repeats + rep,
                        "seconds_per_round": law
                        * (n / 300) ** tilt[(label, p)]
                        * float(np.exp(sigma * rng.standard_normal())),
                        "rounds_timed": 10,
                        "sweeps_per_round": sweeps,
                    }
                )

    for label in ("onlinerank-pl", "onlinerank-qs"):
        for n in N_OR:
            add(label, "onlinerank", n, "round", onlinerank(n))
    for n in N_PE:
        add("permelearn", "permelearn", n, "sweep", 1e-8 * n**2, 4.0)
        add("permelearn", "permelearn", n, "update", 4e-8 * n**2, 4.0)
        if n <= 1000:
            add("permelearn", "permelearn", n, "round_lower", 4e-8 * n**2 + 1e-9 * n**3, 4.0)
    return rows


def cells(cid, rows, config):
    return evaluate(REGISTRY[cid], {"runtime": copy.deepcopy(rows)}, config, 0.05)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_n_log_n_round_passes_and_a_quadratic_round_fails(seed, config):
    """sec4.runtime: t = c n ln n with 10% noise PASSes; t = c n² (excess exponent ~0.89 > 0.5)
    FAILs, for each fixed seed."""
    good = cells("sec4.runtime", table(lambda n: 2e-8 * n * math.log(n), seed), config)
    assert good["verdict"] == "PASS"
    assert len(good["cells"]) == 2 and all(abs(c["value"]) < 0.1 for c in good["cells"])
    bad = cells("sec4.runtime", table(lambda n: 1e-10 * n**2, seed), config)
    assert bad["verdict"] == "FAIL"
    for c in bad["cells"]:
        assert c["value"] == pytest.approx(0.89, abs=0.05) and c["lo"] > 0.5
        assert c["params"]["n"] == [1000, 2000, 3000, 10000, 30000, 100000]  # n >= fit_min_n


def test_permelearn_sweep_and_speedup_on_known_laws(config):
    rows = table(lambda n: 2e-8 * n * math.log(n), 4)
    sweep = cells("beyond.runtime.permelearn", rows, config)
    assert sweep["verdict"] == "PASS"
    (c,) = sweep["cells"]
    assert c["lo"] < 2.0 < c["hi"] and c["lo"] >= 1.7
    speed = cells("beyond.runtime.speedup", rows, config)
    assert speed["verdict"] == "PASS"
    by = {c["params"]["n"]: c for c in speed["cells"]}
    assert by[1000]["params"]["permelearn_part"] == "round_lower"
    assert by[2000]["params"]["permelearn_part"] == "update"
    # the ratio of medians: PermELearn's update 4e-8 n² over OnlineRank's 2e-8 n ln n, up to the noise
    assert by[3000]["value"] == pytest.approx(4e-8 * 3000**2 / (2e-8 * 3000 * math.log(3000)), rel=0.25)
    assert all(math.isinf(c["hi"]) for c in speed["cells"])  # lower bounds of PermELearn's round
    # PermELearn a thousand times faster (ratios below 1): a lower bound of its round below the
    # factor decides nothing (its interval reaches ∞); whole rounds below it FAIL
    fast = [
        dict(r, seconds_per_round=r["seconds_per_round"] * 1e-3) if r["name"] == "permelearn" else r
        for r in rows
    ]
    assert cells("beyond.runtime.speedup", fast, config)["verdict"] == "INCONCLUSIVE"
    whole = [
        dict(r, part="round")
        if r["part"] == "round_lower" or (r["part"] == "update" and r["n"] > 1000)
        else r
        for r in fast
    ]
    rec = cells("beyond.runtime.speedup", whole, config)
    assert rec["verdict"] == "FAIL" and all(c["hi"] < 100 for c in rec["cells"])


@pytest.mark.parametrize("seed", [5, 6])
def test_a_timing_cell_is_never_zero_width_and_says_how(seed, config):
    for cid in TIMING:
        rec = cells(cid, table(lambda n: 2e-8 * n * math.log(n), seed, sigma=0.05), config)
        assert rec["cells"], cid
        for c in rec["cells"]:
            assert c["lo"] < c["hi"], (cid, c["cell"], c["lo"], c["hi"])
            assert c["lo"] <= c["value"] <= c["hi"]
            assert "4 timing processes × 5 repeats" in c["method"], c["method"]
            assert "Student-t interval" in c["method"] and "random effects over processes" in c["method"]
            assert "with 3 degrees of freedom" in c["method"]
            assert c["reps"] == 4 and len(c["params"]["processes"]) == 4


def test_the_value_is_the_mean_over_processes_and_the_interval_a_t_interval(config):
    """sec4.runtime's cell, recomputed from the rows by hand: each process's least-squares slope
    of log(median / (n ln n)) on log n, their mean, mean ± t(1 - 0.05/4; 3) s / 2 (two samplers:
    Bonferroni level 0.975; 4.176535 from the tables of Student t)."""
    rows = table(lambda n: 2e-8 * n * math.log(n), 8)
    rec = cells("sec4.runtime", rows, config)
    (pl,) = [c for c in rec["cells"] if c["params"]["learner"] == "onlinerank-pl"]
    ns = np.array([n for n in N_OR if n >= 1000], float)
    per = []
    for p in range(4):
        med = [
            np.median(
                [
                    r["seconds_per_round"]
                    for r in rows
                    if r["learner"] == "onlinerank-pl" and r["n"] == n and r["process"] == p
                ]
            )
            for n in ns
        ]
        per.append(np.polyfit(np.log(ns), np.log(np.array(med) / (ns * np.log(ns))), 1)[0])
    assert pl["params"]["processes"] == pytest.approx(per, abs=1e-12)
    half = 4.176535 * np.std(per, ddof=1) / 2
    assert (pl["value"], pl["lo"], pl["hi"]) == pytest.approx(
        (np.mean(per), np.mean(per) - half, np.mean(per) + half), abs=1e-6
    )


def test_the_intervals_are_simultaneous_over_the_cells(config):
    """Bonferroni: two OnlineRank samplers, each interval at 1 - 0.05/2; the speedup's three n at
    1 - 0.05/3; no random draws (same table: same cells)."""
    rows = table(lambda n: 2e-8 * n * math.log(n), 7)
    rec = cells("sec4.runtime", rows, config)
    assert all("97.50% Student-t interval" in c["method"] for c in rec["cells"])
    assert all(
        "98.33% Student-t interval" in c["method"]
        for c in cells("beyond.runtime.speedup", rows, config)["cells"]
    )
    again = cells("sec4.runtime", rows, config)
    assert [(c["lo"], c["hi"]) for c in again["cells"]] == [(c["lo"], c["hi"]) for c in rec["cells"]]


def test_a_runtime_table_without_processes_is_refused(config):
    """A table of the earlier format (no ``process`` column) names the missing column."""
    rows = [{k: v for k, v in r.items() if k != "process"} for r in table(lambda n: 1e-6 * n, 9)]
    with pytest.raises(ValueError, match=r"lacks columns \['process'\]"):
        cells("sec4.runtime", rows, config)
