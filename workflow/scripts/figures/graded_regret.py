"""Graded feedback: regret vs T against the Theorem 3.1 bound computed from the family's own M."""

from onlinerank.plotting import figure_context, figure_tables, finish, regret_panels

digest, commit = figure_context(snakemake)
tables = figure_tables(snakemake)
bnd = {(r["family"], r["n"], r["k"], r["T"]): r for r in tables["bounds_spearman"]}
rows = [r for r in tables["sim_spearman"] if r["family"] == "graded"]
fig = regret_panels(
    rows,
    bnd,
    snakemake.config["learners"],
    "Graded relevance feedback (M = g² ⌊n²/4⌋)",
)
finish(fig, snakemake, digest, commit)
