"""Per-round running time vs n (log-log) for every timed learner, with fitted exponents; the
reference slopes n log n and n^2 are drawn through the first point.  Wall-clock data."""

from collections import defaultdict

import numpy as np

from onlinerank.plotting import figure_context, finish, learner_style, plain_log_axis, read_table
from onlinerank.timing import fit_exponent

digest, commit = figure_context(snakemake)  # noqa: F821
import matplotlib.pyplot as plt  # noqa: E402

rows = read_table(snakemake.input.table)  # noqa: F821
nmin = snakemake.config["runtime"].get("fit_min_n", 100)  # noqa: F821
learners = snakemake.config["learners"]  # noqa: F821
fig, axes = plt.subplots(1, 2, figsize=(11, 4.3))
for ax, part, title in ((axes[0], "round", "whole round (loss + update + sampled ranking)"),
                        (axes[1], "update", "update only (exact expected loss + update)")):
    by = defaultdict(list)
    for r in rows:
        if r["part"] == part:
            by[r["learner"]].append(r)
    for lab, rs in sorted(by.items()):
        rs.sort(key=lambda r: r["n"])
        n = np.array([r["n"] for r in rs], float)
        s = np.array([r["seconds_per_round"] for r in rs])
        st = learner_style(learners[lab], lab)
        big = n >= nmin
        e = fit_exponent(n[big], s[big]) if big.sum() >= 2 else float("nan")
        ax.plot(n, s, marker=st["marker"], ls=st["ls"], color=st["color"], mfc=st["mfc"],
                label=st["label"] + (f": slope {e:.2f} (n ≥ {nmin})" if e == e else
                                     " (small n only)"))
    allx = np.array(sorted({r["n"] for r in rows}), float)
    x = allx[allx >= nmin]
    if x.size:
        base = min(r["seconds_per_round"] for r in rows if r["part"] == part and r["n"] == x[0])
        ax.plot(x, base * (x * np.log(x)) / (x[0] * np.log(x[0])), "k:", lw=1, label="∝ n log n")
        ax.plot(x, base * (x / x[0]) ** 2, "k--", lw=1, label="∝ n²")
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_axis(ax, "x")
    ax.set_xlabel("number of items n")
    ax.set_ylabel("seconds per round (one replicate)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=6.5)
fig.suptitle("Running time per round (wall clock, median of 3 repeats, this machine)")
fig.tight_layout(rect=(0, 0.02, 1, 1))
finish(fig, snakemake, digest, commit)  # noqa: F821
