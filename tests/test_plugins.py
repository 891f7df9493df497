"""Plug-ins own their knowledge: a learner's own regret bound, plot style and timing counters, an
adversary's working memory and roles are hooks of its class (design §plugins).  A learner and an
adversary defined here, registered for one test and unregistered afterwards, are picked up by the
worst-case tables, the figures' styles, the command line's memory estimate, the timings and the
claims' selection, with no other file edited."""

from __future__ import annotations

import itertools
import math
import os
import re
import subprocess
import sys
from pathlib import Path
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
from onlinerank.learners.base import AUTO_COLORS, automatic_color
from onlinerank.learners.onlinerank import ONLINERANK_VARIANTS, SAMPLER_STYLE
from onlinerank.learners.simple import FollowTheLeader, UniformRanking
from onlinerank.plotting import LEARNER_COLORS, learner_style
from onlinerank.timing import process_rows, repeat_seconds
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


def _rgb(color: str) -> tuple[int, ...]:
    return tuple(int(color[i : i + 2], 16) for i in (1, 3, 5))


def _distance(a: str, b: str) -> float:
    return math.dist(_rgb(a), _rgb(b))


def _builtin_colors() -> set[str]:
    """Every colour the learners of the package's own modules draw with: their plot_color and
    OnlineRank's sampler and variant styles."""
    own = {cls.plot_color for cls in LEARNERS.values() if cls.__module__.startswith("onlinerank.learners.")}
    onlinerank = {st["color"] for st in SAMPLER_STYLE.values()}
    onlinerank |= {st["color"] for styles in ONLINERANK_VARIANTS.values() for st in styles}
    return {c.lower() for c in own | onlinerank if c is not None}


def test_the_automatic_colours_are_far_from_the_built_in_ones_and_from_each_other():
    builtin = _builtin_colors()
    assert {"#1f77b4", "#d62728", "#7f7f7f"} <= builtin and len(builtin) >= 10
    for auto in AUTO_COLORS:
        near = min(builtin, key=lambda c: _distance(auto, c))
        assert _distance(auto, near) >= 50, (auto, near)
    assert min(_distance(a, b) for a, b in itertools.combinations(AUTO_COLORS, 2)) >= 50


def test_learners_without_a_colour_get_distinct_automatic_ones(monkeypatch):
    """A plug-in without plot_color gets none of the built-in colours (matplotlib's next colour
    would be OnlineRank-PL's blue)."""
    names = ["zz-colourless-b", "zz-colourless-a", "zz-colourless-c"]
    for name in names:
        monkeypatch.setitem(
            LEARNERS,
            name,
            type(f"Colourless{name[-1]}", (UniformRanking,), {"name": name, "plot_color": None}),
        )
    colors = {name: learner_style({"name": name}, name)["color"] for name in names}
    assert len(set(colors.values())) == 3 and set(colors.values()) <= set(AUTO_COLORS), colors
    assert not set(colors.values()) & _builtin_colors()
    # in the order of the names among every colourless learner of the registry, whatever else it holds
    plain = sorted(n for n, c in LEARNERS.items() if c.plot_color is None and not c.implements("plot_style"))
    for name in names:
        assert colors[name] == AUTO_COLORS[plain.index(name) % len(AUTO_COLORS)] == automatic_color(name)
    assert colors["zz-colourless-a"] != learner_style({"name": "onlinerank"}, "pl")["color"]
    assert automatic_color("ftl") is None and automatic_color("no-such-learner") is None


#: plug-ins registered before a pytest session collects (as modules of learners/ and adversaries/
#: would be): learners with and without a law of S and without a colour, an oblivious and an
#: adaptive adversary
EXTRA_PLUGINS = """
from onlinerank.adversaries.base import register as register_adversary
from onlinerank.adversaries.greedy import GreedyAdversary
from onlinerank.adversaries.uniform import UniformAdversary
from onlinerank.learners.base import register
from onlinerank.learners.simple import FollowTheLeader, UniformRanking


@register
class ExtraLaw(FollowTheLeader):
    name = "extra-law"
    plot_color = None


@register
class ExtraNoLaw(UniformRanking):
    name = "extra-nolaw"
    plot_color = None

    def scores_law(self):
        return None


@register
class ExtraNoLawTwo(ExtraNoLaw):
    name = "extra-nolaw-two"


@register_adversary
class ExtraOblivious(UniformAdversary):
    name = "extra-uniform"
    learner_independent = False


@register_adversary
class ExtraAdaptive(GreedyAdversary):
    name = "extra-greedy"
    roles = frozenset()
"""


@pytest.mark.slow
def test_the_registry_wide_tests_hold_with_more_plugins_registered(tmp_path):
    """No test assumes that the registries hold only the built-in plug-ins: with two more
    learners without a law of S, one with a law and two more adversaries registered, the tests
    that go over every registered plug-in (and those parametrized by the new ones) pass, and
    only the dynamic-program tests of the learners without a law are skipped, by name."""
    (tmp_path / "extra_plugins.py").write_text(EXTRA_PLUGINS)
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(root / "src")]))
    tests = [
        "tests/test_conformance.py",
        "tests/test_worst_case.py",
        "tests/test_engine.py",
        "tests/test_plugins.py",
        "tests/test_registry.py",
    ]
    selection = "extra or discovered or without_a_law or declared_role or colour or learner_colors"
    p = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-p", "extra_plugins"]
        + ["-p", "no:xdist", "-k", selection, *tests],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = p.stdout
    assert p.returncode == 0, out[-4000:] + p.stderr[-2000:]
    passed = int(re.search(r"(\d+) passed", out).group(1))
    assert passed >= 40 and " failed" not in out, out[-3000:]
    skips = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert skips and all(
        re.search(r"learner 'extra-nolaw(-two)?' .*scores_law\(\) returns None", s) for s in skips
    )


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
    # one n and two repeats: smaller than the schema lets a tier time (a quick check of the columns);
    # one timing process in this one (runtime_rows starts fresh processes, which would not know a
    # learner registered by a test)
    assert settings.runtime is not None
    rows = process_rows(settings.learners, replace(settings.runtime, n=(4,), repeats=2))
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
