"""Claims rows of the Section 4 comparisons (regret vs baselines, running time)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.claims import comparison_claims, runtime_claims  # noqa: E402
from onlinerank.experiments import write_csv  # noqa: E402
from onlinerank.plotting import read_table  # noqa: E402

log = setup_log(snakemake)
cfg = snakemake.config
rows = comparison_claims(read_table(snakemake.input.sim), cfg)
rows += runtime_claims(read_table(snakemake.input.runtime), cfg, cfg["runtime"])
write_csv(snakemake.output[0], rows)
log.info("%d claims", len(rows))
