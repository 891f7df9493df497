"""OnlineRank (Algorithm 1, theory §2.1) with QuickSort or Plackett–Luce (Algorithms 2, 3).

State: the cumulative scores ``S`` (O(n) per replicate).  The ranking of round t satisfies
``P(u before v) = expit(eta (S_{t-1}(u) - S_{t-1}(v)))`` (Lemma 6.1), hence its exact expected
loss is linear in these marginals (theory §2.5), identical for both samplers.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from ..bounds import resolve_eta
from ..feedback import Feedback, FeedbackBlock
from ..game import Game
from ..logweights import LogWeights
from .base import Learner, register

SAMPLERS = ("plackett-luce", "quicksort")


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

    def __init__(self, sampler: str = "plackett-luce", eta: str | float = "paper") -> None:
        if sampler not in SAMPLERS:
            raise ValueError(f"unknown sampler {sampler!r}; choose from {', '.join(SAMPLERS)}")
        resolve_eta(eta, 2, 1, 1.0, "single")  # validate early
        self.sampler = sampler
        self.eta = eta

    def reset(self, game: Game, reps: int) -> None:
        super().reset(game, reps)
        self.eta_value = resolve_eta(self.eta, game.n, game.T, game.M, game.family, game.k)
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
