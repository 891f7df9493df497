"""onlinerank.pipeline: the code inputs of a step (the transitive closure of its package imports,
found statically) and running a step's body with its log file."""

import logging
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from onlinerank.pipeline import PACKAGE_DIR, code_inputs, module_file, run


def write(root: Path, rel: str, text: str = "") -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text))
    return p


@pytest.fixture
def repo(tmp_path):
    """A repository with a small fake ``onlinerank`` package under src/ and one script."""
    write(tmp_path, "src/onlinerank/__init__.py", "from . import facade_only\nfrom .a import x\n")
    write(tmp_path, "src/onlinerank/facade_only.py", "import onlinerank.unused\n")
    write(tmp_path, "src/onlinerank/unused.py")
    write(
        tmp_path,
        "src/onlinerank/a.py",
        """
        import os
        from .b import y

        x = 1

        def late():
            from .sub import c  # function-level and relative
            return c
        """,
    )
    write(tmp_path, "src/onlinerank/b.py", "import numpy as np\ny = 2\n")
    write(tmp_path, "src/onlinerank/sub/__init__.py")
    write(tmp_path, "src/onlinerank/sub/c.py", "import onlinerank.d  # absolute\n")
    write(tmp_path, "src/onlinerank/d.py", "from ..outside import nothing  # beyond the package\n")
    write(tmp_path, "src/onlinerank/leafdep.py")
    write(tmp_path, "src/onlinerank/leaf.py", "from . import leafdep\n")
    write(tmp_path, "workflow/scripts/step.py", "import sys\nfrom onlinerank.a import x\n")
    return tmp_path


def test_closure_follows_relative_absolute_and_function_level_imports(repo, monkeypatch):
    monkeypatch.chdir(repo)  # paths under the working directory are relative to it
    got = code_inputs(repo / "workflow" / "scripts" / "step.py", root=repo)
    assert got == sorted(
        [
            "workflow/scripts/step.py",
            "src/onlinerank/__init__.py",  # run by the import, but its own imports are not followed
            "src/onlinerank/a.py",
            "src/onlinerank/b.py",
            "src/onlinerank/sub/__init__.py",
            "src/onlinerank/sub/c.py",
            "src/onlinerank/d.py",
        ]
    )


def test_paths_are_relative_to_root_and_sources_may_be_given_relative(repo, monkeypatch):
    monkeypatch.chdir(repo)
    got = code_inputs("src/onlinerank/sub/c.py", root=str(repo))
    assert got == ["src/onlinerank/__init__.py", "src/onlinerank/d.py", "src/onlinerank/sub/c.py"]
    assert all(not Path(p).is_absolute() for p in got)


def test_leaves_are_included_without_their_imports(repo, monkeypatch):
    monkeypatch.chdir(repo)
    got = code_inputs(repo / "src/onlinerank/b.py", root=repo, leaves=(repo / "src/onlinerank/leaf.py",))
    assert got == ["src/onlinerank/b.py", "src/onlinerank/leaf.py"]


def test_without_root_the_installed_package_is_used_and_paths_are_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # outside the package: absolute paths
    got = code_inputs(PACKAGE_DIR / "results.py")
    assert got == [str(PACKAGE_DIR / "results.py")]  # it imports only numpy and the stdlib
    closure = code_inputs(PACKAGE_DIR / "sim_tables.py")
    for mod in ("cells.py", "io.py", "results.py", "game.py", "__init__.py"):
        assert str(PACKAGE_DIR / mod) in closure
    assert str(PACKAGE_DIR / "plotting.py") not in closure


def test_module_file(repo):
    pkg = repo / "src" / "onlinerank"
    assert module_file("onlinerank.a", pkg) == pkg / "a.py"
    assert module_file("onlinerank.sub", pkg) == pkg / "sub" / "__init__.py"
    assert module_file("onlinerank", pkg) == pkg / "__init__.py"
    assert module_file("onlinerank.a.x", pkg) is None  # a name, not a module
    assert module_file("numpy", pkg) is None


