"""The Section 4 comparison-bound table as markdown (figures/bound_comparison.md)."""

from onlinerank.comparison import bound_comparison_markdown
from onlinerank.io import atomic_write_text, read_table
from onlinerank.pipeline import run
from onlinerank.settings import as_settings


def main(log):
    rows = read_table(snakemake.input.table)
    atomic_write_text(
        snakemake.output[0],
        bound_comparison_markdown(rows, as_settings(snakemake.config).bound_comparison.T_factor),
    )
    log.info("%d rows", len(rows))


run(snakemake, main)
