"""Every learner's exact worst case and the common adversaries against each (issue 14; THEORY
§3.2-§3.4): the table of figure worst_case_learners.png.  ``params.part`` (optional): "exact",
"search" or "all" (default), so the DP and the search can run as separate jobs."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.experiments import write_csv  # noqa: E402
from onlinerank.worst_case_tables import comparison_rows  # noqa: E402

log = setup_log(snakemake)
part = getattr(snakemake.params, "part", "all")
rows = comparison_rows(snakemake.config["worst_case"], snakemake.config["learners"], part=part)
write_csv(snakemake.output[0], rows)
log.info("%d worst-case comparison rows (%s)", len(rows), part)
