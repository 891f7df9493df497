"""Aggregate the replicate blocks of every cell of a stage into one tidy CSV."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.experiments import aggregate_stage, write_csv  # noqa: E402

log = setup_log(snakemake)
rows = aggregate_stage(snakemake.config, snakemake.wildcards.stage, list(snakemake.input.blocks))
write_csv(snakemake.output[0], rows)
log.info("%d rows", len(rows))
