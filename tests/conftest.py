"""Shared fixtures: one smoke-tier run of the pipeline for the whole session (the workflow,
claims, report, notebook and SLURM tests all read it), and helpers to copy the repository and
run Snakemake in a subprocess."""

from __future__ import annotations

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
def smoke_run(tmp_path_factory) -> Path:
    """A copy of the repository in which the smoke tier has run to completion (2 cores)."""
    repo = copy_repo(tmp_path_factory.mktemp("smoke") / "repo")
    p = snakemake(repo, "--configfile", "config/smoke.yaml", "--cores", "2")
    assert p.returncode == 0, p.stderr[-4000:]
    return repo


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
