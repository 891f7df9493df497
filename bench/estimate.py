"""Estimate a tier's cost from its config, by measuring (not guessing) what its jobs do.

    .venv/bin/python -m bench.estimate CONFIG [--plan] [--stage STAGE ...]

The jobs are Snakemake's own: a dry run of the tier (``snakemake -n --forceall``) gives the
number of jobs of every rule.  A job's seconds are its start-up plus its work, each measured here:

* start-up: a fresh interpreter doing what the job does before its work -- Snakemake's script
  preamble, the script's imports, and for a figure job matplotlib's first PNG and PDF (fastest of
  three runs); for a simulate job, its cheapest job run whole minus its rounds;
* simulate: for every (experiment, adversary, learner, n, k) one block of replicates (the stage's
  block size) is simulated at short horizons T' (doubled from 50 until the run takes > 0.3 s or
  T' reaches the longest T of those cells, at most 12800); its cost per round c is constant in T
  (work and memory per round do not depend on T: ``make bench``) on top of a fixed cost a per
  call, both read off the last two horizons, so a job costs the sum over its cells of a + c x T
  and a stage the sum over its jobs;
* table, table_piece and mutations: the job's own code, run once in a fresh interpreter (imports,
  kernel loads and work: these jobs compute from the config alone);
* aggregate: the closed-form cells it computes (theory §4.6), and claims: the claims decidable on
  the config-only tables, each timed in this process, plus the start-up;
* figure: the figures that read only config-only tables drawn by the figure script's code in a
  fresh interpreter; each other figure (it reads simulation tables or the claims) as their mean;
* manifest and bound_comparison_md: the start-up;
* and to every job, Snakemake's own share: a run of no-op script jobs on one core, per job.

It prints the job-seconds of every rule and stage, the longest job and the total; ``--cpu``
measures CPU seconds instead of wall-clock seconds (a job's seconds on an idle core, which other
processes' load does not move: how the tests compare it with a run).  ``--plan``
prints the jobs only (no timing: seconds for any shipped config); ``--stage`` restricts the
simulate estimate to some stages and skips everything else.  One job at a time, on one core
but the timings' table, which runs ``runtime.concurrent`` timing processes at a time as its job does.
"""

from __future__ import annotations

import argparse
import ast
import atexit
import json
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from .job_env import JOB_ENV

# set before numpy loads, here and in every process timed: a thread pool's start and idle spinning
# would add CPU seconds no job spends
os.environ.update(JOB_ENV)

from onlinerank.adversaries import make_adversary  # noqa: E402
from onlinerank.cells import STAGES, Cell, cell_game, cells_of, groups_of, spec_params  # noqa: E402
from onlinerank.config import ConfigError, load_settings  # noqa: E402
from onlinerank.game import Game  # noqa: E402
from onlinerank.learners import make_learner  # noqa: E402
from onlinerank.settings import Settings  # noqa: E402
from onlinerank.simulate import simulate  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "workflow" / "scripts"

#: what Snakemake's preamble of a ``script:`` job imports before the script runs
PREAMBLE = (
    "import pickle\nfrom snakemake.logging import logger\nfrom snakemake.iocontainers import Snakemake\n"
)
#: the script of each rule; rule ``all`` runs nothing
RULE_SCRIPT = {
    "simulate": "simulate.py",
    "aggregate": "aggregate.py",
    "table": "table.py",
    "table_piece": "table.py",
    "mutations": "mutations.py",
    "claims": "claims.py",
    "figure": "figure.py",
    "manifest": "manifest.py",
    "bound_comparison_md": "bound_comparison_md.py",
}
#: what a job does first, beyond its imports: matplotlib's first figure
_WARM = {
    "figure": (
        "import tempfile, os, matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as _p\n"
        "import onlinerank.figures.regret_vs_T\n"
        "_f, _a = _p.subplots(); _a.plot([1, 2], [1, 2]); _d = tempfile.mkdtemp()\n"
        "_f.savefig(os.path.join(_d, 'f.png')); _f.savefig(os.path.join(_d, 'f.pdf'))\n"
    ),
}


# --------------------------------------------------------------------------------------------
# The jobs
# --------------------------------------------------------------------------------------------


