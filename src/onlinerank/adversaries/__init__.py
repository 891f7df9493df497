"""Adversaries (registry :data:`ADVERSARIES`).

Every module of this folder is imported once, here, in name order: a module defining an
adversary (``@register`` on an :class:`~onlinerank.adversaries.base.Adversary` subclass) is all a
plug-in needs.
"""

import importlib
import pkgutil

from .base import ADVERSARIES, Adversary, ChunkedDraws, make_adversary, register

#: the modules found in this folder and imported (plug-in discovery)
MODULES = tuple(
    importlib.import_module(f"{__name__}.{m.name}")
    for m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name)
    if m.name != "base"
)

__all__ = ["ADVERSARIES", "Adversary", "ChunkedDraws", "make_adversary", "register", "MODULES"]
