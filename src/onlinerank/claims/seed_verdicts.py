"""Verdicts that do not hinge on one seed: how a claim depends on the config's root ``seed``, and
the claims document's column *held at s of S seeds* (design §verdicts).

A claim is

* ``sampled`` when it draws from its own named stream (``Context.rng``: a bootstrap, random test
  instances), or reads a table whose numbers depend on the seed (:func:`seeded_tables`: the
  simulation tables, the sampled Lemma 6.1 check, the Monte Carlo of item frequencies) and has a
  cell with an interval of non-zero width: another seed gives other data and may give another
  verdict;
* ``exact`` when it reads only tables computed exactly from the config (closed forms, exact sums,
  the exact dynamic program, the symbolic decisions), or reads seeded tables but every cell is
  exact (a zero-width interval: replicates that are all equal, as against a deterministic
  adversary with exact expected losses, are equal at every seed): the same at every seed;
* ``wall clock`` when it reads the timings: they vary from run to run, never with the seed (their
  run-to-run spread is in the claims' intervals: :mod:`onlinerank.claims.runtime`).

``make replicate SEEDS=S`` (:mod:`onlinerank.seeds`) reruns the ``sampled`` claims at the further
root seeds seed + 1 ... seed + S and writes one verdicts file per seed
(``<results_dir>/seeds/<seed>/verdicts.json``); :func:`attach_seed_verdicts` adds to each claim of
the anchor's document how many of those seeds gave the anchor's verdict.  The anchor is not
counted: *held at s of S* means s of the S further seeds.  Only this module's light imports: the
claims step does not depend on the engine.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..settings import STAGES
from ..tables import TABLE_STAGE, TABLES
from .registry import Claim, stages_of

if TYPE_CHECKING:
    from ..settings import Settings

__all__ = [
    "SEEDS_DIR",
    "WALL_CLOCK_TABLES",
    "KIND_TEXT",
    "seeded_tables",
    "tables_read",
    "seed_kind",
    "verdicts_document",
    "load_seed_verdicts",
    "attach_seed_verdicts",
    "seeds_text",
    "seeds_legend",
    "seeds_summary",
]

#: the folder of the further seeds' runs under a tier's results directory
SEEDS_DIR = "seeds"
#: the tables of wall-clock measurements, which vary from run to run and not with the seed
WALL_CLOCK_TABLES = frozenset({"runtime"})
#: the column's text for the claims that are not rerun
KIND_TEXT = {"exact": "exact, seed-free", "wall clock": "wall clock, seed-free"}


def seeded_tables() -> frozenset[str]:
    """Tables whose numbers depend on the config's ``seed``: the simulation tables (aggregated
    from the simulate jobs: no builder, a simulation stage) and every table whose builder reads
    ``seed`` (:data:`onlinerank.tables.base.TABLES`)."""
    return frozenset(
        name for name, s in TABLES.items() if (s.build is None and s.stage in STAGES) or "seed" in s.keys
    )


def tables_read(c: Claim, settings: Settings) -> set[str]:
    """The tables claim ``c`` reads under ``settings``: its declared tables and its optional tables
    whose stage is configured."""
    present = stages_of(settings)
    return set(c.reads) | {t for t in c.optional if TABLE_STAGE[t] in present}


def seed_kind(c: Claim, settings: Settings, drew: bool, cells: Sequence[Mapping] = ()) -> str:
    """``sampled``, ``exact`` or ``wall clock`` (the module docstring) for claim ``c`` evaluated
    under ``settings`` into ``cells``; ``drew``: whether its builder drew from its named stream."""
    read = tables_read(c, settings)
    exact = all(x["lo"] == x["hi"] for x in cells)
    if drew or (read & seeded_tables() and not exact):
        return "sampled"
    if read & WALL_CLOCK_TABLES:
        return "wall clock"
    return "exact"


def verdicts_document(
    seed: int, anchor_seed: int, anchor_config_digest: str, commit: str, records: Sequence[Mapping]
) -> dict:
    """The verdicts file of one further seed: the seed, the anchor's seed and config digest it was
    derived from, the commit, and per claim record (as :func:`onlinerank.claims.report.evaluate`
    makes it) the verdict, the test digest and the cells' verdicts counted."""
    claims = []
    for r in records:
        cells = r.get("cells", [])
        claims.append(
            {
                "id": r["id"],
                "verdict": r["verdict"],
                "digest": r["digest"],
                "cells": len(cells),
                "failing": sum(x["verdict"] == "FAIL" for x in cells),
                "inconclusive": sum(x["verdict"] == "INCONCLUSIVE" for x in cells),
            }
        )
    return {
        "seed": int(seed),
        "anchor_seed": int(anchor_seed),
        "anchor_config_digest": anchor_config_digest,
        "commit": commit,
        "claims": claims,
    }


def load_seed_verdicts(paths: Sequence[str | Path]) -> list[dict]:
    """The verdicts files at ``paths`` (sorted by seed); ``ValueError`` naming a malformed file."""
    out = []
    for path in paths:
        try:
            doc = json.loads(Path(path).read_text())
            int(doc["seed"]), int(doc["anchor_seed"]), str(doc["anchor_config_digest"])
            ids = [(c["id"], c["verdict"], c["digest"]) for c in doc["claims"]]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{path}: not a seed verdicts file ({type(e).__name__}: {e})") from None
        if len({i for i, _, _ in ids}) != len(ids):
            raise ValueError(f"{path}: a claim appears twice")
        out.append({**doc, "path": str(path)})
    return sorted(out, key=lambda d: d["seed"])


