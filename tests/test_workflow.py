"""The Snakemake pipeline on the smoke tier (one run shared by the session: conftest.smoke_run)."""

import copy
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import DETERMINISTIC_TABLES, ROOT, copy_repo, snakemake

from onlinerank.io import read_table, write_csv

pytestmark = pytest.mark.workflow


def expected_outputs(repo: Path) -> list[str]:
    """Every output of rule all, from a dry run's summary (paths relative to the repo)."""
    p = snakemake(repo, "--configfile", "config/smoke.yaml", "--summary")
    assert p.returncode == 0, p.stderr[-3000:]
    return [line.split("\t")[0] for line in p.stdout.splitlines()[1:] if line.strip()]


def test_dry_run_default_tier():
    p = snakemake(ROOT, "-n", "--quiet", "rules")
    assert p.returncode == 0, p.stderr[-3000:]


def test_every_output_exists_and_figures_dir_untouched(smoke_run):
    outs = expected_outputs(smoke_run)
    assert len(outs) > 30
    for rel in outs:
        path = smoke_run / rel
        assert path.exists() and path.stat().st_size > 0, rel
    # the smoke tier never writes into figures/ of the repository copy
    assert sorted(p.name for p in (smoke_run / "figures").iterdir()) == sorted(
        p.name for p in (ROOT / "figures").iterdir()
    )


def test_run_ends_with_the_verdict_summary_and_what_changed(smoke_run, tmp_path):
    """A completed run ends with the verdict summary and what changed since the previous run of
    the tier (here: nothing)."""
    repo = tmp_path / "repo"
    shutil.copytree(smoke_run, repo, symlinks=True)
    p = snakemake(repo, "--configfile", "config/smoke.yaml", "--cores", "1", "--forcerun", "manifest")
    assert p.returncode == 0, p.stderr[-3000:]
    tail = p.stderr.strip().splitlines()[-12:]
    assert any(line.startswith("Claims of the paper:") and "PASS" in line for line in tail[-6:]), tail
    assert "Changed since the previous run: none" in tail[-6:], tail
    # before them, the time of this run's one job (from its benchmark file)
    step = next(line for line in tail if line.startswith("Time by step:"))
    assert re.fullmatch(r"Time by step: 1 job, (\d+) job-seconds: manifest \1 s", step), step
    assert tail[tail.index(step) + 1].startswith("Longest job: manifest ")
    # and how busy the one core was over the run's wall time (Snakemake's start included)
    busy = tail[tail.index(step) + 2]
    assert re.fullmatch(r"Cores busy: \d+% of 0:\d\d of wall on 1 core \(\d+ core-seconds\)", busy), busy


@pytest.mark.slow
def test_exit_status_is_0_whatever_the_verdicts_unless_strict_and_a_claim_fails(smoke_run, tmp_path):
    """Exit status 0 whatever the verdicts, unless --config strict=true and a claim of the paper
    FAILs (made false by a table whose minimum normalised regrets are divided by 10: Theorem 3.3's
    lower bound no longer holds on it; the newer table reruns the claims step).  strict is read at
    the end of any completed run: the second run only redoes a one-second job, the claims are as the
    first run left them."""
    repo = tmp_path / "repo"
    shutil.copytree(smoke_run, repo, symlinks=True)
    minimum = repo / "results-smoke" / "tables" / "lower_minimum.csv"
    write_csv(minimum, [{**r, "ratio_min": r["ratio_min"] / 10} for r in read_table(minimum)])
    # the claims document only (the figures that read it are not what this test is about)
    smoke = ("--configfile", "config/smoke.yaml", "--cores", "2")
    p = snakemake(repo, "results-smoke/figures/claims.json", *smoke)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "Changed since the previous run: thm3.3.lower PASS -> FAIL" in p.stderr, p.stderr[-2000:]
    md = "results-smoke/figures/bound_comparison.md"
    p = snakemake(repo, md, *smoke, "--forcerun", "bound_comparison_md", "--config", "strict=true")
    assert p.returncode == 1, p.stderr[-3000:]
    assert "strict: claims of the paper FAIL: thm3.3.lower" in p.stderr


#: the tables made from simulations (the others are one job each, computed from the config alone)
SIM_TARGETS = [f"results-smoke/tables/{t}.csv" for t in DETERMINISTIC_TABLES if t.startswith("sim_")]
#: the table of a stage with several simulate jobs of a few seconds each (killed mid-stage)
KILL_TARGET = "results-smoke/tables/sim_spearman.csv"


def planned_jobs(repo: Path, *args: str) -> dict[str, int]:
    """Rule -> number of jobs a dry run would execute (its "Job stats" table)."""
    p = snakemake(repo, "-n", *args)
    assert p.returncode == 0, p.stderr[-3000:]
    text = p.stdout + p.stderr
    if "Nothing to be done" in text:
        return {}
    table = text[text.index("Job stats:") :].split("\n\n")[0].splitlines()[3:]
    return {r.split()[0]: int(r.split()[1]) for r in table if r.split()[0] != "total"}


