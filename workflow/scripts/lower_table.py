"""Write one exact lower-bound table (curves, hc, abg) or the sampled frequency table."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank import lower_tables  # noqa: E402
from onlinerank.experiments import write_csv  # noqa: E402

log = setup_log(snakemake)
cfg = snakemake.config["lowerbound"]
which = snakemake.wildcards.table
if which == "curves":
    rows = lower_tables.exact_curve_rows(cfg["curves"])
elif which == "hc":
    rows = lower_tables.hc_rows(cfg["hc"])
elif which == "abg":
    rows = lower_tables.abg_rows(cfg["abg"])
else:
    rows = lower_tables.frequency_rows(cfg["frequencies"], snakemake.config["seed"])
write_csv(snakemake.output[0], rows)
log.info("%s: %d rows", which, len(rows))
