"""Write one table computed from the config alone (its builder: onlinerank.tables.TABLES), one
piece of it (rule table_piece), or the table from its pieces."""

import os

if snakemake.params.wall_clock:
    # Wall-clock timings (the table's declaration says so): one BLAS thread before numpy loads.
    # PermELearn's update is numpy matrix work; with a thread pool it competes with the other jobs
    # of the run and slows 5-10x, erratically, on a busy machine (the OnlineRank round is
    # single-threaded compiled code).
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"

from onlinerank.io import atomic_write_text, concat_csv, write_csv  # noqa: E402
from onlinerank.pipeline import job_settings, run  # noqa: E402
from onlinerank.tables import make_table  # noqa: E402


def main(log):
    table, piece = snakemake.wildcards.table, snakemake.wildcards.get("piece")
    pieces = list(snakemake.input.get("pieces", []))
    if pieces:  # a table made in pieces: their rows in order
        atomic_write_text(snakemake.output[0], concat_csv(pieces))
        log.info("%s: pooled %d pieces", table, len(pieces))
        return
    rows = make_table(table, job_settings(snakemake), piece=piece)
    write_csv(snakemake.output[0], rows)
    log.info("%s%s: %d rows", table, f" piece {piece}" if piece else "", len(rows))


run(snakemake, main)
