"""Imported at start-up by every Python that has this directory on ``PYTHONPATH`` (the suite's
processes, tests/conftest.py, and the jobs of its SLURM cluster): a Snakemake start -- ``python -m
snakemake ...`` or a virtualenv's ``bin/snakemake`` script -- is served by the test's Snakemake
server (tests/snakemake_server.py) when one answers, as ``python tests/snakemake_server.py ...``
would be; every other start, and this one when no server answers, goes on as if this file did not
exist.

What it is for: Snakemake starts the suite does not write itself -- ``make`` recipes that run
``.venv/bin/snakemake``, and the nested Snakemake that the SLURM executor starts inside every SLURM
job and, through ``srun``, for every member of a group job (``sys.executable -m snakemake ...``):
about 45 starts for the smoke tier, each about 1.7 s of importing Snakemake and its plug-ins
before any work.  The test cluster has no cgroups and no CPU binding (``TaskPlugin=task/none``,
tests/slurm_cluster.py), so a served Snakemake, which runs outside the job step's process tree,
meets the same limits as a nested one: none."""

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
    else:
        return
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        import snakemake_server
    finally:
        del sys.path[0]
    code = snakemake_server.run(args, argv0=argv0, path0=path0)
    if code is not None:
        os._exit(code)  # served: this interpreter did nothing else


def _is_console_script(path: str) -> bool:
    """Snakemake's own entry point, as pip writes it (not a wrapper of it)."""
    try:
        with open(path, encoding="utf-8") as f:
            return "from snakemake.cli import main" in f.read(4096)
    except (OSError, UnicodeDecodeError):
        return False


_serve()
