"""The Section 4 comparison-bound table as markdown (figures/bound_comparison.md)."""

from onlinerank.comparison import bound_comparison_markdown
from onlinerank.io import atomic_write_text, read_table
from onlinerank.pipeline import job_settings, run


def main(log):
    rows = read_table(snakemake.input.table)
    atomic_write_text(
        snakemake.output[0],
        bound_comparison_markdown(rows, job_settings(snakemake).bound_comparison.T_factor),
    )
    log.info("%d rows", len(rows))


run(snakemake, main)
