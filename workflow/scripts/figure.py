"""One figure of the catalog (onlinerank.figures): its tables read, drawn by its plot function in
the shared style, stamped with the config digest and the commit, saved as PNG and PDF."""

from onlinerank.figures import read_figure_table
from onlinerank.pipeline import job_settings, run
from onlinerank.plotting import draw, finish, style
from onlinerank.provenance import config_digest, git_commit


def main(log):
    name = snakemake.wildcards.fig
    paths = dict(zip(snakemake.params.tables, snakemake.input.tables, strict=True))
    tables = {t: read_figure_table(p) for t, p in paths.items()}
    settings = job_settings(snakemake)
    fig = draw(name, tables, settings)
    with style():  # the saving settings (resolution, PDF compression) are part of the style
        finish(fig, snakemake, config_digest(settings.as_config()), git_commit())
    log.info("figure %s from %s", name, ", ".join(paths.values()))


run(snakemake, main)
