"""Figure: exact expected regret of OnlineRank vs T (log-log) against every adversary of the
upper-bound experiments, both samplers, with the Theorem 3.1 bound curves.  Reads only tables."""

from onlinerank.plotting import figure_context, finish, read_table, regret_panels

digest, commit = figure_context(snakemake)
bnd = {(r["family"], r["n"], r["k"], r["T"]): r for r in read_table(snakemake.input.bounds)}
fig = regret_panels(
    read_table(snakemake.input.table),
    bnd,
    snakemake.config["learners"],
    "OnlineRank vs Theorem 3.1 (learning rate η = paper's η_p)",
)
finish(fig, snakemake, digest, commit)
