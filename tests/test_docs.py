"""The documentation site builds with warnings as errors (``make docs``), and its checks name what
is missing: an undocumented public function, a config key without a description, a broken
cross-reference."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import doc_commands as dc
import pytest
from conftest import ROOT, copy_repo

sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import onlinerank_docs  # noqa: E402


def _build(src: Path, out: Path) -> subprocess.CompletedProcess:
    # --no-color: an environment with FORCE_COLOR set (as some CI runners have) would otherwise wrap
    # the error lines that the tests read in terminal colour codes.
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "--no-color", "-W", "--keep-going", "-n", "-q"]
        + ["-b", "html", str(src), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_the_site_builds_with_warnings_as_errors(tmp_path):
    """``make docs`` as the pages write it, run in a copy the way tests/doc_commands.py runs every
    documented command (the documented-commands test leaves this one to this test:
    ``RUN_BY_ANOTHER_TEST``, so that the suite builds the site once), then the built pages."""
    repo = copy_repo(tmp_path / "repo")
    shutil.rmtree(repo / "docs" / "_build", ignore_errors=True)  # a whole build, never an update
    cp = dc.prepare(repo)
    try:
        dc.check(dc.SITE_BUILD, cp, "tests/test_docs.py")
    finally:
        cp.close()
    html = repo / "docs" / "_build" / "html"
    assert (html / "theory" / "upper.html").exists()
    api = (html / "reference" / "api.html").read_text(encoding="utf-8")
    assert "theorem31_paper" in api
    config = (html / "reference" / "config.html").read_text(encoding="utf-8")
    assert "results_dir" in config and "figures_dir" in config
    # the maths renders offline: MathJax is loaded from the site itself, never from a CDN
    theory = (html / "theory" / "upper.html").read_text(encoding="utf-8")
    assert '<script defer="defer" src="../_static/mathjax/tex-chtml.js"></script>' in theory
    assert "://" not in "".join(re.findall(r"<script[^>]*>", theory)), re.findall(r"<script[^>]*>", theory)
    assert (html / "_static" / "mathjax" / "tex-chtml.js").stat().st_size > 100_000
    assert any((html / "_static" / "mathjax" / "output" / "chtml" / "fonts").rglob("*.woff"))


def test_a_broken_cross_reference_fails_the_build_with_its_name(tmp_path):
    """A tiny site with the project's settings and one reference to a function that does not exist."""
    src = tmp_path / "docs"
    src.mkdir()
    shutil.copy(ROOT / "docs" / "conf.py", src / "conf.py")
    shutil.copytree(ROOT / "docs" / "_ext", src / "_ext")
    (src / "index.md").write_text("# x\n\nSee {py:func}`onlinerank.bounds.no_such_function`.\n")
    run = _build(src, tmp_path / "html")
    assert run.returncode != 0
    assert "no_such_function" in run.stdout + run.stderr


def test_a_public_module_without_a_docstring_fails_the_build_with_one_line_naming_it(tmp_path):
    """A plug-in module without a docstring (a recipe's file as first written): one error line
    naming the module, no Sphinx traceback, a failing build.  The tiny site has the project's
    settings; the module is found in a folder appended to the adversaries package's path."""
    src = tmp_path / "docs"
    src.mkdir()
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "bare_plugin.py").write_text("VALUE = 1\n")
    conf = (ROOT / "docs" / "conf.py").read_text()
    conf += f"\nimport onlinerank.adversaries\n\nonlinerank.adversaries.__path__.append({str(plugin)!r})\n"
    (src / "conf.py").write_text(conf)
    shutil.copytree(ROOT / "docs" / "_ext", src / "_ext")
    (src / "index.md").write_text("# x\n\nA page.\n")
    run = _build(src, tmp_path / "html")
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    lines = [line for line in out.splitlines() if "bare_plugin" in line]
    want = "ERROR: public modules or names without a docstring: onlinerank.adversaries.bare_plugin"
    assert lines == [want], out
    assert "Traceback" not in out and "Extension error" not in out and "open an issue" not in out, out


def test_an_undocumented_public_function_is_named(monkeypatch):
    import onlinerank.bounds as bounds

    def bare(x):
        return x

    bare.__module__ = "onlinerank.bounds"
    monkeypatch.setattr(bounds, "bare", bare, raising=False)
    monkeypatch.setattr(bounds, "__all__", [*bounds.__all__, "bare"])
    assert "onlinerank.bounds.bare" in onlinerank_docs.undocumented()
    monkeypatch.undo()
    assert onlinerank_docs.undocumented() == []


def test_a_config_key_without_a_description_is_named():
    schema = {
        "properties": {
            "seed": {"type": "integer", "description": "root seed"},
            "upper": {"type": "object", "properties": {"block_size": {"type": "integer"}}},
        }
    }
    rows = onlinerank_docs.config_keys(schema)
    bare = [key for key, _, _, text in rows if not text]
    assert bare == ["upper", "upper.block_size"]
    real = onlinerank_docs.config_keys(__import__("yaml").safe_load(onlinerank_docs.SCHEMA.read_text()))
    assert [key for key, _, _, text in real if not text] == []
