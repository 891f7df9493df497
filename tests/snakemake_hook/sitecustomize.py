"""Imported at start-up by every Python that has this directory on ``PYTHONPATH`` (the SLURM test
puts it there, tests/test_slurm.py): a ``python -m snakemake ...`` start is served by the test's
Snakemake server (tests/snakemake_server.py) when one answers, as ``python
tests/snakemake_server.py ...`` would be; every other start, and this one when no server answers,
goes on as if this file did not exist.

What it is for: the SLURM executor starts a nested Snakemake inside every SLURM job and, through
``srun``, for every member of a group job (``sys.executable -m snakemake ...``, a command the suite
cannot change): about 45 starts for the smoke tier, each about 1.7 s of importing Snakemake and its
plug-ins before any work.  The test cluster has no cgroups and no CPU binding (``TaskPlugin=
task/none``, tests/slurm_cluster.py), so a served Snakemake, which runs outside the job step's
process tree, meets the same limits as a nested one: none."""

import os
import sys


def _serve() -> None:
    if sys.orig_argv[1:3] != ["-m", "snakemake"] or not os.environ.get("ONLINERANK_TEST_SNAKEMAKE_SERVER"):
        return
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        import snakemake_server
    finally:
        del sys.path[0]
    code = snakemake_server.run(sys.orig_argv[3:])
    if code is not None:
        os._exit(code)  # served: this interpreter did nothing else


_serve()
