# Lower bound (THEORY §4): exact tables, the Monte Carlo of the construction (stage "lower" of
# simulate.smk), claims and figures.

LOWER_TABLES = ["curves", "hc", "abg", "frequencies"]


rule lower_table:
    input:
        code=pkg("lowerbound", "lower_tables"),
    params:
        spec=section_digest(config, "lowerbound", "seed"),
    output:
        f"{RES}/tables/lower_{{table}}.csv",
    log:
        f"{RES}/logs/lower_{{table}}.log",
    wildcard_constraints:
        table="|".join(LOWER_TABLES),
    conda:
        "../../environment.yml"
    script:
        "../scripts/lower_table.py"


rule claims_lower:
    input:
        curves=f"{RES}/tables/lower_curves.csv",
        hc=f"{RES}/tables/lower_hc.csv",
        sim=f"{RES}/tables/sim_lower.csv",
        code=pkg("claims", "lowerbound"),
    params:
        config=CONFIG_DIGEST,
    output:
        f"{RES}/claims/lower.csv",
    log:
        f"{RES}/logs/claims_lower.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/claims_lower.py"


rule figure_lower_normalized:
    input:
        curves=f"{RES}/tables/lower_curves.csv",
        sim=f"{RES}/tables/sim_lower.csv",
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/lower_normalized.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/lower_normalized.png",
            caption="../report/lower_normalized.rst",
            category="Lower bound",
        ),
        pdf=f"{FIG}/lower_normalized.pdf",
    log:
        f"{RES}/logs/figure_lower_normalized.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/lower_normalized.py"


rule figure_lower_sandwich:
    input:
        curves=f"{RES}/tables/lower_curves.csv",
        upper=f"{RES}/tables/sim_upper.csv",
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/lower_sandwich.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/lower_sandwich.png",
            caption="../report/lower_sandwich.rst",
            category="Lower bound",
        ),
        pdf=f"{FIG}/lower_sandwich.pdf",
    log:
        f"{RES}/logs/figure_lower_sandwich.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/lower_sandwich.py"


rule figure_lower_hc:
    input:
        hc=f"{RES}/tables/lower_hc.csv",
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/lower_hc.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/lower_hc.png",
            caption="../report/lower_hc.rst",
            category="Lower bound",
        ),
        pdf=f"{FIG}/lower_hc.pdf",
    log:
        f"{RES}/logs/figure_lower_hc.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/lower_hc.py"


rule figure_lower_abg:
    input:
        abg=f"{RES}/tables/lower_abg.csv",
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/lower_abg.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/lower_abg.png",
            caption="../report/lower_abg.rst",
            category="Lower bound",
        ),
        pdf=f"{FIG}/lower_abg.pdf",
    log:
        f"{RES}/logs/figure_lower_abg.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/lower_abg.py"


rule figure_lower_frequencies:
    input:
        frequencies=f"{RES}/tables/lower_frequencies.csv",
        code=pkg("plotting", "provenance", "timing", "lowerbound"),
        script="workflow/scripts/figures/lower_frequencies.py",
    params:
        config=CONFIG_DIGEST,
    output:
        png=report(
            f"{FIG}/lower_frequencies.png",
            caption="../report/lower_frequencies.rst",
            category="Lower bound",
        ),
        pdf=f"{FIG}/lower_frequencies.pdf",
    log:
        f"{RES}/logs/figure_lower_frequencies.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figures/lower_frequencies.py"
