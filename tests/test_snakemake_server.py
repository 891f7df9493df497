"""The suite's Snakemake server (tests/snakemake_server.py) runs a command as a fresh start would:
the same output, exit status, working directory, environment, ``sys.path[0]``, ``sys.argv[0]`` and
imports from ``PYTHONPATH``; a killed or signalled caller stops its Snakemake and its jobs."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import snakemake_server as ss
from slurm_cluster import _pid_alive

SNAKEFILE = """\
import os, sys
import probe_module

print(f"probe cwd={os.getcwd()} path0={sys.path[0]} argv0={os.path.basename(sys.argv[0])} "
      f"env={os.environ.get('PROBE')} module={probe_module.__file__} umask={os.umask(0o022):o} "
      f"parent={os.getppid()}", file=sys.stderr)

rule all:
    output: "out.txt"
    shell: "echo $PROBE > {output}"

rule slow:
    shell: "echo $$ > job.pid; sleep 120"
"""


@pytest.fixture(scope="module")
def server() -> int:
    """This process's server, warmed up: its process id."""
    ss.ensure_server()
    deadline = time.monotonic() + 60
    while not Path(os.environ[ss.ENV]).exists():
        assert time.monotonic() < deadline, "the server did not listen within 60 s"
        time.sleep(0.1)
    return ss._server[os.getpid()].pid


def _workflow(tmp_path: Path, name: str) -> tuple[Path, dict]:
    d = tmp_path / name
    (d / "lib").mkdir(parents=True)
    (d / "Snakefile").write_text(SNAKEFILE)
    (d / "lib" / "probe_module.py").write_text("")
    env = {**os.environ, "PROBE": "value-1", "PYTHONPATH": "lib"}
    return d, env


