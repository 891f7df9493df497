"""Per-round running time of learners vs n (paper §4: O(n log n) per round for OnlineRank
against quadratic or worse for the baselines).  Wall-clock numbers: not bit-reproducible, so they
live in their own table and never in the determinism checks."""

from __future__ import annotations

import math
import time

import numpy as np
from numpy.typing import ArrayLike

from .adversaries import make_adversary
from .game import Game
from .learners import make_learner
from .seeding import draw_seeds, replicate_keys, replicate_streams

__all__ = ["per_round_seconds", "runtime_rows", "fit_exponent"]


def per_round_seconds(
    spec: dict, n: int, rounds: int, repeats: int = 3, seed: int = 0, sample: bool | str = True
) -> dict[str, float]:
    """Median over ``repeats`` of the median time per round, split into ``update`` (exact
    expected loss + update, e.g. PermELearn's Sinkhorn balancing) and ``sample`` (drawing the
    ranking, e.g. PermELearn's Birkhoff decomposition), for one replicate against uniform single
    choices.  Medians, not means: a round during which another process held the core (a test suite
    or other jobs beside the run) costs milliseconds more and would dominate a mean of rounds of
    tens of microseconds; it shifts a median by at most one rank.

    ``sample``: True times the whole draw, False none, ``"first-step"`` only the work every draw
    performs (the learner's ``sample_first_step()``; a lower bound on the draw).  ``sweeps`` is
    the mean number of Sinkhorn sweeps per update for learners that report ``sinkhorn_iters``
    (NaN otherwise).
    """
    if sample not in (True, False, "first-step"):
        raise ValueError(f"sample must be True, False or 'first-step', got {sample!r}")
    params = {k: v for k, v in spec.items() if k != "name"}
    game = Game(n=n, T=max(rounds * (repeats + 1) + 3, 2))
    learner = make_learner(spec["name"], **params)
    if sample == "first-step" and not learner.implements("sample_first_step"):
        raise ValueError(f"learner {spec['name']!r} has no sample_first_step()")
    adv = make_adversary("uniform")
    learner.reset(game, 1)
    adv.reset(game, replicate_streams(seed, ("timing", n), [0], "adversary"))
    keys = replicate_keys(seed, ("timing", n, spec["name"]), [0], "learner")
    t = 0

    def play(m):
        nonlocal t
        upd = np.empty(m)
        smp = np.empty(m)
        sweeps = 0
        for i in range(m):
            t += 1
            fb = adv.feedback(t, learner)
            t0 = time.perf_counter()
            if sample == "first-step":
                learner.sample_first_step()
            elif sample:
                learner.rank(draw_seeds(keys, t))
            t1 = time.perf_counter()
            learner.expected_loss(fb)
            learner.update(fb)
            t2 = time.perf_counter()
            smp[i] = t1 - t0
            upd[i] = t2 - t1
            sweeps += getattr(learner, "sinkhorn_iters", 0)
        return float(np.median(upd)), float(np.median(smp)), sweeps / m

    play(min(rounds, 3))  # warm-up (numba cache load, first allocations)
    res = np.array([play(rounds) for _ in range(repeats)])
    med = np.median(res, axis=0)
    return {
        "update": float(med[0]),
        "sample": float(med[1]) if sample else math.nan,
        "sweeps": float(np.mean(res[:, 2])) if hasattr(learner, "sinkhorn_iters") else math.nan,
    }


def runtime_rows(learners: dict, sec: dict) -> list[dict]:
    """Rows (learner, n, part, seconds per round) for each learner label and n of ``sec``.

    A learner is skipped for n above ``sec["max_n"][label]`` (e.g. Hedge's n! table).  Parts:
    ``update`` (expected loss + update), ``sample`` and ``round`` (their sum) where the whole draw
    is timed, i.e. up to ``sec["max_sample_n"][label]`` (PermELearn's Birkhoff decomposition takes
    minutes per draw at n = 1000).  Above that and up to ``sec["max_partial_sample_n"][label]``
    only the work every draw performs is timed (``sample_first_step()``), giving
    ``sample_first_step`` and ``round_lower`` (update + that first step: a lower bound on the
    round); above both only the update.  Learners with Sinkhorn sweeps also get ``sweep`` (update
    time / mean sweeps per update) and the mean number of sweeps in ``sweeps_per_round``.  The
    update is always timed over enough rounds to fill ``seconds_per_point``; a first step (up to
    seconds each) is timed once, after one warm-up round."""
    rows = []
    max_n = sec.get("max_n", {})
    max_sample_n = sec.get("max_sample_n", {})
    max_partial = sec.get("max_partial_sample_n", {})
    budget = float(sec.get("seconds_per_point", 0.5))
    for label in sec["learners"]:
        spec = learners[label]
        for n in sec["n"]:
            if n > max_n.get(label, math.inf):
                continue
            smp: bool | str  # True (whole draw), "first-step" or False
            if n <= max_sample_n.get(label, math.inf):
                smp = True
            elif n <= max_partial.get(label, -1):
                smp = "first-step"
            else:
                smp = False
            # the whole round (or the update alone) within the time budget per point
            full = smp is True
            probe = per_round_seconds(spec, n, rounds=1, repeats=1, sample=full)
            cost = probe["update"] + (probe["sample"] if full else 0.0)
            rounds = int(min(2000, max(2, budget / max(cost, 1e-7) / 3)))
            s = per_round_seconds(spec, n, rounds=rounds, repeats=3, sample=full)
            if smp == "first-step":
                # seconds per call, timed separately: one warm-up round, then one timed call
                s["sample"] = per_round_seconds(spec, n, rounds=1, repeats=1, sample="first-step")["sample"]
            if smp is False:
                parts = [("update", s["update"])]
            elif smp is True:
                parts = [
                    ("update", s["update"]),
                    ("sample", s["sample"]),
                    ("round", s["update"] + s["sample"]),
                ]
            else:
                parts = [
                    ("update", s["update"]),
                    ("sample_first_step", s["sample"]),
                    ("round_lower", s["update"] + s["sample"]),
                ]
            if s["sweeps"] == s["sweeps"]:  # not NaN
                parts.append(("sweep", s["update"] / max(s["sweeps"], 1.0)))
            for part, v in parts:
                rows.append(
                    {
                        "learner": label,
                        "name": spec["name"],
                        "n": int(n),
                        "part": part,
                        "seconds_per_round": v,
                        "rounds_timed": rounds,
                        "sweeps_per_round": s["sweeps"],
                    }
                )
    return rows


def fit_exponent(ns: ArrayLike, secs: ArrayLike) -> float:
    """Least-squares slope of log(seconds) on log(n)."""
    return float(np.polyfit(np.log(np.asarray(ns, float)), np.log(np.asarray(secs, float)), 1)[0])
