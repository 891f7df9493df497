"""Estimate the simulation cost of a tier from measured costs per round (not guessed).

    .venv/bin/python -m bench.estimate config/stress.yaml [stage ...]

For every (grid point, learner) of every stage: one block of replicates (the stage's block size)
is simulated at a short horizon T' (doubled from 50 until the run takes > 0.3 s or T' reaches the
cell's smallest T), and its cost per round c is taken as constant in T (work and memory per round
do not depend on T: `make bench`).  Then

    job   = sum over the group's cells of  c x T
    stage = sum over groups of             job x (blocks of replicates)

It prints one line per stage (CPU hours, jobs, longest job) and the total.  One process, one core.
"""

from __future__ import annotations

import sys
import time

import yaml

from onlinerank.adversaries import make_adversary
from onlinerank.cells import STAGES, Cell, cell_game, groups_of, spec_params
from onlinerank.config import load_settings
from onlinerank.game import Game
from onlinerank.learners import make_learner
from onlinerank.simulate import simulate


def cost_per_round(config: dict, cell: Cell, reps: int) -> float:
    """Seconds per round of one block of ``reps`` replicates of ``cell`` (short horizon)."""
    lspec, aspec = config["learners"][cell.learner], config["adversaries"][cell.adversary]
    M = cell_game(config, cell).M
    T = 50
    while True:
        game = Game(n=cell.n, T=T, family=cell.family, k=cell.k, M=M)
        times = []
        for seed in (0, 1):  # the first run also loads the compiled kernels
            learner = make_learner(lspec["name"], **spec_params(lspec))
            adversary = make_adversary(aspec["name"], **spec_params(aspec))
            t0 = time.perf_counter()
            simulate(learner, adversary, game, reps, seed=seed, cell=("estimate",), K=4, sample=cell.sample)
            times.append(time.perf_counter() - t0)
        dt = times[-1]  # the second run: kernels loaded
        if dt > 0.3 or T >= min(cell.T, 12800):
            return dt / T
        T *= 2


def estimate(config: dict, stages: list[str] | None = None) -> dict[str, dict]:
    out = {}
    for stage in STAGES:
        if not config.get(stage) or (stages and stage not in stages):
            continue
        jobs, total, longest = 0, 0.0, 0.0
        per_experiment: dict[str, float] = {}
        c_of: dict[tuple, float] = {}  # measured once per (experiment, adversary, learner, n, k)
        for _group, cells in groups_of(config, stage).items():
            job = 0.0
            for cell in cells:
                key = (cell.experiment, cell.adversary, cell.learner, cell.n, cell.k)
                if key not in c_of:
                    c_of[key] = cost_per_round(config, cell, min(cell.block_size, cell.replicates))
                job += c_of[key] * cell.T
            jobs += cells[0].blocks
            total += job * cells[0].blocks
            longest = max(longest, job)
            name = cells[0].experiment
            per_experiment[name] = per_experiment.get(name, 0.0) + job * cells[0].blocks
        for name, sec in per_experiment.items():
            print(f"  {stage}/{name:24s} {sec / 3600:8.2f} CPU-h", flush=True)
        out[stage] = {"hours": total / 3600, "jobs": jobs, "longest_min": longest / 60}
        print(
            f"{stage:10s} {out[stage]['hours']:8.2f} CPU-h in {jobs:4d} jobs, "
            f"longest {longest / 60:6.1f} min",
            flush=True,
        )
    tot = sum(v["hours"] for v in out.values())
    print(f"{'total':10s} {tot:8.2f} CPU-h in {sum(v['jobs'] for v in out.values())} jobs")
    return out


def main(argv: list[str]) -> int:
    path = argv[0] if argv else "config/stress.yaml"
    with open(path) as f:
        config = yaml.safe_load(f)
    load_settings(config)  # validated, the schema's defaults filled in
    unknown = sorted(set(argv[1:]) - set(STAGES))
    if unknown:
        raise SystemExit(
            f"python -m bench.estimate: unknown stage {unknown[0]!r} (stages: {', '.join(STAGES)})"
        )
    estimate(config, argv[1:] or None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
