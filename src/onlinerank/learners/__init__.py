"""Learners (registry :data:`LEARNERS`)."""

from . import fpl, hedge, onlinerank, permelearn, simple  # noqa: F401  (register the learners)
from .base import LEARNERS, Learner, make_learner, register

__all__ = ["LEARNERS", "Learner", "make_learner", "register"]
