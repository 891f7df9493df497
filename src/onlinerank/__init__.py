"""onlinerank — reproducible verification of Ailon, "Online Ranking: Discrete Choice, Spearman
Correlation and Other Feedback" (arXiv 1308.6797).

Public API (stable):

* samplers (theory §2): :func:`~onlinerank.samplers.plackett_luce`,
  :func:`~onlinerank.samplers.quicksort`, :func:`~onlinerank.samplers.pair_probs`
* losses (theory §1): :func:`~onlinerank.feedback.position_loss`,
  :func:`~onlinerank.feedback.pairwise_loss`, :func:`~onlinerank.feedback.complexity_M`
* the algorithm: :class:`~onlinerank.learners.onlinerank.OnlineRank`; the engine:
  :func:`~onlinerank.simulate.simulate`, :class:`~onlinerank.game.Game`
* exact regret of an explicit sequence: :func:`~onlinerank.simulate.exact_expected_regret`
* bounds: ``onlinerank.bounds.theorem31(n, T, M, eta=None)`` and friends
* lower bound: ``onlinerank.lowerbound``; exact worst case: ``onlinerank.worst_case``

Importing the package imports none of its modules: each public name is loaded on first use, so
that a part of the package (the claims, the figures, the table schemas) loads only what it uses.
No module imports scipy at import time (modules needing it import it where they call it).
"""

import importlib
import sys
import types
from typing import Any

#: public name -> the submodule defining it, imported on first access (PEP 562), so that importing
#: one part of the package (the claims, the figures, the table schemas) does not load the engine
_PUBLIC = {
    "bounds": "",
    "ADVERSARIES": "adversaries",
    "Adversary": "adversaries",
    "make_adversary": "adversaries",
    "Feedback": "feedback",
    "complexity_M": "feedback",
    "family_M": "feedback",
    "pairwise_loss": "feedback",
    "position_loss": "feedback",
    "Game": "game",
    "best_order": "hindsight",
    "hindsight_loss": "hindsight",
    "LEARNERS": "learners",
    "Learner": "learners",
    "make_learner": "learners",
    "OnlineRank": "learners.onlinerank",
    "pair_probs": "samplers",
    "plackett_luce": "samplers",
    "quicksort": "samplers",
    "SimResult": "simulate",
    "exact_expected_regret": "simulate",
    "simulate": "simulate",
}


def __getattr__(name: str) -> Any:
    """The public API, imported lazily from its module (``onlinerank.simulate`` is both a module
    and the function of that name: the attribute is the function)."""
    where = _PUBLIC.get(name)
    if where is None:
        raise AttributeError(f"module 'onlinerank' has no attribute {name!r}")
    if where == "":
        return importlib.import_module(f"{__name__}.{name}")
    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))


class _Package(types.ModuleType):
    """The package's module type: when the import system binds the loaded submodule
    ``onlinerank.simulate`` as the package's attribute ``simulate``, the attribute stays the public
    function of that name (as it was when the package imported its API eagerly)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "simulate" and isinstance(value, types.ModuleType):
            value = value.simulate
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


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
