# The claims table (all stages), its markdown rendering and the provenance manifest.

CLAIM_PARTS = [f"{RES}/claims/{part}.csv" for part in ("upper", "lower", "baselines", "spearman")]


rule claims:
    input:
        parts=CLAIM_PARTS,
        code=pkg("claims", "provenance"),
    params:
        config=CONFIG_DIGEST,
    output:
        csv=report(f"{RES}/claims.csv", caption="../report/claims.rst", category="Claims"),
        md=f"{FIG}/claims.md",
    log:
        f"{RES}/logs/claims.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/claims.py"


rule manifest:
    input:
        outputs=lambda wc: ALL_OUTPUTS,
    params:
        config=CONFIG_DIGEST,
    output:
        f"{RES}/manifest.json",
    log:
        f"{RES}/logs/manifest.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/manifest.py"
