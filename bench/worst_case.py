"""Reach of the exact worst-case DP (theory §3.4): how large an (n, T) each learner's DP solves in
60 s on this machine, single choice at each learner's default rate.

* Targets (timed runs): OnlineRank at n = 6, T = 100 and n = 8, T = 30, each within 60 s.
* Reach: per learner and n, a calibration run of about 3 s gives the time per canonical state;
  the largest T whose estimated states (``worst_case.estimate_states``, exact for single choice)
  fit in 60 s at that rate is reported as the *predicted* reach, with the largest T under the
  pipeline's default memory cap (the schema's ``worst_case.max_states``).  The time
  per state falls slowly as layers grow (better vectorisation), so the prediction is
  conservative.  ``--worst-case-confirm`` runs every predicted instance (with the cap lifted to
  its size) and reports the measured time: about 40 s each, 20-30 minutes in all.

A report, never a failure: the script exits 0 whatever the timings.
"""

from __future__ import annotations

import time
from pathlib import Path

import yaml

from onlinerank.learners import paper_algorithm
from onlinerank.settings import schema_default
from onlinerank.worst_case import dp_learner, estimate_states, exact_worst_regret

BUDGET = 60.0
#: the pipeline's cap on a DP's estimated canonical states (memory), as the schema states it
MAX_STATES = schema_default("worst_case.max_states")
#: n per learner for the reach table (worst_case_reach.yaml: Hedge enumerates n! rankings per state)
REACH_N: dict[str, tuple[int, ...]] = {
    learner: tuple(ns)
    for learner, ns in yaml.safe_load(Path(__file__).with_name("worst_case_reach.yaml").read_text()).items()
}
_CAL_STATES = 3e6  # largest calibration instance (states)
_CAL_SECONDS = 3.0  # target duration of a calibration run


def _timed(n: int, T: int, learner: str | None) -> tuple[float, int, float]:
    t0 = time.perf_counter()
    r = exact_worst_regret(n, T, learner=learner, return_argmax=False, max_states=MAX_STATES)
    return time.perf_counter() - t0, r.n_states, r.value


def _largest_T(n: int, labelled: bool, limit: float) -> int:
    """Largest T whose estimated canonical states are at most ``limit`` (bisection on T)."""

    def ok(T: int) -> bool:
        return estimate_states(n, T, labelled=labelled, stop_above=limit) <= limit

    lo, hi = 1, 2
    while ok(hi) and hi < 1 << 16:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo


def targets(points: tuple[tuple[int, int], ...] = ((6, 100), (8, 30))) -> None:
    print("exact worst-case DP, OnlineRank (Plackett-Luce or QuickSort: same DP), single choice, eta_p:")
    exact_worst_regret(3, 5)  # compile / load the numba caches outside the timings
    for n, T in points:
        dt, states, value = _timed(n, T, None)  # the paper's algorithm
        verdict = "PASS" if dt <= BUDGET else "MISS"
        print(
            f"  n = {n}, T = {T:3d}: {dt:6.2f} s, {states:>9d} states, worst E[regret] {value:.4f}  "
            f"(target <= {BUDGET:.0f} s) {verdict}"
        )


def _calibrate(
    n: int, learner: str, labelled: bool, seconds: float = _CAL_SECONDS
) -> tuple[int, float, float]:
    """A run of about ``_CAL_SECONDS``: grow the calibration instance from 2e3 states by factors
    of 8 until a run takes 0.2 s, then size the last one to the target; ``(T, seconds, s/state)``."""
    target = 2e3
    while True:
        Tc = _largest_T(n, labelled, target)
        dt, states, _ = _timed(n, Tc, learner)
        per = dt / states
        if dt >= min(0.2, seconds) or target >= _CAL_STATES:
            break
        target = min(_CAL_STATES, 8 * target)
    if dt < 0.5 * seconds:
        Tc = _largest_T(n, labelled, seconds / per)
        dt, states, _ = _timed(n, Tc, learner)
        per = dt / states
    return Tc, dt, per


def reach(
    confirm: bool = False,
    sizes: dict[str, tuple[int, ...]] = REACH_N,
    budget: float = BUDGET,
    calibration: float = _CAL_SECONDS,
) -> None:
    print(
        f"largest T solved in {budget:.0f} s per learner and n (single choice, default rates); 'T (cap)' "
        f"is the largest T under the default memory cap max_states = {MAX_STATES:.0e}:"
    )
    in_budget = f"T in {budget:.0f} s"
    head = f"  {'learner':<11} {'n':>3}  {'calibration run':<30} {in_budget:>9} {'states':>9} {'T (cap)':>8}"
    print(head + (f"  measured at '{in_budget}'" if confirm else ""))
    for learner, ns in sizes.items():
        labelled = dp_learner(learner, 3, 1)[2] == "labelled"  # its law is not symmetric in the items
        for n in ns:
            Tc, dt, per = _calibrate(n, learner, labelled, calibration)
            T60 = _largest_T(n, labelled, budget / per)
            T_cap = _largest_T(n, labelled, MAX_STATES)
            est = estimate_states(n, T60, labelled=labelled)
            line = (
                f"  {learner:<11} {n:>3}  T={Tc:<5d} {dt:5.2f} s {per * 1e6:8.2f} us/state  {T60:>9d} "
                f"{est:>9.3g} {T_cap:>8d}"
            )
            if confirm:
                t0 = time.perf_counter()
                exact_worst_regret(n, T60, learner=learner, return_argmax=False, max_states=est + 1)
                m = time.perf_counter() - t0
                line += f"  {m:6.1f} s {'PASS' if m <= budget else 'MISS'}"
            print(line, flush=True)


def bench_worst_case(confirm: bool = False, tiny: bool = False) -> None:
    """The targets and the reach table (``tiny``: one small target and one learner at n = 3 with a
    one-second budget, to check that it runs)."""
    print("-- exact worst-case DP --")
    if tiny:
        targets(((3, 20),))
        reach(confirm, {paper_algorithm(): (3,)}, budget=1.0, calibration=0.2)
        return
    targets()
    reach(confirm)
