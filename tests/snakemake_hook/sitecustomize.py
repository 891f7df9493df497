"""Imported at start-up by every Python that has this directory on ``PYTHONPATH`` (the suite's
processes, tests/conftest.py, and the jobs of its SLURM cluster): a Snakemake start -- ``python -m
snakemake ...`` or a virtualenv's ``bin/snakemake`` script -- and a job's Python script -- ``python
.snakemake/scripts/tmp*.py``, as Snakemake's ``script:`` directive runs it -- are served by the
test's Snakemake server (tests/snakemake_server.py) when one answers, as ``python
tests/snakemake_server.py ...`` would be, or the script by ``python SCRIPT``; every other start,
and these when no server answers or it declines, goes on as if this file did not exist.

What it is for: Snakemake starts the suite does not write itself -- ``make`` recipes that run
``.venv/bin/snakemake``, and the nested Snakemake that the SLURM executor starts inside every SLURM
job and, through ``srun``, for every member of a group job (``sys.executable -m snakemake ...``):
about 45 starts for the smoke tier, each about 1.7 s of importing Snakemake and its plug-ins
before any work -- and the Python scripts of the jobs of every Snakemake started in such an
environment (about 0.45 s of imports each).  The test cluster has no cgroups and no CPU binding
(``TaskPlugin=task/none``, tests/slurm_cluster.py), so a served Snakemake or job script, which runs
outside the job step's process tree, meets the same limits as a nested one: none."""

import os
import sys


def _serve() -> None:
    if not os.environ.get("ONLINERANK_TEST_SNAKEMAKE_SERVER"):
        return
    argv = sys.orig_argv
    if argv[1:3] == ["-m", "snakemake"]:  # as python -m snakemake: argv[0], path[0] its own
        args, argv0, path0 = argv[3:], None, None
    elif len(argv) > 1 and os.path.basename(argv[1]) == "snakemake" and _is_console_script(argv[1]):
        args, argv0, path0 = argv[2:], argv[1], os.path.dirname(os.path.realpath(argv[1]))
    elif len(argv) == 2 and _is_job_script(argv[1]):
        args, argv0, path0 = None, argv[1], None
    else:
        return
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        import snakemake_server
    finally:
        del sys.path[0]
    if args is None:
        code = snakemake_server.run_script(argv0)
    else:
        code = snakemake_server.run(args, argv0=argv0, path0=path0)
    if code is not None:
        os._exit(code)  # served: this interpreter did nothing else


def _is_job_script(path: str) -> bool:
    """A Python script of a Snakemake job, as Snakemake writes it (``.snakemake/scripts/tmp*.py``)."""
    directory, name = os.path.split(os.path.abspath(path))
    in_scripts = directory.endswith(os.path.join(".snakemake", "scripts"))
    return in_scripts and name.startswith("tmp") and name.endswith(".py")


def _is_console_script(path: str) -> bool:
    """Snakemake's own entry point, as pip writes it (not a wrapper of it)."""
    try:
        with open(path, encoding="utf-8") as f:
            return "from snakemake.cli import main" in f.read(4096)
    except (OSError, UnicodeDecodeError):
        return False


_serve()
