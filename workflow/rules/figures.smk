# Figures: one rule; a new figure is one script `workflow/scripts/figures/<name>.py` (reading only
# tables, via onlinerank.plotting.figure_tables) plus one entry here.  `tables`: what it reads
# ("claims" is figures/claims.json); `claim`: the claim it supports (its place in the report);
# `caption`: its caption in the report.  A figure whose tables' stages are absent is not made.

from onlinerank.claims import REGISTRY

FIGURES = {
    "regret_vs_T": dict(
        tables=["sim_upper", "bounds_upper"],
        claim="thm3.1",
        caption="Exact expected regret of OnlineRank (both samplers) against every adversary of the "
        "upper-bound experiments versus the horizon T (log-log), with 95% normal bands over replicates "
        "and the three forms of the Theorem 3.1 bound.",
    ),
    "regret_ratio_heatmap": dict(
        tables=["sim_upper", "bounds_upper"],
        claim="thm3.1",
        caption="Mean regret over the Theorem 3.1 bound on (n, T), for the adversary reaching the "
        "largest ratio in each feedback family.",
    ),
    "exponents": dict(
        tables=["claims"],
        claim="beyond.exponent.T",
        caption="Local exponents of the regret in T, n and k at the large end of each grid (95% "
        "bootstrap widened by the truncation estimate) against the bound's local exponents.",
    ),
    "worst_case": dict(
        tables=["worst_case"],
        claim="thm3.1.worst_case",
        caption="Exact worst case over all feedback sequences (dynamic program) for tiny n, at several "
        "learning rates, against the sharp bound at the same rate.",
    ),
    "worst_case_learners": dict(
        tables=["worst_case_learners"],
        claim="beyond.worst_case_learners",
        caption="Every learner's exact worst-case regret (dynamic program over all sequences) side by "
        "side, and beyond the DP every learner against the same adversaries (greedy, cyclic and the "
        "search), with Theorem 3.1's bound and each baseline's own bound.",
    ),
    "tightness": dict(
        tables=["tightness"],
        claim="beyond.tightness",
        caption="How tight Theorem 3.1 is: OnlineRank's worst case (exact where the DP reaches, search "
        "beyond) over the sharp bound, versus T for several η/η_p and n.",
    ),
    "lower_normalized": dict(
        tables=["lower_curves", "sim_lower"],
        claim="thm3.3.lower",
        caption="Regret against the random adversary normalised by n^{3/2} sqrt(kT): the exact formula, "
        "its asymptote and corrected asymptote, and Monte Carlo means of every learner.",
    ),
    "lower_sandwich": dict(
        tables=["lower_curves", "sim_upper"],
        claim="beyond.upper_lower_ratio",
        caption="Theorem 3.1, the worst OnlineRank regret found, the exact random-adversary regret and "
        "the explicit lower bounds (a), (b), (c).",
    ),
    "lower_hc": dict(
        tables=["lower_hc"],
        claim="beyond.h_c",
        caption="h_c(n): the smallest horizon from which the exact regret exceeds c n^{3/2} sqrt(T) for "
        "good, for several c, against the explicit h(n) = n/2.",
    ),
    "lower_abg": dict(
        tables=["lower_abg"],
        claim="beyond.lower_route",
        caption="The paper's alpha + beta + gamma route: the implied regret lower bound against the "
        "exact values.",
    ),
    "lower_frequencies": dict(
        tables=["lower_frequencies"],
        claim="thm3.3.binomial",
        caption="Monte Carlo frequency of one item under the random adversary against the Binomial "
        "(T, k/n) law.",
    ),
    "baselines_regret": dict(
        tables=["sim_baselines", "bounds_baselines"],
        claim="beyond.greedy",
        caption="OnlineRank and the baselines (Hedge, FPL, PermELearn, FTL, uniform) on common "
        "adversaries; the greedy adversary adapts to each learner (an observation, not a comparison).",
    ),
    "runtime": dict(
        tables=["runtime"],
        claim="sec4.runtime",
        caption="Wall-clock time per round versus n (median of the timing repeats, bars from the "
        "fastest to the slowest) with fitted exponents, and PermELearn's time per Sinkhorn sweep.",
    ),
    "bound_comparison": dict(
        tables=["bound_comparison"],
        claim="sec4.hedge",
        caption="Each baseline's regret bound over Theorem 3.1's, divided by the factor the paper claims, "
        "versus n (and k) at T = T_factor n ln n, with the exact infimum c over the paper's domain "
        "(solid) and the limit as n grows (dashed): the Omega statements hold iff c > 0.",
    ),
    "spearman_regret_vs_T": dict(
        tables=["sim_spearman", "bounds_spearman"],
        claim="sec5.spearman",
        caption="Rank aggregation under Spearman's correlation: regret versus T with the bound.",
    ),
    "spearman_vs_n": dict(
        tables=["sim_spearman"],
        claim="sec5.spearman",
        caption="Rank aggregation: regret versus n with the n^3 sqrt(T) bound.",
    ),
    "spearman_correlation": dict(
        tables=["sim_spearman"],
        claim="sec5.spearman",
        caption="Expected Spearman correlation of the learner's ranking with the Mallows centre over time.",
    ),
    "graded_regret": dict(
        tables=["sim_spearman", "bounds_spearman"],
        claim="sec5.graded",
        caption="Graded relevance feedback: regret versus T against the bound with the feedback's own M.",
    ),
}

# tables a figure may read besides the stage tables
TABLE["claims"] = rules.claims.output.json
#: the figures whose tables are all made under this config
FIGURES_MADE = [f for f, d in FIGURES.items() if all(t in TABLE for t in d["tables"])]
SECTION_TITLE = {"paper": "1. Claims of the paper", "beyond": "2. Findings beyond the paper"}


rule figure:
    input:
        tables=lambda wc: [TABLE[t] for t in FIGURES[wc.fig]["tables"]],
        code=lambda wc: code(f"figures/{wc.fig}.py"),
    output:
        png=report(
            f"{FIG}/{{fig}}.png",
            caption="../report/figure.rst",
            category=lambda wc: SECTION_TITLE[REGISTRY[FIGURES[wc.fig]["claim"]].section],
            subcategory=lambda wc: f"{FIGURES[wc.fig]['claim']}: {REGISTRY[FIGURES[wc.fig]['claim']].title}",
        ),
        pdf=f"{FIG}/{{fig}}.pdf",
    log:
        f"{RES}/logs/figure_{{fig}}.log",
    wildcard_constraints:
        fig="|".join(FIGURES_MADE) or "(?!)",
    conda:
        "../../environment.yml"
    params:
        tables=lambda wc: FIGURES[wc.fig]["tables"],
        caption=lambda wc: FIGURES[wc.fig]["caption"],
        claim=lambda wc: f"{FIGURES[wc.fig]['claim']}: {REGISTRY[FIGURES[wc.fig]['claim']].title}",
        config=CONFIG_DIGEST,
    script:
        "../scripts/figures/{wildcards.fig}.py"


ALL_OUTPUTS = (
    [f"{FIG}/{f}.{ext}" for f in FIGURES_MADE for ext in ("png", "pdf")]
    + list(rules.claims.output)
    + ([rules.bound_comparison_md.output[0]] if "bound_comparison" in TABLE else [])
    + [path for name, path in TABLE.items() if name != "claims"]
)


rule manifest:
    input:
        outputs=ALL_OUTPUTS,
    output:
        f"{RES}/manifest.json",
    log:
        f"{RES}/logs/manifest.log",
    conda:
        "../../environment.yml"
    params:
        config=CONFIG_DIGEST,
    script:
        "../scripts/manifest.py"
