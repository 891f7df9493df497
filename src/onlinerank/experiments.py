"""From a pipeline config to experiment cells, replicate blocks and tidy tables.

The Snakemake rules only route files; everything they compute is here (ARCHITECTURE §1.1).

Config shape (``config/config.yaml``, validated by ``workflow/schemas/config.schema.yaml`` and
semantically by :func:`validate_config`)::

    seed: 1308
    learners:     {label: {name: <registered learner>, ...params}}
    adversaries:  {label: {name: <registered adversary>, ...params}}
    upper:
      block_size: 32
      experiments:
        - {name: ..., adversaries: [labels], learners: [labels], family: single,
           n: [..], k: [..], T: [..], replicates: 64}

A *cell* is one (experiment, adversary, learner, family, n, k, T); its replicates are split into
blocks of ``block_size`` (one job each).  The number of blocks depends only on the config.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .adversaries import ADVERSARIES, make_adversary
from .game import Game
from .learners import LEARNERS, make_learner
from .simulate import SimResult, simulate

__all__ = [
    "STAGES",
    "ConfigError",
    "Cell",
    "validate_config",
    "config_digest",
    "section_digest",
    "group_digest",
    "cells_of",
    "stage_cells",
    "groups_of",
    "find_group",
    "run_block",
    "run_group_block",
    "save_results",
    "load_results",
    "aggregate",
    "aggregate_stage",
    "bounds_rows",
    "write_csv",
    "atomic_write_text",
]


#: simulation stages of the pipeline: each has ``block_size`` and ``experiments`` in the config
STAGES = ("upper", "lower", "baselines", "spearman")


class ConfigError(ValueError):
    """An invalid configuration value; the message names the key and the value."""


@dataclass(frozen=True)
class Cell:
    """One experiment cell; ``path`` is its directory below ``results/sim``."""

    stage: str
    experiment: str
    adversary: str
    learner: str
    family: str
    n: int
    k: int
    T: int
    replicates: int
    block_size: int
    sample: bool = True

    @property
    def path(self) -> str:
        return (
            f"{self.stage}/{self.experiment}/{self.adversary}/{self.learner}/"
            f"{self.family}_n{self.n}_k{self.k}_T{self.T}"
        )

    @property
    def group(self) -> str:
        """The job directory: one job simulates every learner and horizon T of a grid point
        (Python and numba start-up dominate small cells, so cells are batched per job)."""
        return f"{self.stage}/{self.experiment}/{self.adversary}/{self.family}_n{self.n}_k{self.k}"

    @property
    def blocks(self) -> int:
        return math.ceil(self.replicates / self.block_size)

    def block_range(self, b: int) -> tuple[int, int]:
        lo = b * self.block_size
        return lo, min(self.replicates, lo + self.block_size)

    @property
    def stream_names(self) -> tuple:
        """Names of the adversary's random streams: shared by every learner of the cell."""
        return (self.stage, self.experiment, self.adversary, self.family, self.n, self.k, self.T)

    def game(self, M: float | None = None) -> Game:
        return Game(n=self.n, T=self.T, family=self.family, k=self.k, M=M)


def cell_game(config: dict, cell: Cell) -> Game:
    """The cell's :class:`Game`; graded feedback takes M from its adversary (``adv.M(n)``)."""
    M = None
    if cell.family == "graded":
        aspec = config["adversaries"][cell.adversary]
        adv = make_adversary(aspec["name"], **_spec_params(aspec))
        if not adv.implements("M"):
            raise ConfigError(
                f"config error at adversaries.{cell.adversary}: adversary "
                f"{aspec['name']!r} cannot state M for graded feedback"
            )
        M = float(adv.M(cell.n))
    return cell.game(M)


def _fail(key: str, value, why: str) -> None:
    raise ConfigError(f"config error at {key}: {why} (got {value!r})")


def _spec_params(spec: dict) -> dict:
    return {k: v for k, v in spec.items() if k != "name"}


