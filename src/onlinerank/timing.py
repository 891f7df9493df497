"""Per-round running time of learners vs n (paper §4: O(n log n) per round for OnlineRank
against quadratic or worse for the baselines).  Wall-clock numbers: not bit-reproducible, so they
live in their own table and never in the determinism checks.

A timing made in one process shares that process's memory layout, caches and the machine's
state over a few seconds; two runs of the same timing differ by more than the repeats of one
(a run-to-run spread of 0.2 in a fitted exponent, where the repeats of one process spread by
0.01-0.03).  :func:`runtime_rows` therefore times every point in ``runtime.processes`` fresh
Python processes (``python -m onlinerank.timing``), ``runtime.concurrent`` of them at a time, each
on a core of its own, and the timing claims' intervals are made of the spread between processes
(:mod:`onlinerank.timing_fits`).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import fields

import numpy as np

from .adversaries.uniform import UniformAdversary
from .game import Game
from .learners import make_learner
from .seeding import draw_seeds, replicate_keys, replicate_streams
from .settings import Runtime, Spec

__all__ = [
    "BLAS_ONE_THREAD",
    "PARTS",
    "repeat_seconds",
    "per_round_seconds",
    "process_rows",
    "runtime_rows",
    "timing_process",
    "pooled_rows",
    "main",
]

#: the environment of every timing process, BLAS on one thread.  PermELearn's update is numpy
#: matrix work; with a thread pool it competes with the other jobs of a run and slows 5-10x,
#: erratically, on a busy machine (the OnlineRank round is single-threaded compiled code)
BLAS_ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

#: the parts of a round a timing row can hold, in the table's order (a point has ``sample`` and
#: ``round`` or ``sample_first_step`` and ``round_lower``, never both)
PARTS = ("update", "sample", "round", "sample_first_step", "round_lower", "sweep")


def repeat_seconds(
    spec: dict, n: int, rounds: int, *, repeats: int, seed: int = 0, sample: bool | str
) -> dict[str, np.ndarray]:
    """Per repeat (``repeats`` back-to-back blocks of ``rounds`` rounds, after a warm-up), the
    median time per round, split into ``update`` (exact expected loss + update, e.g. PermELearn's
    Sinkhorn balancing) and ``sample`` (drawing the ranking, e.g. PermELearn's Birkhoff
    decomposition), for one replicate against uniform single choices (theory §2.1-2.3 and §3.3:
    the O(n log n) draws of QuickSort and Plackett-Luce, PermELearn's Sinkhorn balancing).
    Medians within a repeat, not means: a round during which another process held the core costs
    milliseconds more and would dominate a mean of rounds of tens of microseconds; it shifts a
    median by at most one rank.  The repeats stay separate: their spread is what the timing claims'
    intervals are made of.

    ``sample``: True times the whole draw, False none, ``"first-step"`` only the work every draw
    performs (the learner's ``sample_first_step()``; a lower bound on the draw).  ``sweeps`` is,
    per repeat, the mean number of Sinkhorn sweeps per update for learners whose
    ``timing_counters()`` report ``"sweeps"`` (NaN otherwise).  Each value is an array of length ``repeats``.
    """
    if sample not in (True, False, "first-step"):
        raise ValueError(f"sample must be True, False or 'first-step', got {sample!r}")
    params = {k: v for k, v in spec.items() if k != "name"}
    game = Game(n=n, T=max(rounds * (repeats + 1) + 3, 2))
    learner = make_learner(spec["name"], **params)
    if sample == "first-step" and not learner.implements("sample_first_step"):
        raise ValueError(f"learner {spec['name']!r} has no sample_first_step()")
    adv = UniformAdversary()  # the timings' feedback: i.i.d. uniform choices
    learner.reset(game, 1)
    adv.reset(game, replicate_streams(seed, ("timing", n), [0], "adversary"))
    keys = replicate_keys(seed, ("timing", n, spec["name"]), [0], "learner")
    t = 0

    def play(m):
        nonlocal t
        upd = np.empty(m)
        smp = np.empty(m)
        sweeps = 0.0
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
            sweeps += learner.timing_counters().get("sweeps", 0)
        return float(np.median(upd)), float(np.median(smp)), sweeps / m

    play(min(rounds, 3))  # warm-up (numba cache load, first allocations)
    res = np.array([play(rounds) for _ in range(repeats)])
    return {
        "update": res[:, 0],
        "sample": res[:, 1] if sample else np.full(repeats, math.nan),
        "sweeps": res[:, 2] if "sweeps" in learner.timing_counters() else np.full(repeats, math.nan),
    }


def per_round_seconds(
    spec: dict, n: int, rounds: int, *, repeats: int, seed: int = 0, sample: bool | str
) -> dict[str, float]:
    """The median over the repeats of :func:`repeat_seconds` (``update``, ``sample``; ``sweeps``
    is their mean), one number per part (theory §2.1-2.3, §3.3)."""
    r = repeat_seconds(spec, n, rounds, repeats=repeats, seed=seed, sample=sample)
    return {
        "update": float(np.median(r["update"])),
        "sample": float(np.median(r["sample"])) if sample else math.nan,
        "sweeps": float(np.mean(r["sweeps"])),
    }


def process_rows(learners: Mapping[str, Spec], sec: Runtime, process: int = 0) -> list[dict]:
    """The rows one process times (theory §2.1-2.3 and §3.3): for each learner label and n of
    ``sec``, ``sec.repeats`` separate timings per part, each the median over ``rounds_timed``
    rounds (:func:`repeat_seconds`); ``learners``: the typed settings' learners by label.  Rows
    as :func:`runtime_rows` describes them, with ``process`` and ``repeat`` (0 .. repeats - 1) of
    this process.  An odd ``process`` times the n of each learner
    from the largest down, so that a drift of the machine's speed during a process tilts the
    fitted exponents of even and odd processes in opposite directions: it shows in their spread
    instead of biasing every process alike."""
    rows = []
    max_n, max_sample_n, max_partial = sec.max_n, sec.max_sample_n, sec.max_partial_sample_n
    budget, repeats = sec.seconds_per_point, sec.repeats
    order = sorted(sec.n, reverse=process % 2 == 1)
    for label in sec.learners:
        spec = learners[label].as_dict()
        for n in order:
            if n > max_n.get(label, math.inf):
                continue
            smp: bool | str  # True (whole draw), "first-step" or False
            if n <= max_sample_n.get(label, math.inf):
                smp = True
            elif n <= max_partial.get(label, -1):
                smp = "first-step"
            else:
                smp = False
            # the whole round (or the update alone) of all repeats within the time budget per point
            full = smp is True
            probe = per_round_seconds(spec, n, rounds=1, repeats=1, sample=full)
            cost = probe["update"] + (probe["sample"] if full else 0.0)
            rounds = int(min(2000, max(2, budget / max(cost, 1e-7) / repeats)))
            s = repeat_seconds(spec, n, rounds=rounds, repeats=repeats, sample=full)
            upd = s["update"]
            if smp is False:
                parts = [("update", upd)]
            elif smp is True:
                parts = [("update", upd), ("sample", s["sample"]), ("round", upd + s["sample"])]
            else:
                # seconds per call, timed separately: one warm-up round, then one call per repeat
                first = repeat_seconds(spec, n, rounds=1, repeats=repeats, sample="first-step")["sample"]
                parts = [("update", upd), ("sample_first_step", first), ("round_lower", upd + first)]
            if not np.isnan(s["sweeps"]).any():
                parts.append(("sweep", upd / np.maximum(s["sweeps"], 1.0)))
            for part, v in parts:
                for rep in range(repeats):
                    rows.append(
                        {
                            "learner": label,
                            "name": spec["name"],
                            "n": int(n),
                            "part": part,
                            "process": process,
                            "repeat": rep,
                            "seconds_per_round": float(v[rep]),
                            "rounds_timed": rounds,
                            "sweeps_per_round": float(s["sweeps"][rep]),
                        }
                    )
    return rows


def runtime_rows(learners: Mapping[str, Spec], sec: Runtime) -> list[dict]:
    """Rows (learner, n, part, process, repeat, seconds per round) for each learner label and n of
    ``sec`` (theory §2.1-2.3 and §3.3), timed in ``sec.processes`` fresh Python processes
    (``python -m onlinerank.timing``, BLAS on one thread: :data:`BLAS_ONE_THREAD`), each making
    ``sec.repeats`` separate timings per point (:func:`process_rows`).  ``sec.concurrent`` of
    them run at a time, started in the order of their number (1: one after another), so that with
    two at a time an even process (n ascending) runs beside an odd one (n descending).  ``learners``
    and ``sec`` are the typed settings' ``learners`` and ``runtime`` (:mod:`onlinerank.settings`).
    ``process`` is the index of the process, ``repeat`` the index of the timing among all
    ``processes x repeats`` of the point; the rows are sorted by learner (config order), n,
    part, process and repeat, so that only the seconds (and the rounds each process chose to time
    within its budget) differ between two runs.

    A learner is skipped for n above ``sec.max_n[label]`` (e.g. Hedge's n! table).  Parts:
    ``update`` (expected loss + update), ``sample`` and ``round`` (their sum within the repeat)
    where the whole draw is timed, i.e. up to ``sec.max_sample_n[label]`` (PermELearn's Birkhoff
    decomposition takes minutes per draw at n = 1000).  Above that and up to
    ``sec.max_partial_sample_n[label]`` only the work every draw performs is timed
    (``sample_first_step()``, one call per repeat after one warm-up round), giving
    ``sample_first_step`` and ``round_lower`` (update + that first step: a lower bound on the
    round); above both only the update.  Learners with Sinkhorn sweeps also get ``sweep`` (update
    time / mean sweeps per update of the repeat) and that mean in ``sweeps_per_round``.  The
    update (or the whole round) of all repeats of a process together is timed over about
    ``seconds_per_point`` seconds: ``rounds_timed`` rounds per repeat, 2 to 2000."""
    with ThreadPoolExecutor(max_workers=sec.concurrent) as pool:
        made = pool.map(lambda process: timing_process(learners, sec, process), range(sec.processes))
        rows = [r for part in made for r in part]
    return pooled_rows(rows, sec)


def timing_process(learners: Mapping[str, Spec], sec: Runtime, process: int) -> list[dict]:
    """The rows of timing process number ``process`` of :func:`runtime_rows` (:func:`process_rows`
    run in a fresh ``python -m onlinerank.timing``, BLAS on one thread), ``repeat`` still that
    process's own index (0 .. ``sec.repeats`` - 1).  A process that fails raises with its
    stderr."""
    job = {
        "learners": {label: learners[label].as_dict() for label in sec.learners},
        "runtime": {f.name: getattr(sec, f.name) for f in fields(sec)},
    }
    out = subprocess.run(
        [sys.executable, "-m", "onlinerank.timing", str(process)],
        input=json.dumps(job, default=_plain),
        capture_output=True,
        text=True,
        env={**os.environ, **BLAS_ONE_THREAD},
    )
    if out.returncode != 0:
        raise RuntimeError(f"timing process {process} failed:\n{out.stderr[-4000:]}")
    return json.loads(out.stdout)


def pooled_rows(rows: list[dict], sec: Runtime) -> list[dict]:
    """The rows of a run's timing processes (:func:`timing_process`) as one table: sorted by
    learner (config order), n, part, process and repeat, ``repeat`` renumbered to the timing's
    index among all ``processes x repeats`` of the point."""
    learner_order = {label: i for i, label in enumerate(sec.learners)}

    def key(r: dict) -> tuple:
        return learner_order[r["learner"]], r["n"], PARTS.index(r["part"]), r["process"], r["repeat"]

    return [{**r, "repeat": r["repeat"] + r["process"] * sec.repeats} for r in sorted(rows, key=key)]


def _plain(value: object) -> object:
    """JSON for the settings' read-only mappings (``MappingProxyType``)."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def main(argv: list[str] | None = None) -> int:
    """``python -m onlinerank.timing PROCESS``: read ``{"learners": {label: entry}, "runtime":
    {...}}`` (JSON) from stdin, time every point in this process (:func:`process_rows`) and write
    the rows as JSON to stdout."""
    args = sys.argv[1:] if argv is None else argv
    job = json.loads(sys.stdin.read())
    sec = job["runtime"]
    runtime = Runtime(**{**sec, "learners": tuple(sec["learners"]), "n": tuple(sec["n"])})
    learners = {
        label: Spec("learners", label, entry["name"], {k: v for k, v in entry.items() if k != "name"})
        for label, entry in job["learners"].items()
    }
    json.dump(process_rows(learners, runtime, int(args[0])), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
