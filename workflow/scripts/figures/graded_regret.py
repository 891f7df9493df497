"""Graded feedback: regret vs T against the Theorem 3.1 bound computed from the family's own M."""

from onlinerank.plotting import figure_context, finish, read_table, regret_panels

digest, commit = figure_context(snakemake)
bnd = {(r["family"], r["n"], r["k"], r["T"]): r for r in read_table(snakemake.input.bounds)}
rows = [r for r in read_table(snakemake.input.table) if r["family"] == "graded"]
fig = regret_panels(
    rows,
    bnd,
    snakemake.config["learners"],
    "Graded relevance feedback (M = g² ⌊n²/4⌋)",
)
finish(fig, snakemake, digest, commit)
