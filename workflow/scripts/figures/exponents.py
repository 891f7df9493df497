"""Exponents of regret in T, n and k at the large end of each grid (Corollary 3.2 rows of the
claims table: local log-log slope, 95% parametric bootstrap widened by the truncation estimate),
next to the predicted 1/2, 3/2, 1/2."""

import numpy as np

from onlinerank.plotting import figure_context, finish, read_table

digest, commit = figure_context(snakemake)
import matplotlib.pyplot as plt  # noqa: E402

rows = [r for r in read_table(snakemake.input.claims) if str(r["claim"]).startswith("Corollary 3.2")]
vars_ = [("T", 0.5), ("n", 1.5), ("k", 0.5)]
present = [(v, p) for v, p in vars_ if any(f"exponent in {v} " in r["claim"] for r in rows)]
fig, axes = plt.subplots(
    1,
    max(1, len(present)),
    squeeze=False,
    figsize=(4.4 * max(1, len(present)), 0.5 + 0.22 * max(8, len(rows))),
)
for ax, (v, pred) in zip(axes.flat, present, strict=False):
    rs = [r for r in rows if f"exponent in {v} " in r["claim"]]
    rs.sort(key=lambda r: r["cell"])
    y = np.arange(len(rs))
    vals = np.array([r["value"] for r in rs])
    lo = np.array([r["ci_low"] for r in rs])
    hi = np.array([r["ci_high"] for r in rs])
    colors = [{"FAIL": "#d62728", "INCONCLUSIVE": "#ff7f0e"}.get(r["verdict"], "#1f77b4") for r in rs]
    for yy, a, b, c in zip(y, lo, hi, colors, strict=True):
        ax.plot([a, b], [yy, yy], color=c, lw=1.2)
    ax.scatter(vals, y, c=colors, s=14, zorder=3)
    ax.axvline(pred, color="k", ls="--", lw=1, label=f"Corollary 3.2: {pred:g}")
    if v == "n" and any(" subset " in r["cell"] for r in rs):
        ax.axvline(2.0, color="k", ls=":", lw=1, label="Corollary 3.2, subsets: 2")
    ax.set_yticks(y, [r["cell"].split(" (")[0] for r in rs], fontsize=5.5)
    ax.set_xlabel(f"exponent of regret in {v}\n(local slope at the two largest {v})", fontsize=8)
    ax.set_title(f"regret ∝ {v}^b: 95% bootstrap\nwidened by the truncation estimate", fontsize=8)
    ax.legend(fontsize=7, loc="lower right")
if not present:
    axes.flat[0].text(0.5, 0.5, "no grid with >= 3 values", ha="center")
fig.tight_layout(rect=(0, 0.02, 1, 1))
finish(fig, snakemake, digest, commit)
