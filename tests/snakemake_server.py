"""Snakemake, and the Python scripts of its jobs, for the suite from an interpreter that has
imported them already.  A Snakemake start costs about 0.9 CPU-seconds (the Snakefile, the package,
the DAG) instead of about 2.5 (the same, after about 1.7 s of importing Snakemake and collecting its
plug-ins: pandas through the SLURM executor plug-in, sqlmodel).  A job script of one thread costs
its own work and the project's imports instead of about 0.45 s more of importing numpy, numba,
scipy and matplotlib (the smoke tier on 2 cores: 32.2 -> 19.9 s, 51.7 -> 29.7 job-seconds).  The
suite starts Snakemake about 130 times outside SLURM (the documented commands' dry runs above all)
and about 45 times inside the SLURM test's jobs, and every pipeline run of a test runs job
scripts: the whole suite took 5:35 -> 4:46 on 2 cores.

How: each pytest process that runs Snakemake (:func:`ensure_server`, called by
``conftest.snakemake`` and ``doc_commands.prepare``) starts one server in the background.  The
server imports ``snakemake.cli``, collects the plug-ins and imports what the job scripts import from
third parties (with the BLAS threads of a job of one thread, :data:`ONE_THREAD`), then listens on a
Unix socket whose path it puts in ``$ONLINERANK_TEST_SNAKEMAKE_SERVER`` (the environment of what the
tests start); for each request it forks a child that takes the caller's standard input, output and
error (passed over the socket), working directory, umask, environment (``PYTHONPATH`` on
``sys.path`` as at start), ``sys.path[0]`` and ``sys.argv``, runs ``snakemake.cli.main`` or the
script (as ``__main__``) and exits as an interpreter would (threads joined, ``atexit`` handlers
run, streams flushed, without tearing down the inherited heap), sending its exit status back last.
A job script whose environment differs from the server's in what the interpreter and the loaded
modules read at start-up (:data:`_SCRIPT_ENV_PREFIXES`: a job of two threads, another virtualenv,
``NUMBA_*`` settings) is declined and runs by itself.

What calls it -- the same command line either way, and Snakemake or the script itself when no
server answers (none started yet, or ``ONLINERANK_TEST_COLD_SNAKEMAKE=1``):

* ``python tests/snakemake_server.py ARGS`` runs as ``python -m snakemake ARGS``;
* :func:`run` serves the copies' ``.venv/bin/snakemake`` wrapper (tests/doc_commands.py);
* ``python -m snakemake ARGS``, ``.venv/bin/snakemake ARGS`` and a job's ``python
  .snakemake/scripts/tmp*.py`` themselves, in an environment made by :func:`served_env`
  (tests/snakemake_hook/sitecustomize.py): the suite's own (tests/conftest.py), so that ``make``
  recipes, the jobs of the Snakemake they start and the nested Snakemake inside the SLURM test's
  jobs start on it too.

The caller's signals (SIGINT, SIGTERM, SIGHUP) are passed on to the child; a caller that is
killed (a test's timeout, Snakemake stopping its jobs) closes the socket, and the child then kills
its own process group (it leads one: Snakemake and its jobs, or the script and what it started).
Every child shares the server's hash seed, where separate starts would each draw one; the session's
smoke run, which the SLURM test's tables must equal byte for byte, starts every job itself, each a
fresh interpreter with a hash seed of its own.  A test that measures a run's CPU time among its
own children starts Snakemake itself (``conftest.snakemake(..., cold=True)``, in :func:`cold_env`).
tests/test_snakemake_server.py checks that a command's and a job script's output, exit status and
surroundings are those of a fresh start.
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import runpy
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path

ENV = "ONLINERANK_TEST_SNAKEMAKE_SERVER"
COLD = "ONLINERANK_TEST_COLD_SNAKEMAKE"
HERE = Path(__file__).resolve()
HOOK = HERE.parent / "snakemake_hook"  # sitecustomize.py: serves Snakemake starts (served_env)
_INT = struct.Struct("!i")
#: the optional format package the config's validator is imported without
#: (``onlinerank.schema_validation.SKIPPED_FORMAT_PACKAGE``: its import costs seconds)
SKIPPED_FORMAT_PACKAGE = "rfc3987_syntax"


# --- the server -----------------------------------------------------------------------------------


def _warm() -> None:
    """Import what every Snakemake start imports before it reads a Snakefile."""
    import snakemake.cli  # noqa: F401
    import snakemake.profiles  # noqa: F401
    import snakemake.storage  # noqa: F401
    from snakemake_interface_executor_plugins.registry import ExecutorPluginRegistry
    from snakemake_interface_logger_plugins.registry import LoggerPluginRegistry
    from snakemake_interface_report_plugins.registry import ReportPluginRegistry
    from snakemake_interface_storage_plugins.registry import StoragePluginRegistry

    for registry in (
        ExecutorPluginRegistry,
        StoragePluginRegistry,
        LoggerPluginRegistry,
        ReportPluginRegistry,
    ):
        registry().collect_plugins()
    # the third-party modules a start then imports while it reads the project's Snakefile (a served
    # dry run of the smoke tier: 0.79-0.84 -> 0.74-0.77 CPU-seconds): the config's validator -- imported as
    # onlinerank.schema_validation imports it, without its optional IRI syntax checker
    # (:data:`SKIPPED_FORMAT_PACKAGE`; a start that finds jsonschema imported uses it as it is) --
    # and what Snakemake loads for the source cache, notebooks and its paths.  Never the project's
    # own modules: a copy's commands import the copy's package
    sys.modules[SKIPPED_FORMAT_PACKAGE] = None  # type: ignore[assignment]  # "import" raises ImportError
    try:
        import jsonschema  # noqa: F401
    finally:
        del sys.modules[SKIPPED_FORMAT_PACKAGE]
    import graphlib  # noqa: F401

    import argparse_dataclass  # noqa: F401
    import nbformat  # noqa: F401
    import platformdirs  # noqa: F401
    import smart_open  # noqa: F401


#: the environment a served job script must share with the server: what the interpreter reads at
#: start-up and the modules the server has loaded read at import (numba's and matplotlib's
#: settings, BLAS threads, the locale, the user's cache directories)
_SCRIPT_ENV_PREFIXES = (
    *("PYTHON", "NUMBA_", "MPL", "MATPLOTLIB", "LC_", "LANG", "HOME", "XDG_"),
    *("OMP_", "GOTO_", "OPENBLAS_", "MKL_", "VECLIB_", "NUMEXPR_"),
)
#: what Snakemake puts in the environment of a job of one thread, the server's while it imports: a
#: served job's BLAS has one thread, as a fresh job's would.  ``bench/job_env.py``'s, read by path
#: (``runpy`` leaves no module behind): the server imports neither ``bench`` nor the project
ONE_THREAD: dict[str, str] = runpy.run_path(str(HERE.parents[1] / "bench" / "job_env.py"))["JOB_ENV"]
_SERVER_SCRIPT_ENV: tuple | None = None  # a one-thread job's, once the server has warmed up


def _script_env(env: Mapping[str, str], prefix: str) -> tuple:
    """What a job script's interpreter takes from its environment before it runs (see
    :data:`_SCRIPT_ENV_PREFIXES`; ``PYTHONPATH`` only on ``sys.path``), and the virtualenv."""
    keep = {k: v for k, v in env.items() if k.startswith(_SCRIPT_ENV_PREFIXES) and k != "PYTHONPATH"}
    return prefix, sorted(keep.items())


def _warm_scripts() -> None:
    """Import what the project's job scripts import from third parties before their own work --
    never the project's own modules, which a copy's jobs import from the copy."""
    import pickle  # noqa: F401

    import matplotlib
    import matplotlib.figure  # noqa: F401
    import numba
    import numpy  # noqa: F401
    import scipy.special  # noqa: F401
    import scipy.stats  # noqa: F401
    import snakemake.script  # noqa: F401

    # nothing compiled here: numba names each function it compiles with a process-wide counter,
    # which every served script would inherit; the project's kernels replace it by random numbers
    # when a script imports them (onlinerank._kernels), and the served script starts as a fresh
    # interpreter would in any case
    del matplotlib, numba


def serve(path: str) -> None:
    """Warm up, then serve at ``path`` until the process that started the server is gone."""
    parent, me = os.getppid(), os.getpid()
    base_path = [p for p in sys.path[1:] if p not in _pythonpath(os.environ)]
    global _SERVER_SCRIPT_ENV
    saved = {var: os.environ.get(var) for var in ONE_THREAD}
    os.environ.update(ONE_THREAD)  # numpy's BLAS as a job of one thread loads it
    _warm()
    _warm_scripts()
    _SERVER_SCRIPT_ENV = _script_env(os.environ, sys.prefix)
    for var, value in saved.items():
        if value is None:
            del os.environ[var]
        else:
            os.environ[var] = value
    gc.freeze()  # the children's collections leave the server's objects (and their pages) alone
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path + ".tmp")
    os.rename(path + ".tmp", path)  # callers find the socket only once it accepts
    srv.listen(128)
    srv.settimeout(1.0)
    try:
        while os.getppid() == parent:
            try:
                conn, _ = srv.accept()
            except TimeoutError:
                conn = None
            while True:  # reap the children that have ended
                try:
                    pid, _ = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break
            if conn is None:
                continue
            conn.settimeout(None)
            if os.fork() == 0:
                srv.close()
                _child(conn, base_path)  # does not return
            conn.close()
    finally:
        if os.getpid() == me:  # not a child ending (its exit passes through here)
            Path(path).unlink(missing_ok=True)


def _pythonpath(env) -> list[str]:
    return [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    (size,) = _INT.unpack(data[: _INT.size])
    data = data[_INT.size :]
    while len(data) < size:
        more = conn.recv(size - len(data))
        if not more:
            raise ConnectionError("the caller went away during its request")
        data += more
    return json.loads(data), fds


def _child(conn: socket.socket, base_path: list[str]) -> None:
    """Become the caller's Snakemake, or the caller's job script (see the module's docstring);
    never returns."""
    code = 1
    try:
        request, fds = _receive(conn)
        script = request.get("script")
        if script is not None and _script_env(request["env"], request["prefix"]) != _SERVER_SCRIPT_ENV:
            conn.sendall(_INT.pack(-1))  # not served: the caller runs the script itself
            os._exit(0)
        os.setsid()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.umask(request["umask"])
        os.environ.clear()
        os.environ.update(request["env"])
        if script is not None:  # as ``python SCRIPT``: its directory first on the path
            path0 = os.path.dirname(os.path.abspath(script))
        else:
            path0 = request["cwd"] if request["path0"] is None else request["path0"]
        sys.path[:] = [path0, *(os.path.abspath(p) for p in _pythonpath(os.environ)), *base_path]
        if script is None:
            argv0 = request["argv0"]
            if argv0 is None:  # python -m snakemake
                import snakemake

                argv0 = os.path.join(os.path.dirname(snakemake.__file__), "__main__.py")
            sys.argv = [argv0, *request["args"]]
            import snakemake.workflow

            # the one value Snakemake takes from the working directory at import (its log's "Run
            # directory"): the caller's
            snakemake.workflow.Workflow._rundir = str(Path.cwd().absolute())
        else:
            sys.argv, sys.orig_argv = [script], request["orig_argv"]
        conn.sendall(_INT.pack(os.getpid()))
    except BaseException:
        os._exit(1)
    done = threading.Event()

    def watch() -> None:  # the caller closed the socket before the end: it was killed
        try:
            conn.recv(1)
        except OSError:
            pass
        if not done.is_set():
            os.killpg(0, signal.SIGKILL)

    threading.Thread(target=watch, daemon=True).start()

    def report() -> None:  # registered first, so the last atexit handler to run
        done.set()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        try:
            conn.sendall(_INT.pack(code))
        except OSError:
            pass

    atexit.register(report)
    try:
        if script is None:
            from snakemake.cli import main

            main()
        else:
            _run_script(script)
        code = 0
    except SystemExit as exit_:
        if exit_.code is None or isinstance(exit_.code, int):
            code = exit_.code or 0
        else:
            print(exit_.code, file=sys.stderr)
            code = 1
    except BaseException:
        if script is None:
            import traceback

            traceback.print_exc()
        else:  # as the interpreter prints it: from the script's own frame on
            kind, value, tb = sys.exc_info()
            if tb is not None and tb.tb_next is not None:  # past _child's and _run_script's frames
                tb = tb.tb_next.tb_next
            sys.excepthook(kind, value.with_traceback(tb) if value is not None else value, tb)
        code = 1
    # the interpreter's exit, less its tear-down: threads joined, atexit handlers (report() last),
    # streams flushed; then gone without collecting and freeing the heap inherited from the server
    # (with the interpreter's own exit the served smoke tier took 44.5 s, half of the CPU time in
    # the kernel, against 32.2 s with every job its own; without it 20.3 s)
    try:
        threading._shutdown()  # type: ignore[attr-defined]  # what the interpreter's exit calls
    except BaseException:
        pass
    atexit._run_exitfuncs()
    os._exit(code)


def _run_script(script: str) -> None:
    """Run ``script`` as ``python SCRIPT`` runs it: a fresh ``__main__`` module."""
    import builtins
    import types
    from importlib.machinery import SourceFileLoader

    main = types.ModuleType("__main__")
    main.__dict__.update(
        __file__=script,
        __cached__=None,
        __builtins__=builtins,
        __loader__=SourceFileLoader("__main__", script),
        __spec__=None,
        __package__=None,
    )
    sys.modules["__main__"] = main
    with open(script, "rb") as f:
        code = compile(f.read(), script, "exec", dont_inherit=True)
    exec(code, main.__dict__)


# --- the callers ----------------------------------------------------------------------------------

_server: dict[int, subprocess.Popen] = {}  # this process's server, by process id


def ensure_server() -> str | None:
    """Start this process's server in the background, once; the path of its socket (also in
    ``os.environ[ENV]`` from now on), or None with ``$ONLINERANK_TEST_COLD_SNAKEMAKE`` set.  Until
    it has warmed up, about 1.5 s, callers start Snakemake themselves."""
    if os.environ.get(COLD):
        return None
    if os.getpid() in _server:
        return os.environ[ENV]
    path = os.path.join(tempfile.mkdtemp(prefix="smk-", dir="/tmp" if os.path.isdir("/tmp") else None), "s")
    env = {k: v for k, v in os.environ.items() if k != ENV}
    proc = subprocess.Popen(
        [sys.executable, str(HERE), "--serve", path],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    _server[os.getpid()] = proc
    os.environ[ENV] = path

    def stop() -> None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(Path(path).parent, ignore_errors=True)

    atexit.register(stop)
    return path


def served_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` for a process tree whose ``python -m snakemake`` starts this process's server
    serves, wherever they happen (tests/snakemake_hook/sitecustomize.py, put on ``PYTHONPATH``:
    the nested Snakemake inside SLURM jobs); ``env`` unchanged with
    ``$ONLINERANK_TEST_COLD_SNAKEMAKE`` set."""
    path = ensure_server()
    if path is None:
        return dict(env)
    pythonpath = [str(HOOK), *(p for p in _pythonpath(env) if p != str(HOOK))]
    return {**env, ENV: path, "PYTHONPATH": os.pathsep.join(pythonpath)}