def _call(d: Path, env: dict, *args: str, served: bool, hook: bool = False) -> subprocess.CompletedProcess:
    """``python tests/snakemake_server.py ARGS``, or with ``hook`` ``python -m snakemake ARGS`` in
    an environment of :func:`snakemake_server.served_env` (as inside the SLURM test's jobs)."""
    if not served:
        env = ss.cold_env(env)  # the client starts Snakemake itself
    command = [sys.executable, str(ss.HERE), *args]
    if hook:
        env, command = ss.served_env(env), [sys.executable, "-m", "snakemake", *args]
    return subprocess.run(
        command,
        cwd=d,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _comparable(text: str) -> str:
    """Snakemake's output without what differs between any two runs (dates, the run's id)."""
    text = re.sub(r"\[\w{3} \w{3} +\d+ [\d:]+ \d{4}\]", "[date]", text)
    text = re.sub(r"(Date|Workflow ID): .*", r"\1: ...", text)
    text = re.sub(r"(Elapsed time: |log/)[\dT:.-]+", r"\1...", text)
    return re.sub(r"parent=\d+", "parent=...", text)


def test_a_served_command_prints_writes_and_exits_as_a_fresh_start(server, tmp_path):
    """Three ways: served through the client, served through the start-up hook that serves
    ``python -m snakemake`` (tests/snakemake_hook), and by itself."""
    outputs = {}
    for served, hook in ((True, False), (True, True), (False, False)):
        d, env = _workflow(tmp_path, f"served-{served}-{hook}")
        p = _call(d, env, "--cores", "1", served=served, hook=hook)
        assert p.returncode == 0, p.stderr[-3000:]
        probe = re.search(r"probe .*", p.stderr).group(0)
        parent = int(re.search(r"parent=(\d+)", probe).group(1))
        # on the server, Snakemake is the server's child; by itself, the client became Snakemake
        assert (parent == server) == served, probe
        assert f"cwd={d} " in probe and f"path0={d} " in probe and "argv0=__main__.py " in probe
        mask = os.umask(0)
        os.umask(mask)
        assert f"env=value-1 module={d / 'lib' / 'probe_module.py'} umask={mask:o}" in probe
        assert (d / "out.txt").read_text() == "value-1\n"
        outputs[served, hook] = (
            _comparable(p.stdout.replace(str(d), "<dir>")),
            _comparable(p.stderr.replace(str(d), "<dir>")),
        )
    assert outputs[True, False] == outputs[False, False]
    assert outputs[True, True] == outputs[False, False]


@pytest.mark.parametrize(
    "args", [("--configfile", "missing.yaml", "-n"), ("--cores", "1", "no_such_rule"), ("--no-such-option",)]
)
def test_a_failing_command_fails_alike_on_the_server(server, tmp_path, args):
    results = {}
    for served in (True, False):
        d, env = _workflow(tmp_path, f"served-{served}")
        p = _call(d, env, *args, served=served)
        # the last line: the error (the usage before it lists choices in the set order of a run)
        text = _comparable((p.stdout + p.stderr).replace(str(d), "<dir>"))
        results[served] = p.returncode, text.strip().splitlines()[-1]
    assert results[True][0] != 0
    assert results[True] == results[False]


def _wait(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command's name: state, parent, ..."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def test_a_signal_reaches_the_served_snakemake_and_a_killed_caller_stops_it_and_its_jobs(server, tmp_path):
    """SIGTERM to the caller reaches Snakemake (which then waits for its running job, as a fresh
    start does); SIGKILL to the caller (a test's timeout) closes the socket, and the served
    Snakemake kills its process group: itself and the job."""
    d, env = _workflow(tmp_path, "slow")
    with open(tmp_path / "stderr", "w") as err:
        caller = subprocess.Popen(
            [sys.executable, str(ss.HERE), "--cores", "1", "slow"],
            cwd=d,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        assert _wait(lambda: (d / "job.pid").exists() and (d / "job.pid").read_text().strip(), 120)
        job = int((d / "job.pid").read_text())
        served = int(_stat(job)[1])  # the job's shell is the served Snakemake's child
        assert int(_stat(served)[1]) == server
        # Snakemake's SIGTERM handler takes the scheduler's lock (a plain Lock), which the
        # scheduler's loop holds for moments around starting a job: a signal in such a moment
        # would deadlock Snakemake, served or not.  A SIGTERM sent as soon as the job had started
        # went unanswered once in a clean clone's suite, likely so.  A second later the loop waits
        # for the job, without the lock.
        time.sleep(1)
        caller.send_signal(signal.SIGTERM)
        said = "Will exit after finishing currently running jobs"
        assert _wait(lambda: said in (tmp_path / "stderr").read_text(), 30)
        assert caller.poll() is None and _pid_alive(job)
        caller.kill()
        caller.wait(timeout=30)
        assert _wait(lambda: not _pid_alive(job) and not _pid_alive(served), 30), (
            "the job or its Snakemake still runs"
        )
    finally:
        if caller.poll() is None:
            caller.kill()
        caller.wait()


def test_the_warm_server_holds_the_validator_as_the_project_imports_it_and_nothing_of_the_project(
    server, tmp_path
):
    """The server imports the config's validator ahead of the starts it serves, as
    onlinerank.schema_validation would: without the optional IRI syntax checker (the same package,
    hidden only while jsonschema loads, then importable as usual).  Of the project itself it
    imports nothing, for job scripts either: a copy's jobs import the copy's package.  Nor has it
    compiled anything with numba: a served script finds numba's function counter where a fresh
    interpreter does (the project's kernels replace it by random numbers when a script imports
    them, onlinerank._kernels).  (Read in a served job script, which starts with the server's
    modules.)"""
    from onlinerank.schema_validation import SKIPPED_FORMAT_PACKAGE

    assert ss.SKIPPED_FORMAT_PACKAGE == SKIPPED_FORMAT_PACKAGE
    script = tmp_path / ".snakemake" / "scripts" / "tmpprobe.modules.py"
    script.parent.mkdir(parents=True)
    script.write_text(
        "import importlib.util, os, sys\n"
        f"pkg = {SKIPPED_FORMAT_PACKAGE!r}\n"
        "own = sorted({m.split('.')[0] for m in sys.modules} & {'onlinerank', 'mutants', 'bench'})\n"
        "import numba.core.bytecode as b\n"
        "uid = next(b.FunctionIdentity._unique_ids)\n"
        "print(os.getppid(), 'jsonschema' in sys.modules, pkg in sys.modules, own or 'none',\n"
        "      'installed' if importlib.util.find_spec(pkg) else 'absent', uid)\n"
    )
    fresh = subprocess.run(
        [
            sys.executable,
            "-c",
            "import numba.core.bytecode as b; print(next(b.FunctionIdentity._unique_ids))",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout.split()
    env = {**ss.served_env(os.environ), **ss.ONE_THREAD}  # a job of one thread
    p = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    parent, *seen = p.stdout.split()
    assert int(parent) == server, "not served"
    assert seen[:3] == ["True", "False", "none"], seen
    assert seen[3] in ("installed", "absent"), seen
    assert seen[4:] == fresh, (seen, fresh)  # numba's next function id: a fresh interpreter's


SCRIPT_SNAKEFILE = """\
rule all:
    input: "one.txt", "two.txt"

rule one:
    output: "one.txt"
    script: "probe.py"

rule two:
    output: "two.txt"
    threads: 2
    script: "probe.py"

rule fails:  # after the others, alone: its traceback is not interleaved with their output
    input: "one.txt", "two.txt"
    output: "fails.txt"
    script: "fails.py"
"""

PROBE_SCRIPT = """\
import atexit, os, sys
import probe_module

out = open(snakemake.output[0], "w")
out.write(f"name={__name__} main={sys.modules['__main__'].__dict__ is globals()} "
          f"path0={sys.path[0]} argv0={os.path.basename(sys.argv[0])} cwd={os.getcwd()} "
          f"env={os.environ.get('PROBE')} blas={os.environ.get('OPENBLAS_NUM_THREADS')} "
          f"module={probe_module.__file__} umask={os.umask(0o022):o}\\n")
atexit.register(lambda: out.write("atexit ran\\n") and out.close())
print(f"probe {snakemake.rule} parent={os.getppid()}", file=sys.stderr)
"""


def _script_workflow(tmp_path: Path, name: str) -> tuple[Path, dict]:
    d, env = _workflow(tmp_path, name)
    (d / "Snakefile").write_text(SCRIPT_SNAKEFILE)
    (d / "probe.py").write_text(PROBE_SCRIPT)
    (d / "fails.py").write_text("import sys\n\nraise ValueError(f'probe failure in {sys.argv[0][-9:]}')\n")
    return d, env


def test_a_served_job_script_runs_as_a_fresh_interpreter_would(server, tmp_path):
    """A job script of one thread runs on the server (its interpreter has imported numpy, numba,
    scipy and matplotlib) with the ``__main__``, ``sys.path[0]``, ``sys.argv``, directory,
    environment, umask, atexit handlers and output of a fresh ``python SCRIPT``; a job of two
    threads (another BLAS set-up than the server's) runs by itself.  A failing script fails alike:
    the same exit status and traceback, from the script's own frame."""
    probes, failures = {}, {}
    mask = os.umask(0)
    os.umask(mask)
    for served in (True, False):
        d, env = _script_workflow(tmp_path, f"scripts-{served}")
        # Snakemake itself on the server both times; its jobs' scripts with the start-up hook on
        # their PYTHONPATH (served), or without it (each a fresh interpreter)
        env = ss.served_env(env) if served else {**env, ss.ENV: os.environ[ss.ENV]}
        p = _call(d, env, "--cores", "2", "fails", served=True)
        parents = dict(re.findall(r"probe (\w+) parent=(\d+)", p.stderr))
        assert (int(parents["one"]) == server) == served, parents
        assert int(parents["two"]) != server, parents  # 2 threads: OPENBLAS_NUM_THREADS=2
        probes[served] = {r: (d / f"{r}.txt").read_text().replace(str(d), "<dir>") for r in ("one", "two")}
        argv0 = re.search(r"argv0=(tmp\w+\.probe\.py)", probes[served]["one"]).group(1)
        assert probes[served]["one"] == (
            f"name=__main__ main=True path0=<dir>/.snakemake/scripts argv0={argv0} cwd=<dir> "
            f"env=value-1 blas=1 module=<dir>/lib/probe_module.py umask={mask:o}\natexit ran\n"
        ), probes[served]["one"]
        text = re.sub(r"tmp\w+\.fails\.py", "tmp.fails.py", p.stderr.replace(str(d), "<dir>"))
        traceback = re.search(r"Traceback.*?ValueError: [^\n]*", text, re.S)
        assert traceback, (served, text[-3000:])
        failures[served] = p.returncode, traceback.group(0)
    strip = re.compile(r"argv0=tmp\w+")  # the name Snakemake draws for the script's copy
    assert {k: strip.sub("", v) for k, v in probes[True].items()} == {
        k: strip.sub("", v) for k, v in probes[False].items()
    }
    assert failures[True] == failures[False], failures
    assert failures[True][0] != 0 and failures[True][1].count('File "') == 1, failures[True]


def test_the_servers_one_thread_environment_is_the_one_snakemake_gives_a_job_of_one_thread():
    """``ONE_THREAD`` (``bench/job_env.py``'s ``JOB_ENV``, which ``bench.estimate`` sets too) holds
    every thread variable Snakemake sets for a job (read from its ``shell.py``), each at "1".  That
    the server holds no ``bench`` module after reading it, the served-script test checks."""
    import importlib.util

    text = Path(importlib.util.find_spec("snakemake.shell").origin).read_text()
    snakemake_vars = set(re.findall(r'envvars\["(\w+_THREADS)"\] = threads', text))
    assert snakemake_vars and snakemake_vars == set(ss.ONE_THREAD), (snakemake_vars, ss.ONE_THREAD)
    assert set(ss.ONE_THREAD.values()) == {"1"}