@pytest.mark.slow
def test_changes_rerun_exactly_the_steps_they_affect(smoke_run, smoke_settings, tmp_path):
    """Snakemake sees neither imports nor the config: the package modules are inputs and every
    step has its slice of the config as params, so each kind of edit reruns what it affects."""
    smoke = ("--configfile", "config/smoke.yaml")
    run = tmp_path / "repo"  # edits go to a copy: the shared run is read by other tests meanwhile
    shutil.copytree(smoke_run, run, symlinks=True)
    assert planned_jobs(run, *smoke) == {}

    def edited(rel):
        # a real edit: Snakemake (>= 9.18) compares input checksums, so a bare touch is no change
        path = run / rel
        text, st = path.read_bytes(), path.stat()
        path.write_bytes(text + b"\n# edited\n")
        try:
            return planned_jobs(run, *smoke)
        finally:
            path.write_bytes(text)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))

    # a figure module: the job of that figure's batch only (and the manifest that hashes it)
    assert edited("src/onlinerank/figures/exponents.py") == {"figures_claims": 1, "manifest": 1, "all": 1}
    # a leaf module: the tables made from it (the DP's, and the comparison and tightness tables of
    # worst_case_tables.py, which imports it) and what reads them; no simulation, no other table
    jobs = edited("src/onlinerank/worst_case.py")
    from onlinerank.tables import table_pieces

    pieces = sum(len(table_pieces(t, smoke_settings)) for t in ("worst_case_learners", "tightness"))
    assert jobs.get("table") == 3 and jobs.get("table_piece") == pieces > 0 and jobs.get("claims") == 1
    assert "simulate" not in jobs and "aggregate" not in jobs
    # the claims package: the claims step, the mutations table (it evaluates claims with the same
    # builders) and what reads them (the job of the figures that read the claims document),
    # nothing upstream
    claims_and_after = {
        "mutations": 1,
        "claims": 1,
        "figures_claims": 1,
        "manifest": 1,
        "all": 1,
    }
    assert edited("src/onlinerank/claims/lower.py") == claims_and_after
    # the mutation tests' package (not installed): its step and what reads its table
    assert edited("workflow/mutants/learners.py") == claims_and_after
    # a new plug-in module that no cell uses: nothing at all
    new = run / "src" / "onlinerank" / "adversaries" / "nobody_uses_me.py"
    new.write_text('"""An adversary module no config uses."""\n')
    try:
        assert planned_jobs(run, *smoke) == {}
    finally:
        new.unlink()
    # a core module: every simulation
    jobs = edited("src/onlinerank/feedback.py")
    assert jobs["simulate"] == sum(1 for _ in (run / "results-smoke" / "sim").rglob("*.npz"))
    # a config edit: only the jobs whose cells it changes, then everything downstream; the
    # uniform adversary's k-choice cells are closed forms (theory §4.6): computed by the aggregate
    # step, no simulation, unless the experiment says closed_form: false
    cfg = yaml.safe_load((run / "config" / "smoke.yaml").read_text())
    kchoice = next(e for e in cfg["upper"]["experiments"] if e["name"] == "kchoice")
    kchoice["T"] = [61]
    (tmp_path / "edited.yaml").write_text(yaml.safe_dump(cfg))
    jobs = planned_jobs(run, "--configfile", str(tmp_path / "edited.yaml"))
    assert "simulate" not in jobs and jobs["aggregate"] == 1 and jobs["claims"] == 1
    kchoice["closed_form"] = False
    (tmp_path / "edited.yaml").write_text(yaml.safe_dump(cfg))
    jobs = planned_jobs(run, "--configfile", str(tmp_path / "edited.yaml"))
    # one job per value of the stage's split keys (and block) among the experiment's cells
    from onlinerank.config import load_settings

    grid = {"adversary": "adversaries", "learner": "learners", "n": "n", "k": "k", "T": "T"}
    split = load_settings(copy.deepcopy(cfg)).stages["upper"].split
    groups = math.prod(len(kchoice[grid[key]]) for key in split)
    blocks = -(-kchoice["replicates"] // cfg["upper"]["block_size"])
    assert jobs["simulate"] == groups * blocks
    assert jobs["aggregate"] == 1 and jobs["claims"] == 1


def test_manifest_records_the_versions_in_use(smoke_run):
    """results/manifest.json names the Python, numpy, numba, scipy and snakemake that
    made the results (those of the environment that ran the pipeline, here this one)."""
    import platform
    from importlib.metadata import version

    man = json.loads((smoke_run / "results-smoke" / "manifest.json").read_text())
    v = man["versions"]
    assert v["python"] == platform.python_version()
    for pkg in ("numpy", "numba", "scipy", "snakemake", "llvmlite", "matplotlib"):
        assert v[pkg] == version(pkg), pkg


def test_manifest_hashes_match(smoke_run):
    man = json.loads((smoke_run / "results-smoke" / "manifest.json").read_text())
    assert man["config_digest"] and man["package_version"] and man["git_commit"]
    assert len(man["files"]) > 30
    for rel, digest in man["files"].items():
        assert hashlib.sha256((smoke_run / rel).read_bytes()).hexdigest() == digest, rel


def test_notebook_runs_headless_and_has_no_outputs(smoke_run, monkeypatch):
    """After `make smoke`, opened from notebooks/ as Jupyter does (its working
    directory), with ONLINERANK_RESULTS unset, the notebook finds the smoke tier's results."""
    import nbformat
    from nbclient import NotebookClient

    src = ROOT / "notebooks" / "tutorial.ipynb"
    nb = nbformat.read(src, as_version=4)
    assert all(
        not c.get("outputs") and not c.get("execution_count") for c in nb.cells if c.cell_type == "code"
    ), "stale outputs in the repository"
    monkeypatch.delenv("ONLINERANK_RESULTS", raising=False)
    assert not (smoke_run / "results").exists()
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(smoke_run / "notebooks")}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    text = "".join(o.get("text", "") for o in outputs)
    assert f"results from {smoke_run / 'results-smoke'}" in text
    assert "Theorem 3.1 holds" in text
    # the redrawn figure is shown (an inline image), as it is in JupyterLab
    assert any("image/png" in o.get("data", {}) for o in outputs)


