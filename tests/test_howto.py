"""The how-to recipes hold what they say: every file a recipe says to create ("Create `path`:"
followed by a code block) is complete as written.  Dropped together into a copy of the repository,
the files pass ruff, ruff's formatter, mypy and the docs build (which requires a module docstring
on each); the configs validate; the adaptive adversary of "Add an adversary" passes the
conformance suite and declares its memory (without it the memory test of ``tests/test_cli.py``
runs it at n = 300000, minutes instead of seconds)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, copy_repo, run_pytest_in_copy

HOWTO = ROOT / "docs" / "howto"
#: "Create `path`:" followed by a fenced block: the file a recipe says to write, and its content
CREATE = re.compile(r"[Cc]reate `([^`]+)`:\s*\n\s*\n```[a-z]*\n(.*?)```", re.S)


def created_files(recipe: str) -> dict[str, str]:
    """Every file the recipe ``docs/howto/<recipe>.md`` says to create, with its content."""
    text = (HOWTO / f"{recipe}.md").read_text()
    files = dict(CREATE.findall(text))
    assert files, f"{recipe}: no 'Create `path`:' block"
    return files


def every_created_file() -> dict[str, str]:
    """The files of every recipe of ``docs/howto/``; no two recipes create the same path."""
    out: dict[str, str] = {}
    for page in sorted(HOWTO.glob("*.md")):
        for path, text in CREATE.findall(page.read_text()):
            assert path not in out, f"{page.name}: {path} is created by another recipe too"
            out[path] = text
    return out


def _run(repo, *cmd: str) -> subprocess.CompletedProcess:
    """A command in the copy, importing the copy's package (not the checkout's editable install)."""
    env = {**os.environ, "PYTHONPATH": str(repo / "src")}
    return subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=600)


def test_the_recipes_create_the_files_they_describe():
    files = every_created_file()
    for recipe in ("add-learner", "add-adversary", "add-claim", "add-figure", "add-experiment"):
        assert created_files(recipe)
    modules = [p for p in files if p.endswith(".py")]
    assert "src/onlinerank/adversaries/runner_up.py" in modules and len(modules) >= 5, sorted(files)
    for path in modules:  # a module docstring first: the docs build requires one
        assert files[path].startswith('"""'), path
    configs = [p for p in files if p.startswith("config/")]
    assert configs and all(p.endswith(".yaml") for p in configs), configs


@pytest.mark.slow
@pytest.mark.workflow
def test_every_file_of_the_recipes_passes_the_linters_mypy_and_the_docs_build(tmp_path):
    files = every_created_file()
    repo = copy_repo(tmp_path / "repo")
    for rel, text in files.items():
        assert not (repo / rel).exists(), f"{rel}: a recipe would overwrite a file of the repository"
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    modules = sorted(p for p in files if p.endswith(".py"))
    # mypy starts from the checkout's cache (`make lint` before the suite leaves it): it checks the
    # new modules and what imports them again, and takes the rest from the cache (the whole test
    # took 26 s of a suite run without it, 10 s with it)
    if (ROOT / ".mypy_cache").is_dir():
        shutil.copytree(ROOT / ".mypy_cache", repo / ".mypy_cache")
    py = sys.executable
    for cmd in (
        (py, "-m", "ruff", "check", *modules),
        (py, "-m", "ruff", "format", "--check", *modules),
        (py, "-m", "mypy"),  # the whole package, as `make lint` runs it
        (py, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html", "docs", str(tmp_path / "html")),
    ):
        p = _run(repo, *cmd)
        assert p.returncode == 0, (cmd[2], p.stdout[-3000:] + p.stderr[-3000:])

    # every config of the recipes validates (the trace config reads a log its recipe makes first)
    (repo / "traces").mkdir(exist_ok=True)
    (repo / "traces" / "clicks.csv").write_text("0\n" * 1000)
    configs = sorted(p for p in files if p.startswith("config/"))
    probe = (
        "import sys, yaml; from onlinerank.config import load_settings\n"
        "for path in sys.argv[1:]:\n"
        "    load_settings(yaml.safe_load(open(path)))\n"
        "import onlinerank as o\n"
        "cls = o.ADVERSARIES['runner-up']\n"
        "print(cls.__module__, cls.implements('memory_bytes'))\n"
    )
    p = _run(repo, py, "-c", probe, *configs)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.split() == ["onlinerank.adversaries.runner_up", "True"], p.stdout


@pytest.mark.workflow
def test_the_adaptive_adversary_passes_the_conformance_suite(tmp_path):
    repo = copy_repo(tmp_path / "repo")
    path = "src/onlinerank/adversaries/runner_up.py"
    (repo / path).write_text(created_files("add-adversary")[path])
    p = run_pytest_in_copy(
        repo, "-p", "no:xdist", "tests/test_conformance.py", "tests/test_engine.py", "-k", "runner"
    )
    assert p.returncode == 0 and re.search(r"\b[1-9]\d* passed", p.stdout), (
        p.stdout[-3000:] + p.stderr[-2000:]
    )
