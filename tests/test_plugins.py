"""Plug-ins own their knowledge: a learner's own regret bound, plot style and timing counters, an
adversary's working memory and roles are hooks of its class (design §plugins).  A learner and an
adversary defined here, registered for one test and unregistered afterwards, are picked up by the
worst-case tables, the figures' styles, the command line's memory estimate, the timings and the
claims' selection, with no other file edited."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from onlinerank import cli
from onlinerank.adversaries import ADVERSARIES
from onlinerank.adversaries.base import BYTES_PER_PAIR, ROLES, pair_block_bytes
from onlinerank.adversaries.uniform import UniformAdversary
from onlinerank.claims.common import has_own_bound, plays_role
from onlinerank.game import Game
from onlinerank.learners import LEARNERS
from onlinerank.learners.simple import FollowTheLeader
from onlinerank.plotting import LEARNER_COLORS, learner_style
from onlinerank.timing import repeat_seconds, runtime_rows
from onlinerank.worst_case import exact_worst_regret, learner_bound
from onlinerank.worst_case_tables import comparison_rows

LEARNER, ADVERSARY = "test-plugin-learner", "test-plugin-adversary"


class PluginLearner(FollowTheLeader):
    """Follow-the-Leader with knowledge of its own: a made-up bound 3 n sqrt(T), a colour and a
    star marker, and a constant work counter of 7 sweeps per update."""

    name = LEARNER
    plot_color = "#123456"

    def regret_bound(self, game: Game) -> float:
        return 3.0 * game.n * math.sqrt(game.T)

    @classmethod
    def plot_style(cls, spec: dict, label: str, learners: dict | None = None) -> dict:
        return {**super().plot_style(spec, label, learners), "marker": "*"}

    def timing_counters(self) -> dict[str, float]:
        return {"sweeps": 7}


class PluginAdversary(UniformAdversary):
    """The uniform adversary declaring 1000 n^3 bytes of its own (independent of the replicates)
    and the role of the lower bound's random sequence."""

    name = ADVERSARY
    roles = frozenset({"random-sequence"})

    @classmethod
    def memory_bytes(cls, n: int, reps: int) -> int:
        return 1000 * n**3


@pytest.fixture
def plugins():
    LEARNERS.register(PluginLearner)
    ADVERSARIES.register(PluginAdversary)
    try:
        yield
    finally:
        del LEARNERS[LEARNER]
        del ADVERSARIES[ADVERSARY]


def test_the_worst_case_tables_divide_by_the_learners_own_bound(plugins):
    from onlinerank.config import load_settings

    section = {"learners": ["mine", "ftl"], "comparison": {"exact": [{"n": 3, "T": 4}]}}
    specs = {"mine": {"name": LEARNER}, "ftl": {"name": "ftl"}}
    config = {"seed": 0, "learners": specs, "adversaries": {"u": {"name": "uniform"}}, "worst_case": section}
    settings = load_settings(config)
    assert settings.worst_case is not None
    rows = {r["learner"]: r for r in comparison_rows(settings.worst_case, settings.learners, part="exact")}
    # the DP's value is Follow-the-Leader's: only the bound is the plug-in's
    value = exact_worst_regret(3, 4, learner="ftl").value
    assert rows["mine"]["value"] == rows["ftl"]["value"] == value > 0
    assert rows["mine"]["bound_own"] == 3.0 * 3 * math.sqrt(4) == 18.0
    assert rows["mine"]["ratio_own"] == value / 18.0
    assert math.isnan(rows["ftl"]["bound_own"])  # FTL states no bound of its own


def test_the_builtin_bounds_are_the_learners_own():
    g = Game(n=4, T=50)
    from onlinerank import bounds
    from onlinerank.learners import make_learner

    assert learner_bound(make_learner("onlinerank", eta=0.3), g) == float(
        bounds.theorem31_sharp(4, 50, g.M, 0.3)
    )
    assert learner_bound(make_learner("hedge"), g) == float(bounds.comparison_bound("hedge", "single", 4, 50))
    assert math.isnan(learner_bound(make_learner("hedge", beta=0.5), g))  # a hand-set rate: none
    sub = Game(n=4, T=50, family="subset")
    assert math.isnan(learner_bound(make_learner("fpl"), sub))  # the bound assumes |U| = n//2
    assert math.isnan(learner_bound(make_learner("ftl"), g))


