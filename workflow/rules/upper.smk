# Upper-bound experiments (Theorem 3.1, Corollary 3.2): bounds and figures from the tidy tables.


rule bounds:
    input:
        code=PKG,
    params:
        spec=lambda wc: section_digest(config, wc.stage, "learners", "adversaries"),
    output:
        f"{RES}/tables/bounds_{{stage}}.csv",
    log:
        f"{RES}/logs/bounds_{{stage}}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/bounds.py"


rule figure_regret_vs_T:
    input:
        table=f"{RES}/tables/sim_upper.csv",
        bounds=f"{RES}/tables/bounds_upper.csv",
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/regret_vs_T.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/regret_vs_T.png",
            caption="../report/regret_vs_T.rst",
            category="Theorem 3.1",
        ),
        pdf=f"{FIG}/regret_vs_T.pdf",
    log:
        f"{RES}/logs/figure_regret_vs_T.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/regret_vs_T.py"


rule worst_case_table:
    input:
        code=pkg("worst_case"),
    params:
        spec=section_digest(config, "worst_case"),
    output:
        f"{RES}/tables/worst_case.csv",
    log:
        f"{RES}/logs/worst_case.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/worst_case_table.py"


rule claims_upper:
    input:
        sim=f"{RES}/tables/sim_upper.csv",
        bounds=f"{RES}/tables/bounds_upper.csv",
        worst_case=rules.worst_case_table.output[0],
        code=pkg("claims"),
    params:
        config=CONFIG_DIGEST,
    output:
        f"{RES}/claims/upper.csv",
    log:
        f"{RES}/logs/claims_upper.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/claims_upper.py"


rule figure_regret_ratio_heatmap:
    input:
        table=f"{RES}/tables/sim_upper.csv",
        bounds=f"{RES}/tables/bounds_upper.csv",
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/regret_ratio_heatmap.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/regret_ratio_heatmap.png",
            caption="../report/regret_ratio_heatmap.rst",
            category="Theorem 3.1",
        ),
        pdf=f"{FIG}/regret_ratio_heatmap.pdf",
    log:
        f"{RES}/logs/figure_regret_ratio_heatmap.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/regret_ratio_heatmap.py"


rule figure_exponents:
    input:
        claims=rules.claims_upper.output[0],
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/exponents.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/exponents.png",
            caption="../report/exponents.rst",
            category="Corollary 3.2",
        ),
        pdf=f"{FIG}/exponents.pdf",
    log:
        f"{RES}/logs/figure_exponents.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/exponents.py"


rule figure_worst_case:
    input:
        table=rules.worst_case_table.output[0],
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/worst_case.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/worst_case.png",
            caption="../report/worst_case.rst",
            category="Theorem 3.1",
        ),
        pdf=f"{FIG}/worst_case.pdf",
    log:
        f"{RES}/logs/figure_worst_case.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/worst_case.py"
