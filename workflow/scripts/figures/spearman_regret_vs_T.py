"""Spearman rank aggregation: regret vs T for OnlineRank (both samplers), FPL and PermELearn on
the same permutation streams, with the Spearman bound n^2 sqrt((n^2-1) T ln2 / 12)."""

from onlinerank.plotting import figure_context, finish, read_table, regret_panels

digest, commit = figure_context(snakemake)  # noqa: F821
bnd = {(r["family"], r["n"], r["k"], r["T"]): r for r in read_table(snakemake.input.bounds)}  # noqa: F821
rows = [r for r in read_table(snakemake.input.table) if r["family"] == "spearman"]  # noqa: F821
fig = regret_panels(rows, bnd, snakemake.config["learners"],  # noqa: F821
                    "Spearman rank aggregation (s = −σ, M = n²(n²−1)/12)")
finish(fig, snakemake, digest, commit)  # noqa: F821