def test_the_figures_ask_the_learner_for_its_style(plugins):
    st = learner_style({"name": LEARNER}, "mine")
    assert st == {"color": "#123456", "marker": "*", "ls": "-.", "mfc": "none", "label": "mine"}
    assert LEARNER_COLORS[LEARNER] == "#123456"
    # a spec naming no registered learner keeps the default style, with no colour of its own
    assert learner_style({"name": "nobody"}, "x")["color"] is None


def test_learner_colors_follow_the_registry():
    assert LEARNER not in LEARNER_COLORS
    assert {"hedge", "fpl", "permelearn", "ftl", "uniform"} <= set(LEARNER_COLORS)
    assert "onlinerank" not in LEARNER_COLORS  # styled by sampler, not by one colour


def test_the_memory_estimate_asks_the_adversary(plugins, monkeypatch, capsys):
    n, reps = 100, 2
    assert cli.estimate_memory(n, reps, ADVERSARY) - cli.estimate_memory(n, reps, "uniform") == 1000 * n**3
    assert (
        cli.estimate_memory(n, reps, "greedy") - cli.estimate_memory(n, reps, "uniform")
        == BYTES_PER_PAIR * 2**22
    )
    assert pair_block_bytes(3000) == BYTES_PER_PAIR * 3000**2
    # refused: the adversary's own memory does not shrink with the replicates, so only --n helps
    monkeypatch.setattr(cli, "available_memory", lambda: cli.estimate_memory(n, reps, "uniform"))
    with pytest.raises(SystemExit) as e:
        cli.main(["simulate", "--n", str(n), "--T", "1", "--reps", str(reps), "--adversary", ADVERSARY])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "argument --n: " in err and f"for the {ADVERSARY} adversary's own arrays" in err
    assert err.rstrip().endswith("lower --n")


def test_the_timings_report_the_learners_counters(plugins):
    s = repeat_seconds({"name": LEARNER}, n=4, rounds=3, repeats=2, sample=False)
    assert s["sweeps"].tolist() == [7.0, 7.0]
    assert np.isnan(repeat_seconds({"name": "ftl"}, n=4, rounds=3, repeats=2, sample=False)["sweeps"]).all()
    from dataclasses import replace

    from onlinerank.config import load_settings

    settings = load_settings(
        {
            "seed": 0,
            "learners": {"mine": {"name": LEARNER}},
            "adversaries": {"u": {"name": "uniform"}},
            "runtime": {"learners": ["mine"], "n": [4, 5], "seconds_per_point": 0.001},
        }
    )
    # one n and two repeats: smaller than the schema lets a tier time (a quick check of the columns)
    assert settings.runtime is not None
    rows = runtime_rows(settings.learners, replace(settings.runtime, n=(4,), repeats=2))
    parts = {r["part"] for r in rows}
    assert "sweep" in parts and {r["sweeps_per_round"] for r in rows} == {7.0}


def test_the_claims_select_by_role_and_by_own_bound(plugins):
    from onlinerank.config import load_settings

    adversaries = {"mine": {"name": ADVERSARY}, "u": {"name": "uniform"}, "g": {"name": "greedy"}}
    learners = {"a": {"name": LEARNER}, "f": {"name": "ftl"}, "o": {"name": "onlinerank"}}
    settings = load_settings({"seed": 0, "learners": learners, "adversaries": adversaries})
    ctx = SimpleNamespace(settings=settings, learner_spec=settings.learner)
    assert plays_role(ctx, "mine", "random-sequence") and plays_role(ctx, "u", "random-sequence")
    assert not plays_role(ctx, "g", "random-sequence") and plays_role(ctx, "g", "greedy-regret")
    with pytest.raises(ValueError, match="unknown adversary role 'randon'"):
        plays_role(ctx, "u", "randon")
    assert has_own_bound(ctx, "a") and has_own_bound(ctx, "o") and not has_own_bound(ctx, "f")


def test_every_declared_role_is_known():
    for name, cls in ADVERSARIES.items():
        assert cls.roles <= set(ROLES), name
