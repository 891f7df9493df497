"""The mutations table (results/tables/mutations.csv): the claims decided on small cells, unmutated
and under each deliberate defect of the learner or a sampler (onlinerank.mutations)."""

import time

from onlinerank.io import write_csv
from onlinerank.mutations import mutation_rows, run_mutations
from onlinerank.pipeline import run
from onlinerank.table_schemas import check_columns


def main(log):
    t0 = time.perf_counter()
    rows = mutation_rows(run_mutations(snakemake.config))
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
