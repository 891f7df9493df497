# Section 4 comparisons: baselines on the same feedback (stage "baselines" of simulate.smk),
# running time vs n, the comparison-bound table, claims and figures.


rule runtime:
    input:
        code=pkg("timing"),
    params:
        spec=section_digest(config, "runtime", "learners"),
    output:
        f"{RES}/tables/runtime.csv",
    log:
        f"{RES}/logs/runtime.log",
    threads: 2  # timing wants the machine to itself (capped by --cores)
    conda:
        "../../environment.yml"
    script:
        "../scripts/runtime.py"


rule bound_comparison:
    input:
        code=pkg("comparison"),
    params:
        spec=section_digest(config, "bound_comparison"),
    output:
        csv=f"{RES}/tables/bound_comparison.csv",
        md=f"{FIG}/bound_comparison.md",
    log:
        f"{RES}/logs/bound_comparison.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/bound_comparison.py"


rule claims_baselines:
    input:
        sim=f"{RES}/tables/sim_baselines.csv",
        runtime=rules.runtime.output[0],
        code=pkg("claims", "timing"),
    params:
        config=CONFIG_DIGEST,
    output:
        f"{RES}/claims/baselines.csv",
    log:
        f"{RES}/logs/claims_baselines.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/claims_baselines.py"


rule figure_baselines_regret:
    input:
        table=f"{RES}/tables/sim_baselines.csv",
        bounds=f"{RES}/tables/bounds_baselines.csv",
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/baselines_regret.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/baselines_regret.png",
            caption="../report/baselines_regret.rst",
            category="Section 4 comparisons",
        ),
        pdf=f"{FIG}/baselines_regret.pdf",
    log:
        f"{RES}/logs/figure_baselines_regret.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/baselines_regret.py"


rule figure_runtime:
    input:
        table=rules.runtime.output[0],
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/runtime.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/runtime.png",
            caption="../report/runtime.rst",
            category="Section 4 comparisons",
        ),
        pdf=f"{FIG}/runtime.pdf",
    log:
        f"{RES}/logs/figure_runtime.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/runtime.py"


rule figure_bound_comparison:
    input:
        table=rules.bound_comparison.output.csv,
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/bound_comparison.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/bound_comparison.png",
            caption="../report/bound_comparison.rst",
            category="Section 4 comparisons",
        ),
        pdf=f"{FIG}/bound_comparison.pdf",
    log:
        f"{RES}/logs/figure_bound_comparison.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/bound_comparison.py"
