"""Write one table computed from the config alone (its builder: onlinerank.table_schemas.SCHEMAS)."""

import os

if snakemake.wildcards.table == "runtime":
    # Wall-clock timings: one BLAS thread before numpy loads.  PermELearn's update is numpy matrix
    # work; with a thread pool it competes with the other jobs of the run and slows 5-10x,
    # erratically, on a busy machine (the OnlineRank round is single-threaded compiled code).
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"

from onlinerank.io import write_csv  # noqa: E402
from onlinerank.pipeline import run  # noqa: E402
from onlinerank.table_schemas import make_table  # noqa: E402


def main(log):
    rows = make_table(snakemake.wildcards.table, snakemake.config)
    write_csv(snakemake.output[0], rows)
    log.info("%s: %d rows", snakemake.wildcards.table, len(rows))


run(snakemake, main)
