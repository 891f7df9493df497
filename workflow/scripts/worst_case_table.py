"""Exact worst-case regret of OnlineRank for tiny instances (THEORY §3.4 dynamic program)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.experiments import write_csv  # noqa: E402
from onlinerank.worst_case import worst_case_rows  # noqa: E402

log = setup_log(snakemake)
rows = worst_case_rows(snakemake.config["worst_case"])
write_csv(snakemake.output[0], rows)
log.info("%d worst-case rows", len(rows))
