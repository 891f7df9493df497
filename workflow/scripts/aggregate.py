"""Aggregate the replicate blocks of every cell of a stage into one tidy CSV."""

from onlinerank.io import write_csv
from onlinerank.pipeline import run
from onlinerank.sim_tables import aggregate_stage
from onlinerank.tables import check_columns


def main(log):
    rows = aggregate_stage(snakemake.config, snakemake.wildcards.stage, list(snakemake.input.blocks))
    check_columns(f"sim_{snakemake.wildcards.stage}", rows)
    write_csv(snakemake.output[0], rows)
    log.info("%d rows", len(rows))


run(snakemake, main)
