"""Learners (registry :data:`LEARNERS`).

Every module of this folder is imported once, here, in name order: a module defining a learner
(``@register`` on a :class:`~onlinerank.learners.base.Learner` subclass) is all a plug-in needs.
"""

import importlib
import pkgutil

from .base import LEARNERS, Learner, make_learner, register

#: the modules found in this folder and imported (plug-in discovery)
MODULES = tuple(
    importlib.import_module(f"{__name__}.{m.name}")
    for m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name)
    if m.name != "base"
)

__all__ = ["LEARNERS", "Learner", "make_learner", "register", "MODULES"]
