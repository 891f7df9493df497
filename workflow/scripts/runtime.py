"""Per-round running time of learners vs n (wall clock; its own table, not bit-reproducible)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.experiments import write_csv  # noqa: E402
from onlinerank.timing import runtime_rows  # noqa: E402

log = setup_log(snakemake)
rows = runtime_rows(snakemake.config["learners"], snakemake.config["runtime"])
write_csv(snakemake.output[0], rows)
for r in rows:
    log.info("%s n=%d %s: %.3g s/round", r["learner"], r["n"], r["part"], r["seconds_per_round"])
