"""Exact worst-case expected regret of OnlineRank (dynamic program over all sequences, tiny n)
against T, with Theorem 3.1 (paper form and sharp form at the same eta)."""

from collections import defaultdict

import matplotlib.pyplot as plt
import numpy as np

from onlinerank.plotting import figure_context, figure_tables, finish, plain_log_axis

digest, commit = figure_context(snakemake)
tables = figure_tables(snakemake)

rows = tables["worst_case"]
groups = defaultdict(list)
for r in rows:
    groups[(r["family"], r["n"], r["k"])].append(r)
keys = sorted(groups)
fig, axes = plt.subplots(1, len(keys), figsize=(3.6 * len(keys) + 0.5, 3.8), squeeze=False)
for ax, key in zip(axes.flat, keys, strict=True):
    fam, n, k = key
    rs = groups[key]
    for f in sorted({r["eta_factor"] for r in rs}):
        sub = sorted((r for r in rs if r["eta_factor"] == f), key=lambda r: r["T"])
        T = np.array([r["T"] for r in sub], float)
        line = ax.plot(T, [r["value"] for r in sub], "o-", ms=3, label=f"exact worst case, η = {f:g}·η_p")[0]
        ax.plot(
            T,
            [r["bound_sharp"] for r in sub],
            "--",
            color=line.get_color(),
            lw=0.9,
            label=f"sharp bound at {f:g}·η_p",
        )
    sub = sorted((r for r in rs if r["eta_factor"] == 1.0), key=lambda r: r["T"])
    if sub:
        ax.plot(
            [r["T"] for r in sub],
            [r["bound_thm31"] for r in sub],
            "k-",
            lw=1.2,
            label=r"Thm 3.1: $n\sqrt{TM\ln 2}$",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_axis(ax)
    ax.set_xlabel("horizon T")
    ax.set_ylabel("max over sequences of E[regret]")
    ax.set_title(f"{'single' if k == 1 else f'{k}-choice'}, n={n}")
    ax.legend(fontsize=6)
fig.suptitle("Exact worst case over all feedback sequences (dynamic program) vs Theorem 3.1")
fig.tight_layout(rect=(0, 0.02, 1, 1))
finish(fig, snakemake, digest, commit)
