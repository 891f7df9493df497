"""Conformance of every registered learner and adversary (no new test code per plug-in).

Besides the protocol (valid permutations, determinism, exact expected loss = Monte Carlo mean),
the declared contract of ``learners/base.py`` and ``adversaries/base.py``: every optional hook
exists with its documented default or a conforming override, ``rank`` validates its seeds,
``implements`` tells overrides apart, and plug-ins are discovered from their folder.  (Block
methods against the per-round reference: tests/test_engine.py.)
"""

import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import onlinerank.adversaries as adversaries_pkg
import onlinerank.learners as learners_pkg
from onlinerank import ADVERSARIES, LEARNERS, Adversary, Game, Learner
from onlinerank.adversaries.base import ROLES
from onlinerank.feedback import Feedback, k_choice
from onlinerank.iid_regret import check_law
from onlinerank.samplers import expit
from onlinerank.seeding import replicate_streams

FAMILY_GAMES = [
    Game(n=6, T=30),
    Game(n=6, T=30, family="kchoice", k=2),
    Game(n=6, T=30, family="subset"),
    Game(n=5, T=30, family="spearman"),
]


def example_learner(name):
    return LEARNERS[name].example()


def example_adversary(name):
    return ADVERSARIES[name].example()


def random_feedback(game, R, rng):
    if game.family in ("single", "kchoice", "subset"):
        k = game.chosen
        items = np.stack([rng.choice(game.n, k, replace=False) for _ in range(R)])
        return Feedback(game.n, items=items, family=game.family)
    if game.family == "spearman":
        return Feedback(
            game.n, values=-(np.stack([rng.permutation(game.n) for _ in range(R)]) + 1.0), family="spearman"
        )
    return Feedback(game.n, values=rng.normal(size=(R, game.n)), family="graded")


@pytest.mark.parametrize("name", sorted(LEARNERS))
@pytest.mark.parametrize("game", FAMILY_GAMES, ids=lambda g: g.family)
def test_learner_conformance(name, game):
    rng = np.random.default_rng(0)
    R = 3
    learner = example_learner(name)
    learner.reset(game, R)
    for _ in range(4):  # play a few rounds to leave the uniform start
        learner.update(random_feedback(game, R, rng))
    seeds = np.arange(1, R + 1, dtype=np.uint64)
    orders = learner.rank(seeds)
    assert orders.shape == (R, game.n)
    assert np.array_equal(np.sort(orders, axis=1), np.broadcast_to(np.arange(game.n), orders.shape))
    np.testing.assert_array_equal(orders, learner.rank(seeds))  # same seeds, same orders
    fb = random_feedback(game, R, rng)
    el = learner.expected_loss(fb)
    if el is None:
        return
    assert el.shape == (R,)
    # exact expected loss == Monte Carlo mean of the sampled orders' loss (5 standard errors)
    m = 3000
    losses = np.stack(
        [
            fb.pairwise_loss(
                learner.rank(np.full(R, s, dtype=np.uint64) * np.uint64(7919) + np.arange(R, dtype=np.uint64))
            )
            for s in range(1, m + 1)
        ]
    )
    se = losses.std(axis=0, ddof=1) / np.sqrt(m)
    assert np.all(np.abs(losses.mean(axis=0) - el) <= 5 * se + 1e-9), (losses.mean(0), el, se)


@pytest.mark.parametrize("name", sorted(ADVERSARIES))
def test_adversary_conformance(name):
    from onlinerank.learners.onlinerank import OnlineRank

    adv_cls = ADVERSARIES[name]
    for game in FAMILY_GAMES:
        if game.family not in adv_cls.families:
            continue

        def play(reps, rep_ids, game=game):
            adv = example_adversary(name)
            learner = OnlineRank()
            learner.reset(game, len(rep_ids))
            adv.reset(game, replicate_streams(5, ("conf", name), rep_ids, "adversary"))
            out = []
            for t in range(1, game.T + 1):
                fb = adv.feedback(t, learner)
                assert fb.reps == len(rep_ids) and fb.n == game.n
                s = fb.dense
                assert s.shape == (len(rep_ids), game.n) and np.all(np.isfinite(s))
                if game.family == "single":
                    assert np.all(s.sum(1) == 1) and np.all((s == 0) | (s == 1))
                elif game.family == "kchoice":
                    assert np.all(s.sum(1) == game.k) and np.all((s == 0) | (s == 1))
                elif game.family == "subset":
                    assert np.all((s == 0) | (s == 1))
                elif game.family == "spearman":
                    assert np.array_equal(np.sort(-s, 1), np.broadcast_to(np.arange(1, game.n + 1), s.shape))
                out.append(s.copy())
                learner.update(fb)
            return np.stack(out, axis=1)

        whole = play(4, [0, 1, 2, 3])
        np.testing.assert_array_equal(whole, play(4, [0, 1, 2, 3]))  # deterministic
        if adv_cls.oblivious:
            # a replicate's feedback does not depend on its block
            np.testing.assert_array_equal(whole[2:], play(2, [2, 3]))


