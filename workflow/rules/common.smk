# Shared definitions: output locations and the package sources every computing rule depends on
# (Snakemake does not see Python imports, so the package files are declared as inputs).

import glob
import os

from onlinerank.experiments import STAGES, cells_of

RES = config.get("results_dir", "results")
FIG = config.get("figures_dir", "figures")
PKG = sorted(glob.glob(os.path.join(workflow.basedir, "src", "onlinerank", "**", "*.py"),
                       recursive=True))


wildcard_constraints:
    cell=r"[^/]+/[^/]+/[^/]+/[^/]+/[^/]+",
    block=r"\d+",
    stage="|".join(STAGES),


def block_files(stage):
    return [f"{RES}/sim/{c.path}/b{b}.npz" for c in cells_of(config, stage)
            for b in range(c.blocks)]
