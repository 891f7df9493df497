"""The Section 4 comparison-bound table (CSV and markdown)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.comparison import bound_comparison_markdown, bound_comparison_rows  # noqa: E402
from onlinerank.experiments import atomic_write_text, write_csv  # noqa: E402

log = setup_log(snakemake)
rows = bound_comparison_rows(snakemake.config["bound_comparison"])
write_csv(snakemake.output.csv, rows)
atomic_write_text(snakemake.output.md, bound_comparison_markdown(rows))
log.info("%d rows", len(rows))
