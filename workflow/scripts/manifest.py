"""results/manifest.json: sha256 of every output, config digest, package version, git commit and the
versions of Python, numpy, scipy, numba, llvmlite, matplotlib and snakemake."""

from onlinerank.io import atomic_write_text
from onlinerank.pipeline import job_settings, run
from onlinerank.provenance import config_digest, git_commit, manifest, versions, versions_line


def main(log):
    v = versions()
    digest = config_digest(job_settings(snakemake).as_config())
    text = manifest(list(snakemake.input.outputs), digest, git_commit(), v)
    atomic_write_text(snakemake.output[0], text)
    log.info("manifest of %d files; %s", len(snakemake.input.outputs), versions_line(v))


run(snakemake, main)
