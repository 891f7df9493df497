# Figures: one rule, one job per figure.  The catalog is the package onlinerank.figures: a new
# figure is one module `src/onlinerank/figures/<name>.py` (its drawing, declared with @figure:
# tables read, claims supported, caption), found without a list to edit.  A figure whose tables'
# stages are absent is not made.  "claims" is figures/claims.json.

from onlinerank.claims import REGISTRY
from onlinerank.figures import CLAIMS_TABLE, FIGURES, check_catalog
from onlinerank.tables import TABLE_STAGE

check_catalog(REGISTRY, TABLE_STAGE)

# tables a figure may read besides the stage tables
TABLE[CLAIMS_TABLE] = rules.claims.output.json
#: the figures whose tables are all made under this config
FIGURES_MADE = [f for f, spec in FIGURES.items() if all(t in TABLE for t in spec.tables)]
SECTION_TITLE = {"paper": "1. Claims of the paper", "beyond": "2. Findings beyond the paper"}


rule figure:
    input:
        tables=lambda wc: [TABLE[t] for t in FIGURES[wc.fig].tables],
        code=lambda wc: code("figure.py", FIGURES[wc.fig].draw),
    output:
        png=report(
            f"{FIG}/{{fig}}.png",
            caption="../report/figure.rst",
            category=lambda wc: SECTION_TITLE[REGISTRY[FIGURES[wc.fig].claims[0]].section],
            subcategory=lambda wc: claim_title(FIGURES[wc.fig].claims[0]),
        ),
        pdf=f"{FIG}/{{fig}}.pdf",
    log:
        f"{RES}/logs/figure_{{fig}}.log",
    wildcard_constraints:
        fig="|".join(FIGURES_MADE) or "(?!)",
    conda:
        "../../environment.yml"
    params:
        tables=lambda wc: list(FIGURES[wc.fig].tables),
        caption=lambda wc: FIGURES[wc.fig].caption,
        claim=lambda wc: claims_text(FIGURES[wc.fig].claims),
        config=CONFIG_DIGEST,
    script:
        "../scripts/figure.py"


ALL_OUTPUTS = (
    [f"{FIG}/{f}.{ext}" for f in FIGURES_MADE for ext in ("png", "pdf")]
    + list(rules.claims.output)
    + ([rules.bound_comparison_md.output[0]] if "bound_comparison" in TABLE else [])
    + [path for name, path in TABLE.items() if name != CLAIMS_TABLE]
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
