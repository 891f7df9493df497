"""Per-round running time of learners vs n (paper §4: O(n log n) per round for OnlineRank
against quadratic or worse for the baselines).  Wall-clock numbers: not bit-reproducible, so they
live in their own table and never in the determinism checks."""

from __future__ import annotations

import math
import time

import numpy as np

from .adversaries import make_adversary
from .game import Game
from .learners import make_learner
from .seeding import draw_seeds, replicate_keys, replicate_streams

__all__ = ["per_round_seconds", "runtime_rows", "fit_exponent"]


def per_round_seconds(spec: dict, n: int, rounds: int, repeats: int = 3, seed: int = 0,
                      sample: bool = True) -> dict[str, float]:
    """Median over ``repeats`` of the mean time per round, split into ``update`` (exact expected
    loss + update, e.g. PermELearn's Sinkhorn balancing) and ``sample`` (drawing the ranking, e.g.
    PermELearn's Birkhoff decomposition), for one replicate against uniform single choices."""
    params = {k: v for k, v in spec.items() if k != "name"}
    game = Game(n=n, T=max(rounds * (repeats + 1) + 3, 2))
    learner = make_learner(spec["name"], **params)
    adv = make_adversary("uniform")
    learner.reset(game, 1)
    adv.reset(game, replicate_streams(seed, ("timing", n), [0], "adversary"))
    keys = replicate_keys(seed, ("timing", n, spec["name"]), [0], "learner")
    t = 0

    def play(m):
        nonlocal t
        upd = smp = 0.0
        for _ in range(m):
            t += 1
            fb = adv.feedback(t, learner)
            t0 = time.perf_counter()
            if sample:
                learner.rank(draw_seeds(keys, t))
            t1 = time.perf_counter()
            learner.expected_loss(fb)
            learner.update(fb)
            t2 = time.perf_counter()
            smp += t1 - t0
            upd += t2 - t1
        return upd / m, smp / m

    play(min(rounds, 3))  # warm-up (numba cache load, first allocations)
    res = np.array([play(rounds) for _ in range(repeats)])
    med = np.median(res, axis=0)
    return {"update": float(med[0]), "sample": float(med[1]) if sample else math.nan}


def runtime_rows(learners: dict, sec: dict) -> list[dict]:
    """Rows (learner, n, part, seconds per round) for each learner label and n of ``sec``.

    A learner is skipped for n above ``sec["max_n"][label]`` (e.g. Hedge's n! table), and its
    sampling is not timed for n above ``sec["max_sample_n"][label]`` (e.g. PermELearn's Birkhoff
    decomposition, O(n^4) per draw); parts are ``update`` (expected loss + update), ``sample``
    and ``round`` (their sum, only when both were timed)."""
    rows = []
    max_n = sec.get("max_n", {})
    max_sample_n = sec.get("max_sample_n", {})
    budget = float(sec.get("seconds_per_point", 0.5))
    for label in sec["learners"]:
        spec = learners[label]
        for n in sec["n"]:
            if n > max_n.get(label, math.inf):
                continue
            smp = n <= max_sample_n.get(label, math.inf)
            probe = per_round_seconds(spec, n, rounds=1, repeats=1, sample=smp)
            cost = probe["update"] + (probe["sample"] if smp else 0.0)
            rounds = int(min(2000, max(2, budget / max(cost, 1e-7) / 3)))
            s = per_round_seconds(spec, n, rounds=rounds, repeats=3, sample=smp)
            parts = [("update", s["update"])]
            if smp:
                parts += [("sample", s["sample"]), ("round", s["update"] + s["sample"])]
            for part, v in parts:
                rows.append({"learner": label, "name": spec["name"], "n": int(n), "part": part,
                             "seconds_per_round": v, "rounds_timed": rounds})
    return rows


def fit_exponent(ns, secs) -> float:
    """Least-squares slope of log(seconds) on log(n)."""
    return float(np.polyfit(np.log(np.asarray(ns, float)), np.log(np.asarray(secs, float)), 1)[0])