@pytest.fixture
def fake_snakemake(smoke_config):
    """A step's ``snakemake`` object: its log files and the config the Snakefile validated."""

    def make(log_path):
        return SimpleNamespace(log=[str(log_path)] if log_path else [], config=smoke_config)

    return make


def test_run_writes_messages_to_the_rule_log(tmp_path, fake_snakemake):
    path = tmp_path / "step.log"
    run(fake_snakemake(path), lambda log: log.info("made %d rows", 7))
    assert "INFO made 7 rows" in path.read_text()
    assert not any(isinstance(h, logging.FileHandler) for h in logging.getLogger("onlinerank").handlers)


def test_run_logs_the_start_up_of_the_job_and_the_time_of_its_step(tmp_path, fake_snakemake):
    """A step's log starts with the job's start-up (seconds since its process started, CPU
    seconds so far) and ends with the step's own time, here a body that sleeps 0.2 s."""
    import re
    import time

    path = tmp_path / "step.log"
    run(fake_snakemake(path), lambda log: time.sleep(0.2))
    first, last = path.read_text().splitlines()
    m = re.search(r"INFO start-up ([\d.]+) s, ([\d.]+) s CPU \(interpreter", first)
    assert m and float(m.group(2)) > 0, first
    m = re.search(r"INFO step ([\d.]+) s, ([\d.]+) s CPU$", last)
    assert m and 0.2 <= float(m.group(1)) < 5 and float(m.group(2)) < 0.2, last


def test_process_age_is_the_time_since_the_process_started():
    """A process that sleeps 0.5 s after it starts, then reads its age: at least the sleep, at
    most the time its parent saw it run (the clock of /proc/uptime ticks in hundredths)."""
    import subprocess
    import sys
    import time

    code = "import time; time.sleep(0.5); from onlinerank.pipeline import process_age; print(process_age())"
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    elapsed = time.perf_counter() - t0
    if out.strip() == "None":
        pytest.skip("no /proc on this system: the start-up line gives CPU seconds only")
    assert 0.5 - 0.02 <= float(out) <= elapsed + 0.02, (out, elapsed)


def test_run_writes_the_traceback_of_a_failing_body_and_reraises(tmp_path, fake_snakemake):
    path = tmp_path / "step.log"

    def body(log):
        log.info("starting")
        raise ValueError("table has no rows")

    with pytest.raises(ValueError, match="table has no rows"):
        run(fake_snakemake(path), body)
    text = path.read_text()
    assert "starting" in text and "step failed" in text
    assert "Traceback (most recent call last)" in text
    assert "ValueError: table has no rows" in text
    assert "in body" in text  # the failing frame
    assert logging.getLogger("onlinerank").handlers == []


def test_run_without_a_log_file_reports_on_stderr(capsys, fake_snakemake):
    with pytest.raises(KeyError):
        run(fake_snakemake(None), lambda log: {}["missing"])
    assert "KeyError" in capsys.readouterr().err


def _walked_names(text: str, module: str | None, is_package: bool) -> set[str]:
    """The imported names by a walk of every node of the tree (the reference for the statement
    walk of :func:`onlinerank.pipeline._imported_names`)."""
    import ast

    pkg = module if is_package else (module.rsplit(".", 1)[0] if module and "." in module else None)
    names: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level and pkg is None:
                continue
            base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)] if node.level else []
            prefix = ".".join(base + [node.module] if node.module else base) if node.level else node.module
            names |= {prefix} | {f"{prefix}.{a.name}" for a in node.names}
    return names


