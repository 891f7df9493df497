"""Adversaries (registry :data:`ADVERSARIES`)."""

from . import uniform  # noqa: F401  (register the adversaries)
from .base import ADVERSARIES, Adversary, ChunkedDraws, make_adversary, register

__all__ = ["ADVERSARIES", "Adversary", "ChunkedDraws", "make_adversary", "register"]
