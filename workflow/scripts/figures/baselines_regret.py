"""Regret of OnlineRank and the baselines (Hedge, FPL, PermELearn, FTL, uniform) on the same
feedback (common random numbers), with Theorem 3.1's curves.  Reads only tables."""

from onlinerank.plotting import figure_context, figure_tables, finish, regret_panels

digest, commit = figure_context(snakemake)
tables = figure_tables(snakemake)
bnd = {(r["family"], r["n"], r["k"], r["T"]): r for r in tables["bounds_baselines"]}
fig = regret_panels(
    tables["sim_baselines"],
    bnd,
    snakemake.config["learners"],
    "OnlineRank vs the baselines of Section 4",
)
finish(fig, snakemake, digest, commit)
