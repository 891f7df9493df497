"""The Snakemake pipeline on the smoke tier, run from a temporary copy of the repository."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.workflow
IGNORE = shutil.ignore_patterns(".venv", ".git", "results", "results-*", ".snakemake",
                                "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis")


def copy_repo(dst: Path) -> Path:
    shutil.copytree(ROOT, dst, ignore=IGNORE)
    return dst


def snakemake(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    repo = copy_repo(tmp_path_factory.mktemp("smoke") / "repo")
    p = snakemake(repo, "--configfile", "config/smoke.yaml", "--cores", "2")
    assert p.returncode == 0, p.stderr[-4000:]
    return repo


def test_lint_is_clean():
    p = snakemake(ROOT, "--lint")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "Lints for" not in p.stdout + p.stderr, p.stdout + p.stderr


def test_dry_run_default_tier():
    p = snakemake(ROOT, "-n", "--quiet", "rules")
    assert p.returncode == 0, p.stderr[-3000:]


def test_smoke_outputs_exist_and_figures_untouched(smoke_run):
    res = smoke_run / "results-smoke"
    for rel in ("tables/sim_upper.csv", "tables/bounds_upper.csv", "figures/regret_vs_T.png",
                "figures/regret_vs_T.pdf"):
        assert (res / rel).stat().st_size > 0, rel
    # the smoke tier never writes into figures/ of the repository copy
    assert sorted(p.name for p in (smoke_run / "figures").iterdir()) == sorted(
        p.name for p in (ROOT / "figures").iterdir())


def test_tables_bit_identical_across_cores(smoke_run, tmp_path):
    other = copy_repo(tmp_path / "repo1")
    p = snakemake(other, "--configfile", "config/smoke.yaml", "--cores", "1")
    assert p.returncode == 0, p.stderr[-3000:]
    for rel in ("tables/sim_upper.csv", "tables/bounds_upper.csv"):
        a = (smoke_run / "results-smoke" / rel).read_bytes()
        b = (other / "results-smoke" / rel).read_bytes()
        assert a == b, rel
