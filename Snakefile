# Reproducible verification of Ailon, "Online Ranking: Discrete Choice, Spearman Correlation and
# Other Feedback" (arXiv 1308.6797).  Entry point only: config, validation, rule files, targets.
# A bare `snakemake` (or `make figures`) runs the default tier; `--configfile config/smoke.yaml`
# the tiny tier used by the tests.

from snakemake.utils import validate

from onlinerank.experiments import ConfigError, validate_config


configfile: "config/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")
try:
    validate_config(config)
except ConfigError as err:
    raise WorkflowError(str(err)) from None


include: "workflow/rules/common.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/upper.smk"


rule all:
    default_target: True
    input:
        rules.figure_regret_vs_T.output,
        rules.bounds_upper.output,
