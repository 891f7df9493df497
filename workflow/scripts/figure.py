"""One figure of the catalog (onlinerank.figures): its tables read, drawn by its plot function in
the shared style, stamped with the config digest and the commit, saved as PNG and PDF."""

from onlinerank.drawing import draw
from onlinerank.figures import read_figure_table
from onlinerank.pipeline import run
from onlinerank.plotting import finish, style
from onlinerank.provenance import config_digest, git_commit


def main(log):
    name = snakemake.wildcards.fig
    paths = dict(zip(snakemake.params.tables, snakemake.input.tables, strict=True))
    tables = {t: read_figure_table(p) for t, p in paths.items()}
    fig = draw(name, tables, snakemake.config)
    with style():  # the saving settings (resolution, PDF compression) are part of the style
        finish(fig, snakemake, config_digest(snakemake.config), git_commit())
    log.info("figure %s from %s", name, ", ".join(paths.values()))


run(snakemake, main)
