"""Claims rows of the lower-bound stage."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.claims import lower_claims  # noqa: E402
from onlinerank.experiments import write_csv  # noqa: E402
from onlinerank.plotting import read_table  # noqa: E402

log = setup_log(snakemake)
inp = snakemake.input
rows = lower_claims(read_table(inp.curves), read_table(inp.hc), read_table(inp.sim))
write_csv(snakemake.output[0], rows)
log.info("%d claims", len(rows))
