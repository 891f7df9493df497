"""Ratio of each comparison bound (Hedge over n!, FPL, PermELearn) to Theorem 3.1, one panel per
family and sweep (over n at fixed k, or over k at fixed n for k-choice), with the paper's claimed
growth factor (scaled to meet the curve at the first grid point).  T = ceil(T_factor n ln n)."""

from collections import defaultdict

import matplotlib.pyplot as plt
import numpy as np

from onlinerank.plotting import LEARNER_COLORS, figure_context, figure_tables, finish, plain_log_axis

digest, commit = figure_context(snakemake)
tables = figure_tables(snakemake)

rows = tables["bound_comparison"]
panels = defaultdict(list)
for r in rows:
    panels[(r["family"], r["sweep"], r["n"] if r["sweep"] == "k" else r["k"])].append(r)
keys = sorted(panels, key=lambda k: (["single", "kchoice", "subset", "spearman"].index(k[0]), k[1], k[2]))
ncol = min(4, len(keys))
nrow = -(-len(keys) // ncol)
fig, axes = plt.subplots(nrow, ncol, figsize=(3.4 * ncol + 0.5, 3.3 * nrow + 0.6), squeeze=False)
for ax, key in zip(axes.flat, keys, strict=False):
    fam, sweep, fixed = key
    for m in ("hedge", "fpl", "permelearn"):
        rs = sorted((r for r in panels[key] if r["method"] == m), key=lambda r: r[sweep])
        if not rs:
            continue
        x = np.array([r[sweep] for r in rs], float)
        ratio = np.array([r["ratio"] for r in rs])
        cf = np.array([r["claimed_value"] for r in rs])
        c = LEARNER_COLORS[m]
        ax.plot(x, ratio, "o-", color=c, ms=3, label=f"{m} bound / Thm 3.1")
        ax.plot(x, cf * ratio[0] / cf[0], ":", color=c, lw=1, label=f"paper: {rs[0]['claimed']}")
    ax.axhline(1, color="k", lw=0.6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_axis(ax)
    ax.set_xlabel("number of items n" if sweep == "n" else "items chosen per round k")
    ax.set_ylabel("baseline bound / Theorem 3.1")
    other = "k" if sweep == "n" else "n"
    ax.set_title(f"{fam}" + (f", {other}={fixed}" if fam == "kchoice" else ""), fontsize=9)
    ax.legend(fontsize=5.5)
for ax in axes.flat[len(keys) :]:
    ax.set_visible(False)
tf = snakemake.config["bound_comparison"]["T_factor"]
fig.suptitle(f"How much weaker the baselines' guarantees are (T = ⌈{tf:g} n ln n⌉ ≫ n log n)")
fig.tight_layout(rect=(0, 0.02, 1, 1))
finish(fig, snakemake, digest, commit)
