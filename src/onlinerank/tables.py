"""Tidy tables of the pipeline and the registry of the tables it writes.

:data:`TABLES` names every table computed from the config alone (closed forms, exact sums,
timings, the sampled Lemma 6.1 check): the config section that must be present, the module whose
code it runs, the config entries it reads, and the function making its rows.  The simulation
tables ``sim_<stage>`` are aggregated from replicate blocks (:func:`aggregate_stage`).
:data:`TABLE_STAGE` maps every table to its config section: a table whose section is absent is
not made, and the claims and figures that read it are not run.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .cells import STAGES, Cell, cell_game, cells_of
from .io import load_results
from .results import SimResult

__all__ = [
    "SIM_COLUMNS",
    "TABLE_COLUMNS",
    "TableSpec",
    "TABLES",
    "TABLE_STAGE",
    "make_table",
    "aggregate",
    "aggregate_stage",
    "bounds_rows",
    "lemma61_rows",
]


@dataclass(frozen=True)
class TableSpec:
    """How a table is made: ``make(config) -> rows``, from ``module``'s code (rerun tracking),
    reading the config entries ``keys``; made only when the config has section ``stage``."""

    stage: str
    module: str
    keys: tuple[str, ...]
    make: Callable[[dict], list[dict]]


def _lazy(module: str, fn: str, args: Callable[[dict], tuple]) -> Callable[[dict], list[dict]]:
    """``config -> onlinerank.<module>.<fn>(*args(config))``, the module imported by name when the
    table is made, so that the table registry does not make every table depend on every table's
    module (the code inputs follow imports statically)."""

    def make(config: dict) -> list[dict]:
        return getattr(importlib.import_module(f"onlinerank.{module}"), fn)(*args(config))

    return make


def _call(module: str, fn: str, *path: str, seed: bool = False) -> Callable[[dict], list[dict]]:
    """``config -> onlinerank.<module>.<fn>(config[path...] [, config["seed"]])``."""

    def args(config: dict) -> tuple:
        sec = config
        for key in path:
            sec = sec[key]
        return (sec, int(config["seed"])) if seed else (sec,)

    return _lazy(module, fn, args)


def _call_on(module: str, fn: str, *sections: str) -> Callable[[dict], list[dict]]:
    """``config -> onlinerank.<module>.<fn>(config[s1], config[s2], ...)``."""
    return _lazy(module, fn, lambda config: tuple(config[s] for s in sections))


def _bounds_table(stage: str) -> Callable[[dict], list[dict]]:
    """``config -> bounds_rows(config, stage)``."""
    return lambda config: bounds_rows(config, stage)


TABLES: dict[str, TableSpec] = {
    **{
        f"bounds_{s}": TableSpec(s, "tables", (s, "learners", "adversaries"), _bounds_table(s))
        for s in ("upper", "baselines", "spearman")
    },
    "lemma61": TableSpec(
        "lemma61", "tables", ("lemma61", "seed"), _call("tables", "lemma61_rows", "lemma61", seed=True)
    ),
    "worst_case": TableSpec(
        "worst_case", "worst_case", ("worst_case",), _call("worst_case", "worst_case_rows", "worst_case")
    ),
    "worst_case_learners": TableSpec(
        "worst_case",
        "worst_case_tables",
        ("worst_case", "learners"),
        _call_on("worst_case_tables", "comparison_rows", "worst_case", "learners"),
    ),
    "tightness": TableSpec(
        "worst_case",
        "worst_case_tables",
        ("worst_case",),
        _call("worst_case_tables", "tightness_rows", "worst_case"),
    ),
    "lower_curves": TableSpec(
        "lowerbound",
        "lower_tables",
        ("lowerbound",),
        _call("lower_tables", "exact_curve_rows", "lowerbound", "curves"),
    ),
    "lower_hc": TableSpec(
        "lowerbound", "lower_tables", ("lowerbound",), _call("lower_tables", "hc_rows", "lowerbound", "hc")
    ),
    "lower_abg": TableSpec(
        "lowerbound", "lower_tables", ("lowerbound",), _call("lower_tables", "abg_rows", "lowerbound", "abg")
    ),
    "lower_frequencies": TableSpec(
        "lowerbound",
        "lower_tables",
        ("lowerbound", "seed"),
        _call("lower_tables", "frequency_rows", "lowerbound", "frequencies", seed=True),
    ),
    "runtime": TableSpec(
        "runtime",
        "timing",
        ("runtime", "learners"),
        _call_on("timing", "runtime_rows", "learners", "runtime"),
    ),
    "bound_comparison": TableSpec(
        "bound_comparison",
        "comparison",
        ("bound_comparison",),
        _call("comparison", "bound_comparison_rows", "bound_comparison"),
    ),
}

#: the columns of the simulation tables (:func:`aggregate`)
SIM_COLUMNS = (
    "stage",
    "experiment",
    "adversary",
    "learner",
    "family",
    "n",
    "k",
    "T",
    "M",
    "eta",
    "t",
    "metric",
    "mean",
    "sem",
    "reps",
    "exact",
)
_BOUNDS = ("family", "n", "k", "T", "M", "eta_paper", "bound_paper", "bound_sharp", "bound_optimal")

#: every table's columns, in order: the claims' needs are checked against them before any job
#: runs, and the tests check them against the files written
TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    **{f"sim_{s}": SIM_COLUMNS for s in STAGES},
    **{f"bounds_{s}": _BOUNDS for s in ("upper", "baselines", "spearman")},
    "lemma61": ("sampler", "n", "samples", "u", "v", "p", "freq"),
    "worst_case": (
        "family",
        "n",
        "k",
        "T",
        "eta_factor",
        "eta",
        "M",
        "value",
        "bound_thm31",
        "bound_sharp",
        "ratio_thm31",
        "ratio_sharp",
        "states",
    ),
    "lower_curves": (
        "n",
        "k",
        "T",
        "scale",
        "exact",
        "asymptotic",
        "asymptotic_corrected",
        "holder",
        "sharp",
        "berry_esseen",
        "thm31_paper",
        "thm31_optimal",
        "h_holder",
    ),
    "worst_case_learners": (
        "family",
        "n",
        "k",
        "T",
        "learner",
        "learner_name",
        "kind",
        "method",
        "value",
        "bound_thm31",
        "bound_own",
        "ratio_thm31",
        "ratio_own",
        "states",
        "sequence",
    ),
    "tightness": (
        "family",
        "n",
        "k",
        "T",
        "eta_factor",
        "eta",
        "M",
        "kind",
        "method",
        "value",
        "bound_thm31",
        "bound_sharp",
        "ratio_thm31",
        "ratio_sharp",
        "states",
        "sequence",
    ),
    "lower_hc": ("n", "k", "c", "limit", "h_c"),
    "lower_abg": (
        "n",
        "k",
        "T",
        "j",
        "p",
        "mu",
        "sigma",
        "alpha",
        "beta",
        "gamma",
        "total",
        "alg_loss",
        "regret_lower",
        "scale",
        "alpha_clt",
        "beta_clt",
        "gamma_clt",
        "regret_clt",
        "kappa",
        "exact_regret",
        "exact_best_loss_position",
    ),
    "lower_frequencies": (
        "n",
        "k",
        "T",
        "reps",
        "x",
        "count",
        "freq",
        "pmf",
        "regret_mc_mean",
        "regret_mc_sem",
        "regret_exact",
    ),
    "runtime": (
        "learner",
        "name",
        "n",
        "part",
        "repeat",
        "seconds_per_round",
        "rounds_timed",
        "sweeps_per_round",
    ),
    "bound_comparison": (
        "family",
        "sweep",
        "n",
        "k",
        "T",
        "method",
        "bound",
        "thm31",
        "ratio",
        "claimed",
        "claimed_value",
        "ratio_over_claimed",
    ),
}

#: every table -> the config section that makes it (simulation tables: their stage)
TABLE_STAGE: dict[str, str] = {**{f"sim_{s}": s for s in STAGES}, **{k: v.stage for k, v in TABLES.items()}}


def make_table(name: str, config: dict) -> list[dict]:
    """The rows of table ``name`` (see :data:`TABLES`)."""
    return TABLES[name].make(config)


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
    by_dir: dict[str, list[dict[str, SimResult]]] = {}
    for p in block_paths:
        by_dir.setdefault(Path(p).parent.as_posix(), []).append(load_results(p))
    rows = []
    for c in cells_of(config, stage):
        hits = [d for d in by_dir if d == c.group or d.endswith("/sim/" + c.group)]
        if len(hits) != 1:
            raise ValueError(f"expected the blocks of {c.group} exactly once, found {len(hits)}")
        rows.extend(aggregate(c, [blocks[c.key] for blocks in by_dir[hits[0]]]))
    return rows


def bounds_rows(config: dict, stage: str) -> list[dict]:
    """Theorem 3.1 bounds for every distinct game of ``stage`` (theory §3.2).

    ``bound_paper`` = n sqrt(T M ln 2) (paper's statement at eta_p); ``bound_sharp`` =
    C(n,2) ln2/eta_p + eta_p T M/2; ``bound_optimal`` = the sharp bound at its optimal eta.
    """
    from . import bounds

    seen = {}
    for c in cells_of(config, stage):
        seen[(c.family, c.n, c.k, c.T)] = cell_game(config, c)
    rows = []
    for (family, n, k, T), g in sorted(seen.items()):
        rows.append(
            {
                "family": family,
                "n": n,
                "k": k,
                "T": T,
                "M": g.M,
                "eta_paper": float(bounds.eta_paper(n, T, g.M)),
                "bound_paper": float(bounds.theorem31_paper(n, T, g.M)),
                "bound_sharp": float(bounds.theorem31(n, T, g.M)),
                "bound_optimal": float(bounds.theorem31_optimal(n, T, g.M)),
            }
        )
    return rows


def lemma61_rows(sec: dict, seed: int) -> list[dict]:
    """Lemma 6.1 sampled at size ``n``: for a random OnlineRank state (log-weights ~ N(0, 1.5²)),
    ``samples`` orders from each sampler (the simulator's per-row-seeded samplers) and the
    frequency of ``u before v`` on ``pairs`` random pairs, next to ``expit(a_u - a_v)``."""
    from .samplers import expit, plackett_luce_rows, quicksort_rows
    from .seeding import stream

    n, samples, pairs = int(sec["n"]), int(sec["samples"]), int(sec["pairs"])
    rng = stream(seed, "lemma61", n)
    a = rng.normal(scale=1.5, size=n)
    uv = np.array([rng.choice(n, 2, replace=False) for _ in range(pairs)])
    p = expit(a[uv[:, 0]] - a[uv[:, 1]])
    rows = []
    for name, fn in (("plackett-luce", plackett_luce_rows), ("quicksort", quicksort_rows)):
        seeds = stream(seed, "lemma61", n, name).integers(0, 2**63, size=samples, dtype=np.uint64)
        orders = fn(np.broadcast_to(a, (samples, n)).copy(), seeds)
        pos = np.empty_like(orders)
        np.put_along_axis(pos, orders, np.arange(n)[None, :], axis=1)
        freq = (pos[:, uv[:, 0]] < pos[:, uv[:, 1]]).mean(axis=0)
        rows += [
            {
                "sampler": name,
                "n": n,
                "samples": samples,
                "u": int(u),
                "v": int(v),
                "p": float(pp),
                "freq": float(f),
            }
            for (u, v), pp, f in zip(uv, p, freq, strict=True)
        ]
    return rows
