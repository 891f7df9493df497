"""Two reference learners: Follow-the-Leader and the uniformly random ranking (theory §3.3)."""

from __future__ import annotations

import numpy as np

from ..feedback import Feedback, FeedbackBlock
from ..game import Game
from .base import Learner, register


def _check_items(items: np.ndarray, n: int) -> None:
    if items.size and (items.min() < 0 or items.max() >= n):
        raise ValueError(f"item ids must lie in 0..{n - 1}")


@register
class FollowTheLeader(Learner):
    """Deterministic: sort by cumulative score, ties broken by item id (stable).

    Its expected loss is its (deterministic) realised loss.  Suffers linear regret against the
    cyclic "least-favoured item" adversary with its default tie rule (``ties="high"``: among
    tied lowest scores it picks the item FTL ranks last); with ``ties="low"`` FTL's regret is 0.
    """

    name = "ftl"
    exact = True
    deterministic = True
    plot_color = "#7f7f7f"

    def reset(self, game: Game, reps: int) -> None:
        super().reset(game, reps)
        self.S = np.zeros((reps, game.n))

    def _order(self) -> np.ndarray:
        return np.argsort(-self.S, axis=1, kind="stable")

    def _rank(self, seeds: np.ndarray) -> np.ndarray:
        return self._order()

    def expected_loss(self, fb: Feedback) -> np.ndarray:
        return fb.pairwise_loss(self._order())

    def expected_positions(self) -> np.ndarray:
        """Each item's 0-based position in the (deterministic) order, as floats: the
        :meth:`expected_loss` of each single choice, at once."""
        order = self._order()
        pos = np.empty(order.shape)
        np.put_along_axis(pos, order, np.arange(order.shape[1], dtype=np.float64)[None, :], axis=1)
        return pos

    def update(self, fb: Feedback) -> None:
        fb.add_to(self.S)

    def play_block(
        self, block: FeedbackBlock, keys: np.ndarray | None, t0: int, exp_loss: np.ndarray, loss: np.ndarray
    ) -> bool:
        """Choice feedback: one compiled call (the positions of the chosen items are counted from
        the scores, no sort); dense feedback: the per-round path."""
        if block.items is None:
            return super().play_block(block, keys, t0, exp_loss, loss)
        from .._kernels.baselines import ftl_items  # lazy: numba loads the kernels where they run

        _check_items(block.items, self.game.n)
        ftl_items(self.S, block.items, exp_loss, loss, keys is not None)
        return True

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
    plot_color = "#bcbd22"

    def _rank(self, seeds: np.ndarray) -> np.ndarray:
        n = self.game.n
        return np.stack([np.random.default_rng(int(x)).permutation(n) for x in seeds])

    def expected_loss(self, fb: Feedback) -> np.ndarray:
        return 0.5 * fb.pair_abs_sum()

    def expected_positions(self) -> np.ndarray:
        """``(n - 1) / 2`` for every item: the :meth:`expected_loss` of each single choice."""
        return np.full((self.reps, self.game.n), 0.5 * float(self.game.n - 1))

    def update(self, fb: Feedback) -> None:
        pass

    def play_block(
        self, block: FeedbackBlock, keys: np.ndarray | None, t0: int, exp_loss: np.ndarray, loss: np.ndarray
    ) -> bool:
        """Choice feedback: ``B`` rounds of ``k(n-k)/2`` in one addition (the same float as B
        additions: every partial sum is a multiple of 1/2 below 2**51) and, when sampling, the
        orders of :meth:`_rank` (numpy's ``default_rng(seed).permutation``) drawn by the compiled
        copy of numpy's generator in :mod:`onlinerank._kernels.streams` (its docstring says what is
        copied and how the copy is pinned).  Otherwise the per-round path."""
        h = 2.0 * exp_loss
        if block.items is None or not np.array_equal(h, np.round(h)):
            return super().play_block(block, keys, t0, exp_loss, loss)
        k = block.items.shape[2]
        add = 0.5 * float(block.rounds * k * (self.game.n - k))
        if np.abs(exp_loss).max() + add >= 2.0**51:
            return super().play_block(block, keys, t0, exp_loss, loss)
        _check_items(block.items, self.game.n)
        if keys is not None:
            # lazy: numba loads the kernels where they run
            from .._kernels.baselines import uniform_items_loss

            uniform_items_loss(block.items, keys, int(t0), self.game.n, loss)
        exp_loss += add
        return True

    # --- exact worst-case DP hooks (onlinerank.worst_case) ----------------------------------------
    def scores_law(self) -> str:
        """The same law in every state."""
        return "symmetric"

    def set_scores(self, S: np.ndarray) -> None:
        self.reps = np.asarray(S).shape[0]

    def state_floats(self) -> int:
        return self.game.n

    # --- end of exact worst-case DP hooks ---------------------------------------------------------
