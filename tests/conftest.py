"""Shared fixtures: one smoke-tier run of the pipeline for the whole session (the workflow,
claims, report, notebook and SLURM tests all read it; with pytest-xdist, one run shared by the
workers under a file lock), and helpers to copy the repository and run Snakemake in a subprocess.

Tests read the shared run and never modify it: a test that edits or reruns works on a copy."""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IGNORE = shutil.ignore_patterns(
    ".venv",
    ".git",
    "results",
    "results-*",
    ".snakemake",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
    ".hypothesis",
    ".ipynb_checkpoints",
)


def _deterministic_tables() -> list[str]:
    from onlinerank.tables import TABLE_STAGE

    return sorted(t for t in TABLE_STAGE if t != "runtime")  # runtime: wall clock


#: every table of the smoke tier that must be bit-identical between runs (all but the timings)
DETERMINISTIC_TABLES = _deterministic_tables()


def copy_repo(dst: Path) -> Path:
    """A copy of the working tree without results, caches or the virtualenv."""
    shutil.copytree(ROOT, dst, ignore=IGNORE)
    return dst


def snakemake(cwd: Path, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory, xdist_worker) -> Path:
    """A copy of the repository in which the smoke tier has run to completion (2 cores).  Under
    pytest-xdist the first worker to get here runs it and the others wait for it (the run's
    directory is shared: the parent of the workers' temporary directories)."""
    base = tmp_path_factory.getbasetemp()
    shared = base if xdist_worker == "master" else base.parent
    repo, done = shared / "smoke" / "repo", shared / "smoke" / "done"
    repo.parent.mkdir(exist_ok=True)
    with open(shared / "smoke.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # held by the worker that runs it, until it has finished
        if not done.exists():
            if repo.exists():
                pytest.fail(f"an earlier attempt at the smoke run in {repo} failed")
            copy_repo(repo)
            p = snakemake(repo, "--configfile", "config/smoke.yaml", "--cores", "2")
            assert p.returncode == 0, p.stderr[-4000:]
            done.write_text("ok\n")
    return repo


@pytest.fixture(scope="session")
def xdist_worker(request) -> str:
    """pytest-xdist's worker name (``gw0``, ...), ``master`` without xdist."""
    return getattr(request.config, "workerinput", {}).get("workerid", "master")


@pytest.fixture(scope="session")
def smoke_tables(smoke_run) -> dict[str, list[dict]]:
    """Every table of the smoke run, by name."""
    from onlinerank.io import read_table

    out = {}
    for path in sorted((smoke_run / "results-smoke" / "tables").glob("*.csv")):
        out[path.stem] = read_table(path)
    return out


@pytest.fixture(scope="session")
def smoke_config() -> dict:
    """The smoke tier's config with the schema's defaults filled in (as the pipeline sees it)."""
    import yaml

    from onlinerank.config import validate_schema

    cfg = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    validate_schema(cfg, ROOT / "workflow" / "schemas" / "config.schema.yaml")
    return cfg
