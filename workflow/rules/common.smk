# Shared definitions: output locations and the package sources every computing rule depends on
# (Snakemake does not see Python imports, so the package files are declared as inputs).

import glob
import os

from onlinerank.experiments import STAGES, groups_of

RES = config.get("results_dir", "results")
FIG = config.get("figures_dir", "figures")
PKG = sorted(glob.glob(os.path.join(workflow.basedir, "src", "onlinerank", "**", "*.py"),
                       recursive=True))


wildcard_constraints:
    cell=r"[^/]+/[^/]+/[^/]+/[^/]+",
    block=r"\d+",
    stage="|".join(STAGES),


def block_files(stage):
    """One file per (job directory, replicate block); a job simulates every T of its grid point."""
    return [f"{RES}/sim/{g}/b{b}.npz" for g, cells in groups_of(config, stage).items()
            for b in range(cells[0].blocks)]
