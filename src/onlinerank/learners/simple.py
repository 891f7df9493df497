"""Two reference learners: Follow-the-Leader and the uniformly random ranking (THEORY §3.3)."""

from __future__ import annotations

import numpy as np

from ..feedback import Feedback
from ..game import Game
from .base import Learner, register


@register
class FollowTheLeader(Learner):
    """Deterministic: sort by cumulative score, ties broken by item id (stable).

    Its expected loss is its (deterministic) realised loss.  Suffers linear regret against the
    cyclic "least-favoured item" adversary with its default tie rule (``ties="high"``: among
    tied lowest scores it picks the item FTL ranks last); with ``ties="low"`` FTL's regret is 0.
    """

    name = "ftl"
    exact = True

    def reset(self, game: Game, reps: int) -> None:
        super().reset(game, reps)
        self.S = np.zeros((reps, game.n))

    def _order(self) -> np.ndarray:
        return np.argsort(-self.S, axis=1, kind="stable")

    def rank(self, seeds: np.ndarray) -> np.ndarray:
        return self._order()

    def expected_loss(self, fb: Feedback) -> np.ndarray:
        return fb.pairwise_loss(self._order())

    def update(self, fb: Feedback) -> None:
        fb.add_to(self.S)

    # --- exact worst-case DP hooks (onlinerank.worst_case) ----------------------------------------
    def scores_law(self) -> str:
        """Sort by ``S``, ties by item id: translation-free but not symmetric in the items."""
        return "labelled"

    def set_scores(self, S: np.ndarray) -> None:
        self.S = np.array(S, dtype=np.float64)
        self.reps = self.S.shape[0]

    # --- end of exact worst-case DP hooks ---------------------------------------------------------


@register
class UniformRanking(Learner):
    """A uniformly random ranking every round: ``E[ellell] = 1/2 sum_{u<v} |s_u - s_v|``."""

    name = "uniform"
    exact = True

    def rank(self, seeds: np.ndarray) -> np.ndarray:
        n = self.game.n
        return np.stack([np.random.default_rng(int(x)).permutation(n) for x in seeds])

    def expected_loss(self, fb: Feedback) -> np.ndarray:
        return 0.5 * fb.pair_abs_sum()

    def update(self, fb: Feedback) -> None:
        pass

    # --- exact worst-case DP hooks (onlinerank.worst_case) ----------------------------------------
    def scores_law(self) -> str:
        """The same law in every state."""
        return "symmetric"

    def set_scores(self, S: np.ndarray) -> None:
        self.reps = np.asarray(S).shape[0]

    def state_floats(self) -> int:
        return self.game.n

    # --- end of exact worst-case DP hooks ---------------------------------------------------------
