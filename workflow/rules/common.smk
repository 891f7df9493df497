# Shared definitions: output locations and the package sources every computing rule depends on
# (Snakemake does not see Python imports, so the package files are declared as inputs).

import glob
import os

from onlinerank.experiments import (
    STAGES,
    config_digest,
    group_digest,
    groups_of,
    section_digest,
)

RES = config.get("results_dir", "results")
FIG = config.get("figures_dir", "figures")
# claims, figures and the manifest stamp this digest: as their params it reruns them on any
# config change; computing steps have narrower params (group_digest, section_digest)
CONFIG_DIGEST = config_digest(config)
_SRC = os.path.join(workflow.basedir, "src", "onlinerank")
# modules used by one kind of step only; every other module is "core" (the simulation engine)
LEAF_MODULES = ["claims", "comparison", "cli", "lower_tables", "lowerbound", "plotting",
                "provenance", "timing", "worst_case"]
PKG_CORE = sorted(
    p
    for p in glob.glob(os.path.join(_SRC, "**", "*.py"), recursive=True)
    if os.path.splitext(os.path.relpath(p, _SRC))[0] not in LEAF_MODULES
)


def pkg(*leaves):
    """Package sources a step depends on: the core plus the named leaf modules."""
    return PKG_CORE + [os.path.join(_SRC, f"{m}.py") for m in leaves]


PKG = pkg()


wildcard_constraints:
    cell=r"[^/]+/[^/]+/[^/]+/[^/]+",
    block=r"\d+",
    stage="|".join(STAGES),


def block_files(stage):
    """One file per (job directory, replicate block); a job simulates every T of its grid point."""
    return [f"{RES}/sim/{g}/b{b}.npz" for g, cells in groups_of(config, stage).items()
            for b in range(cells[0].blocks)]
