"""Regret of OnlineRank and the baselines (Hedge, FPL, PermELearn, FTL, uniform) on the same
feedback (common random numbers), with Theorem 3.1's curves.  Reads only tables."""

from onlinerank.plotting import figure_context, finish, read_table, regret_panels

digest, commit = figure_context(snakemake)
bnd = {(r["family"], r["n"], r["k"], r["T"]): r for r in read_table(snakemake.input.bounds)}
fig = regret_panels(
    read_table(snakemake.input.table),
    bnd,
    snakemake.config["learners"],
    "OnlineRank vs the baselines of Section 4",
)
finish(fig, snakemake, digest, commit)
