# Reproducible verification of Ailon, "Online Ranking: Discrete Choice, Spearman Correlation and
# Other Feedback" (arXiv 1308.6797).  Entry point only: config, validation, rule files, targets.
# A bare `snakemake` (or `make figures`) runs the default tier; `--configfile config/smoke.yaml`
# the tiny tier used by the tests (it writes under results-smoke/ only).

from snakemake.utils import validate

from onlinerank.experiments import ConfigError, validate_config


# The default tier, unless --configfile names another file (which then replaces it entirely
# rather than being merged into it, so a tier is exactly its own file).
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")
try:
    validate_config(config)
except ConfigError as err:
    raise WorkflowError(str(err)) from None


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/upper.smk"
include: "workflow/rules/lower.smk"
include: "workflow/rules/baselines.smk"
include: "workflow/rules/spearman.smk"
include: "workflow/rules/report.smk"


# With a cluster executor (workflow/profiles/slurm) only the computing rules -- simulate, runtime,
# lower_table, worst_case_table -- are submitted as jobs.  The rules below read a few small tables
# and take about a second each, less than a SLURM job's overhead (~6-7 s), so they run on the
# submitting host.  Without a cluster executor this line changes nothing.
localrules:
    aggregate,
    bounds,
    bound_comparison,
    claims_upper,
    claims_lower,
    claims_baselines,
    claims_spearman,
    claims,
    manifest,
    figure_regret_vs_T,
    figure_regret_ratio_heatmap,
    figure_exponents,
    figure_worst_case,
    figure_lower_normalized,
    figure_lower_sandwich,
    figure_lower_hc,
    figure_lower_abg,
    figure_lower_frequencies,
    figure_baselines_regret,
    figure_runtime,
    figure_bound_comparison,
    figure_spearman_regret_vs_T,
    figure_spearman_vs_n,
    figure_spearman_correlation,
    figure_graded_regret,
    all,


FIGURES = [
    "regret_vs_T",
    "regret_ratio_heatmap",
    "exponents",
    "worst_case",
    "lower_normalized",
    "lower_sandwich",
    "lower_hc",
    "lower_abg",
    "lower_frequencies",
    "baselines_regret",
    "runtime",
    "bound_comparison",
    "spearman_regret_vs_T",
    "spearman_vs_n",
    "spearman_correlation",
    "graded_regret",
]
ALL_OUTPUTS = (
    [f"{FIG}/{f}.{ext}" for f in FIGURES for ext in ("png", "pdf")]
    + [f"{FIG}/claims.md", f"{FIG}/bound_comparison.md", f"{RES}/claims.csv"]
    + [f"{RES}/tables/sim_{s}.csv" for s in STAGES]
    + [f"{RES}/tables/bounds_{s}.csv" for s in ("upper", "baselines", "spearman")]
    + [f"{RES}/tables/{t}.csv" for t in ("worst_case", "runtime", "bound_comparison")]
    + [f"{RES}/tables/lower_{t}.csv" for t in LOWER_TABLES]
)


rule all:
    default_target: True
    input:
        ALL_OUTPUTS,
        f"{RES}/manifest.json",
