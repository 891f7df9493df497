"""Extending the project as documented: in a copy of the repository with the smoke tier's results,
the how-to recipes are followed verbatim — every file they say to create is written from their
code blocks and nothing else is edited — and the pieces appear where the recipes say: a learner
(and the same learner without an S-law) and an adversary pass the conformance tests and reach the
simulation tables of their configs, a finding gets a verdict in ``claims.json``, a figure is drawn;
and no verdict on the paper changes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import run_pytest_in_copy, share_compiled_kernels, snakemake
from test_howto import created_files

from onlinerank.io import read_table


def without_scores_law(module: str) -> str:
    """The recipe's learner with the two dynamic-program hooks left out, as the recipe's section
    on ``scores_law()`` returning ``None`` describes, registered under another name."""
    cut = re.sub(r"\n    # the law of the coming ranking.*?(?=\n\S|\Z)", "\n", module, flags=re.S)
    assert "scores_law" not in cut and "set_scores" not in cut
    return cut.replace('name = "eps-ftl"', 'name = "eps-ftl-nolaw"').replace(
        "class EpsilonFTL(", "class EpsilonFTLNoLaw("
    )


def _snakemake(repo: Path, *args: str) -> subprocess.CompletedProcess:
    """Snakemake in the copy, importing the copy's package (not the checkout's editable install)."""
    return snakemake(repo, *args, env={**os.environ, "PYTHONPATH": str(repo / "src")})


def _changed_files(repo: Path, before: dict[str, bytes]) -> set[str]:
    """Files (outside results and caches) whose content differs from ``before``, or are new."""
    now = _snapshot(repo)
    return {p for p in now if before.get(p) != now[p]}


def _snapshot(repo: Path) -> dict[str, bytes]:
    skip = (".snakemake", "__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache")
    out = {}
    for p in repo.rglob("*"):
        rel = p.relative_to(repo)
        if p.is_file() and not rel.parts[0].startswith("results") and not set(rel.parts) & set(skip):
            out[rel.as_posix()] = p.read_bytes()
    return out


@pytest.fixture
def extended(smoke_run, tmp_path) -> tuple[Path, dict[str, str], dict[str, bytes]]:
    """A copy of the smoke run with every file the recipes say to create written from their code
    blocks (and nothing else edited): the copy, those files, and a snapshot from before.  The
    tests below each take one step of the recipes in a copy of their own, so that pytest-xdist's
    workers can take them side by side."""
    repo = tmp_path / "repo"
    shutil.copytree(smoke_run, repo, symlinks=True)
    share_compiled_kernels(repo)  # the copy imports its own package: no compiling again
    before = _snapshot(repo)

    files: dict[str, str] = {}
    for recipe in ("add-learner", "add-adversary", "add-claim", "add-figure"):
        files.update(created_files(recipe))
    learner = next(p for p in files if p.startswith("src/onlinerank/learners/"))
    files[learner.replace(".py", "_nolaw.py")] = without_scores_law(files[learner])
    for rel, text in files.items():
        assert not (repo / rel).exists(), f"{rel}: a recipe would overwrite a file of the repository"
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    return repo, files, before


@pytest.mark.workflow
def test_the_new_plugins_pass_the_conformance_tests_a_learner_without_a_law_skipped(extended):
    """The recipe's "Check it" step: the conformance and worst-case tests of the new plug-ins pass;
    the learner without an S-law has its dynamic-program tests skipped with a reason."""
    repo, files, before = extended
    p = run_pytest_in_copy(
        repo,
        "-p",
        "no:xdist",
        "-rs",
        "tests/test_conformance.py",
        "tests/test_worst_case.py",
        "-k",
        "eps-ftl or hot-item",
    )
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    assert re.search(r"SKIPPED .*eps-ftl-nolaw.*scores_law", p.stdout), p.stdout[-3000:]
    assert re.search(r"\b[1-9]\d* passed", p.stdout), p.stdout[-3000:]
    assert _changed_files(repo, before) == set(files)


@pytest.mark.slow
@pytest.mark.workflow
def test_the_smoke_tier_gets_the_new_finding_and_figure_and_no_paper_verdict_changes(extended, smoke_run):
    """The smoke tier again: its claims document and the new figure, as the recipes' "check it"
    steps make them (the figure as `make figure NAME=...` does: the run option `figure`; nothing
    else reruns upstream); the finding has a verdict, the figure is drawn, every paper verdict is
    as before."""
    repo, files, before = extended
    figure = next(Path(p).stem for p in files if "figures" in Path(p).parts and p.endswith(".py"))
    targets = ("results-smoke/figures/claims.json", f"results-smoke/figures/{figure}.png")
    r = _snakemake(
        repo, *targets, "--configfile", "config/smoke.yaml", "--config", f"figure={figure}", "--cores", "2"
    )
    assert r.returncode == 0, r.stderr[-4000:]
    doc = json.loads((repo / "results-smoke" / "figures" / "claims.json").read_text())
    old = json.loads((smoke_run / "results-smoke" / "figures" / "claims.json").read_text())
    new_ids = {c["id"] for c in doc["claims"]} - {c["id"] for c in old["claims"]}
    assert len(new_ids) == 1, new_ids
    (finding,) = (c for c in doc["claims"] if c["id"] in new_ids)
    assert finding["section"] == "beyond" and finding["verdict"] in ("PASS", "FAIL", "INCONCLUSIVE")
    assert finding["cells"], finding
    paper = {c["id"]: c["verdict"] for c in old["claims"] if c["section"] == "paper"}
    assert {c["id"]: c["verdict"] for c in doc["claims"] if c["section"] == "paper"} == paper
    assert (repo / "results-smoke" / "figures" / f"{figure}.png").stat().st_size > 10_000
    assert _changed_files(repo, before) == set(files)


@pytest.mark.workflow
@pytest.mark.parametrize(
    ("config", "label"), [("config/eps-ftl.yaml", "eps-ftl"), ("config/hot-item.yaml", "hot")]
)
def test_the_new_learner_and_adversary_reach_the_simulation_tables_of_their_configs(extended, config, label):
    """The learner's and the adversary's own configs (the recipes' last step): their simulation
    tables hold them."""
    repo, files, before = extended
    assert config in files
    results = re.search(r"^results_dir: (\S+)", files[config], re.M).group(1)
    stage = "lower" if label == "eps-ftl" else "upper"
    target = f"{results}/tables/sim_{stage}.csv"
    r = _snakemake(repo, target, "--configfile", config, "--cores", "2")
    assert r.returncode == 0, r.stderr[-4000:]
    rows = read_table(repo / target)
    column = "learner" if label == "eps-ftl" else "adversary"
    assert any(row[column] == label and row["metric"] == "regret" for row in rows), target
    assert _changed_files(repo, before) == set(files)