def planned_jobs(config_path: str | os.PathLike) -> dict[str, int]:
    """Rule -> number of jobs of a whole run of the tier (Snakemake's dry run with ``--forceall``,
    its "Job stats" table)."""
    p = subprocess.run(
        [sys.executable, "-m", "snakemake", "--configfile", str(config_path), "--forceall", "-n"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    text = p.stdout + p.stderr
    if p.returncode != 0 or "Job stats:" not in text:
        raise RuntimeError(f"snakemake dry run of {config_path} failed: {text.strip()[-2000:]}")
    table = text[text.index("Job stats:") :].split("\n\n")[0].splitlines()[3:]
    return {r.split()[0]: int(r.split()[1]) for r in table if r.split() and r.split()[0] != "total"}


# --------------------------------------------------------------------------------------------
# Start-up of a job
# --------------------------------------------------------------------------------------------


def script_imports(script: str) -> str:
    """The top-level import statements of a workflow script, as code."""
    tree = ast.parse((SCRIPTS / script).read_text())
    return "\n".join(ast.unparse(node) for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom))


#: measure CPU seconds instead of wall-clock seconds (``--cpu``): what a job costs on an idle core,
#: which the load of other processes does not move
CPU = {"on": False}


def clock() -> float:
    """This process's clock: wall-clock seconds, or its CPU seconds with ``--cpu``."""
    return time.process_time() if CPU["on"] else time.perf_counter()


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed_run(cmd: list[str], **kwargs: Any) -> float:
    """Seconds of the subprocess ``cmd`` (wall clock, or its CPU seconds with ``--cpu``)."""
    t0, c0 = time.perf_counter(), _children_cpu()
    p = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if p.returncode != 0:
        raise SystemExit(f"bench.estimate: a timed run failed (status {p.returncode}):\n{p.stderr[-3000:]}")
    return _children_cpu() - c0 if CPU["on"] else time.perf_counter() - t0


def run_seconds(code: str, runs: int = 1) -> float:
    """Seconds of ``python -c code`` in a fresh interpreter: the fastest of ``runs`` runs (what it
    costs on an idle core; the load of other processes only ever adds to a run's seconds, CPU
    seconds included: caches and memory bandwidth are shared)."""
    return min(timed_run([sys.executable, "-c", code], cwd=ROOT, timeout=3600) for _ in range(runs))


_NOOP_SNAKEFILE = """
rule all:
    input: expand("out/{i}.txt", i=range(JOBS))

rule one:
    output: "out/{i}.txt"
    script: "noop.py"
"""


def snakemake_job_seconds(jobs: int = 6) -> float:
    """Seconds one job of a ``script:`` rule costs in a local Snakemake run beyond what its script
    does: the run of ``jobs`` no-op script jobs on one core (a scratch workflow) minus the same
    run with nothing to do, per job, minus the no-op script's own interpreter and preamble."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "Snakefile").write_text(_NOOP_SNAKEFILE.replace("JOBS", str(jobs)))
        (Path(tmp) / "noop.py").write_text("open(snakemake.output[0], 'w').close()\n")
        cmd = [sys.executable, "-m", "snakemake", "--cores", "1", "--quiet", "all"]
        times = [timed_run(cmd, cwd=tmp, timeout=600) for _ in range(2)]  # then nothing to do
    return max(0.0, (times[0] - times[1]) / jobs - run_seconds(PREAMBLE, 3))


#: the scripts' path to the package ``mutants`` (workflow/mutants, not installed), as the mutations
#: script sets it
_WORKFLOW_PATH = f"import sys\nsys.path.insert(0, {str(ROOT / 'workflow')!r})\n"


def startup_seconds(rule: str, runs: int = 3) -> float:
    """Seconds a job of ``rule`` spends before its work in its own interpreter (module
    docstring), without Snakemake's share (:func:`snakemake_job_seconds`)."""
    if rule not in RULE_SCRIPT:
        return 0.0
    return run_seconds(
        PREAMBLE + _WORKFLOW_PATH + script_imports(RULE_SCRIPT[rule]) + "\n" + _WARM.get(rule, ""), runs
    )


# --------------------------------------------------------------------------------------------
# Work of the simulate jobs
# --------------------------------------------------------------------------------------------


def cell_cost(settings: Settings, cell: Cell, reps: int, longest: int) -> tuple[float, float]:
    """``(a, c)``: the fixed seconds of one simulate call of a block of ``reps`` replicates of
    ``cell`` and its seconds per round, so that T rounds cost ``a + c x T``.  Timed at horizons
    doubled from 50 until a call takes > 0.3 s or the horizon reaches ``longest`` (the longest T
    of the cells that share the cost) or 12800; ``a`` and ``c`` from the last two horizons (a line
    through them, neither below 0).  Timed up to the cell's own T only, the cells of T = 30 and
    10^5 of one learner gave their set-up as the cost of 10^5 rounds: the default tier's lower
    stage came out about twenty times its run."""
    lspec, aspec = settings.learner(cell.learner), settings.adversary(cell.adversary)
    M = cell_game(settings, cell).M
    T, seen = 50, []
    while True:
        game = Game(n=cell.n, T=T, family=cell.family, k=cell.k, M=M)
        times = []
        for seed in (0, 1):  # the first run also loads the compiled kernels
            learner = make_learner(lspec["name"], **spec_params(lspec))
            adversary = make_adversary(aspec["name"], **spec_params(aspec))
            t0 = clock()
            simulate(learner, adversary, game, reps, seed=seed, cell=("estimate",), K=4, sample=cell.sample)
            times.append(clock() - t0)
        seen.append((T, times[-1]))  # the second run: kernels loaded
        if times[-1] > 0.3 or T >= min(longest, 12800):
            break
        T *= 2
    if len(seen) == 1:
        return 0.0, seen[0][1] / seen[0][0]
    (t1, d1), (t2, d2) = seen[-2:]
    c = max(d2 - d1, 0.0) / (t2 - t1)
    return max(d2 - c * t2, 0.0), c


def simulate_jobs(settings: Settings, stage: str) -> dict[str, list[float]]:
    """Work seconds of every simulate job of ``stage`` (a group's block: the sum over its cells
    of a + c x T, :func:`cell_cost`), by job directory (one entry per block)."""

    def key(cell: Cell) -> tuple:  # the cost is measured once per (experiment, adversary, learner, n, k)
        return cell.experiment, cell.adversary, cell.learner, cell.n, cell.k

    groups = groups_of(settings, stage)
    longest: dict[tuple, int] = {}
    for cell in (c for cells in groups.values() for c in cells):
        longest[key(cell)] = max(longest.get(key(cell), 0), cell.T)
    out: dict[str, list[float]] = {}
    cost: dict[tuple, tuple[float, float]] = {}
    for group, cells in groups.items():
        job = 0.0
        for cell in cells:
            if key(cell) not in cost:
                reps = min(cell.block_size, cell.replicates)
                cost[key(cell)] = cell_cost(settings, cell, reps, longest[key(cell)])
            a, c = cost[key(cell)]
            job += a + c * cell.T
        out[group] = [job] * cells[0].blocks
    return out


def simulate_startup(config_path: str | os.PathLike, group: str, work: float) -> float:
    """A simulate job's seconds beyond its rounds: the job's code (settings, its cells, the
    kernels' load, the simulation, the block file) run for block 0 of ``group`` in a fresh
    interpreter, minus the estimated ``work`` of its rounds (the cheapest job is chosen, so the
    difference is mostly the fixed cost)."""
    with tempfile.TemporaryDirectory() as tmp:
        code = (
            PREAMBLE
            + script_imports("simulate.py")
            + job_settings_code(config_path)
            + f"save_results(run_group_block(settings, {group!r}, 0), {str(Path(tmp) / 'b0.npz')!r})\n"
        )
        return max(0.0, run_seconds(code, 3) - work)


# --------------------------------------------------------------------------------------------
# Work of the other jobs
# --------------------------------------------------------------------------------------------


def table_jobs(config_path: str | os.PathLike, settings: Settings, out_dir: Path) -> dict[str, float]:
    """Seconds of every table and table-piece job (``table``, ``table:piece``), each its own code
    in a fresh interpreter writing ``out_dir/<table>.csv`` (a pooled table: its pieces in order,
    the pooling job a start-up)."""
    from onlinerank.io import atomic_write_text, concat_csv
    from onlinerank.tables import BUILT_TABLES, TABLE_STAGE, table_pieces

    present = {s for s in TABLE_STAGE.values() if settings.present(s)}
    out = {}
    for name, schema in BUILT_TABLES.items():
        if schema.stage not in present:
            continue
        pieces = table_pieces(name, settings)
        jobs: list[str | None] = list(pieces) or [None]
        for piece in jobs:
            path = out_dir / (f"{name}.csv" if piece is None else f"{name}.{piece}.csv")
            code = (
                PREAMBLE
                + script_imports("table.py")
                + job_settings_code(config_path)
                + f"write_csv({str(path)!r}, make_table({name!r}, settings, piece={piece!r}))\n"
            )
            out[name if piece is None else f"{name}:{piece}"] = run_seconds(code)
        if pieces:
            atomic_write_text(
                out_dir / f"{name}.csv", concat_csv([out_dir / f"{name}.{p}.csv" for p in pieces])
            )
    return out


def mutations_seconds(config_path: str | os.PathLike) -> float:
    """Seconds of the mutations job: its code in a fresh interpreter (with the script's path to
    the package ``mutants``, which is not installed)."""
    code = (
        PREAMBLE
        + _WORKFLOW_PATH
        + script_imports("mutations.py")
        + job_settings_code(config_path)
        + "mutation_rows(run_mutations(settings))\n"
    )
    return run_seconds(code)


def tier_figures(settings: Settings) -> list[str]:
    """The figures of the tier: those whose tables its configured stages all make (as the
    pipeline's ``FIGURES_MADE``, workflow/rules/figures.smk)."""
    from onlinerank.claims.registry import stages_of
    from onlinerank.figures import CLAIMS_TABLE, figures_made
    from onlinerank.tables import TABLE_STAGE

    present = stages_of(settings)
    return figures_made([t for t, stage in TABLE_STAGE.items() if stage in present] + [CLAIMS_TABLE])


def figure_jobs(config_path: str | os.PathLike, settings: Settings, tables_dir: Path) -> dict[str, float]:
    """Seconds of every figure job whose tables are all config-only tables (``tables_dir``): the
    figure script's code in a fresh interpreter (read the tables, draw, stamp, save PNG and PDF);
    the figures that read simulation tables or the claims are not drawn (absent here)."""
    from onlinerank.figures import FIGURES

    out = {}
    have = {p.stem for p in tables_dir.glob("*.csv") if "." not in p.stem}
    for name, spec in FIGURES.items():
        if not set(spec.tables) <= have:
            continue
        paths = {t: str(tables_dir / f"{t}.csv") for t in spec.tables}
        saved = (str(tables_dir / f"{name}.png"), str(tables_dir / f"{name}.pdf"))
        code = (
            PREAMBLE
            + script_imports("figure.py")
            + job_settings_code(config_path)
            + f"draw_figures([{name!r}], {paths!r}, settings, {{{name!r}: {saved!r}}})\n"
        )
        out[name] = run_seconds(code)
    return out


def closed_form_seconds(settings: Settings, stage: str) -> float:
    """Work of ``stage``'s aggregate job for its closed-form cells (theory §4.6)."""
    from onlinerank.sim_tables import closed_form_rows

    t0 = clock()
    for cell in cells_of(settings, stage):
        if cell.closed_form:
            closed_form_rows(settings, cell)
    return clock() - t0


def claims_seconds(settings: Settings, tables_dir: Path) -> float:
    """Work of the claims job that the config alone decides: every claim whose tables are all
    config-only tables (``tables_dir``), evaluated as the claims step does."""
    from onlinerank.claims import REGISTRY
    from onlinerank.claims.report import evaluate
    from onlinerank.io import read_table

    tables = {p.stem: read_table(p) for p in tables_dir.glob("*.csv") if "." not in p.stem}
    t0 = clock()
    for c in REGISTRY.values():
        if c.section != "not-tested" and c.reads and set(c.reads) <= set(tables):
            evaluate(c, tables, settings, settings.claims.alpha)
    return clock() - t0


# --------------------------------------------------------------------------------------------
# The estimate
# --------------------------------------------------------------------------------------------


def load(config_path: str | os.PathLike) -> Settings:
    """The tier's config, validated (the schema's defaults filled in); ``SystemExit`` with one line
    naming the file and the error when it is not a valid config."""
    try:
        with open(config_path) as f:
            config = yaml.safe_load(f)
        return load_settings(config)
    except (OSError, yaml.YAMLError, ConfigError) as e:
        raise SystemExit(f"python -m bench.estimate: {config_path}: {e}") from None


#: config file -> a pickle of its validated, filled config (:func:`job_settings_code`)
_FILLED: dict[str, str] = {}


def job_settings_code(config_path: str | os.PathLike) -> str:
    """Code that gives ``settings`` as a job gets them: its ``snakemake.config`` (the config the
    ``Snakefile`` validated and filled, unpickled by the preamble) typed directly
    (:func:`onlinerank.pipeline.job_settings`: no second validation, which would add the schema
    check's imports and work, about 0.3 s a job, to every job of the estimate)."""
    key = str(config_path)
    if key not in _FILLED:
        config = load(config_path).as_config()  # validated, the schema's defaults filled in
        fd, path = tempfile.mkstemp(prefix="estimate-config-", suffix=".pickle")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(config, f)
        atexit.register(os.unlink, path)
        _FILLED[key] = path
    return (
        "\nimport pickle\nfrom onlinerank.settings import typed_settings\n"
        f"settings = typed_settings(pickle.load(open({_FILLED[key]!r}, 'rb')))\n"
    )


def plan(config_path: str | os.PathLike) -> dict[str, Any]:
    """The jobs of a run of the tier, without timing: Snakemake's jobs per rule, and per stage the
    simulate jobs and the closed-form cells (checked against each other)."""
    settings = load(config_path)
    jobs = planned_jobs(config_path)
    stages = {}
    for stage in STAGES:
        if stage in settings.stages:
            groups = groups_of(settings, stage)
            stages[stage] = {
                "simulate_jobs": sum(cells[0].blocks for cells in groups.values()),
                "closed_form_cells": sum(c.closed_form for c in cells_of(settings, stage)),
            }
    simulated = sum(s["simulate_jobs"] for s in stages.values())
    if jobs.get("simulate", 0) != simulated:
        raise RuntimeError(f"Snakemake plans {jobs.get('simulate', 0)} simulate jobs, the cells {simulated}")
    return {"jobs": jobs, "stages": stages}


def _simulate_estimate(
    config_path: str | os.PathLike,
    settings: Settings,
    stages: list[str] | None,
    start: dict[str, float],
    per_job: float,
) -> tuple[dict[str, float], list[float]]:
    """The simulate jobs' work (seconds each, start-up aside) and each stage's job-seconds; sets
    ``start["simulate"]``, the fixed cost of a simulate job, from its cheapest job run whole."""
    groups: dict[str, list[float]] = {}
    for stage in STAGES:
        if stage in settings.stages and (not stages or stage in stages):
            groups.update(simulate_jobs(settings, stage))
    if groups:
        cheapest = min(groups, key=lambda g: groups[g][0])
        start["simulate"] = per_job + simulate_startup(config_path, cheapest, groups[cheapest][0])
    by_stage: dict[str, float] = {}
    sims: list[float] = []
    for stage in STAGES:
        jobs = [w for g, ws in groups.items() if g.split("/", 1)[0] == stage for w in ws]
        if jobs:
            by_stage[stage] = sum(jobs) + len(jobs) * start["simulate"]
            sims += jobs
    return by_stage, sims


def _figure_rules(
    planned: Mapping[str, int], drawn: Mapping[str, float], settings: Settings, per_job: float
) -> dict[str, dict[str, float]]:
    """The figure batches' job-seconds: the figures drawn here (each in a fresh interpreter), the
    others as their mean, one start-up per batch job instead of one per figure."""
    batches = {rule: count for rule, count in planned.items() if rule.startswith("figures_")}
    if not (drawn and batches):
        return {}
    made = len(tier_figures(settings))
    mean = sum(drawn.values()) / len(drawn)
    drawing = sum(drawn.values()) + (made - len(drawn)) * mean
    jobs = sum(batches.values())
    seconds = drawing - (made - jobs) * startup_seconds("figure") + jobs * per_job
    return {rule: {"jobs": count, "seconds": seconds * count / jobs} for rule, count in batches.items()}


def estimate(config_path: str | os.PathLike, stages: list[str] | None = None) -> dict[str, Any]:
    """Job-seconds of a whole run of the tier, by rule (module docstring): ``{"rules": {rule:
    {"jobs", "seconds"}}, "stages": {stage: seconds of its simulate jobs}, "longest": seconds,
    "total": seconds}``.  With ``stages``, the simulate jobs of those stages only."""
    settings = load(config_path)
    planned = plan(config_path)["jobs"]
    per_job = snakemake_job_seconds()
    start = {rule: per_job + startup_seconds(rule) for rule in planned if not stages and rule != "simulate"}
    start["all"] = 0.0  # rule all runs nothing
    rules: dict[str, dict[str, float]] = {}
    longest = 0.0
    by_stage, sims = _simulate_estimate(config_path, settings, stages, start, per_job)
    if sims:
        rules["simulate"] = {"jobs": len(sims), "seconds": sum(sims) + len(sims) * start["simulate"]}
        longest = max(sims) + start["simulate"]
    if not stages:
        with tempfile.TemporaryDirectory() as tmp:
            tables = table_jobs(config_path, settings, Path(tmp))
            pieces = {k: v for k, v in tables.items() if ":" in k}
            whole = {k: v for k, v in tables.items() if ":" not in k}
            pooled = planned.get("table", 0) - len(whole)
            rules["table"] = {
                "jobs": planned.get("table", 0),
                "seconds": sum(whole.values()) + len(whole) * per_job + pooled * start["table"],
            }
            if pieces:
                rules["table_piece"] = {
                    "jobs": len(pieces),
                    "seconds": sum(pieces.values()) + len(pieces) * per_job,
                }
            longest = max(longest, *tables.values())
            claims = claims_seconds(settings, Path(tmp))
            drawn = figure_jobs(config_path, settings, Path(tmp))
        rules.update(_figure_rules(planned, drawn, settings, per_job))
        aggregate = sum(closed_form_seconds(settings, s) for s in settings.stages)
        work: dict[str, float] = {
            "aggregate": aggregate,
            "claims": claims,
            "mutations": mutations_seconds(config_path),
        }
        for rule, count in planned.items():
            if rule in rules:
                continue
            if rule == "mutations":
                seconds = work["mutations"] + per_job
            else:
                seconds = count * start.get(rule, 0.0) + work.get(rule, 0.0)
            rules[rule] = {"jobs": count, "seconds": seconds}
            longest = max(longest, seconds / max(count, 1))
    return {
        "rules": rules,
        "stages": by_stage,
        "longest": longest,
        "total": sum(r["seconds"] for r in rules.values()),
    }


def _report(result: Mapping[str, Any]) -> None:
    for stage, sec in result["stages"].items():
        print(f"  simulate {stage:10s} {sec:10.1f} s = {sec / 3600:7.3f} CPU-h", flush=True)
    for rule, r in result["rules"].items():
        print(f"{rule:20s} {r['jobs']:5d} jobs {r['seconds']:10.1f} s")
    total = result["total"]
    print(
        f"{'total':20s} {sum(r['jobs'] for r in result['rules'].values()):5d} jobs {total:10.1f} s "
        f"= {total / 3600:.3f} CPU-h; longest job {result['longest']:.1f} s"
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.estimate CONFIG [--plan] [--stage STAGE ...]`` (module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m bench.estimate", description=__doc__.split("\n")[0])
    ap.add_argument("config", nargs="?", default="config/stress.yaml", help="the tier's config file")
    ap.add_argument("--plan", action="store_true", help="the jobs only, no timing")
    ap.add_argument("--stage", action="append", choices=STAGES, help="simulate estimate of these stages only")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--cpu", action="store_true", help="CPU seconds (what a job costs on an idle core)")
    args = ap.parse_args(argv)
    CPU["on"] = args.cpu
    args.config = Path(args.config).resolve()
    if args.plan:
        result = plan(args.config)
        print(json.dumps(result, indent=1) if args.json else result)
        return 0
    result = estimate(args.config, args.stage)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        _report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
