"""results/manifest.json: sha256 of every output, config digest, package version, git commit."""

from onlinerank.io import atomic_write_text
from onlinerank.pipeline import run
from onlinerank.provenance import config_digest, git_commit, manifest


def main(log):
    text = manifest(list(snakemake.input.outputs), config_digest(snakemake.config), git_commit())
    atomic_write_text(snakemake.output[0], text)
    log.info("manifest of %d files", len(snakemake.input.outputs))


run(snakemake, main)