def attach_seed_verdicts(doc: dict, seed_docs: Sequence[Mapping], anchor_seed: int) -> None:
    """Add to each sampled claim of the claims document ``doc`` the verdicts of the further seeds
    (``seeds.held`` of ``seeds.of`` equal to the anchor's, ``seeds.verdicts`` by seed) and to its
    ``meta`` the seeds used and those left out.  A seeds file is left out, with the reason, when it
    was derived from another config (digest) or another anchor seed; a claim's verdict at a seed is
    left out when its test digest differs from the anchor's."""
    digest = doc["meta"].get("config_digest")
    used, ignored = [], []
    for d in seed_docs:
        if d["anchor_config_digest"] != digest or d["anchor_seed"] != anchor_seed:
            ignored.append(
                {
                    "seed": d["seed"],
                    "path": d.get("path", ""),
                    "reason": f"made from another config (digest {d['anchor_config_digest']}, seed "
                    f"{d['anchor_seed']}; this run: {digest}, seed {anchor_seed}): rerun make replicate",
                }
            )
        else:
            used.append(d)
    for c in doc["claims"]:
        kind = (c.get("seeds") or {}).get("kind")
        if kind != "sampled" or c["verdict"] not in ("PASS", "FAIL", "INCONCLUSIVE"):
            continue
        verdicts = {}
        for d in used:
            rec = next((x for x in d["claims"] if x["id"] == c["id"]), None)
            if rec is not None and rec["digest"] == c["digest"]:
                verdicts[str(d["seed"])] = rec["verdict"]
        if used:
            c["seeds"].update(
                held=sum(v == c["verdict"] for v in verdicts.values()), of=len(verdicts), verdicts=verdicts
            )
    doc["meta"]["seeds"] = {
        "anchor": anchor_seed,
        "further": [d["seed"] for d in used],
        "commits": sorted({d.get("commit", "") for d in used}),
        "ignored": ignored,
    }


def seeds_text(c: Mapping) -> str:
    """The column *held at s of S seeds* of claim record ``c``: ``s of S`` (with the seeds whose
    verdict differs), ``exact, seed-free``, ``wall clock, seed-free``, ``not rerun`` (a sampled
    claim no further seed evaluated) or ``—`` (not run, not tested)."""
    seeds = c.get("seeds") or {}
    kind = seeds.get("kind")
    if kind in KIND_TEXT:
        return KIND_TEXT[kind]
    if kind != "sampled" or c["verdict"] not in ("PASS", "FAIL", "INCONCLUSIVE"):
        return "—"
    if not seeds.get("of"):
        return "not rerun"
    other = [f"{s}: {v}" for s, v in seeds["verdicts"].items() if v != c["verdict"]]
    return f"{seeds['held']} of {seeds['of']}" + (f" ({'; '.join(other)})" if other else "")


def seeds_legend(doc: Mapping) -> str:
    """The paragraph of claims.md on seeds: what the column counts when further seeds were run;
    without them, that every verdict comes from the one root seed and how to rerun at others."""
    meta = doc["meta"].get("seeds") or {}
    sampled = [c for c in doc["claims"] if (c.get("seeds") or {}).get("kind") == "sampled"]
    further = meta.get("further", [])
    ignored = "".join(
        f" Left out: seed {x['seed']} ({x['path']}), {x['reason']}." for x in meta.get("ignored", [])
    )
    if not further:
        return (
            f"**Seeds.** Every verdict here comes from one root seed ({meta.get('anchor', '?')}). The "
            f"{len(sampled)} claims decided on sampled data can be rerun at further seeds with "
            "`make replicate SEEDS=4`, which adds the column *held at s of S seeds*." + ignored
        )
    span = ", ".join(str(s) for s in further)
    commits = ", ".join(f"`{x}`" for x in meta.get("commits", []) if x)
    return (
        f"**Seeds.** The {len(sampled)} claims decided on sampled data (simulations, sampled "
        f"checks, bootstraps) were rerun at the further root seeds {span} (`make replicate`"
        + (f", commit {commits}" if commits else "")
        + f"); the anchor is seed {meta['anchor']}. *Held at s of S seeds*: the number s of those "
        "S further seeds (the anchor not counted) at which the claim's verdict equals this run's, "
        "with the seeds that differ. *Exact, seed-free*: decided only on exact quantities, the same "
        "at every seed; *wall clock, seed-free*: the timing claims, which read timings, not the "
        "seed (their run-to-run spread is in their intervals)." + ignored
    )


def seeds_summary(doc: Mapping) -> str | None:
    """The end-of-run line on the further seeds (None without them): how many sampled claims held
    at every further seed, and those that did not with their counts."""
    further = (doc.get("meta", {}).get("seeds") or {}).get("further")
    if not further:
        return None
    counted = [c for c in doc["claims"] if (c.get("seeds") or {}).get("of")]
    shaky = [
        f"{c['id']} ({c['seeds']['held']} of {c['seeds']['of']})"
        for c in counted
        if c["seeds"]["held"] < c["seeds"]["of"]
    ]
    return (
        f"Seeds {', '.join(map(str, further))}: {len(counted) - len(shaky)} of {len(counted)} claims "
        "decided on sampled data kept their verdict at every further seed"
        + (f"; not: {', '.join(shaky)}" if shaky else "")
    )
