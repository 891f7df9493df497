# Spearman rank aggregation and graded feedback (stage "spearman" of simulate.smk).


rule claims_spearman:
    input:
        sim=f"{RES}/tables/sim_spearman.csv",
        bounds=f"{RES}/tables/bounds_spearman.csv",
        code=pkg("claims"),
    params:
        config=CONFIG_DIGEST,
    output:
        f"{RES}/claims/spearman.csv",
    log:
        f"{RES}/logs/claims_spearman.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/claims_spearman.py"


rule figure_spearman_regret_vs_T:
    input:
        table=f"{RES}/tables/sim_spearman.csv",
        bounds=f"{RES}/tables/bounds_spearman.csv",
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/spearman_regret_vs_T.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/spearman_regret_vs_T.png",
            caption="../report/spearman_regret_vs_T.rst",
            category="Spearman corollary",
        ),
        pdf=f"{FIG}/spearman_regret_vs_T.pdf",
    log:
        f"{RES}/logs/figure_spearman_regret_vs_T.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/spearman_regret_vs_T.py"


rule figure_spearman_vs_n:
    input:
        table=f"{RES}/tables/sim_spearman.csv",
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/spearman_vs_n.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/spearman_vs_n.png",
            caption="../report/spearman_vs_n.rst",
            category="Spearman corollary",
        ),
        pdf=f"{FIG}/spearman_vs_n.pdf",
    log:
        f"{RES}/logs/figure_spearman_vs_n.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/spearman_vs_n.py"


rule figure_spearman_correlation:
    input:
        table=f"{RES}/tables/sim_spearman.csv",
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/spearman_correlation.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/spearman_correlation.png",
            caption="../report/spearman_correlation.rst",
            category="Spearman corollary",
        ),
        pdf=f"{FIG}/spearman_correlation.pdf",
    log:
        f"{RES}/logs/figure_spearman_correlation.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/spearman_correlation.py"


rule figure_graded_regret:
    input:
        table=f"{RES}/tables/sim_spearman.csv",
        bounds=f"{RES}/tables/bounds_spearman.csv",
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/graded_regret.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/graded_regret.png",
            caption="../report/graded_regret.rst",
            category="Theorem 3.1 (graded feedback)",
        ),
        pdf=f"{FIG}/graded_regret.pdf",
    log:
        f"{RES}/logs/figure_graded_regret.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/graded_regret.py"
