"""The result of simulating replicates of one cell: cumulative losses at checkpoints."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["SimResult"]


@dataclass
class SimResult:
    """Arrays at checkpoints ``t`` (K,): cumulative realised pairwise loss ``loss`` (R, K),
    cumulative exact expected loss ``exp_loss`` (R, K; NaN if the learner has none), hindsight
    optimum ``best`` (R, K).  ``regret = exp_loss - best`` (exact in the learner's randomness)."""

    t: np.ndarray
    loss: np.ndarray
    exp_loss: np.ndarray
    best: np.ndarray
    reps: np.ndarray
    meta: dict = field(default_factory=dict)
    #: optional per-checkpoint metrics from ``adversary.checkpoint_metrics(learner)``, name -> (R, K)
    extra: dict = field(default_factory=dict)

    @property
    def regret(self) -> np.ndarray:
        """Expected regret (exact over the learner's randomness) per replicate, (R, K)."""
        return self.exp_loss - self.best

    @property
    def realised_regret(self) -> np.ndarray:
        return self.loss - self.best
