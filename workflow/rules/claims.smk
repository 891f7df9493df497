# The claims document (every verdict: figures/claims.json, rendered as claims.md, flattened to
# results/claims.csv, and the report's first page), one step driven by the claim registry
# `onlinerank.claims.REGISTRY`; then the provenance manifest.  Before it, the mutations table (the
# claims' verdicts under deliberate defects of the learner), shown in its own section of claims.md.


from mutants.table import code_uses
from onlinerank.claims import MODULES, tables_needed
from onlinerank.claims.seed_verdicts import SEEDS_DIR
from onlinerank.figures import FIGURES

#: which figures support which claims (listed in the claims document): a change reruns the claims
#: step, a change of a figure's drawing does not
FIGURE_CLAIMS = " ".join(f"{name}:{','.join(spec.claims)}" for name, spec in FIGURES.items())


# The mutation tests of the claims (workflow/mutants): small cells run unmutated and under each
# deliberate defect of the learner or a sampler, in every tier (about 10-15 s on one core).
rule mutations:
    input:
        # the broken learners, the small cells' plug-ins and tables (small_cells.yaml), the claims
        code=code("mutations.py", *code_uses(), *MODULES),
        cells=os.path.relpath(os.path.join(MUTANTS, "small_cells.yaml"), workflow.basedir),
    output:
        f"{RES}/tables/mutations.csv",
    log:
        f"{RES}/logs/mutations.log",
    benchmark:
        benchmark_path(RES, "mutations")
    conda:
        "../../environment.yml"
    params:
        spec=section_digest(SETTINGS, "seed", "claims"),
    script:
        "../scripts/mutations.py"


rule claims:
    input:
        tables=[TABLE[t] for t in tables_needed(SETTINGS)],
        mutations=rules.mutations.output[0],
        # the verdicts of further seeds written by `make replicate` (onlinerank.seeds), if any
        seeds=sorted(glob(f"{RES}/{SEEDS_DIR}/*/verdicts.json")),
        # the claims modules are imported by discovery (onlinerank.claims.MODULES), not by a line
        # a static reading of the imports would follow
        code=code("claims.py", *MODULES),
        # the change log the report prints (its entries and recorded digests)
        changes=os.path.relpath(os.path.join(SRC, "claims", "changes.toml"), workflow.basedir),
    output:
        json=f"{FIG}/claims.json",
        md=f"{FIG}/claims.md",
        csv=f"{RES}/claims.csv",
        intro=f"{RES}/report/workflow.rst",
    log:
        f"{RES}/logs/claims.log",
    benchmark:
        benchmark_path(RES, "claims")
    conda:
        "../../environment.yml"
    params:
        tables=tables_needed(SETTINGS),
        config=CONFIG_DIGEST,
        figures=FIGURE_CLAIMS,
    script:
        "../scripts/claims.py"


REPORT_INTRO = rules.claims.output.intro
# hashed by the manifest with the other tables
TABLE["mutations"] = rules.mutations.output[0]
