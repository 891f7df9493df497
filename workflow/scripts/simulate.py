"""Simulate one replicate block of every cell (every learner and T) of one job directory."""

from onlinerank.cells import find_group, run_group_block
from onlinerank.io import save_results
from onlinerank.pipeline import job_settings, run


def main(log):
    group, block = snakemake.wildcards.cell, int(snakemake.wildcards.block)
    settings = job_settings(snakemake)
    cells = find_group(settings, group)
    lo, hi = cells[0].block_range(block)
    log.info(
        "%s block %d: replicates %d..%d, cells %s",
        group,
        block,
        lo,
        hi - 1,
        [(c.learner, c.T) for c in cells],
    )

    def progress(t, T):
        if t == T:
            log.info("T=%d done", T)

    results = run_group_block(settings, group, block, progress=progress)
    save_results(results, snakemake.output[0])
    log.info("done in %.2f s", sum(r.meta["seconds"] for r in results.values()))


run(snakemake, main)
