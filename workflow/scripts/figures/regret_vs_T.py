"""Figure: exact expected regret of OnlineRank vs T (log-log), one panel per (adversary, family,
n, k), both samplers with 95% bands, and the Theorem 3.1 bound curves.  Reads only tables."""

import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))
import numpy as np  # noqa: E402
from _common import setup_log  # noqa: E402

from onlinerank.experiments import config_digest  # noqa: E402
from onlinerank.plotting import (  # noqa: E402
    SAMPLER_STYLE,
    plain_log_axis,
    read_table,
    save_figure,
    stamp,
    use_style,
)
from onlinerank.provenance import git_commit  # noqa: E402

log = setup_log(snakemake)  # noqa: F821
use_style()
import matplotlib.pyplot as plt  # noqa: E402

cfg = snakemake.config  # noqa: F821
rows = [r for r in read_table(snakemake.input.table)  # noqa: F821
        if r["metric"] == "regret" and r["t"] == r["T"]]
bnd = {(r["family"], r["n"], r["k"], r["T"]): r for r in read_table(snakemake.input.bounds)}  # noqa: F821

panels = defaultdict(list)
for r in rows:
    panels[(r["family"], r["n"], r["k"], r["adversary"])].append(r)
keys = sorted(panels)
ncol = min(4, len(keys))
nrow = int(np.ceil(len(keys) / ncol))
fig, axes = plt.subplots(nrow, ncol, figsize=(max(9.0, 3.3 * ncol + 0.3), 2.9 * nrow + 1.2), squeeze=False)
for ax, key in zip(axes.flat, keys, strict=False):
    fam, n, k, adv = key
    sub = panels[key]
    Ts = sorted({r["T"] for r in sub})
    b = [bnd[(fam, n, k, T)] for T in Ts]
    ax.plot(Ts, [x["bound_paper"] for x in b], "k-", lw=1.2, label=r"Thm 3.1: $n\sqrt{TM\ln 2}$")
    ax.plot(Ts, [x["bound_sharp"] for x in b], "k--", lw=1.0,
            label=r"sharp bound at $\eta_p$: $\binom{n}{2}\ln 2/\eta_p+\eta_p TM/2$")
    ax.plot(Ts, [x["bound_optimal"] for x in b], "k:", lw=1.0, label=r"sharp bound at $\eta^*$")
    by_learner = defaultdict(list)
    for r in sub:
        by_learner[r["learner"]].append(r)
    for lab, rs in sorted(by_learner.items()):
        rs.sort(key=lambda r: r["T"])
        spec = cfg["learners"][lab]
        st = SAMPLER_STYLE.get(spec.get("sampler"), {"color": None, "marker": "^", "ls": "-",
                                                     "mfc": None, "label": lab})
        T = np.array([r["T"] for r in rs], float)
        m = np.array([r["mean"] for r in rs])
        se = np.nan_to_num(np.array([r["sem"] for r in rs]))
        ax.plot(T, m, marker=st["marker"], ls=st["ls"], color=st["color"], mfc=st["mfc"],
                label=f"{st['label']} (mean, 95% band)")
        ax.fill_between(T, m - 1.96 * se, m + 1.96 * se, color=st["color"], alpha=0.2, lw=0)
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_axis(ax)
    ax.set_xlabel("horizon T (rounds)")
    ax.set_ylabel("E[regret] (pairwise loss)")
    ax.set_title(f"{adv}: {fam}, n={n}" + (f", k={k}" if fam == "kchoice" else "")
                 + f", {sub[0]['reps']} reps")
for ax in axes.flat[len(keys):]:
    ax.set_visible(False)
handles, labels = axes.flat[0].get_legend_handles_labels()
fig.legend(handles, labels, loc="lower center", ncol=2 if ncol < 3 else 3, frameon=False)
fig.suptitle("OnlineRank: exact expected regret vs Theorem 3.1 (learning rate η = paper's η_p)")
fig.tight_layout(rect=(0, 0.1 if nrow == 1 else 0.06, 1, 1))
stamp(fig, config_digest(cfg), git_commit())
save_figure(fig, snakemake.output.png, snakemake.output.pdf)  # noqa: F821
log.info("wrote %s", snakemake.output.png)  # noqa: F821