def validate_config(config: dict) -> None:
    """Semantic checks beyond the JSON schema; raises :class:`ConfigError` naming key and value.

    Instantiates every learner and adversary (unknown names, bad parameters) and builds every
    :class:`Game` (n < 2, k > n, k > n/2 for k-choice, T < 1, ...), so nothing runs on a bad
    config.
    """
    for kind, registry, make in (
        ("learners", LEARNERS, make_learner),
        ("adversaries", ADVERSARIES, make_adversary),
    ):
        specs = config.get(kind, {})
        if not isinstance(specs, dict):
            _fail(kind, specs, "must be a mapping of label -> {name: ..., params}")
        for label, spec in specs.items():
            if not isinstance(spec, dict) or "name" not in spec:
                _fail(f"{kind}.{label}", spec, "must be a mapping with a 'name'")
            if spec["name"] not in registry:
                _fail(
                    f"{kind}.{label}.name",
                    spec["name"],
                    f"unknown {kind[:-1] if kind == 'learners' else 'adversary'}; known: "
                    f"{', '.join(sorted(registry))}",
                )
            try:
                make(spec["name"], **_spec_params(spec))
            except (TypeError, ValueError) as e:
                _fail(f"{kind}.{label}", spec, str(e))
    for stage in STAGES:
        sec = config.get(stage)
        if sec is None:
            continue
        bs = sec.get("block_size", 32)
        if isinstance(bs, bool) or not isinstance(bs, int) or bs < 1:
            _fail(f"{stage}.block_size", bs, "must be a positive integer")
        exps = sec.get("experiments", [])
        if not exps:
            _fail(f"{stage}.experiments", exps, "needs at least one experiment")
        names = set()
        for i, ex in enumerate(exps):
            where = f"{stage}.experiments[{i}]"
            name = ex.get("name")
            if name in names:
                _fail(f"{where}.name", name, "duplicate experiment name")
            names.add(name)
            for key, pool in (
                ("adversaries", config.get("adversaries", {})),
                ("learners", config.get("learners", {})),
            ):
                labels = ex.get(key, [])
                if not labels:
                    _fail(f"{where}.{key}", labels, "must list at least one label")
                for lab in labels:
                    if lab not in pool:
                        _fail(f"{where}.{key}", lab, f"not defined under top-level '{key}'")
            for key in ("n", "k", "T"):
                vals = ex.get(key, [1] if key == "k" else [])
                if not vals:
                    _fail(f"{where}.{key}", vals, "grid must not be empty")
            reps = ex.get("replicates")
            if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
                _fail(f"{where}.replicates", reps, "must be a positive integer")
        for cell in cells_of(config, stage):
            try:
                game = cell_game(config, cell)
            except ValueError as e:
                _fail(f"{stage}.experiments[{cell.experiment}]", (cell.n, cell.k, cell.T), str(e))
            try:
                adv = make_adversary(
                    config["adversaries"][cell.adversary]["name"],
                    **_spec_params(config["adversaries"][cell.adversary]),
                )
                adv.check(game)
                lrn = make_learner(
                    config["learners"][cell.learner]["name"], **_spec_params(config["learners"][cell.learner])
                )
                if hasattr(lrn, "check"):
                    lrn.check(game)
            except ValueError as e:
                _fail(f"{stage}.experiments[{cell.experiment}]", cell.adversary, str(e))
    _validate_runtime(config)


def _validate_runtime(config: dict) -> None:
    """The timing section: known labels; a learner with ``max_partial_sample_n`` must offer
    ``sample_first_step()`` (the lower-bound timing of its draw)."""
    sec = config.get("runtime")
    if not sec:
        return
    learners = config.get("learners", {})
    for lab in sec.get("learners", []):
        if lab not in learners:
            _fail("runtime.learners", lab, "not defined under top-level 'learners'")
    for key in ("max_n", "max_sample_n", "max_partial_sample_n"):
        for lab in sec.get(key, {}):
            if lab not in sec.get("learners", []):
                _fail(f"runtime.{key}", lab, "not one of runtime.learners")
    for lab, cap in sec.get("max_partial_sample_n", {}).items():
        if not LEARNERS[learners[lab]["name"]].implements("sample_first_step"):
            _fail(
                f"runtime.max_partial_sample_n.{lab}",
                cap,
                f"learner {learners[lab]['name']!r} cannot time a partial draw (no sample_first_step)",
            )


