"""Heat map of mean regret / Theorem 3.1 bound (sharp form at the learner's eta) over (n, T),
one panel per family, for the adversary that reaches the largest ratio in that family."""

import math
from collections import defaultdict

import matplotlib.pyplot as plt
import numpy as np

from onlinerank import bounds as B
from onlinerank.plotting import figure_context, figure_tables, finish

digest, commit = figure_context(snakemake)
tables = figure_tables(snakemake)

rows = [r for r in tables["sim_upper"] if r["metric"] == "regret" and r["t"] == r["T"]]
for r in rows:
    r["ratio"] = r["mean"] / float(B.theorem31_sharp(r["n"], r["T"], r["M"], r["eta"]))
fams = defaultdict(list)
for r in rows:
    fams[(r["family"], r["k"])].append(r)
keys = sorted(fams)
fig, axes = plt.subplots(1, len(keys), figsize=(4.0 * len(keys) + 0.6, 3.7), squeeze=False)
for ax, key in zip(axes.flat, keys, strict=True):
    rs = fams[key]
    best_adv = max(
        {r["adversary"] for r in rs}, key=lambda a: max(r["ratio"] for r in rs if r["adversary"] == a)
    )
    cell = defaultdict(list)
    for r in rs:
        if r["adversary"] == best_adv:
            cell[(r["n"], r["T"])].append(r["ratio"])
    ns = sorted({n for n, _ in cell})
    Ts = sorted({T for _, T in cell})
    Z = np.full((len(ns), len(Ts)), np.nan)
    for (n, T), v in cell.items():
        Z[ns.index(n), Ts.index(T)] = max(v)
    im = ax.imshow(
        Z, origin="lower", aspect="auto", cmap="viridis", vmin=0, vmax=max(0.6, float(np.nanmax(Z)))
    )
    for i in range(len(ns)):
        for j in range(len(Ts)):
            if not math.isnan(Z[i, j]):
                ax.text(
                    j,
                    i,
                    f"{Z[i, j]:.2f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if Z[i, j] < 0.35 else "black",
                )
    ax.set_xticks(range(len(Ts)), [f"{T:g}" for T in Ts], rotation=45)
    ax.set_yticks(range(len(ns)), [str(n) for n in ns])
    ax.set_xlabel("horizon T")
    ax.set_ylabel("items n")
    fam, k = key
    ax.set_title(f"{fam}" + (f" k={k}" if fam == "kchoice" else "") + f": {best_adv} adversary", fontsize=9)
    fig.colorbar(im, ax=ax, shrink=0.85, label="regret / bound")
fig.suptitle(
    "Hardest adversary per family: mean exact regret / Theorem 3.1 bound "
    r"($\binom{n}{2}\ln 2/\eta+\eta TM/2$, max over learners)",
    fontsize=9,
)
fig.tight_layout(rect=(0, 0.02, 1, 0.95))
finish(fig, snakemake, digest, commit)
