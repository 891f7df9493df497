"""How tight Theorem 3.1 is: OnlineRank's worst case over the sharp bound across (n, T, eta)
(issue 14; THEORY §3.2-§3.4), the table of figure tightness.png.  ``params.part`` (optional):
"exact", "search" or "all" (default).  A second output, if the rule declares one, gets the
largest ratio found at each n with its sequence (replay: ``exact_expected_regret(seq, eta)``)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.experiments import write_csv  # noqa: E402
from onlinerank.worst_case_tables import largest_ratio_rows, tightness_rows  # noqa: E402

log = setup_log(snakemake)
part = getattr(snakemake.params, "part", "all")
rows = tightness_rows(snakemake.config["worst_case"], part=part)
write_csv(snakemake.output[0], rows)
if len(snakemake.output) > 1:
    write_csv(snakemake.output[1], largest_ratio_rows(rows))
log.info("%d tightness rows (%s)", len(rows), part)
