"""Figure: exact expected regret of OnlineRank vs T (log-log) against every adversary of the
upper-bound experiments, both samplers, with the Theorem 3.1 bound curves.  Reads only tables."""

from onlinerank.plotting import figure_context, figure_tables, finish, regret_panels

digest, commit = figure_context(snakemake)
tables = figure_tables(snakemake)
bnd = {(r["family"], r["n"], r["k"], r["T"]): r for r in tables["bounds_upper"]}
fig = regret_panels(
    tables["sim_upper"],
    bnd,
    snakemake.config["learners"],
    "OnlineRank vs Theorem 3.1 (learning rate η = paper's η_p)",
)
finish(fig, snakemake, digest, commit)
