"""onlinerank — reproducible verification of Ailon, "Online Ranking: Discrete Choice, Spearman
Correlation and Other Feedback" (arXiv 1308.6797).

Public API (stable):

* samplers (theory §2): :func:`plackett_luce`, :func:`quicksort`, :func:`pair_probs`
* losses (theory §1): :func:`position_loss`, :func:`pairwise_loss`, :func:`complexity_M`
* the algorithm: :class:`OnlineRank`; the engine: :func:`simulate`, :class:`Game`
* exact regret of an explicit sequence: :func:`exact_expected_regret`
* bounds: ``onlinerank.bounds.theorem31(n, T, M, eta=None)`` and friends
* lower bound: ``onlinerank.lowerbound``; exact worst case: ``onlinerank.worst_case``

Importing the package does not import scipy (modules needing it import it themselves).
"""

from . import bounds
from .adversaries import ADVERSARIES, Adversary, make_adversary
from .feedback import Feedback, complexity_M, family_M, pairwise_loss, position_loss
from .game import Game
from .hindsight import best_order, hindsight_loss
from .learners import LEARNERS, Learner, make_learner
from .learners.onlinerank import OnlineRank
from .samplers import pair_probs, plackett_luce, quicksort
from .simulate import SimResult, exact_expected_regret, simulate

__version__ = "0.1.0"

__all__ = [
    "ADVERSARIES",
    "Adversary",
    "Feedback",
    "Game",
    "LEARNERS",
    "Learner",
    "OnlineRank",
    "SimResult",
    "best_order",
    "bounds",
    "complexity_M",
    "exact_expected_regret",
    "family_M",
    "hindsight_loss",
    "make_adversary",
    "make_learner",
    "pair_probs",
    "pairwise_loss",
    "plackett_luce",
    "position_loss",
    "quicksort",
    "simulate",
    "__version__",
]
