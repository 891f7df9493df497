"""Merge the claims of every stage into results/claims.csv and render figures/claims.md."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.claims import claims_markdown  # noqa: E402
from onlinerank.experiments import atomic_write_text, config_digest, write_csv  # noqa: E402
from onlinerank.plotting import read_table  # noqa: E402
from onlinerank.provenance import git_commit  # noqa: E402

log = setup_log(snakemake)
digest = config_digest(snakemake.config)
rows = []
for path in snakemake.input.parts:
    for r in read_table(path):
        r["note"] = "" if r.get("note") in (None, "") else str(r["note"])
        r["figure"] = "" if r.get("figure") in (None, "") else str(r["figure"])
        rows.append(r)
write_csv(snakemake.output.csv, [{**r, "config_digest": digest} for r in rows])
atomic_write_text(snakemake.output.md, claims_markdown(rows, digest, git_commit()))
bad = [r for r in rows if r["verdict"] != "PASS"]
log.info("%d claims rows, %d not PASS", len(rows), len(bad))