def config_digest(config: dict) -> str:
    """Short sha256 of the canonical JSON of the config (provenance)."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def section_digest(config: dict, *keys: str) -> str:
    """Digest of the named top-level config entries only (a step that reads just these reruns
    when one of them changes, and only then: the value is a Snakemake ``params``)."""
    return config_digest({k: config.get(k) for k in keys})


def group_digest(config: dict, group: str) -> str:
    """Digest of everything that determines the results of job directory ``group``: its cells
    (learner, horizon T, replicates, block size, sampling), the specs of its learners and
    adversary, the seed and the number of checkpoints.  Used as the ``params`` of the simulate
    rule, so that editing a grid, a learner or an adversary in the config reruns exactly the jobs
    it changes (Snakemake does not look inside the config by itself)."""
    cells = find_group(config, group)
    return config_digest(
        {
            "cells": [asdict(c) for c in cells],
            "learners": {c.learner: config["learners"][c.learner] for c in cells},
            "adversary": config["adversaries"][cells[0].adversary],
            "seed": config["seed"],
            "checkpoints": config.get("checkpoints", 12),
        }
    )


def cells_of(config: dict, stage: str = "upper") -> list[Cell]:
    """All cells of a stage, in a fixed order."""
    sec = config.get(stage) or {}
    bs = int(sec.get("block_size", 32))
    cells = []
    for ex in sec.get("experiments", []):
        for adv in ex["adversaries"]:
            for lrn in ex["learners"]:
                for n in ex["n"]:
                    for k in ex.get("k", [1]):
                        for T in ex["T"]:
                            cells.append(
                                Cell(
                                    stage,
                                    ex["name"],
                                    adv,
                                    lrn,
                                    ex["family"],
                                    int(n),
                                    int(k),
                                    int(T),
                                    int(ex["replicates"]),
                                    bs,
                                    bool(ex.get("sample", True)),
                                )
                            )
    return cells


def stage_cells(config: dict) -> dict[str, list[Cell]]:
    """Cells of every configured stage."""
    return {s: cells_of(config, s) for s in STAGES if config.get(s)}


def groups_of(config: dict, stage: str) -> dict[str, list[Cell]]:
    """Cells of a stage grouped by job directory (all horizons T of one grid point), T-sorted."""
    out: dict[str, list[Cell]] = {}
    for c in cells_of(config, stage):
        out.setdefault(c.group, []).append(c)
    return out


def find_group(config: dict, group: str) -> list[Cell]:
    """The cells of job directory ``group`` (raises ``KeyError`` if the config has none)."""
    stage = group.split("/", 1)[0]
    if stage in STAGES:
        cells = groups_of(config, stage).get(group)
        if cells:
            return cells
    raise KeyError(f"no cells {group!r} in the config")


def run_group_block(config: dict, group: str, block: int, progress=None) -> dict[tuple[str, int], SimResult]:
    """Simulate block ``block`` of every cell (every learner and T) of job directory ``group``;
    keys are (learner label, T)."""
    return {(c.learner, c.T): run_block(config, c, block, progress) for c in find_group(config, group)}


def run_block(config: dict, cell: Cell, block: int, progress=None) -> SimResult:
    """Simulate replicates of block ``block`` of ``cell``."""
    lspec = config["learners"][cell.learner]
    aspec = config["adversaries"][cell.adversary]
    learner = make_learner(lspec["name"], **_spec_params(lspec))
    adversary = make_adversary(aspec["name"], **_spec_params(aspec))
    lo, hi = cell.block_range(block)
    res = simulate(
        learner,
        adversary,
        cell_game(config, cell),
        hi - lo,
        seed=int(config["seed"]),
        cell=cell.stream_names,
        rep_start=lo,
        learner_label=cell.learner,
        K=int(config.get("checkpoints", 12)),
        sample=cell.sample,
        progress=progress,
    )
    res.meta.update(
        {"cell": cell.path, "block": block, "learner_label": cell.learner, "adversary_label": cell.adversary}
    )
    return res


def _atomic_target(path: Path) -> tuple[int, str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    return tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")


def save_results(results: dict[tuple[str, int], SimResult], path: str | os.PathLike) -> None:
    """Write the blocks of several cells to one ``.npz`` atomically (temp file + rename; no
    pickles).  Arrays are stored as ``{learner}|T{T}|{name}``."""
    arrays = {}
    for (lab, T), res in sorted(results.items()):
        p = f"{lab}|T{T}|"
        arrays.update(
            {
                p + "t": res.t,
                p + "loss": res.loss,
                p + "exp_loss": res.exp_loss,
                p + "best": res.best,
                p + "reps": res.reps,
                p + "meta": np.array(json.dumps(res.meta, sort_keys=True)),
            }
        )
        arrays.update({f"{p}extra_{k}": v for k, v in sorted(res.extra.items())})
    path = Path(path)
    fd, tmp = _atomic_target(path)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def load_results(path: str | os.PathLike) -> dict[tuple[str, int], SimResult]:
    """Read a file written by :func:`save_results` (``allow_pickle=False``)."""
    out = {}
    with np.load(path, allow_pickle=False) as z:
        keys = sorted({tuple(k.split("|")[:2]) for k in z.files})
        for lab, Tt in keys:
            p = f"{lab}|{Tt}|"
            extra = {k[len(p) + 6 :]: z[k] for k in z.files if k.startswith(p + "extra_")}
            out[(lab, int(Tt[1:]))] = SimResult(
                z[p + "t"],
                z[p + "loss"],
                z[p + "exp_loss"],
                z[p + "best"],
                z[p + "reps"],
                json.loads(str(z[p + "meta"])),
                extra,
            )
    return out


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write text atomically (temp file in the same directory + rename)."""
    path = Path(path)
    fd, tmp = _atomic_target(path)
    try:
        with os.fdopen(fd, "w", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _fmt(x) -> str:
    if isinstance(x, float | np.floating):
        return repr(float(x)) if math.isfinite(x) else ("nan" if math.isnan(x) else repr(float(x)))
    return str(x)


def write_csv(path: str | os.PathLike, rows: list[dict]) -> None:
    """Tidy CSV with deterministic formatting (floats by ``repr``), written atomically."""
    buf = io.StringIO()
    if rows:
        w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: _fmt(v) for k, v in r.items()})
    atomic_write_text(path, buf.getvalue())