def cold_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` in which Snakemake starts by itself, wherever it starts (no server named)."""
    return {k: v for k, v in env.items() if k != ENV}


def run(args: list[str], argv0: str | None = None, path0: str | None = None) -> int | None:
    """Run Snakemake with ``args`` on the server named by the environment, as this process
    (its standard streams, directory, environment); ``argv0`` and ``path0`` are what a fresh start
    would have as ``sys.argv[0]`` and ``sys.path[0]`` (None for both: ``python -m snakemake``'s, the
    module's file and the working directory).  The exit status, or None when no server answers."""
    return _request({"args": args, "argv0": argv0, "path0": path0})


def _request(what: dict) -> int | None:
    """Send the request ``what`` (with this process's directory, umask, environment and standard
    streams) to the server named by the environment and wait for its exit status; None when no
    server answers or it declines."""
    path = os.environ.get(ENV)
    if not path or os.environ.get(COLD):
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:
        conn.close()
        return None
    umask = os.umask(0)
    os.umask(umask)
    request = json.dumps({**what, "cwd": os.getcwd(), "umask": umask, "env": dict(os.environ)}).encode()
    socket.send_fds(conn, [_INT.pack(len(request)) + request], [0, 1, 2])
    head = _read_int(conn)
    if head is None:
        return 1
    if head == -1:  # a job script the server does not serve (another environment)
        return None
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda s, _frame, pid=head: os.kill(pid, s))
    code = _read_int(conn)
    return 1 if code is None else code


def run_script(script: str) -> int | None:
    """Run the job script ``script`` on the server named by the environment, as ``python SCRIPT``
    in this process would run it; the exit status, or None when no server answers or it does not
    serve this environment."""
    return _request({"script": script, "prefix": sys.prefix, "orig_argv": sys.orig_argv})


def _read_int(conn: socket.socket) -> int | None:
    data = b""
    while len(data) < _INT.size:
        try:
            more = conn.recv(_INT.size - len(data))
        except InterruptedError:
            continue
        if not more:
            return None
        data += more
    return _INT.unpack(data)[0]


def main(argv: list[str]) -> None:
    """``--serve PATH``: be a server; anything else: ``python -m snakemake`` with these arguments,
    on a server if one answers."""
    if argv[:1] == ["--serve"]:
        serve(argv[1])
        return
    code = run(argv)
    if code is None:
        os.execv(sys.executable, [sys.executable, "-m", "snakemake", *argv])
    sys.exit(code)


if __name__ == "__main__":
    main(sys.argv[1:])
