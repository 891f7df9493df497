"""Ratio of each comparison bound (Hedge over n!, FPL, PermELearn) to Theorem 3.1 vs n, one panel
per family, with the paper's claimed growth factor (scaled to meet the curve at the first n)."""

from collections import defaultdict

import numpy as np

from onlinerank.plotting import LEARNER_COLORS, figure_context, finish, plain_log_axis, read_table

digest, commit = figure_context(snakemake)
import matplotlib.pyplot as plt  # noqa: E402

rows = read_table(snakemake.input.table)
panels = defaultdict(list)
for r in rows:
    panels[(r["family"], r["k"])].append(r)
keys = sorted(panels)
fig, axes = plt.subplots(1, len(keys), figsize=(3.4 * len(keys) + 0.5, 3.8), squeeze=False)
for ax, key in zip(axes.flat, keys, strict=True):
    fam, k = key
    for m in ("hedge", "fpl", "permelearn"):
        rs = sorted((r for r in panels[key] if r["method"] == m), key=lambda r: r["n"])
        if not rs:
            continue
        n = np.array([r["n"] for r in rs], float)
        ratio = np.array([r["ratio"] for r in rs])
        cf = np.array([r["claimed_value"] for r in rs])
        c = LEARNER_COLORS[m]
        ax.plot(n, ratio, "o-", color=c, ms=3, label=f"{m} / Thm 3.1")
        ax.plot(n, cf * ratio[0] / cf[0], ":", color=c, lw=1, label=f"claimed {rs[0]['claimed']}")
    ax.axhline(1, color="k", lw=0.6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_axis(ax)
    ax.set_xlabel("number of items n")
    ax.set_ylabel("bound / Theorem 3.1")
    ax.set_title(fam + (f", k={k}" if fam == "kchoice" else ""), fontsize=9)
    ax.legend(fontsize=6)
fig.suptitle(f"How much weaker the baselines' guarantees are (T = {rows[0]['T']:g})")
fig.tight_layout(rect=(0, 0.02, 1, 1))
finish(fig, snakemake, digest, commit)
