"""The mutations table (results/tables/mutations.csv): the claims decided on small cells, unmutated
and under each deliberate defect of the learner or a sampler (workflow/mutants)."""

import os
import sys
import time

from onlinerank.io import write_csv
from onlinerank.pipeline import job_settings, run
from onlinerank.tables import check_columns

# workflow/mutants, the mutation tests: a testing device of the pipeline, not installed
sys.path.insert(0, os.path.dirname(snakemake.scriptdir))
from mutants.table import mutation_rows, run_mutations  # noqa: E402


def main(log):
    t0 = time.perf_counter()
    rows = mutation_rows(run_mutations(job_settings(snakemake)))
    check_columns("mutations", rows)
    write_csv(snakemake.output[0], rows)
    for name in dict.fromkeys(r["mutation"] for r in rows):
        flips = [
            f"{r['claim']} {r['verdict_unmutated']}->{r['verdict_mutated']}"
            for r in rows
            if r["mutation"] == name and r["flipped"]
        ]
        log.info("%s: %s", name, "; ".join(flips) or "no claim flips")
    log.info("%d rows in %.1f s", len(rows), time.perf_counter() - t0)


run(snakemake, main)
