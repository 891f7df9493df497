"""Helpers shared by the claim builders: rows at the horizon, learner selection, cell labels,
one-interval-per-cell claims over a table of means."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from .registry import Context, make_cell
from .stats import asymptotic_exponent, bonferroni_t, normal_interval

if TYPE_CHECKING:
    from ..adversaries.base import Adversary
    from ..learners.base import Learner

__all__ = [
    "ratio_exponent_cell",
    "CELL_KEYS",
    "final",
    "learner_class",
    "adversary_class",
    "is_paper_algorithm",
    "at_paper_eta",
    "at_stated_eta",
    "sampler_of",
    "cell_params",
    "cell_label",
    "cell_inputs",
    "ratio_cells",
    "deterministic_method",
    "CLOSED_FORM_METHOD",
    "is_closed_form",
    "control_reason",
    "sampler_twins",
    "plays_role",
    "has_own_bound",
]

#: the parameters that identify a simulated cell
CELL_KEYS = ("experiment", "adversary", "learner", "family", "n", "k", "T")


def final(rows: Iterable[dict], metric: str = "regret") -> list[dict]:
    """The rows of ``metric`` at the horizon (t = T)."""
    return [r for r in rows if r["metric"] == metric and r["t"] == r["T"]]


def _registry(kind: str) -> Mapping[str, Any]:
    """The registry of learners (``kind`` ``"learners"``) or adversaries (``"adversaries"``): what
    the claims need to know about a plug-in, they ask its class."""
    # lazy: the plug-ins load the engine, which importing the claims must not (tests/test_catalog.py)
    from ..adversaries import ADVERSARIES
    from ..learners import LEARNERS

    return LEARNERS if kind == "learners" else ADVERSARIES


def adversary_class(ctx: Context, label: str) -> type[Adversary] | None:
    """The registered class of the adversary labelled ``label`` in the config (None if unknown)."""
    spec = ctx.settings.adversaries.get(label)
    return None if spec is None else _registry("adversaries").get(spec.name)


def learner_class(ctx: Context, label: str) -> type[Learner] | None:
    """The registered class of the learner labelled ``label`` in the config (None if unknown)."""
    spec = ctx.settings.learners.get(label)
    return None if spec is None else _registry("learners").get(spec.name)


def is_paper_algorithm(ctx: Context, label: str) -> bool:
    """Whether the learner labelled ``label`` is the paper's algorithm (OnlineRank, theory §2.1; its
    class declares :attr:`~onlinerank.learners.base.Learner.paper_algorithm`), at any rate."""
    cls = learner_class(ctx, label)
    return cls is not None and cls.paper_algorithm


def sampler_of(ctx: Context, label: str) -> str | None:
    """The sampler of the learner labelled ``label`` (theory §2.3, §2.4): what its class answers
    for its entry (:meth:`~onlinerank.learners.base.Learner.configured_sampler`: the entry's,
    else the constructor's default); ``None`` for a learner without a choice of sampler or an
    unknown one."""
    cls = learner_class(ctx, label)
    return None if cls is None else cls.configured_sampler(ctx.settings.learners[label].params)


def _configured_rate(ctx: Context, label: str) -> str | float | None:
    """The rate rule of the paper's algorithm labelled ``label`` (None for another learner)."""
    cls = learner_class(ctx, label)
    if cls is None or not cls.paper_algorithm:
        return None
    return cls.configured_rate(ctx.settings.learners[label].params)


def at_paper_eta(ctx: Context, label: str) -> bool:
    """The paper's algorithm configured at the paper's learning rate η_p (theory §3.2): the
    learner the paper's theorems are about.  Selected by its configured rate (its entry's
    ``eta``, the constructor's default when the entry names none), not by the rate its rows
    recorded: a learner meant to run at η_p that resolves another rate (the ``eta-0.1`` mutation)
    must still be tested by these claims, and fail them, rather than drop out of them."""
    return _configured_rate(ctx, label) == "paper"


def at_stated_eta(ctx: Context, label: str) -> bool:
    """The paper's algorithm at Corollary 3.2's own rate: η_p with the corollary's stated M (n,
    kn, n²/4)."""
    return _configured_rate(ctx, label) == "stated"


def plays_role(ctx: Context, label: str, role: str) -> bool:
    """Whether the adversary labelled ``label`` in the config declares ``role`` (one of
    :data:`onlinerank.adversaries.base.ROLES`, theory §3.4 and §4.1): the claims select adversaries
    by the part they play, never by name."""
    cls = adversary_class(ctx, label)
    return cls is not None and cls.has_role(role)


def has_own_bound(ctx: Context, label: str) -> bool:
    """Whether the learner labelled ``label`` states a regret bound of its own (its class overrides
    :meth:`~onlinerank.learners.base.Learner.regret_bound`, theory §3.2-§3.3): a sublinear guarantee."""
    cls = learner_class(ctx, label)
    return cls is not None and cls.implements("regret_bound")


def cell_params(r: dict) -> dict:
    """The parameters identifying a simulated cell (:data:`CELL_KEYS`) of a table row."""
    return {k: r[k] for k in CELL_KEYS if k in r}


def cell_label(r: dict) -> str:
    """A readable label of a simulated cell: experiment, adversary / learner, family, n, k, T."""
    k = f" k={r['k']}" if r.get("family") == "kchoice" else ""
    return f"{r['experiment']}: {r['adversary']} / {r['learner']}, {r['family']} n={r['n']}{k} T={r['T']}"


def deterministic_method(reps: int) -> str:
    """The method text of a cell whose replicates are all equal (a zero-width interval), or of a
    closed-form cell (no replicates, theory §4.6)."""
    if reps == 0:
        return CLOSED_FORM_METHOD
    return f"exact (deterministic: all {reps} replicates equal)"


#: the method of a cell computed from the adversary's closed form (theory §4.6): a row of a
#: simulation table with ``sem`` 0 and no replicates
CLOSED_FORM_METHOD = "exact (closed form over the adversary's i.i.d. sequence, theory §4.6; no sampling)"


def is_closed_form(r: dict) -> bool:
    """Whether a simulation-table row was computed from a closed form (theory §4.6) rather than
    simulated: a finite mean with no replicates."""
    return r["reps"] == 0 and math.isfinite(r["mean"])


def control_reason(ctx: Context, r: dict, twins: dict | None = None) -> str:
    """Why the simulated cell ``r`` cannot depend on the learner (empty: it can).

    * the adversary declares ``learner_independent`` (its sequence is i.i.d. and independent of
      the learner, so every learner's expected regret is the same, theory §4.1);
    * a QuickSort cell of the exact expected regret whose Plackett–Luce twin (same experiment,
      adversary, family, n, k, T) is in ``twins`` (:func:`sampler_twins`): by Lemma 6.1 both give
      OnlineRank the same expected loss every round, so the twin already tests the claim.
    """
    spec = ctx.settings.adversaries.get(r.get("adversary", ""))
    cls = adversary_class(ctx, r.get("adversary", ""))
    if spec is not None and cls is not None and getattr(cls, "learner_independent", False):
        return f"the {spec.name} adversary: every learner's expected regret is the same"
    if (
        twins is not None
        and r.get("metric", "regret") == "regret"
        and ctx.learner_spec(r["learner"]).get("sampler") == "quicksort"
    ):
        twin = twins.get(_twin_key(r))
        if twin is not None:
            same = (
                "bit-identical" if twin["mean"] == r["mean"] else f"differs by {r['mean'] - twin['mean']:.3g}"
            )
            return f"QuickSort = Plackett–Luce ({twin['learner']}) by Lemma 6.1 ({same})"
    return ""


def _twin_key(r: dict) -> tuple:
    return (r["experiment"], r["adversary"], r["family"], r["n"], r["k"], r["T"], r.get("eta"))


def _law(ctx: Context, kind: str, label: str) -> dict:
    """A learner's or adversary's law: its registered name and every constructor parameter (as
    configured, else the constructor's default), not its label."""
    spec = (ctx.settings.learners if kind == "learners" else ctx.settings.adversaries).get(label)
    if spec is None:
        return {"label": label}
    cls = _registry(kind).get(spec.name)
    names = [] if cls is None else [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    out = {"name": spec.name, **{k: v for k, v in spec.as_dict().items() if k != "name"}}
    for p in names:
        if p not in out:
            try:
                out[p] = spec.param(p)
            except KeyError:
                continue
    return out


def cell_inputs(ctx: Context, r: dict) -> dict:
    """What a simulated cell's value is computed from (:func:`~onlinerank.claims.registry.make_cell`'s
    ``inputs``): the game (family, n, k, T, M), the adversary's law, the learner's law with the rate
    it ran at (its ``eta`` column where finite, instead of the configured rule) and the metric — not
    the labels or the experiment.  Two learners at the same rate, such as ``eta: stated`` where
    Corollary 3.2's stated M is the exact M (subsets at even n, theory §3.2) and ``eta: paper``,
    have the same inputs."""
    learner = _law(ctx, "learners", r["learner"])
    eta = r.get("eta")
    if isinstance(eta, int | float) and math.isfinite(eta):
        learner = {**{k: v for k, v in learner.items() if k != "eta"}, "eta_value": float(eta)}
    return {
        "game": {k: r.get(k) for k in ("family", "n", "k", "T", "M")},
        "adversary": _law(ctx, "adversaries", r["adversary"]),
        "learner": learner,
        "metric": r.get("metric", "regret"),
    }


def sampler_twins(ctx: Context, rows: list[dict]) -> dict:
    """The Plackett–Luce OnlineRank rows of ``rows`` by (experiment, adversary, family, n, k, T, η)."""
    return {_twin_key(r): r for r in rows if sampler_of(ctx, r["learner"]) == "plackett-luce"}


def ratio_cells(
    ctx: Context,
    rows: list[dict],
    scale: Callable[[dict], float | np.ndarray],
    *,
    note: Callable[[dict], str] | None = None,
) -> list[dict]:
    """Cells ``mean / scale(row)`` with simultaneous Student-t intervals (``reps - 1`` degrees of
    freedom, Bonferroni over the rows); controls marked by :func:`control_reason`."""
    twins = sampler_twins(ctx, rows)
    out = []
    for r in rows:
        b = float(scale(r))
        sem = r["sem"]
        q, level = bonferroni_t(len(rows), ctx.alpha, max(1, r["reps"] - 1))
        lo, hi = normal_interval(r["mean"], sem, q)
        if sem == 0:
            method = deterministic_method(r["reps"])
        elif isinstance(sem, float) and math.isnan(sem):
            method = "one replicate: no interval"
        else:
            method = (
                f"Student t ({r['reps'] - 1} d.f.), Bonferroni over {len(rows)} cells (two-sided {level:.4g})"
            )
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
                control=control_reason(ctx, r, twins),
                inputs={**cell_inputs(ctx, r), "scale": b},
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
