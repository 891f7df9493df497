"""The learner interface and registry (ARCHITECTURE §3).

A learner plays R independent replicates of the game at once.  Each round the simulator calls,
in this order: ``expected_loss(fb)`` (exact E[pairwise loss] of the coming ranking, or ``None``),
``rank(seeds)`` (one sampled order per replicate; replicate r's randomness comes only from
``seeds[r]``) and ``update(fb)``.  Adaptive adversaries may read the learner's *distribution*
(``log_weights``/``pair_probs``), never its sampled ranking.

A new learner is one module: subclass :class:`Learner`, set ``name``, decorate with
``@register``, import the module in ``learners/__init__.py``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..feedback import Feedback
from ..game import Game
from ..registry import Registry

__all__ = ["Learner", "LEARNERS", "register", "make_learner"]

LEARNERS = Registry("learner")
#: class decorator adding a learner to :data:`LEARNERS` under ``cls.name``
register = LEARNERS.register


def make_learner(name: str, **params) -> Learner:
    """Instantiate a registered learner by name; unknown names list the known ones."""
    return LEARNERS.make(name, **params)


class Learner:
    """Base class; see the module docstring for the protocol."""

    name: ClassVar[str] = ""
    #: True when ``expected_loss`` returns the exact expectation (no sampling)
    exact: ClassVar[bool] = True

    def reset(self, game: Game, reps: int) -> None:
        """Start a new game for ``reps`` replicates."""
        self.game = game
        self.reps = reps

    def rank(self, seeds: np.ndarray) -> np.ndarray:  # pragma: no cover - interface
        """One order (items best-first) per replicate, shape (R, n)."""
        raise NotImplementedError

    def expected_loss(self, fb: Feedback) -> np.ndarray | None:
        """Exact expected pairwise loss (R,) of the coming ranking against ``fb``, or None.

        Must accept any valid feedback batch, not only the game's family: adaptive adversaries
        probe the learner's distribution with candidate feedback (e.g. single items).
        """
        return None

    def update(self, fb: Feedback) -> None:  # pragma: no cover - interface
        """Observe the feedback of this round."""
        raise NotImplementedError

    def describe(self) -> dict:
        """Parameters that identify this learner in outputs."""
        return {"learner": self.name}

    # --- exact worst-case DP hooks (onlinerank.worst_case) ----------------------------------------
    # A learner whose law of the coming ranking is a function of the cumulative scores S alone can
    # be put "in state S" for a batch of states; the DP then asks its own expected_loss.

    def scores_law(self) -> str | None:
        """How the law of the coming ranking depends on the cumulative scores ``S`` (after reset):

        ``"symmetric"``: a function of ``S`` only, invariant under ``S -> S + c`` and equivariant
        under relabelling the items; ``"labelled"``: a function of ``S`` invariant under
        translation but not under relabelling (e.g. ties broken by item id); ``None``: not a
        function of ``S`` (internal randomness or history), so the exact DP refuses the learner.
        """
        return None

    def set_scores(self, S: np.ndarray) -> None:
        """Put the learner in the state reached after cumulative scores ``S`` (R, n), one
        replicate per row (the replicate count becomes R); needs a prior :meth:`reset`."""
        raise NotImplementedError(
            f"learner {self.name!r} cannot be put in a state S: its law is not a function of the "
            "cumulative scores"
        )

    def state_floats(self) -> int:
        """Floats of state per replicate (sizes the DP's batches of states); after reset."""
        return self.game.n * self.game.n

    # --- end of exact worst-case DP hooks ---------------------------------------------------------
