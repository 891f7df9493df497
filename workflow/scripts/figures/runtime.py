"""Per-round running time vs n (log-log) for every timed learner, with fitted exponents; the
reference slopes n log n and n^2 are drawn through the first point.  Where PermELearn's whole
Birkhoff draw is too slow to time, its round is a lower bound (update + the first step of the
draw), drawn hollow.  Right panel: PermELearn's time per Sinkhorn sweep.  Wall-clock data."""

from collections import defaultdict

import matplotlib.pyplot as plt
import numpy as np

from onlinerank.plotting import figure_context, figure_tables, finish, learner_style, plain_log_axis
from onlinerank.timing import fit_exponent

digest, commit = figure_context(snakemake)
tables = figure_tables(snakemake)

rows = tables["runtime"]
nmin = snakemake.config["runtime"].get("fit_min_n", 100)
learners = snakemake.config["learners"]


def series(part):
    by = defaultdict(list)
    for r in rows:
        if r["part"] == part:
            by[r["learner"]].append(r)
    for rs in by.values():
        rs.sort(key=lambda r: r["n"])
    return by


def draw(ax, part, hollow=False, suffix=""):
    for lab, rs in sorted(series(part).items()):
        n = np.array([r["n"] for r in rs], float)
        s = np.array([r["seconds_per_round"] for r in rs])
        st = learner_style(learners[lab], lab)
        big = n >= nmin
        e = fit_exponent(n[big], s[big]) if big.sum() >= 2 else float("nan")
        ax.plot(
            n,
            s,
            marker=st["marker"],
            ls=":" if hollow else st["ls"],
            color=st["color"],
            mfc="none" if hollow else st["mfc"],
            label=st["label"] + suffix + (f": slope {e:.2f} (n ≥ {nmin})" if e == e else ""),
        )


def references(ax, parts):
    pts = [r for r in rows if r["part"] in parts and r["n"] >= nmin]
    if not pts:
        return
    x = np.array(sorted({r["n"] for r in pts}), float)
    base = min(r["seconds_per_round"] for r in pts if r["n"] == x[0])
    ax.plot(x, base * (x * np.log(x)) / (x[0] * np.log(x[0])), "k:", lw=1, label="∝ n log n")
    ax.plot(x, base * (x / x[0]) ** 2, "k--", lw=1, label="∝ n²")


fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
draw(axes[0], "round")
draw(axes[0], "round_lower", hollow=True, suffix=" ≥ update + 1st Birkhoff step")
references(axes[0], ("round", "round_lower"))
axes[0].set_title("whole round (loss + update + sampled ranking)", fontsize=9)
draw(axes[1], "update")
references(axes[1], ("update",))
axes[1].set_title("update only (exact expected loss + update)", fontsize=9)
draw(axes[2], "sweep")
references(axes[2], ("sweep",))
axes[2].set_title("PermELearn: one Sinkhorn sweep (update time / sweeps)", fontsize=9)
for ax in axes:
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_axis(ax, "x")
    ax.set_xlabel("number of items n")
    ax.set_ylabel("seconds (one replicate)")
    ax.legend(fontsize=6.5)
fig.suptitle("Running time per round (wall clock, median of 3 repeats, this machine)")
fig.tight_layout(rect=(0, 0.02, 1, 1))
finish(fig, snakemake, digest, commit)
