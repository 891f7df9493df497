"""Adversaries (registry :data:`ADVERSARIES`)."""

from . import cyclic, greedy, popularity, switching, trace, uniform  # noqa: F401  (register them)
from .base import ADVERSARIES, Adversary, ChunkedDraws, make_adversary, register
from .graded import GradedAdversary  # noqa: F401  (registers 'graded')
from .mallows import MallowsAdversary  # noqa: F401  (registers 'mallows')
from .reverse import ReverseAdversary  # noqa: F401  (registers 'reverse')

__all__ = ["ADVERSARIES", "Adversary", "ChunkedDraws", "make_adversary", "register"]