def test_k_choice_helper_roundtrip():
    s = k_choice(np.array([[0, 2]]), 4)
    assert s.tolist() == [[1, 0, 1, 0]]


# --------------------------------------------------------------------------------------------------
# the declared contract
# --------------------------------------------------------------------------------------------------
LEARNER_HOOKS = (
    "example",
    "check",
    "expected_loss",
    "log_weights",
    "pair_probs",
    "expected_positions",
    "sample_first_step",
    "regret_bound",
    "plot_style",
    "timing_counters",
    "memory_bytes",
)
ADVERSARY_HOOKS = (
    "example",
    "check",
    "M",
    "checkpoint_metrics",
    "feedback_block",
    "memory_bytes",
    "pair_difference_law",
)


def dense_expected_loss(P, s):
    """E[ellell] = sum_{u != v} [s_v - s_u]_+ P(u before v), from the pairwise marginals."""
    gap = np.maximum(s[:, None, :] - s[:, :, None], 0.0)  # (R, u, v): [s_v - s_u]_+
    return np.sum(gap * P, axis=(1, 2))


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_learner_hooks_follow_the_contract(name):
    cls = LEARNERS[name]
    assert issubclass(cls, Learner) and cls.name == name
    for hook in LEARNER_HOOKS:
        assert callable(getattr(cls, hook))
    with pytest.raises(ValueError, match="not a hook"):
        cls.implements("no_such_hook")
    for n, reps in ((2, 1), (64, 8), (4096, 2)):
        mem = cls.memory_bytes(n, reps)
        assert isinstance(mem, int) and mem >= 0 and (mem > 0) == cls.implements("memory_bytes")
    style = cls.plot_style({"name": name}, name)
    assert set(style) == {"color", "marker", "ls", "mfc", "label"} and isinstance(style["label"], str)
    rng = np.random.default_rng(1)
    R = 3
    for game in FAMILY_GAMES:
        learner = cls.example()
        assert isinstance(learner, cls)
        learner.check(game)  # every built-in learner plays these small games
        learner.reset(game, R)
        for _ in range(3):
            learner.update(random_feedback(game, R, rng))
        assert learner.describe()["learner"] == name
        bound = learner.regret_bound(game)
        assert bound is None or (isinstance(bound, float) and bound > 0), bound
        if not cls.implements("regret_bound"):
            assert bound is None
        counters = learner.timing_counters()
        assert isinstance(counters, dict) and all(isinstance(v, int | float) for v in counters.values())
        assert (not counters) or cls.implements("timing_counters")
        with pytest.raises(ValueError, match=rf"seeds must have shape \({R},\)"):
            learner.rank(np.arange(R + 1, dtype=np.uint64))
        a = learner.log_weights()
        P = learner.pair_probs()
        assert (a is None) == (not cls.implements("log_weights"))
        assert (P is None) == (not cls.implements("pair_probs"))
        if P is not None:
            n = game.n
            assert P.shape == (R, n, n) and np.all(P[:, np.arange(n), np.arange(n)] == 0)
            off = ~np.eye(n, dtype=bool)
            np.testing.assert_allclose((P + P.transpose(0, 2, 1))[:, off], 1.0, atol=1e-12)
            s = rng.normal(size=(R, n))
            el = learner.expected_loss(Feedback(n, values=s))
            np.testing.assert_allclose(el, dense_expected_loss(P, s), rtol=1e-9, atol=1e-9)
        if a is not None:
            np.testing.assert_allclose(P, expit(a[:, :, None] - a[:, None, :]) * ~np.eye(game.n, dtype=bool))
        pos = learner.expected_positions()
        if not cls.implements("expected_positions"):
            assert pos is None
        if pos is not None:  # the n single-choice expected losses, bit for bit
            n = game.n
            alone = [Feedback(n, items=np.full((R, 1), u), family="single") for u in range(n)]
            singles = [learner.expected_loss(fb) for fb in alone]
            assert pos.shape == (R, n) and pos.dtype == np.float64
            assert pos.tobytes() == np.stack(singles, axis=1).tobytes(), (pos, singles)
        if cls.implements("sample_first_step"):
            learner.sample_first_step()
        else:
            with pytest.raises(NotImplementedError, match="sample_first_step"):
                learner.sample_first_step()


