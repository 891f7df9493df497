"""Learners (registry :data:`LEARNERS`).

Every module of this folder is imported once, here, in name order
(:func:`onlinerank.registry.discover`): a module defining a learner (``@register`` on a
:class:`~onlinerank.learners.base.Learner` subclass) is all a plug-in needs.
"""

from ..registry import discover
from .base import LEARNERS, Learner, make_learner, paper_algorithm, register

#: the modules found in this folder and imported (plug-in discovery)
MODULES = discover(__name__)

__all__ = ["LEARNERS", "Learner", "make_learner", "paper_algorithm", "register", "MODULES"]