@pytest.mark.slow
def test_sigkill_mid_job_then_rerun_gives_identical_tables(smoke_run, tmp_path):
    """Kill the whole pipeline (SIGKILL) while a simulate job is running, rerun, compare (the
    simulations of one stage: its several short jobs are what the test needs)."""
    import signal
    import time

    from onlinerank.io import load_results

    repo = copy_repo(tmp_path / "repo2")
    res = repo / "results-smoke"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "snakemake",
            KILL_TARGET,
            "--configfile",
            "config/smoke.yaml",
            "--cores",
            "1",
        ],
        cwd=repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    killed = False
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        logs = list((res / "logs" / "sim").rglob("b*.log")) if (res / "logs" / "sim").exists() else []
        running = [
            p
            for p in logs
            if not (res / "sim" / p.relative_to(res / "logs" / "sim")).with_suffix(".npz").exists()
        ]
        done = list((res / "sim").rglob("*.npz")) if (res / "sim").exists() else []
        if running and done:
            os.killpg(proc.pid, signal.SIGKILL)
            killed = True
            break
        time.sleep(0.02)
    proc.wait()
    assert killed, "the run ended before a simulate job could be interrupted"
    # nothing partial was left under a final name: every block present loads completely
    for p in (res / "sim").rglob("*.npz"):
        assert load_results(p)
    assert snakemake(repo, "--unlock", "--configfile", "config/smoke.yaml").returncode == 0
    p = snakemake(
        repo,
        "--configfile",
        "config/smoke.yaml",
        "--cores",
        "2",
        KILL_TARGET,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    assert (smoke_run / KILL_TARGET).read_bytes() == (repo / KILL_TARGET).read_bytes()


@pytest.mark.slow
def test_tables_bit_identical_across_cores_and_block_orders(smoke_run, tmp_path):
    """Sharding: every replicate block simulated one after the other in *reversed* order in one
    process (one core; the code the simulate rule runs), then the tables by Snakemake with one
    core, give the tables of smoke_run (two cores, Snakemake's order)."""
    from onlinerank.cells import STAGES, groups_of, run_group_block
    from onlinerank.config import load_settings
    from onlinerank.io import save_results

    repo = copy_repo(tmp_path / "repo3")
    config = load_settings(yaml.safe_load((repo / "config" / "smoke.yaml").read_text()))
    res = config.results_dir
    jobs = [
        (g, b)
        for stage in STAGES
        for g, cells in groups_of(config, stage).items()
        for b in range(cells[0].blocks)
    ]
    assert len(jobs) > 10
    for g, b in reversed(jobs):
        save_results(run_group_block(config, g, b), repo / res / "sim" / g / f"b{b}.npz")
    blocks = [f"{res}/sim/{g}/b{b}.npz" for g, b in jobs]
    stamps = {b: (repo / b).stat().st_mtime_ns for b in blocks}
    p = snakemake(
        repo,
        "--configfile",
        "config/smoke.yaml",
        "--cores",
        "1",
        *SIM_TARGETS,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    # Snakemake simulated nothing again: the blocks are the ones run in reversed order
    assert {b: (repo / b).stat().st_mtime_ns for b in blocks} == stamps
    for rel in SIM_TARGETS:
        assert (smoke_run / rel).read_bytes() == (repo / rel).read_bytes(), rel
