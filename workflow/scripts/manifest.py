"""results/manifest.json: sha256 of every output, config digest, package version, git commit and the
versions of Python, numpy, scipy, numba, llvmlite, matplotlib and snakemake."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import setup_log  # noqa: E402

from onlinerank.experiments import atomic_write_text, config_digest  # noqa: E402
from onlinerank.provenance import git_commit, manifest, versions, versions_line  # noqa: E402

log = setup_log(snakemake)
v = versions()
text = manifest(list(snakemake.input.outputs), config_digest(snakemake.config), git_commit(), v)
atomic_write_text(snakemake.output[0], text)
log.info("manifest of %d files; %s", len(snakemake.input.outputs), versions_line(v))
