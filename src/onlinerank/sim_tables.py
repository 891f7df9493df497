"""The simulation tables ``sim_<stage>``, aggregated from replicate blocks or computed from a closed
form (:func:`aggregate_stage`, rule ``aggregate``).  Their columns are declared in
:mod:`onlinerank.tables.simulation`.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .cells import Cell, cell_game, cells_of, pair_law, spec_params
from .io import load_results
from .learners import make_learner
from .results import SimResult
from .settings import Settings
from .simulate import checkpoints

__all__ = [
    "aggregate",
    "aggregate_stage",
    "closed_form_rows",
]


def _mean_sem(x: np.ndarray) -> tuple[float, float]:
    x = x[np.isfinite(x)]
    if x.size == 0:
        return math.nan, math.nan
    m = float(np.mean(x))
    s = float(np.std(x, ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.nan
    return m, s


def _cell_columns(cell: Cell) -> dict:
    """The columns of a simulation table's row that name its cell."""
    return {
        "stage": cell.stage,
        "experiment": cell.experiment,
        "adversary": cell.adversary,
        "learner": cell.learner,
        "family": cell.family,
        "n": cell.n,
        "k": cell.k,
        "T": cell.T,
    }


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
                    **_cell_columns(cell),
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


def closed_form_rows(settings: Settings, cell: Cell) -> list[dict]:
    """The rows of :func:`aggregate` for a closed-form cell (theory §4.6), computed, not
    simulated: at every checkpoint every learner's exact expected regret (``regret``), expected
    loss (``exp_loss``) and the hindsight optimum's (``best``), with ``sem`` 0 and ``reps`` 0 (no
    replicates); ``realised_regret`` and ``loss`` are NaN (no rankings are drawn)."""
    # lazy: the closed forms load SciPy, which a stage without closed-form cells does not need
    from .iid_regret import expected_loss, expected_regret

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
                    **_cell_columns(cell),
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


def aggregate_stage(settings: Settings, stage: str, block_paths: list[str]) -> list[dict]:
    """Tidy rows of every cell of ``stage``: from its block files (matched by cell directory), or
    from the closed form (:func:`closed_form_rows`)."""
    by_dir: dict[str, list[dict[str, SimResult]]] = {}
    for p in block_paths:
        by_dir.setdefault(Path(p).parent.as_posix(), []).append(load_results(p))
    rows = []
    for c in cells_of(settings, stage):
        if c.closed_form:
            rows.extend(closed_form_rows(settings, c))
            continue
        hits = [d for d in by_dir if d == c.group or d.endswith("/sim/" + c.group)]
        if len(hits) != 1:
            raise ValueError(f"expected the blocks of {c.group} exactly once, found {len(hits)}")
        rows.extend(aggregate(c, [blocks[c.key] for blocks in by_dir[hits[0]]]))
    return rows
