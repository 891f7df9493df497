"""Simulate one replicate block of every cell (every T) of one job directory (thin glue)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.experiments import find_group, run_group_block, save_results  # noqa: E402

log = setup_log(snakemake)
group = snakemake.wildcards.cell
block = int(snakemake.wildcards.block)
cells = find_group(snakemake.config, group)
lo, hi = cells[0].block_range(block)
log.info(
    "%s block %d: replicates %d..%d, cells %s", group, block, lo, hi - 1, [(c.learner, c.T) for c in cells]
)


def progress(t, T):
    if t == T:
        log.info("T=%d done", T)


results = run_group_block(snakemake.config, group, block, progress=progress)
save_results(results, snakemake.output[0])
log.info("done in %.2f s", sum(r.meta["seconds"] for r in results.values()))
