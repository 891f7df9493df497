"""Conformance of every registered learner and adversary (no new test code per plug-in)."""

import numpy as np
import pytest

from onlinerank import ADVERSARIES, LEARNERS, Game
from onlinerank.feedback import Feedback, k_choice
from onlinerank.seeding import replicate_streams

FAMILY_GAMES = [
    Game(n=6, T=30),
    Game(n=6, T=30, family="kchoice", k=2),
    Game(n=6, T=30, family="subset"),
    Game(n=5, T=30, family="spearman"),
]


def example_learner(name):
    cls = LEARNERS[name]
    return cls.example() if hasattr(cls, "example") else cls()


def example_adversary(name):
    cls = ADVERSARIES[name]
    return cls.example() if hasattr(cls, "example") else cls()


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
