# Reproducible verification of Ailon, "Online Ranking: Discrete Choice, Spearman Correlation and
# Other Feedback" (arXiv 1308.6797).  Entry point only: config, validation, rule files, targets.
# A bare `snakemake` (or `make figures`) runs the default tier; `--configfile config/smoke.yaml`
# the tiny tier used by the tests (it writes under results-smoke/ only).  A config may leave out
# any stage: its steps are not run and its claims are listed as not run.


import os
import sys
import time

from onlinerank.config import ConfigError
from onlinerank.config import check_pipeline_sections
from onlinerank.config import load_settings
from onlinerank.config_file import check_config_files

# The default tier, unless --configfile names another file (which then replaces it entirely
# rather than being merged into it, so a tier is exactly its own file).
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


# the schema fills its defaults into `config` (Snakemake's dict, which each job types again with
# onlinerank.pipeline.job_settings); SETTINGS is the same config typed (onlinerank.settings), the
# only config the rules read.  First the files themselves: Snakemake's YAML reader keeps the last
# of two equal keys, so a key given twice is refused here.
try:
    check_config_files(workflow.configfiles)
    SETTINGS = load_settings(config)
    check_pipeline_sections(SETTINGS)
except ConfigError as err:
    sys.exit(f"onlinerank: {err}")


include: "workflow/rules/common.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/claims.smk"
include: "workflow/rules/figures.smk"


# the report's first page: the verdict summary, written by the claims step
report: REPORT_INTRO


# With a cluster executor (workflow/profiles/slurm) only the computing rules -- simulate and
# table -- are submitted as jobs; these read a few small files and take about a second each,
# less than a SLURM job's overhead (~6-7 s), so they run on the submitting host (so do the
# figure jobs: `localrule: True` in workflow/rules/figures.smk).
localrules:
    aggregate,
    bound_comparison_md,
    claims,
    manifest,
    all,


rule all:
    default_target: True
    input:
        DEFAULT_TARGETS,


onsuccess:
    run_epilogue()
