"""The figures of one batch of the catalog (onlinerank.figures), drawn in one process: each from
its tables in the shared style, stamped with the config digest and the commit, saved as PNG and
PDF; and each figure's caption for the HTML report."""

from onlinerank.drawing import draw_figures
from onlinerank.io import atomic_write_text
from onlinerank.pipeline import job_settings, run


def main(log):
    names = snakemake.params.figures
    tables = {t: path for t, path in snakemake.input.items() if t != "code"}
    outputs = {f: (snakemake.output[f"{f}_png"], snakemake.output[f"{f}_pdf"]) for f in names}
    draw_figures(names, tables, job_settings(snakemake), outputs, log)
    for f, caption in zip(names, snakemake.params.captions, strict=True):
        atomic_write_text(snakemake.output[f"{f}_caption"], caption)


run(snakemake, main)