@pytest.mark.parametrize("name", sorted(ADVERSARIES))
def test_adversary_hooks_follow_the_contract(name):
    cls = ADVERSARIES[name]
    assert issubclass(cls, Adversary) and cls.name == name and cls.families
    for hook in ADVERSARY_HOOKS:
        assert callable(getattr(cls, hook))
    adv = cls.example()
    assert isinstance(adv, cls)
    assert cls.roles <= set(ROLES)
    for n, reps in ((2, 1), (64, 8), (4096, 2)):
        mem = cls.memory_bytes(n, reps)
        assert isinstance(mem, int) and mem >= 0 and (mem > 0) == cls.implements("memory_bytes")
    M = adv.M(6)
    assert (M is None) == (not cls.implements("M"))
    assert M is None or (isinstance(M, float) and M > 0)
    for game in FAMILY_GAMES:
        if game.family not in cls.families:
            with pytest.raises(ValueError, match=f"adversary {name!r} does not produce {game.family!r}"):
                cls.example().check(game)
            continue
        from onlinerank.learners.onlinerank import OnlineRank

        adv = cls.example()
        adv.reset(game, replicate_streams(1, ("hooks", name), range(2), "adversary"))
        learner = OnlineRank()
        learner.reset(game, 2)
        for t in range(1, 4):
            learner.update(adv.feedback(t, learner))
        metrics = adv.checkpoint_metrics(learner)
        assert isinstance(metrics, dict) and (not metrics) == (not cls.implements("checkpoint_metrics"))
        for val in metrics.values():
            assert np.shape(val) == (2,) and np.all(np.isfinite(val))
        assert adv.describe()["adversary"] == name
        law = adv.pair_difference_law(game)
        assert law is None or cls.implements("pair_difference_law")
        if law is not None:
            check_pair_law(cls.example(), game, law)


def check_pair_law(adv, game, law, rounds=4000, reps=4):
    """A stated law of ``s_t(u) - s_t(v)`` (theory §4.6) belongs to an oblivious, learner-independent
    adversary, is a valid symmetric law, and is the law of its own draws: the frequencies of each
    difference of the pairs (0, 1) and (n-2, n-1) over ``rounds * reps`` draws lie within 5
    standard errors of the stated probabilities."""
    assert adv.oblivious and adv.learner_independent
    exact = check_law(law)
    adv.reset(game, replicate_streams(2, ("law", adv.name), range(reps), "adversary"))
    n, N = game.n, reps * rounds

    def dense(block):
        if block.items is None:
            return block.values
        R, B, k = block.items.shape
        return k_choice(block.items.reshape(R * B, k), n).reshape(R, B, n)

    blocks = [dense(adv.feedback_block(1, rounds))]
    while sum(b.shape[1] for b in blocks) < rounds:  # an adversary may hand out fewer rounds
        done = sum(b.shape[1] for b in blocks)
        blocks.append(dense(adv.feedback_block(done + 1, rounds - done)))
    draws = np.concatenate(blocks, axis=1)
    for u, v in ((0, 1), (n - 2, n - 1)):
        diff = np.rint(draws[:, :rounds, u] - draws[:, :rounds, v]).astype(np.int64).ravel()
        values, counts = np.unique(diff, return_counts=True)
        assert set(values.tolist()) <= set(exact), (u, v, values)
        for d, p in exact.items():
            freq = counts[values == d].sum() / N
            assert abs(freq - float(p)) <= 5 * np.sqrt(float(p) * (1 - float(p)) / N) + 1e-12, (u, v, d)


def test_plugins_are_discovered_from_their_folder():
    """Every module of learners/ and adversaries/ is imported, and every named subclass defined
    in them is registered under its name (the registries may also hold classes registered from
    elsewhere, e.g. by a test or a user's own module)."""
    for pkg, registry, base in (
        (learners_pkg, LEARNERS, Learner),
        (adversaries_pkg, ADVERSARIES, Adversary),
    ):
        files = {m.name for m in pkgutil.iter_modules(pkg.__path__)} - {"base"}
        assert {m.__name__.rsplit(".", 1)[1] for m in pkg.MODULES} == files
        pkg_modules = {m.__name__ for m in pkg.MODULES}
        found = {
            obj.name: obj
            for m in pkg.MODULES
            for obj in vars(m).values()
            if isinstance(obj, type) and issubclass(obj, base) and obj.__module__ == m.__name__ and obj.name
        }
        assert found == {name: cls for name, cls in registry.items() if cls.__module__ in pkg_modules}


def test_a_plugin_is_one_file(tmp_path):
    """A learner and an adversary dropped into a copy of the package are registered, with no
    import line added anywhere, and play through the engine (a dense family: no numba compile
    of the copy's kernels)."""
    src = Path(learners_pkg.__file__).parents[1]
    shutil.copytree(src, tmp_path / "onlinerank", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "onlinerank" / "learners" / "zz_mine.py").write_text(
        "from .simple import UniformRanking\nfrom .base import register\n\n\n"
        "@register\nclass Mine(UniformRanking):\n    name = 'mine'\n"
    )
    (tmp_path / "onlinerank" / "adversaries" / "zz_theirs.py").write_text(
        "from .uniform import UniformAdversary\nfrom .base import register\n\n\n"
        "@register\nclass Theirs(UniformAdversary):\n    name = 'theirs'\n"
    )
    code = (
        "import onlinerank as o\n"
        f"assert o.__file__.startswith({str(tmp_path)!r})\n"
        "g = o.Game(n=4, T=5, family='spearman')\n"
        "r = o.simulate(o.make_learner('mine'), o.make_adversary('theirs'), g, 2, K=4, sample=True)\n"
        "print(sorted(o.LEARNERS), sorted(o.ADVERSARIES), r.loss.shape)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert "'mine'" in out.stdout and "'theirs'" in out.stdout and "(2, " in out.stdout
