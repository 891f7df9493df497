"""The how-to recipes hold what they say: the adaptive adversary of "Add an adversary" is a
lint-clean file that the conformance suite accepts when dropped into a copy of the repository."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT, copy_repo, run_pytest_in_copy

ADD_ADVERSARY = (ROOT / "docs" / "howto" / "add-adversary.md").read_text()


def block_after(marker: str, lang: str, text: str = ADD_ADVERSARY) -> str:
    """The first fenced code block of language ``lang`` after ``marker`` in ``text``."""
    i = text.index(marker)
    m = re.compile(rf"```{lang}\n(.*?)```", re.S).search(text, i)
    assert m, (marker, lang)
    return m.group(1)


@pytest.mark.workflow
def test_the_plugin_example_is_one_lint_clean_file_the_conformance_suite_accepts(tmp_path):
    code = block_after("**A new adversary.**", "python")
    config = yaml.safe_load(block_after("**A new adversary.**", "yaml"))
    repo = copy_repo(tmp_path / "repo")
    path = repo / "src" / "onlinerank" / "adversaries" / "runner_up.py"
    path.write_text(code)
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", str(path), "--config", str(ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "format",
            "--check",
            str(path),
            "--config",
            str(ROOT / "pyproject.toml"),
        ],
        capture_output=True,
        text=True,
    )
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr
    env = {"PYTHONPATH": str(repo / "src"), "PATH": "/usr/bin:/bin"}
    probe = (
        "import yaml, onlinerank as o; from onlinerank.config import validate_config, validate_schema;"
        "cfg = yaml.safe_load(open('config/smoke.yaml'));"
        f"extra = yaml.safe_load({yaml.safe_dump(config)!r});"
        "cfg['adversaries'].update(extra['adversaries']);"
        "cfg['upper']['experiments'] += extra['upper']['experiments'];"
        "validate_schema(cfg, 'src/onlinerank/config.schema.yaml'); validate_config(cfg);"
        "assert 'runner-up' in o.ADVERSARIES; print(o.ADVERSARIES['runner-up'].__module__)"
    )
    p = subprocess.run([sys.executable, "-c", probe], cwd=repo, env=env, capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.strip() == "onlinerank.adversaries.runner_up", p.stderr[-2000:]
    p = run_pytest_in_copy(repo, "tests/test_conformance.py", "-k", "runner")
    assert p.returncode == 0 and " passed" in p.stdout, p.stdout[-3000:] + p.stderr[-2000:]
