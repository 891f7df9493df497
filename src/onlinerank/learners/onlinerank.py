"""OnlineRank (Algorithm 1, theory §2.1) with QuickSort or Plackett–Luce (Algorithms 2, 3).

State: the cumulative scores ``S`` (O(n) per replicate).  The ranking of round t satisfies
``P(u before v) = expit(eta (S_{t-1}(u) - S_{t-1}(v)))`` (Lemma 6.1), hence its exact expected
loss is linear in these marginals (theory §2.5), identical for both samplers.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from ..bounds import eta_text, resolve_eta, theorem31_sharp
from ..feedback import Feedback, FeedbackBlock
from ..game import Game
from ..logweights import LogWeights
from ..samplers import plackett_luce_rows, quicksort_rows
from .base import Learner, register

SAMPLERS = ("plackett-luce", "quicksort")

#: the figures' style of OnlineRank at the paper's rate, by sampler
SAMPLER_STYLE = {
    "plackett-luce": {
        "color": "#1f77b4",
        "marker": "o",
        "ls": "-",
        "mfc": "#1f77b4",
        "label": "OnlineRank, Plackett–Luce",
    },
    "quicksort": {
        "color": "#d62728",
        "marker": "s",
        "ls": "--",
        "mfc": "none",
        "label": "OnlineRank, QuickSort",
    },
}

#: styles of further OnlineRank variants of one sampler (other learning rates, ...): a hue of the
#: sampler's family of colours, a marker and a line style that no other learner uses
ONLINERANK_VARIANTS: dict[str, list[dict[str, Any]]] = {
    "plackett-luce": [
        {"color": "#17becf", "marker": "D", "ls": ":", "mfc": "#17becf"},
        {"color": "#393b79", "marker": "v", "ls": (0, (5, 1)), "mfc": "#393b79"},
        {"color": "#6baed6", "marker": "P", "ls": (0, (3, 1, 1, 1)), "mfc": "none"},
        {"color": "#08306b", "marker": "X", "ls": (0, (1, 1)), "mfc": "none"},
    ],
    "quicksort": [
        {"color": "#e377c2", "marker": "d", "ls": ":", "mfc": "none"},
        {"color": "#8c564b", "marker": "<", "ls": (0, (5, 1)), "mfc": "#8c564b"},
        {"color": "#fc8d59", "marker": "*", "ls": (0, (3, 1, 1, 1)), "mfc": "none"},
        {"color": "#67000d", "marker": "h", "ls": (0, (1, 1)), "mfc": "#67000d"},
    ],
}


def _param(spec: Mapping, key: str) -> Any:
    """Parameter ``key`` of an OnlineRank spec: the constructor's default when the spec names none
    (the one place OnlineRank's defaults live, as :meth:`onlinerank.settings.Spec.param`)."""
    return spec[key] if key in spec else _DEFAULTS[key]


def _eta_of(spec: Mapping) -> Any:
    """The ``eta`` of an OnlineRank spec: the constructor's default when the spec names none."""
    return _param(spec, "eta")


def _variant_index(spec: dict, label: str, learners: dict | None) -> int:
    """0 for the first OnlineRank learner of its sampler (the paper's η first, then config order),
    1, 2, ... for the others; without the config's learners, from the learning rate alone."""
    sampler = _param(spec, "sampler")
    if learners and learners.get(label) == spec:
        same = [
            key
            for key, s in learners.items()
            if s.get("name") == OnlineRank.name and _param(s, "sampler") == sampler
        ]
        same.sort(key=lambda key: _eta_of(learners[key]) != "paper")  # stable sort
        return same.index(label)
    eta = _eta_of(spec)
    if eta == "paper":
        return 0
    if eta == "optimal":
        return 1
    digest = int(hashlib.sha256(repr(eta).encode()).hexdigest(), 16)
    return 2 + digest % (len(ONLINERANK_VARIANTS["plackett-luce"]) - 1)


@register
class OnlineRank(Learner):
    """OnlineRank(V, eta, SortProc, T).

    Parameters
    ----------
    sampler : "plackett-luce" (Algorithm 3) or "quicksort" (Algorithm 2)
    eta : "paper" (``n sqrt(ln 2/(T M))``), "optimal" (``sqrt(n(n-1) ln 2/(T M))``), "stated"
        (the paper's rate with Corollary 3.2's stated M: n, kn, n^2/4) or a float
    """

    name = "onlinerank"
    exact = True
    paper_algorithm = True

    def __init__(self, sampler: str = "plackett-luce", eta: str | float = "paper") -> None:
        if sampler not in SAMPLERS:
            raise ValueError(f"unknown sampler {sampler!r}; choose from {', '.join(SAMPLERS)}")
        resolve_eta(eta, 2, 1, 1.0, "single")  # validate early
        self.sampler = sampler
        self.eta = eta

    @classmethod
    def configured_rate(cls, params: Mapping) -> str | float:
        """The rate rule ``eta`` of the entry ``params``, else the constructor's default."""
        return _param(params, "eta")

    @classmethod
    def configured_sampler(cls, params: Mapping) -> str:
        """The ``sampler`` of the entry ``params``, else the constructor's default."""
        return _param(params, "sampler")

    def eta_for(self, game: Game) -> float:
        """The learning rate this learner plays ``game`` at: its ``eta`` resolved for the game's
        n, T, M, family and k (theory §3.2).  :meth:`reset` and :meth:`regret_bound` take it from
        here, its one source."""
        return resolve_eta(self.eta, game.n, game.T, game.M, game.family, game.k)

    def regret_bound(self, game: Game) -> float:
        """The sharp Theorem 3.1 bound ``C(n,2) ln 2 / eta + eta T M / 2`` at this learner's eta
        for ``game`` (theory §3.2: valid for every eta > 0)."""
        return float(theorem31_sharp(game.n, game.T, game.M, self.eta_for(game)))

    @classmethod
    def orders(cls, sampler: str, logw: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        """One order of ``sampler`` per row of the log-weights ``logw`` (R, n), row r drawn from
        ``seeds[r]`` alone (uint64): :func:`~onlinerank.samplers.plackett_luce_rows` (Algorithm 3)
        or :func:`~onlinerank.samplers.quicksort_rows` (Algorithm 2), theory §2.2–§2.4.  The
        sampled Lemma 6.1 check (:func:`onlinerank.tables.lemma61_check.lemma61_rows`) draws its
        orders here."""
        if sampler not in SAMPLERS:
            raise ValueError(f"unknown sampler {sampler!r}; choose from {', '.join(SAMPLERS)}")
        rows = plackett_luce_rows if sampler == "plackett-luce" else quicksort_rows
        return rows(logw, seeds)

    @classmethod
    def plot_style(cls, spec: dict, label: str, learners: dict | None = None) -> dict:
        """By sampler (:data:`SAMPLER_STYLE`); OnlineRank learners of one sampler that differ
        (e.g. in η, theory §3.2) get different colours, markers and line styles
        (:data:`ONLINERANK_VARIANTS`), numbered without collisions when ``learners`` is given."""
        sampler = _param(spec, "sampler")
        st: dict[str, Any] = dict(SAMPLER_STYLE.get(sampler, SAMPLER_STYLE["plackett-luce"]))
        if _eta_of(spec) != "paper":
            st["label"] += f" ({eta_text(spec['eta'])})"
        i = _variant_index(spec, label, learners)
        if i > 0:
            variants = ONLINERANK_VARIANTS.get(sampler, ONLINERANK_VARIANTS["plackett-luce"])
            st.update(variants[(i - 1) % len(variants)])
        return st

    def reset(self, game: Game, reps: int) -> None:
        super().reset(game, reps)
        # the rate recorded in the simulation tables' eta column (bounds.ran_at_paper_eta reads it back)
        self.eta_value = self.eta_for(game)
        self.state = LogWeights(self.eta_value, reps, game.n)

    def _rank(self, seeds: np.ndarray) -> np.ndarray:
        return self.state.sample(self.sampler, seeds)

    def expected_loss(self, fb: Feedback) -> np.ndarray:
        if fb.items is not None:
            return self.state.expected_loss_items(fb.items)
        return self.state.expected_loss_dense(cast(np.ndarray, fb.values))

    def update(self, fb: Feedback) -> None:
        if fb.items is not None:
            self.state.add_items(fb.items)
        else:
            self.state.add_dense(cast(np.ndarray, fb.values))

    def play_block(
        self, block: FeedbackBlock, keys: np.ndarray | None, t0: int, exp_loss: np.ndarray, loss: np.ndarray
    ) -> bool:
        """Choice feedback: the whole block in one compiled call (``LogWeights.play_items``,
        bit-identical to the per-round path); dense feedback: the per-round path."""
        if block.items is None:
            return super().play_block(block, keys, t0, exp_loss, loss)
        self.state.play_items(block.items, self.sampler, keys, t0, exp_loss, loss)
        return True

    def log_weights(self) -> np.ndarray:
        """Log-weights ``eta * S`` (R, n) of the coming ranking's Bradley–Terry marginals."""
        return self.state.a

    def pair_probs(self) -> np.ndarray:
        return self.state.pair_probs()

    # --- exact worst-case DP hooks (onlinerank.worst_case) ----------------------------------------
    def scores_law(self) -> str:
        """Bradley–Terry on ``eta S`` (either sampler): symmetric in the items, translation-free."""
        return "symmetric"

    def set_scores(self, S: np.ndarray) -> None:
        S = np.asarray(S, dtype=np.float64)
        self.reps = S.shape[0]
        self.state = LogWeights(self.eta_value, self.reps, self.game.n)
        self.state.S = S

    def state_floats(self) -> int:
        return 8 * self.game.n

    # --- end of exact worst-case DP hooks ---------------------------------------------------------

    def describe(self) -> dict:
        return {
            "learner": self.name,
            "sampler": self.sampler,
            "eta": self.eta,
            "eta_value": getattr(self, "eta_value", None),
        }


#: OnlineRank's parameters when a spec names none (sampler, eta): the constructor's own defaults
_DEFAULTS = {
    key: p.default
    for key, p in inspect.signature(OnlineRank.__init__).parameters.items()
    if p.default is not inspect.Parameter.empty
}
