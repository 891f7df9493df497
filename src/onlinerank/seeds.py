"""Verdicts that do not hinge on one seed: ``make replicate SEEDS=S`` (``python -m onlinerank.seeds
CONFIG S [snakemake options]``) reruns every claim decided on sampled data at S further root seeds
and counts, per claim, at how many of them the verdict equals the anchor's (design §verdicts).

The anchor is the tier's own run (its ``seed``, its ``results_dir``).  The further seeds are
seed + 1 ... seed + S; each runs under ``<results_dir>/seeds/<seed>/`` with a config derived from
the tier's file (:func:`seed_config`: the same file with ``seed``, ``results_dir`` and
``figures_dir`` replaced), so the anchor run is never overwritten.  Steps (:func:`replicate`):

1. the anchor's claims document (Snakemake on the tier: the tables and claims it needs, if not
   made yet), which says which claims are ``sampled`` (:mod:`onlinerank.claims.seed_verdicts`);
2. per further seed, Snakemake on the derived config with the seeded tables as targets
   (:func:`seed_targets`: the simulation stages, the sampled Lemma 6.1 check, the Monte Carlo of
   item frequencies); the exact tables are not made again;
3. per further seed, the sampled claims evaluated on its seeded tables and the anchor's exact ones
   (:func:`evaluate_seed`), written to ``<results_dir>/seeds/<seed>/verdicts.json``;
4. the anchor's run again: its claims step reads those files (claims.md, claims.json and the
   README summary gain the column *held at s of S seeds*), and what reads the claims follows.

Snakemake options given after S go to every Snakemake call: ``--workflow-profile
workflow/profiles/slurm`` sends the jobs to SLURM, ``-n`` makes the whole plan a dry run (then
nothing is evaluated).  The seeds run one after another, each with the parallelism Snakemake gives
its own jobs.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import yaml

from .claims import REGISTRY, tables_needed
from .claims.evidence import claim_digest
from .claims.report import evaluate
from .claims.seed_verdicts import SEEDS_DIR, seeded_tables, tables_read, verdicts_document
from .config import ConfigError, load_settings
from .io import atomic_write_text, read_table
from .provenance import git_commit
from .settings import Settings

__all__ = [
    "further_seeds",
    "seed_results_dir",
    "seed_config",
    "seed_targets",
    "sampled_claims",
    "evaluate_seed",
    "replicate",
    "main",
]

#: Snakemake options that make a call a dry run
DRY_RUN = ("-n", "--dry-run", "--dryrun")


def further_seeds(seed: int, count: int) -> list[int]:
    """The root seeds of the further runs: seed + 1 ... seed + count."""
    return [int(seed) + i for i in range(1, int(count) + 1)]


def seed_results_dir(results_dir: str, seed: int) -> str:
    """Where the run at root seed ``seed`` writes: ``<results_dir>/seeds/<seed>``."""
    return f"{results_dir.rstrip('/')}/{SEEDS_DIR}/{seed}"


def seed_config(config: dict, seed: int, results_dir: str) -> dict:
    """The tier's config as its file says (``config``), at root seed ``seed``, writing under
    :func:`seed_results_dir` of the anchor's ``results_dir`` (figures too: none are made there)."""
    out = copy.deepcopy(config)
    res = seed_results_dir(results_dir, seed)
    out.update(seed=int(seed), results_dir=res, figures_dir=f"{res}/figures")
    return out


def seed_targets(settings: Settings) -> list[str]:
    """The tables a further seed makes (under its ``results_dir``): those the claims of the
    configured stages read whose numbers depend on the seed."""
    seeded = seeded_tables()
    return [f"{settings.results_dir}/tables/{t}.csv" for t in tables_needed(settings) if t in seeded]


def sampled_claims(anchor_doc: dict) -> list[str]:
    """The ids of the claims the anchor's claims document marks ``sampled`` (and decided)."""
    return [
        c["id"]
        for c in anchor_doc["claims"]
        if (c.get("seeds") or {}).get("kind") == "sampled"
        and c["verdict"] in ("PASS", "FAIL", "INCONCLUSIVE")
    ]


