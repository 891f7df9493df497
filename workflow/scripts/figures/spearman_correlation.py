"""The learner's expected Spearman correlation r_s with the Mallows centre over time (exact from
the learner's marginals; FPL's from Monte Carlo), per cell with a Mallows adversary."""

from collections import defaultdict

import matplotlib.pyplot as plt
import numpy as np

from onlinerank.plotting import figure_context, figure_tables, finish, learner_style, plain_log_axis

digest, commit = figure_context(snakemake)
tables = figure_tables(snakemake)

rows = [r for r in tables["sim_spearman"] if r["metric"] == "spearman_centre"]
learners = snakemake.config["learners"]
advs = snakemake.config["adversaries"]
panels = defaultdict(list)
for r in rows:
    panels[(r["adversary"], r["n"], r["T"])].append(r)
keys = [k for k in sorted(panels) if k[2] == max(kk[2] for kk in panels if kk[:2] == k[:2])]
if not keys:
    keys = sorted(panels)
ncol = min(4, max(1, len(keys)))
nrow = int(np.ceil(len(keys) / ncol)) if keys else 1
fig, axes = plt.subplots(nrow, ncol, figsize=(3.5 * ncol + 0.4, 3.1 * nrow + 0.8), squeeze=False)
for ax, key in zip(axes.flat, keys, strict=False):
    adv, n, T = key
    by = defaultdict(list)
    for r in panels[key]:
        by[r["learner"]].append(r)
    for lab, rs in sorted(by.items()):
        rs.sort(key=lambda r: r["t"])
        st = learner_style(learners[lab], lab)
        t = np.array([r["t"] for r in rs], float)
        m = np.array([r["mean"] for r in rs])
        se = np.nan_to_num(np.array([r["sem"] for r in rs]))
        ax.plot(t, m, marker=st["marker"], ls=st["ls"], color=st["color"], mfc=st["mfc"], label=st["label"])
        ax.fill_between(t, m - 1.96 * se, m + 1.96 * se, color=st["color"], alpha=0.18, lw=0)
    ax.set_xscale("log")
    plain_log_axis(ax, "x")
    ax.set_ylim(-0.1, 1.02)
    ax.set_xlabel("round t")
    ax.set_ylabel(r"E[Spearman $r_s$] with the centre")
    extra = ", ".join(f"{k}={v}" for k, v in advs[adv].items() if k not in ("name", "centre"))
    ax.set_title(f"{adv} ({extra}), n={n}, T={T}", fontsize=7.5)
for ax in axes.flat[len(keys) :]:
    ax.set_visible(False)
if keys:
    axes.flat[0].legend(fontsize=6.5, loc="lower right")
fig.suptitle("Rank aggregation: how fast the learner finds the Mallows centre (95% bands)")
fig.tight_layout(rect=(0, 0.02, 1, 1))
finish(fig, snakemake, digest, commit)
