"""results/manifest.json: sha256 of every output, config digest, package version, git commit."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.experiments import atomic_write_text, config_digest  # noqa: E402
from onlinerank.provenance import git_commit, manifest  # noqa: E402

log = setup_log(snakemake)
text = manifest(list(snakemake.input.outputs), config_digest(snakemake.config), git_commit())
atomic_write_text(snakemake.output[0], text)
log.info("manifest of %d files", len(snakemake.input.outputs))