def test_the_statement_walk_finds_every_import_a_walk_of_every_node_finds():
    """Imports nested in functions, classes, try/except/finally, with, if/else, loops and match
    cases; then every module of the repository: the same names as a walk of the whole tree."""
    from onlinerank.pipeline import _imported_names, _module_name

    nested = textwrap.dedent(
        """
        import a
        def f():
            class C:
                def g(self):
                    from . import b
            try:
                import c
            except ImportError:
                import d
            else:
                import e
            finally:
                from .f import g
        with open("x") as h:
            if h:
                import i
            else:
                for _ in h:
                    import j
                while True:
                    import k
        match a:
            case 1:
                import m
        """
    )
    got = _imported_names(nested, "pkg.mod", False)
    assert set(got) == _walked_names(nested, "pkg.mod", False)
    assert {"a", "pkg", "pkg.b", "c", "d", "e", "pkg.f", "pkg.f.g", "i", "j", "k", "m"} == set(got)
    root = Path(__file__).resolve().parents[1]
    roots = (root / "src", root / "workflow")
    files = sorted((root / "src").rglob("*.py")) + sorted((root / "workflow").rglob("*.py"))
    assert len(files) > 100
    for path in files:
        me, pkg = _module_name(path, roots), path.name == "__init__.py"
        assert set(_imported_names(path.read_text(), me, pkg)) == _walked_names(path.read_text(), me, pkg), (
            path
        )


def _forget(monkeypatch):
    """This process's memory of earlier reads (a new process has none)."""
    from onlinerank import pipeline

    pipeline._imports.cache_clear()
    pipeline._closure.cache_clear()
    pipeline._module_path.cache_clear()
    monkeypatch.setattr(pipeline, "_DISK", {})


def test_the_imports_are_kept_between_processes_and_a_changed_file_is_read_again(repo, monkeypatch):
    """The imports found in each file are written beside the package's bytecode; a later process
    reads them instead of parsing (the same closure), a file whose text changed is parsed again
    and replaces its entry, and a damaged cache file is read as empty and written anew."""
    import json

    from onlinerank import pipeline

    monkeypatch.chdir(repo)
    step = repo / "workflow" / "scripts" / "step.py"
    _forget(monkeypatch)
    first = code_inputs(step, root=repo)
    cache = repo / "src" / "onlinerank" / "__pycache__" / "code-imports.json"
    entries = json.loads(cache.read_text())
    assert len(entries) == 6  # step.py, __init__ is not followed, a, b, sub, sub.c, d

    _forget(monkeypatch)
    parsed, parse = [], pipeline._imported_names
    monkeypatch.setattr(pipeline, "_imported_names", lambda *a: parsed.append(a) or ())
    assert code_inputs(step, root=repo) == first and parsed == []  # read, not parsed
    monkeypatch.setattr(pipeline, "_imported_names", parse)

    write(repo, "src/onlinerank/b.py", "from . import leaf\n")  # b now imports leaf
    grown = sorted([*first, "src/onlinerank/leaf.py", "src/onlinerank/leafdep.py"])
    _forget(monkeypatch)
    assert code_inputs(step, root=repo) == grown
    after = json.loads(cache.read_text())
    assert len([k for k in after if k.startswith("onlinerank.b:")]) == 1  # one entry per file
    assert after[next(k for k in after if k.startswith("onlinerank.b:"))] == ["onlinerank", "onlinerank.leaf"]

    cache.write_text("{not json")
    _forget(monkeypatch)
    assert code_inputs(step, root=repo) == grown
    assert len(json.loads(cache.read_text())) == 8


def test_run_freezes_the_imports_out_of_the_collector_and_nothing_the_step_makes(tmp_path):
    """``run`` freezes the objects alive when it starts (the script's imports) out of the cyclic
    collector (``gc.freeze``), and nothing the step makes: an object in a reference cycle that the
    step leaves behind is still collected at the process's exit, and its finalizer writes a file.
    A freeze after the step would freeze the cycle too, and the file would never be written."""
    import subprocess
    import sys

    out = tmp_path / "finalised.txt"
    code = f"""
import gc
from types import SimpleNamespace
from onlinerank.pipeline import run

class Finalised:
    def __init__(self):
        self.me = self  # a cycle: only the collector frees it

    def __del__(self, open=open):
        with open({str(out)!r}, "w") as f:
            f.write("finalised")

def body(log):
    assert gc.get_freeze_count() > 0
    Finalised()

run(SimpleNamespace(log=[]), body)
"""
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    assert out.read_text() == "finalised"
