"""Claims rows of the Spearman corollary and graded feedback."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.claims import spearman_claims  # noqa: E402
from onlinerank.experiments import write_csv  # noqa: E402
from onlinerank.plotting import read_table  # noqa: E402
from onlinerank.seeding import stream  # noqa: E402

log = setup_log(snakemake)
cfg = snakemake.config
rows = spearman_claims(
    read_table(snakemake.input.sim),
    read_table(snakemake.input.bounds),
    cfg,
    stream(cfg["seed"], "claims", "spearman", "bootstrap"),
)
write_csv(snakemake.output[0], rows)
log.info("%d claims", len(rows))
