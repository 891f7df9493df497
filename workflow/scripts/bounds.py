"""Closed-form Theorem 3.1 bounds for every (family, n, k, T) of a stage."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.experiments import bounds_rows, write_csv  # noqa: E402

log = setup_log(snakemake)
rows = bounds_rows(snakemake.config, snakemake.wildcards.stage)
write_csv(snakemake.output[0], rows)
log.info("%d bound rows", len(rows))
