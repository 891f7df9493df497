"""Columns shared by the worst-case tables (:mod:`.exact_worst_case`, :mod:`.worst_case_comparisons`;
theory §3.4), one meaning each."""

from __future__ import annotations

from ..settings import Settings, WorstCase
from .base import Column

VALUE_WC = Column(
    "value", "worst-case expected regret found (exact, or a lower bound by an adversary)", "loss"
)
BOUND_THM31 = Column("bound_thm31", "Theorem 3.1 at the paper's rate, n sqrt(T M ln 2) (theory §3.2)", "loss")
BOUND_SHARP = Column("bound_sharp", "Theorem 3.1 in sharp form at this η, C(n,2) ln 2/η + η T M/2", "loss")
RATIO_THM31 = Column("ratio_thm31", "value / bound_thm31")
RATIO_SHARP = Column("ratio_sharp", "value / bound_sharp (the tightness)")
STATES = Column("states", "dynamic-program states (or sequences / states visited by a search)")
KIND = Column("kind", "exact (the dynamic program's worst case) or a lower bound on it (adversary, search)")
METHOD_WC = Column("method", "exact, an adversary's name, staircase or beam")
SEQUENCE = Column("sequence", "the feedback sequence attaining the value (items per round), if recorded")


def section(settings: Settings) -> WorstCase:
    """The settings' ``worst_case`` (the tables are made only when the config has it)."""
    assert settings.worst_case is not None
    return settings.worst_case
