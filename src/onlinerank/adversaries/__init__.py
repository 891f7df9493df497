"""Adversaries (registry :data:`ADVERSARIES`).

Every module of this folder is imported once, here, in name order
(:func:`onlinerank.registry.discover`): a module defining an adversary (``@register`` on an
:class:`~onlinerank.adversaries.base.Adversary` subclass) is all a plug-in needs.
"""

from ..registry import discover
from .base import ADVERSARIES, Adversary, ChunkedDraws, make_adversary, register

#: the modules found in this folder and imported (plug-in discovery)
MODULES = discover(__name__)

__all__ = ["ADVERSARIES", "Adversary", "ChunkedDraws", "make_adversary", "register", "MODULES"]
