"""Spearman rank aggregation: regret vs T for OnlineRank (both samplers), FPL and PermELearn on
the same permutation streams, with the Spearman bound n^2 sqrt((n^2-1) T ln2 / 12)."""

from onlinerank.plotting import figure_context, figure_tables, finish, regret_panels

digest, commit = figure_context(snakemake)
tables = figure_tables(snakemake)
bnd = {(r["family"], r["n"], r["k"], r["T"]): r for r in tables["bounds_spearman"]}
rows = [r for r in tables["sim_spearman"] if r["family"] == "spearman"]
fig = regret_panels(
    rows,
    bnd,
    snakemake.config["learners"],
    "Spearman rank aggregation (s = −σ, M = n²(n²−1)/12)",
)
finish(fig, snakemake, digest, commit)
