"""Shared glue for the pipeline scripts: log redirection (the science lives in the package)."""

import logging
import sys


def setup_log(snakemake) -> logging.Logger:
    log = logging.getLogger("onlinerank")
    log.setLevel(logging.INFO)
    path = snakemake.log[0] if len(snakemake.log) else None
    handler = logging.FileHandler(path, mode="w") if path else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    return log
