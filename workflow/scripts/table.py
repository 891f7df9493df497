"""Write one table computed from the config alone (see onlinerank.tables.TABLES)."""

from onlinerank.io import write_csv
from onlinerank.pipeline import run
from onlinerank.tables import make_table


def main(log):
    rows = make_table(snakemake.wildcards.table, snakemake.config)
    write_csv(snakemake.output[0], rows)
    log.info("%s: %d rows", snakemake.wildcards.table, len(rows))


run(snakemake, main)
