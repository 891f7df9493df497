"""The tutorial notebook from a new user's side: it finds the repository's results
from wherever it is opened, says in one line which command makes them when there are none, and
`make notebook` opens it in JupyterLab running the project's Python."""

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from onlinerank.provenance import find_results

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "tutorial.ipynb"


def fake_repo(tmp_path: Path, *tiers: str) -> Path:
    """A repository skeleton (Snakefile, config/, notebooks/) with finished runs of ``tiers``."""
    repo = tmp_path / "repo"
    (repo / "config").mkdir(parents=True)
    (repo / "Snakefile").write_text("# skeleton\n")
    (repo / "notebooks").mkdir()
    shutil.copy(NOTEBOOK, repo / "notebooks")
    for tier in tiers:
        (repo / tier / "tables").mkdir(parents=True)
        (repo / tier / "tables" / "sim_upper.csv").write_text("metric\n")
    return repo


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    monkeypatch.delenv("ONLINERANK_RESULTS", raising=False)


def test_results_found_from_the_notebooks_folder_fall_back_to_smoke(tmp_path):
    repo = fake_repo(tmp_path, "results-smoke")
    assert find_results(repo / "notebooks") == repo / "results-smoke"
    assert find_results(repo) == repo / "results-smoke"


def test_default_tier_preferred_when_it_has_run(tmp_path):
    repo = fake_repo(tmp_path, "results-smoke", "results")
    assert find_results(repo / "notebooks") == repo / "results"


def test_an_unfinished_results_folder_is_not_taken(tmp_path):
    repo = fake_repo(tmp_path, "results-smoke")
    (repo / "results" / "sim").mkdir(parents=True)  # a run interrupted before its tables
    assert find_results(repo / "notebooks") == repo / "results-smoke"


def test_no_results_one_line_naming_the_commands(tmp_path):
    repo = fake_repo(tmp_path)
    with pytest.raises(FileNotFoundError) as e:
        find_results(repo / "notebooks")
    msg = str(e.value)
    assert "\n" not in msg and "make smoke" in msg and "make figures" in msg and str(repo) in msg


def test_environment_variable_is_honoured_and_checked(tmp_path, monkeypatch):
    repo = fake_repo(tmp_path, "results-smoke", "results")
    monkeypatch.setenv("ONLINERANK_RESULTS", str(repo / "results-smoke"))
    assert find_results(tmp_path) == repo / "results-smoke"
    monkeypatch.setenv("ONLINERANK_RESULTS", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="ONLINERANK_RESULTS=.*nowhere has no tables/sim_upper.csv"):
        find_results(repo)


def test_outside_any_repository_the_package_checkout_is_used(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    try:
        found = find_results(outside)
    except FileNotFoundError as e:
        assert f"in {ROOT}" in str(e) and "make smoke" in str(e)
    else:
        assert found.parent == ROOT


def test_notebook_without_results_stops_with_one_line_naming_make_smoke(tmp_path):
    """Opened from notebooks/ before any run: the first code cell stops with one line that says
    which command makes the results (it used to be a FileNotFoundError on 'results/tables/...')."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    repo = fake_repo(tmp_path)
    nb = nbformat.read(repo / "notebooks" / "tutorial.ipynb", as_version=4)
    client = NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(repo / "notebooks")}}
    )
    with pytest.raises(CellExecutionError):
        client.execute()
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"
    ]
    assert len(errors) == 1
    assert errors[0].ename == "SystemExit"
    assert (
        "\n" not in errors[0].evalue
        and "run `make smoke`" in errors[0].evalue
        and str(repo) in errors[0].evalue
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.read()


def test_make_notebook_opens_the_tutorial_in_jupyterlab_on_the_project_python(tmp_path):
    """`make notebook` (the documented way to open it) serves the notebook in JupyterLab, and its
    Python kernel is the interpreter the project is installed in."""
    port, token = _free_port(), "onlinerank-test"
    args = f"--no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port={port} --IdentityProvider.token={token}"
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    bindir = Path(sys.executable).parent
    log = open(tmp_path / "jupyter.log", "w+")
    # -o: the test runs in an installed environment; `make` must not install into it
    proc = subprocess.Popen(
        ["make", "-s", "-o", ".venv/.installed-test", "notebook", f"BIN={bindir}", f"NOTEBOOK_ARGS={args}"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                status, _ = _get(f"{base}/api/status?token={token}")
                break
            except OSError:
                log.seek(0)
                assert proc.poll() is None, log.read()
                assert time.time() < deadline, "JupyterLab did not start: " + log.read()
                time.sleep(0.5)
        assert status == 200
        status, page = _get(f"{base}/lab/tree/notebooks/tutorial.ipynb?token={token}")
        assert status == 200 and b"JupyterLab" in page
        status, body = _get(f"{base}/api/contents/notebooks/tutorial.ipynb?token={token}")
        nb = json.loads(body)
        assert nb["type"] == "notebook" and nb["content"]["cells"][0]["cell_type"] == "markdown"
        # start the notebook's kernel (python3) as the page does; it runs on the project's Python
        assert nb["content"]["metadata"]["kernelspec"]["name"] == "python3"
        req = urllib.request.Request(
            f"{base}/api/kernels",
            data=json.dumps({"name": "python3"}).encode(),
            method="POST",
            headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=30) as r:
            kernel_id = json.loads(r.read())["id"]
        cmdline = None
        while cmdline is None and time.time() < deadline:
            for child in psutil.Process(proc.pid).children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    if any(kernel_id in a for a in child.cmdline()):
                        cmdline = child.cmdline()
            time.sleep(0.2)
        assert cmdline and "ipykernel_launcher" in cmdline, cmdline
        assert Path(cmdline[0]).parent == bindir, cmdline  # the project's interpreter
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


def test_the_pipelines_environment_runs_the_notebook_with_jupyter_execute(tmp_path):
    """`make smoke` and `make figures` install requirements/workflow.txt only: it holds nbclient,
    whose `jupyter execute` runs the notebook headless (nbconvert is not in it), with jupyter-core
    and ipykernel; the usage page names that command.  Run here without results: exit status 1
    and the first cell's one line naming `make smoke`."""
    import re

    lock = (ROOT / "requirements" / "workflow.txt").read_text()
    for package in ("nbclient", "jupyter-core", "ipykernel"):
        assert re.search(rf"^{package}==", lock, re.M), package
    assert not re.search(r"^nbconvert==", lock, re.M)
    assert ".venv/bin/jupyter execute notebooks/tutorial.ipynb" in (ROOT / "docs" / "usage.md").read_text()
    jupyter = Path(sys.executable).parent / "jupyter"
    repo = fake_repo(tmp_path)
    p = subprocess.run(
        [str(jupyter), "execute", "notebooks/tutorial.ipynb"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 1, p.stdout[-2000:] + p.stderr[-2000:]
    assert f"no results in {repo}/results or {repo}/results-smoke yet: run `make smoke`" in p.stderr
