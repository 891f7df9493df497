"""Shared fixtures: one smoke-tier run of the pipeline for the whole session (the workflow,
claims, report, notebook and SLURM tests all read it; started in the background at collection and
shared by pytest-xdist's workers), and helpers to copy the repository and run Snakemake in a subprocess.

Tests read the shared run and never modify it: a test that edits or reruns works on a copy."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import snakemake_server

ROOT = Path(__file__).resolve().parents[1]

# The tests read what the programs they start print (pytest, Sphinx, Snakemake, make): colour codes
# would get between the words.  A CI runner may ask every program for colour (FORCE_COLOR,
# PY_COLORS); the subprocesses of this session inherit the request for none.
for _variable in ("FORCE_COLOR", "PY_COLORS", "CLICOLOR_FORCE"):
    os.environ.pop(_variable, None)
os.environ["NO_COLOR"] = "1"

_SKIP = shutil.ignore_patterns(
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


def ignore_for_copy(directory: str, names: list[str]) -> set[str]:
    """What :func:`copy_repo` leaves out: results, caches and the virtualenv, but not the package's
    ``__pycache__``: it holds numba's compiled kernels, which ``copytree`` copies with their
    sources' modification times, so a copy that imports its own package (``PYTHONPATH=copy/src``)
    loads them instead of compiling every kernel again (about a minute of the suite each time)."""
    skip = _SKIP(directory, names)
    if Path(directory).resolve().is_relative_to(ROOT / "src"):
        skip.discard("__pycache__")
    return skip


def _deterministic_tables() -> list[str]:
    from onlinerank.tables import TABLE_STAGE

    return sorted(t for t in TABLE_STAGE if t != "runtime")  # runtime: wall clock


#: every table of the smoke tier that must be bit-identical between runs (all but the timings)
DETERMINISTIC_TABLES = _deterministic_tables()


def copy_repo(dst: Path) -> Path:
    """A copy of the working tree without results, caches or the virtualenv."""
    shutil.copytree(ROOT, dst, ignore=ignore_for_copy)
    return dst


def share_compiled_kernels(repo: Path) -> None:
    """Copy the checkout's package caches (numba's compiled kernels among them) into the copy
    ``repo`` made earlier, e.g. from the smoke run, copied before the kernels were compiled: the
    copy's sources keep the checkout's modification times, so numba accepts the caches."""
    for cache in (ROOT / "src").rglob("__pycache__"):
        shutil.copytree(cache, repo / cache.relative_to(ROOT), dirs_exist_ok=True)


def run_pytest_in_copy(repo: Path, *args: str) -> subprocess.CompletedProcess:
    """pytest (quiet, no cache) in the copy ``repo``, importing the copy's package (not the
    checkout's editable install): how a recipe's "check it" step runs the new plug-in's tests."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=repo,
        env={"PYTHONPATH": str(repo / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=600,
    )


def snakemake(
    cwd: Path, *args: str, timeout: int = 900, env: dict | None = None, cold: bool = False
) -> subprocess.CompletedProcess:
    """Snakemake in ``cwd``, as ``python -m snakemake`` with ``args``; ``env`` replaces the
    environment (e.g. to import a copy's package).  It starts on this process's Snakemake server
    (tests/snakemake_server.py: about 1.7 s of imports saved per start, and about 0.45 s per job
    script of one thread), or by itself if ``cold``
    (a test that measures the run's CPU time among its own children) or no server answers."""
    if cold:
        cmd = [sys.executable, "-m", "snakemake", *args]
        env = snakemake_server.cold_env(os.environ if env is None else env)
    else:
        server = snakemake_server.ensure_server()
        cmd = [sys.executable, str(snakemake_server.HERE), *args]
        if server and env is not None:  # a replaced environment names the server and its hook too
            env = snakemake_server.served_env(env)
    return subprocess.run(
        cmd,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


@pytest.fixture(scope="session", autouse=True)
def _served_snakemake() -> None:
    """Every Snakemake that a test starts, by whatever command (``make`` recipes, the nested starts
    inside SLURM jobs), and the Python scripts of its jobs start on this process's Snakemake server
    (tests/snakemake_server.py and tests/snakemake_hook: about 1.7 s of imports saved per start,
    about 0.45 s per job script), unless the test's environment names none
    (:func:`snakemake_server.cold_env`, ``snakemake(..., cold=True)``)."""
    os.environ.update(snakemake_server.served_env(os.environ))


def _shared_dir(config) -> Path:
    """The directory the workers of one pytest-xdist session share (without xdist: the session's)."""
    base = config._tmp_path_factory.getbasetemp()  # the fixture's factory, before any fixture runs
    return base.parent if hasattr(config, "workerinput") else base


#: ``python -c CPU_WRAPPER FILE COMMAND...``: runs COMMAND, then writes to FILE the CPU seconds
#: of it and its descendants (user + system of the processes waited for: Snakemake waits for each
#: job), and exits with COMMAND's status
CPU_WRAPPER = (
    "import resource, subprocess, sys\n"
    "rc = subprocess.call(sys.argv[2:])\n"
    "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "open(sys.argv[1], 'w').write(f'{r.ru_utime + r.ru_stime}\\n')\n"
    "sys.exit(rc)\n"
)


#: the Snakemake arguments of the session's smoke run (tests/test_bench.py reruns it with them)
SMOKE_RUN_ARGS = ("--configfile", "config/smoke.yaml", "--cores", "2")


def _start_once(run: Path, command: str, cwd: Path | None = None) -> None:
    """Run the shell ``command`` in the background, once per session, whichever worker comes first
    (the one that creates the directory ``run``), in ``cwd`` or else in a copy of the repository
    made at ``run/repo``: its output in ``run/stdout`` and ``run/stderr``, then its exit status in
    ``run/rc``; its process group in ``run/pgid``."""
    with open(f"{run}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if run.exists():
            return
        run.mkdir()
        cwd = copy_repo(run / "repo") if cwd is None else cwd
        out = shlex.quote(str(run))
        cmd = f"{command} > {out}/stdout 2> {out}/stderr; echo $? > {out}/rc.tmp && mv {out}/rc.tmp {out}/rc"
        proc = subprocess.Popen(["sh", "-c", cmd], cwd=cwd, start_new_session=True, stdin=subprocess.DEVNULL)
        (run / "pgid").write_text(f"{proc.pid}\n")


def _start_smoke_run(shared: Path) -> None:
    """Start the smoke tier in the background in a copy of the repository (2 cores, a Snakemake
    of its own), once per session; its exit status lands in ``smoke/rc``, the CPU seconds of the
    whole run (Snakemake and every job) in ``smoke/cpu`` just before."""
    run, py = shared / "smoke", shlex.quote(sys.executable)
    wrapper = f"{py} -c {shlex.quote(CPU_WRAPPER)} {shlex.quote(str(run / 'cpu'))}"
    _start_once(run, f"{wrapper} {py} -m snakemake {shlex.join(SMOKE_RUN_ARGS)}")


def _start_smoke_estimate(shared: Path) -> None:
    """Start ``python -m bench.estimate config/smoke.yaml --json --cpu`` in the background in the
    checkout, once per session, at the moment the smoke run starts, so that the estimate and the
    run meet the same load (the test that compares them: tests/test_bench.py); its JSON lands in
    ``estimate/stdout``."""
    estimate = f"{shlex.quote(sys.executable)} -m bench.estimate config/smoke.yaml --json --cpu"
    _start_once(shared / "estimate", estimate, cwd=ROOT)


def pytest_sessionfinish(session, exitstatus):
    """An interrupted session stops the background runs it started (a finished one has left
    ``rc``)."""
    if exitstatus != pytest.ExitCode.INTERRUPTED:
        return
    for name in ("smoke", "estimate"):
        run = _shared_dir(session.config) / name
        if (run / "pgid").exists() and not (run / "rc").exists():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(int((run / "pgid").read_text()), signal.SIGTERM)


@pytest.hookimpl(trylast=True)  # after -k and -m have deselected tests
def pytest_collection_modifyitems(session, config, items):
    """A session with a test that reads the smoke run starts it now and puts those tests last, so
    that the run goes on while the tests that do not need it run; within each of the two parts the
    tests marked ``slow`` go first, so that the session does not end with one worker running a
    long test while the other has nothing left (longest first: the usual rule for two machines).
    The order is the same in every xdist worker: a stable sort of the collected order.  The smoke
    tier's estimate (``smoke_estimate``) starts at the same moment as the run when a test asks for it."""
    needs = {id(item) for item in items if "smoke_run" in item.fixturenames}
    if not config.option.collectonly:  # --collect-only runs no test
        items.sort(key=lambda item: (id(item) in needs, item.get_closest_marker("slow") is None))
        if any("smoke_estimate" in item.fixturenames for item in items):
            _start_smoke_estimate(_shared_dir(config))
        if needs:
            _start_smoke_run(_shared_dir(config))


def _wait_for(run: Path, what: str, timeout: float = 900) -> None:
    """Wait for the background run ``run`` (``_start_once``) to end; fail unless it ended
    with status 0."""
    rc, deadline = run / "rc", time.monotonic() + timeout
    while not rc.exists():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not finish within {timeout:.0f} s")
        time.sleep(0.2)
    assert rc.read_text().strip() == "0", (run / "stderr").read_text()[-4000:]


@pytest.fixture(scope="session")
def smoke_run(request) -> Path:
    """A copy of the repository in which the smoke tier has run to completion (2 cores): one run
    per session, shared by pytest-xdist's workers, started at collection (see above)."""
    shared = _shared_dir(request.config)
    _start_smoke_run(shared)  # started already, unless the test was selected after collection
    _wait_for(shared / "smoke", "the smoke run")
    return shared / "smoke" / "repo"


@pytest.fixture(scope="session")
def smoke_estimate(request, smoke_run) -> dict:
    """``python -m bench.estimate config/smoke.yaml --json --cpu`` (its JSON), run beside the
    session's smoke run from its start (see above)."""
    import json

    shared = _shared_dir(request.config)
    _start_smoke_estimate(shared)  # started already, unless the test was selected after collection
    _wait_for(shared / "estimate", "the smoke tier's estimate")
    return json.loads((shared / "estimate" / "stdout").read_text())


@pytest.fixture(scope="session")
def smoke_tables(smoke_run) -> dict[str, list[dict]]:
    """Every table of the smoke run, by name."""
    from onlinerank.io import read_table

    out = {}
    for path in sorted((smoke_run / "results-smoke" / "tables").glob("*.csv")):
        out[path.stem] = read_table(path)
    return out


@pytest.fixture(scope="session")
def smoke_doc(smoke_run) -> dict:
    """The smoke run's claims document (claims.json)."""
    import json

    return json.loads((smoke_run / "results-smoke" / "figures" / "claims.json").read_text())


@pytest.fixture(scope="session")
def smoke_config() -> dict:
    """The smoke tier's config with the schema's defaults filled in (as the pipeline sees it)."""
    import yaml

    from onlinerank.config import validate_schema

    cfg = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    validate_schema(cfg, ROOT / "src" / "onlinerank" / "config.schema.yaml")
    return cfg


@pytest.fixture(scope="session")
def smoke_settings(smoke_config):
    """The smoke tier's settings, by the one validator (what every step after it takes)."""
    import copy

    from onlinerank.config import load_settings

    return load_settings(copy.deepcopy(smoke_config))
