"""The simulation tables ``sim_<stage>``, aggregated from replicate blocks or computed from a closed
form (:func:`aggregate_stage`), and the builders of two config-only tables: Theorem 3.1's bounds per
stage (:func:`bounds_rows`) and the sampled Lemma 6.1 check (:func:`lemma61_rows`).  Every table's
name, columns and builder are declared in :mod:`onlinerank.table_schemas`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .cells import Cell, cell_game, cells_of, pair_law, spec_params
from .io import load_results
from .results import SimResult

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .settings import Lemma61, Settings

__all__ = [
    "aggregate",
    "aggregate_stage",
    "closed_form_rows",
    "bounds_rows",
    "lemma61_rows",
]


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


def closed_form_rows(config: Settings | Mapping, cell: Cell) -> list[dict]:
    """The rows of :func:`aggregate` for a closed-form cell (theory §4.6), computed, not
    simulated: at every checkpoint every learner's exact expected regret (``regret``), expected
    loss (``exp_loss``) and the hindsight optimum's (``best``), with ``sem`` 0 and ``reps`` 0 (no
    replicates); ``realised_regret`` and ``loss`` are NaN (no rankings are drawn)."""
    from .iid_regret import expected_loss, expected_regret
    from .learners import make_learner
    from .settings import as_settings
    from .simulate import checkpoints

    settings = as_settings(config)
    game = cell_game(settings, cell)
    law = pair_law(settings, cell.adversary, game)
    if law is None:
        raise ValueError(f"cell {cell.path}: adversary {cell.adversary!r} has no closed form")
    lspec = settings.learner(cell.learner)
    learner = make_learner(lspec["name"], **spec_params(lspec))
    learner.check(game)
    learner.reset(game, 1)  # resolves its rate for the eta column, as in a simulation
    eta = learner.describe().get("eta_value") or math.nan
    rows = []
    for t in checkpoints(cell.T, settings.checkpoints):
        regret = expected_regret(cell.n, law, int(t))
        loss = expected_loss(cell.n, law, int(t))
        values = {
            "regret": (regret, 0.0),
            "realised_regret": (math.nan, math.nan),
            "exp_loss": (loss, 0.0),
            "loss": (math.nan, math.nan),
            "best": (loss - regret, 0.0),
        }
        for metric, (mean, sem) in values.items():
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
                    "M": game.M,
                    "eta": eta,
                    "t": int(t),
                    "metric": metric,
                    "mean": mean,
                    "sem": sem,
                    "reps": 0,
                    "exact": True,
                }
            )
    return rows


def aggregate_stage(config: dict, stage: str, block_paths: list[str]) -> list[dict]:
    """Tidy rows of every cell of ``stage``: from its block files (matched by cell directory), or
    from the closed form (:func:`closed_form_rows`)."""
    by_dir: dict[str, list[dict[str, SimResult]]] = {}
    for p in block_paths:
        by_dir.setdefault(Path(p).parent.as_posix(), []).append(load_results(p))
    rows = []
    for c in cells_of(config, stage):
        if c.closed_form:
            rows.extend(closed_form_rows(config, c))
            continue
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


def lemma61_rows(sec: Lemma61, seed: int) -> list[dict]:
    """Lemma 6.1 sampled at size ``n``: for a random OnlineRank state (log-weights ~ N(0, 1.5²)),
    ``samples`` orders from each sampler of the registered OnlineRank
    (:meth:`~onlinerank.learners.onlinerank.OnlineRank.orders`: the simulator's per-row-seeded
    samplers) and the frequency of ``u before v`` on ``pairs`` random pairs, next to
    ``expit(a_u - a_v)``.  ``sec``: the typed settings' ``lemma61``
    (:class:`onlinerank.settings.Lemma61`)."""
    from .learners import LEARNERS
    from .learners.onlinerank import SAMPLERS, OnlineRank
    from .samplers import expit
    from .seeding import stream

    onlinerank = LEARNERS[OnlineRank.name]  # a variant substituted for it, in the mutation tests
    n, samples, pairs = sec.n, sec.samples, sec.pairs
    rng = stream(seed, "lemma61", n)
    a = rng.normal(scale=1.5, size=n)
    uv = np.array([rng.choice(n, 2, replace=False) for _ in range(pairs)])
    p = expit(a[uv[:, 0]] - a[uv[:, 1]])
    rows = []
    for name in SAMPLERS:
        seeds = stream(seed, "lemma61", n, name).integers(0, 2**63, size=samples, dtype=np.uint64)
        orders = onlinerank.orders(name, np.broadcast_to(a, (samples, n)).copy(), seeds)
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
