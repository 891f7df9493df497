"""Helpers shared by the claim builders: rows at the horizon, learner selection, cell labels,
one-interval-per-cell claims over a table of means."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np

from .registry import Context, make_cell
from .stats import asymptotic_exponent, bonferroni_z, normal_interval

__all__ = [
    "ratio_exponent_cell",
    "CELL_KEYS",
    "final",
    "is_onlinerank",
    "at_paper_eta",
    "cell_params",
    "cell_label",
    "ratio_cells",
    "deterministic_method",
]

#: the parameters that identify a simulated cell
CELL_KEYS = ("experiment", "adversary", "learner", "family", "n", "k", "T")


def final(rows: Iterable[dict], metric: str = "regret") -> list[dict]:
    """The rows of ``metric`` at the horizon (t = T)."""
    return [r for r in rows if r["metric"] == metric and r["t"] == r["T"]]


def is_onlinerank(ctx: Context, label: str) -> bool:
    return ctx.learner_spec(label).get("name") == "onlinerank"


def at_paper_eta(ctx: Context, label: str) -> bool:
    """OnlineRank at the paper's learning rate eta_p: the learner the paper's theorems are about."""
    spec = ctx.learner_spec(label)
    return spec.get("name") == "onlinerank" and spec.get("eta", "paper") == "paper"


def cell_params(r: dict) -> dict:
    return {k: r[k] for k in CELL_KEYS if k in r}


def cell_label(r: dict) -> str:
    k = f" k={r['k']}" if r.get("family") == "kchoice" else ""
    return f"{r['experiment']}: {r['adversary']} / {r['learner']}, {r['family']} n={r['n']}{k} T={r['T']}"


def deterministic_method(reps: int) -> str:
    return f"exact (deterministic: all {reps} replicates equal)"


def ratio_cells(
    ctx: Context,
    rows: list[dict],
    scale: Callable[[dict], float | np.ndarray],
    *,
    note: Callable[[dict], str] | None = None,
) -> list[dict]:
    """Cells ``mean / scale(row)`` with simultaneous normal intervals (Bonferroni over the rows)."""
    z, level = bonferroni_z(len(rows), ctx.alpha)
    out = []
    for r in rows:
        b = float(scale(r))
        lo, hi = normal_interval(r["mean"], r["sem"], z)
        sem = r["sem"]
        if sem == 0:
            method = deterministic_method(r["reps"])
        elif isinstance(sem, float) and math.isnan(sem):
            method = "one replicate: no interval"
        else:
            method = f"normal, Bonferroni over {len(rows)} cells (two-sided {level:.4g})"
        out.append(
            make_cell(
                ctx,
                cell_label(r),
                cell_params(r),
                r["mean"] / b,
                lo / b,
                hi / b,
                method=method,
                reps=r["reps"],
                note=note(r) if note else f"E[regret] {r['mean']:.6g}, scale {b:.6g}",
            )
        )
    return out


def ratio_exponent_cell(
    ctx: Context, label: str, params: dict, rows: list[dict], var: str, bound, key
) -> dict:
    """A growth finding: the local exponent in ``var`` of regret / ``bound(row)`` at the top of
    the grid (rows sorted by ``var``), with its bootstrap interval widened by the truncation
    estimate (:func:`~onlinerank.claims.stats.asymptotic_exponent`).  Fitting the ratio cancels
    the bound's own curvature on a finite grid (e.g. k(n-k) near k = n/2), so the truncation
    estimate measures how far the *regret's* growth is from the bound's.  ``params`` receive the
    regret's exponent (``estimate``, ``ci``) and the bound's (``reference``) for the figure."""
    b = [float(bound(r)) for r in rows]
    xs = [r[var] for r in rows]
    fit = asymptotic_exponent(
        xs,
        [r["mean"] / v for r, v in zip(rows, b, strict=True)],
        [r["sem"] / v for r, v in zip(rows, b, strict=True)],
        ctx.rng(*map(str, key)),
    )
    ref = math.log(b[-1] / b[-2]) / math.log(xs[-1] / xs[-2])
    local = ", ".join(f"{v:.3f}" for v in fit["local"])
    return make_cell(
        ctx,
        label,
        {
            **params,
            var: xs,
            "estimate": fit["estimate"] + ref,
            "ci": [fit["ci_low"] + ref, fit["ci_high"] + ref],
            "reference": ref,
        },
        fit["estimate"],
        fit["ci_low"],
        fit["ci_high"],
        method="local slope of regret/bound at the top of the grid; bootstrap 95% widened by the truncation",
        reps=rows[-1]["reps"],
        note=f"regret's exponent {fit['estimate'] + ref:.3f} vs the bound's {ref:.3f}; local slopes of "
        f"regret/bound {local}; truncation {fit['tau']:.3f}",
    )
