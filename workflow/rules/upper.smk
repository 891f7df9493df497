# Upper-bound experiments (Theorem 3.1, Corollary 3.2): bounds and figures from the tidy tables.


rule bounds_upper:
    input:
        code=PKG,
    output:
        f"{RES}/tables/bounds_upper.csv",
    log:
        f"{RES}/logs/bounds_upper.log",
    params:
        stage="upper",
    conda:
        "../../environment.yml"
    script:
        "../scripts/bounds.py"


rule figure_regret_vs_T:
    input:
        table=f"{RES}/tables/sim_upper.csv",
        bounds=rules.bounds_upper.output[0],
        script="workflow/scripts/figures/regret_vs_T.py",
    output:
        png=f"{FIG}/regret_vs_T.png",
        pdf=f"{FIG}/regret_vs_T.pdf",
    log:
        f"{RES}/logs/figure_regret_vs_T.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/regret_vs_T.py"
