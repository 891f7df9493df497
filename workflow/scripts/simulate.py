"""Simulate one replicate block of one cell (thin glue around onlinerank.experiments)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.experiments import find_cell, run_block, save_result  # noqa: E402

log = setup_log(snakemake)  # noqa: F821
cell = find_cell(snakemake.config, snakemake.wildcards.cell)  # noqa: F821
block = int(snakemake.wildcards.block)  # noqa: F821
lo, hi = cell.block_range(block)
log.info("cell %s block %d: replicates %d..%d", cell.path, block, lo, hi - 1)


def progress(t, T):
    if t % max(1, T // 10) == 0:
        log.info("round %d / %d", t, T)


res = run_block(snakemake.config, cell, block, progress=progress)  # noqa: F821
save_result(res, snakemake.output[0])  # noqa: F821
log.info("done in %.2f s", res.meta["seconds"])