def evaluate_seed(
    settings: Settings, anchor_results: str, claim_ids: Sequence[str], anchor_doc: dict
) -> dict:
    """The verdicts file of a further seed: the claims ``claim_ids`` evaluated under ``settings``
    (the derived config's) on its seeded tables and the anchor's other tables (under
    ``anchor_results``), as :func:`onlinerank.claims.seed_verdicts.verdicts_document`."""
    anchor_seed = anchor_doc["meta"]["seeds"]["anchor"]
    seeded = seeded_tables()
    records = []
    cache: dict[str, list[dict]] = {}
    for cid in claim_ids:
        c = REGISTRY[cid]
        tables = {}
        for t in sorted(tables_read(c, settings)):
            base = settings.results_dir if t in seeded else anchor_results
            path = f"{base}/tables/{t}.csv"
            if path not in cache:
                cache[path] = read_table(path)
            tables[t] = copy.deepcopy(cache[path])
        rec = evaluate(c, tables, settings, settings.claims.alpha)
        # the test's digest covers the seed: compare it with the anchor's under the anchor's seed
        rec["digest"] = claim_digest(c, dataclasses.replace(settings, seed=anchor_seed))
        records.append(rec)
    meta = anchor_doc["meta"]
    return verdicts_document(settings.seed, anchor_seed, meta["config_digest"], git_commit(), records)


def _snakemake(args: Sequence[str]) -> None:
    """One Snakemake call: the ``snakemake`` program beside this Python (the one ``make`` runs), or
    this Python's module where there is none; stops the whole plan, naming the call, if it fails."""
    beside = Path(sys.executable).parent / "snakemake"
    program = [str(beside)] if beside.exists() else [sys.executable, "-m", "snakemake"]
    shown = " ".join(["snakemake", *args])
    print(f"onlinerank.seeds: {shown}", file=sys.stderr, flush=True)
    if subprocess.run([*program, *args]).returncode != 0:
        raise SystemExit(f"onlinerank: replicate: Snakemake failed: {shown}")


def replicate(config_path: str, count: int, snakemake_args: Sequence[str] = ()) -> list[str]:
    """Run the plan of the module docstring for the tier ``config_path`` and ``count`` further
    seeds, in the current directory (the repository); returns the verdicts files written (none in
    a dry run)."""
    raw = yaml.safe_load(Path(config_path).read_text())
    anchor = load_settings(copy.deepcopy(raw))  # validated before any work
    dry = any(a in DRY_RUN for a in snakemake_args)
    claims_json = f"{anchor.figures_dir}/claims.json"
    _snakemake([claims_json, "--configfile", config_path, *snakemake_args])
    anchor_doc = None if dry else json.loads(Path(claims_json).read_text())
    written = []
    for seed in further_seeds(anchor.seed, count):
        derived = seed_config(raw, seed, anchor.results_dir)
        settings = load_settings(copy.deepcopy(derived))  # the config as the pipeline sees it
        res = settings.results_dir
        path = f"{res}/config.yaml"
        Path(res).mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, yaml.safe_dump(derived, sort_keys=False))
        _snakemake([*seed_targets(settings), "--configfile", path, *snakemake_args])
        if anchor_doc is None:
            continue
        doc = evaluate_seed(settings, anchor.results_dir, sampled_claims(anchor_doc), anchor_doc)
        atomic_write_text(f"{res}/verdicts.json", json.dumps(doc, indent=1) + "\n")
        written.append(f"{res}/verdicts.json")
    _snakemake(["--configfile", config_path, *snakemake_args])
    return written


def main(argv: list[str] | None = None) -> int:
    """``python -m onlinerank.seeds CONFIG SEEDS [snakemake options ...]``: bad arguments are one
    line naming them (exit status 2)."""
    args = sys.argv[1:] if argv is None else argv
    usage = "usage: python -m onlinerank.seeds CONFIG SEEDS [snakemake options ...]  (make replicate SEEDS=4)"
    if len(args) < 2:
        print(usage, file=sys.stderr)
        return 2
    config, count, rest = args[0], args[1], args[2:]
    if not (count.isdigit() and int(count) >= 1):
        print(
            f"onlinerank: SEEDS={count or '(empty)'}: a number of further seeds >= 1, e.g. SEEDS=4",
            file=sys.stderr,
        )
        return 2
    if not os.path.isfile(config):
        print(f"onlinerank: CONFIG={config}: no such file", file=sys.stderr)
        return 2

    try:
        written = replicate(config, int(count), rest)
    except ConfigError as e:
        print(f"onlinerank: CONFIG={config}: {e}", file=sys.stderr)
        return 2
    for path in written:
        print(f"onlinerank.seeds: wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
