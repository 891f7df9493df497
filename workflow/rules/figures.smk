# Figures.  The catalog is the package onlinerank.figures: a new figure is one module
# `src/onlinerank/figures/<name>.py` (its drawing, declared with @figure: tables read, claims
# supported, caption), found without a list to edit.  A figure whose tables' stages are absent is
# not made.  "claims" is figures/claims.json.
#
# A run draws its figures in a few jobs, one process each, so that the interpreter, the package
# and matplotlib are loaded once per batch rather than once per figure (~0.7 s of CPU each): the
# figures of each simulation stage (as soon as its table exists), those of the tables computed
# from the config, and those that read the claims document, made last
# (onlinerank.figures.figure_batches).  `--config figure=NAME` (`make figure NAME=...`) makes that
# one figure and only what it reads, in a job of its own.

from onlinerank.claims import REGISTRY
from onlinerank.figures import CLAIMS_TABLE, FIGURES, check_catalog, figure_batches, figures_made
from onlinerank.tables import TABLE_STAGE

check_catalog(REGISTRY, TABLE_STAGE)

# tables a figure may read besides the stage tables
TABLE[CLAIMS_TABLE] = rules.claims.output.json
#: the figures whose tables are all made under this config
FIGURES_MADE = figures_made(TABLE)
SECTION_TITLE = {"paper": "1. Claims of the paper", "beyond": "2. Findings beyond the paper"}
#: batch -> the figures one job draws: the tier's batches, or the one figure of --config figure=NAME
FIGURE_BATCHES = {SETTINGS.figure: [SETTINGS.figure]} if SETTINGS.figure else figure_batches(FIGURES_MADE)


for batch, names in FIGURE_BATCHES.items():

    rule:
        name:
            f"figures_{batch}"
        input:
            **{t: TABLE[t] for t in sorted({t for f in names for t in FIGURES[f].tables})},
            code=code("figure.py", *(FIGURES[f].draw for f in names)),
        output:
            **{f"{f}_png": figure_png(f) for f in names},
            **{f"{f}_pdf": f"{FIG}/{f}.pdf" for f in names},
            **{f"{f}_caption": figure_caption_file(f) for f in names},
        log:
            f"{RES}/logs/figures_{batch}.log",
        benchmark:
            benchmark_path(RES, "figures", batch)
        localrule: True
        conda:
            "../../environment.yml"
        params:
            figures=names,
            # a function, so that the braces of the text are not read as wildcards
            captions=lambda wc, names=names: [figure_caption(f) for f in names],
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
    benchmark:
        benchmark_path(RES, "manifest")
    conda:
        "../../environment.yml"
    params:
        config=CONFIG_DIGEST,
    script:
        "../scripts/manifest.py"


#: what a run makes by default: every output of the tier and the manifest, or, with
#: --config figure=NAME, that figure
DEFAULT_TARGETS = (
    [f"{FIG}/{SETTINGS.figure}.{ext}" for ext in ("png", "pdf")]
    if SETTINGS.figure
    else ALL_OUTPUTS + [rules.manifest.output[0]]
)
