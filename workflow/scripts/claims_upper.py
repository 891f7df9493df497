"""Claims rows of the upper-bound stage (Theorem 3.1, Corollary 3.2, Lemma 6.1)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.claims import lemma61_rows, upper_claims  # noqa: E402
from onlinerank.experiments import write_csv  # noqa: E402
from onlinerank.plotting import read_table  # noqa: E402
from onlinerank.seeding import stream  # noqa: E402

log = setup_log(snakemake)
cfg = snakemake.config
inp = snakemake.input
rows = upper_claims(
    read_table(inp.sim),
    read_table(inp.bounds),
    cfg,
    stream(cfg["seed"], "claims", "upper", "bootstrap"),
    worst_case=read_table(inp.worst_case),
)
lem = cfg["lemma61"]
rows += lemma61_rows(lem["n"], lem["samples"], lem["pairs"], cfg["seed"])
write_csv(snakemake.output[0], rows)
log.info("%d claims", len(rows))