def _mean_sem(x: np.ndarray) -> tuple[float, float]:
    x = x[np.isfinite(x)]
    if x.size == 0:
        return math.nan, math.nan
    m = float(np.mean(x))
    s = float(np.std(x, ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.nan
    return m, s


def aggregate(cell: Cell, results: list[SimResult]) -> list[dict]:
    """Tidy rows (one per checkpoint and metric) from the blocks of one cell.

    Metrics: ``regret`` (exact expected regret), ``realised_regret``, ``loss``, ``exp_loss``,
    ``best``; each with mean, standard error and the number of replicates.
    """
    results = sorted(results, key=lambda r: int(r.reps[0]))
    reps = np.concatenate([r.reps for r in results])
    if not np.array_equal(reps, np.arange(cell.replicates)):
        raise ValueError(f"blocks of {cell.path} do not cover replicates 0..{cell.replicates - 1}")
    t = results[0].t
    arrays = {
        "regret": np.concatenate([r.regret for r in results]),
        "realised_regret": np.concatenate([r.realised_regret for r in results]),
        "exp_loss": np.concatenate([r.exp_loss for r in results]),
        "loss": np.concatenate([r.loss for r in results]),
        "best": np.concatenate([r.best for r in results]),
        **{name: np.concatenate([r.extra[name] for r in results]) for name in sorted(results[0].extra)},
    }
    meta = results[0].meta
    rows = []
    for j, tj in enumerate(t):
        for metric, arr in arrays.items():
            m, s = _mean_sem(arr[:, j])
            rows.append(
                {
                    "stage": cell.stage,
                    "experiment": cell.experiment,
                    "adversary": cell.adversary,
                    "learner": cell.learner,
                    "family": cell.family,
                    "n": cell.n,
                    "k": cell.k,
                    "T": cell.T,
                    "M": meta["M"],
                    "eta": meta.get("learner_eta_value") or math.nan,
                    "t": int(tj),
                    "metric": metric,
                    "mean": m,
                    "sem": s,
                    "reps": int(np.isfinite(arr[:, j]).sum()),
                    "exact": bool(meta.get("exact_expected_loss", False)),
                }
            )
    return rows


def aggregate_stage(config: dict, stage: str, block_paths: list[str]) -> list[dict]:
    """Tidy rows of every cell of ``stage`` from its block files (matched by cell directory)."""
    by_dir: dict[str, list[dict[tuple[str, int], SimResult]]] = {}
    for p in block_paths:
        by_dir.setdefault(Path(p).parent.as_posix(), []).append(load_results(p))
    rows = []
    for c in cells_of(config, stage):
        hits = [d for d in by_dir if d == c.group or d.endswith("/sim/" + c.group)]
        if len(hits) != 1:
            raise ValueError(f"expected the blocks of {c.group} exactly once, found {len(hits)}")
        rows.extend(aggregate(c, [blocks[(c.learner, c.T)] for blocks in by_dir[hits[0]]]))
    return rows


def bounds_rows(config: dict, stage: str) -> list[dict]:
    """Theorem 3.1 bounds for every distinct game of ``stage`` (THEORY §3.2).

    ``bound_paper`` = n sqrt(T M ln 2) (paper's statement at eta_p); ``bound_sharp`` =
    C(n,2) ln2/eta_p + eta_p T M/2; ``bound_optimal`` = the sharp bound at its optimal eta.
    """
    from . import bounds

    seen = {}
    for c in cells_of(config, stage):
        g = cell_game(config, c)
        seen[(c.family, c.n, c.k, c.T)] = g
    rows = []
    for (family, n, k, T), g in sorted(seen.items()):
        eta_p = float(bounds.eta_paper(n, T, g.M))
        rows.append(
            {
                "family": family,
                "n": n,
                "k": k,
                "T": T,
                "M": g.M,
                "eta_paper": eta_p,
                "bound_paper": float(bounds.theorem31_paper(n, T, g.M)),
                "bound_sharp": float(bounds.theorem31(n, T, g.M)),
                "bound_optimal": float(bounds.theorem31_optimal(n, T, g.M)),
            }
        )
    return rows
