"""Every claim of the registry evaluated on the tables: figures/claims.json (validated against its
schema), claims.md, results/claims.csv and the report's first page; with the mutations table (if
given) in its own section and the further seeds' verdicts (make replicate) counted per claim."""

from onlinerank.claims.console import write_claims
from onlinerank.pipeline import job_settings, run


def main(log):
    tables = dict(zip(snakemake.params.tables, snakemake.input.tables, strict=True))
    doc = write_claims(
        tables,
        job_settings(snakemake),
        snakemake.output,
        snakemake.input.get("mutations"),
        snakemake.input.seeds,
    )
    for line in doc["summary"]:
        log.info(line)


run(snakemake, main)
