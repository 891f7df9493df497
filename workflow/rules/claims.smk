# The claims document (every verdict: figures/claims.json, rendered as claims.md, flattened to
# results/claims.csv, and the report's first page), one step driven by the claim registry
# `onlinerank.claims.REGISTRY`; then the provenance manifest.

from onlinerank.claims import tables_needed


rule claims:
    input:
        tables=[TABLE[t] for t in tables_needed(config)],
        code=code("claims.py"),
    output:
        json=f"{FIG}/claims.json",
        md=f"{FIG}/claims.md",
        csv=f"{RES}/claims.csv",
        intro=f"{RES}/report/workflow.rst",
    log:
        f"{RES}/logs/claims.log",
    conda:
        "../../environment.yml"
    params:
        tables=tables_needed(config),
        config=CONFIG_DIGEST,
    script:
        "../scripts/claims.py"


REPORT_INTRO = rules.claims.output.intro
