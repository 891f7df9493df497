"""Aggregate the replicate blocks of every cell of a stage into one tidy CSV."""

from onlinerank.io import write_csv
from onlinerank.pipeline import job_settings, run
from onlinerank.sim_tables import aggregate_stage
from onlinerank.tables import check_columns


def main(log):
    settings = job_settings(snakemake)
    rows = aggregate_stage(settings, snakemake.wildcards.stage, list(snakemake.input.blocks))
    check_columns(f"sim_{snakemake.wildcards.stage}", rows)
    write_csv(snakemake.output[0], rows)
    log.info("%d rows", len(rows))


run(snakemake, main)
