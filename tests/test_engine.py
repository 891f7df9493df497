"""The block engine against the per-round reference, bit for bit.

Oracle: :func:`reference_run` is the engine as it was before blocks existed -- one Python
iteration per round calling only the per-round protocol (``adversary.feedback``,
``learner.expected_loss``, ``learner.rank``, ``learner.update``) -- copied here verbatim so that
the compiled and vectorised block paths are compared with an independent implementation.  Every
oblivious adversary x every family it plays x every learner, several block sizes (1, odd, ones
that put checkpoints inside and at the edges of blocks, the default, T), R = 1 and R > 1.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT

from onlinerank import ADVERSARIES, Game, make_adversary, make_learner, simulate
from onlinerank.adversaries.graded import graded_game
from onlinerank.feedback import Feedback, FeedbackBlock
from onlinerank.hindsight import hindsight_loss
from onlinerank.learners import Learner
from onlinerank.seeding import draw_seeds, replicate_keys, replicate_streams
from onlinerank.simulate import checkpoints

FAMILY_GAMES = {
    "single": Game(n=6, T=40),
    "kchoice": Game(n=7, T=40, family="kchoice", k=3),
    "subset": Game(n=6, T=40, family="subset"),
    "spearman": Game(n=5, T=30, family="spearman"),
    "graded": graded_game(5, 30),
}

LEARNER_SPECS = {
    "pl": {"name": "onlinerank", "sampler": "plackett-luce"},
    "qs": {"name": "onlinerank", "sampler": "quicksort"},
    "pl-logform": {"name": "onlinerank", "sampler": "plackett-luce", "eta": 80.0},
    "qs-logform": {"name": "onlinerank", "sampler": "quicksort", "eta": 80.0},
    "ftl": {"name": "ftl"},
    "uniform": {"name": "uniform"},
    "fpl": {"name": "fpl"},
    "fpl-noiseless": {"name": "fpl", "scale": 0.0},
    "fpl-mc": {"name": "fpl", "expected": "mc", "mc": 4},
    "hedge": {"name": "hedge"},
    "permelearn": {"name": "permelearn"},
}


def reference_run(learner, adversary, game, reps, *, seed, cell, K, sample, label):
    """The per-round engine (the reference implementation of ``simulate``)."""
    n, T = game.n, game.T
    ids = np.arange(reps)
    adversary.reset(game, replicate_streams(seed, cell, ids, "adversary"))
    learner.reset(game, reps)
    keys = replicate_keys(seed, (*cell, label), ids, "learner")
    cps = checkpoints(T, K)
    out_loss = np.full((reps, cps.size), np.nan)
    out_exp = np.full((reps, cps.size), np.nan)
    out_best = np.empty((reps, cps.size))
    S = np.zeros((reps, n))
    abs_total = np.zeros(reps)
    loss = np.zeros(reps)
    exp_loss = np.zeros(reps)
    has_exp = True
    extra: dict[str, np.ndarray] = {}
    j = 0
    for t in range(1, T + 1):
        fb: Feedback = adversary.feedback(t, learner)
        el = learner.expected_loss(fb)
        if el is None:
            has_exp = False
        else:
            exp_loss += el
        if sample:
            loss += fb.pairwise_loss(learner.rank(draw_seeds(keys, t)))
        learner.update(fb)
        fb.add_to(S)
        abs_total += fb.pair_abs_sum()
        if t == cps[j]:
            if sample:
                out_loss[:, j] = loss
            if has_exp:
                out_exp[:, j] = exp_loss
            out_best[:, j] = hindsight_loss(S, abs_total)
            for name, val in adversary.checkpoint_metrics(learner).items():
                extra.setdefault(name, np.full((reps, cps.size), np.nan))[:, j] = val
            j += 1
    return out_loss, out_exp, out_best, extra


def assert_same_run(game, lspec, aname, reps, sample, blocks, K=6, seed=3):
    cell = ("engine", aname, game.family)
    params = {k: v for k, v in lspec.items() if k != "name"}
    adv_cls = ADVERSARIES[aname]
    want = reference_run(
        make_learner(lspec["name"], **params),
        adv_cls.example(),
        game,
        reps,
        seed=seed,
        cell=cell,
        K=K,
        sample=sample,
        label="L",
    )
    for block in blocks:
        got = simulate(
            make_learner(lspec["name"], **params),
            adv_cls.example(),
            game,
            reps,
            seed=seed,
            cell=cell,
            K=K,
            sample=sample,
            learner_label="L",
            block=block,
        )
        for name, w, g in zip(
            ("loss", "exp_loss", "best"), want[:3], (got.loss, got.exp_loss, got.best), strict=True
        ):
            np.testing.assert_array_equal(g, w, err_msg=f"{name}, block={block}")
        assert sorted(got.extra) == sorted(want[3])
        for name in want[3]:
            np.testing.assert_array_equal(got.extra[name], want[3][name], err_msg=f"{name}, block={block}")


def _playable(lname, game):
    if lname == "hedge":
        return game.n <= 6
    return True


OBLIVIOUS = sorted(name for name, cls in ADVERSARIES.items() if cls.oblivious)


@pytest.mark.parametrize("aname", OBLIVIOUS)
@pytest.mark.parametrize("lname", sorted(LEARNER_SPECS))
def test_block_engine_equals_per_round_reference(aname, lname):
    """Every oblivious adversary x learner x family: blocks of 1, 3, 7 (odd, checkpoints inside
    blocks and at their edges), 40 (T or more) and the default, R = 3 sampled and R = 1 not."""
    for fam, game in FAMILY_GAMES.items():
        if fam not in ADVERSARIES[aname].families or not _playable(lname, game):
            continue
        if lname == "permelearn" and fam in ("spearman", "graded"):
            game = Game(n=4, T=12, family=fam, M=game.M)
        slow = lname in ("permelearn", "hedge")
        assert_same_run(
            game, LEARNER_SPECS[lname], aname, 3, True, [1, 7, None] if slow else [1, 3, 7, 40, None]
        )
        if not slow:
            assert_same_run(game, LEARNER_SPECS[lname], aname, 1, False, [2, 5, None])


@pytest.mark.parametrize("lname", ["pl", "qs", "ftl", "fpl"])
@pytest.mark.parametrize("aname", ["greedy", "cyclic"])
def test_adaptive_and_deterministic_adversaries(aname, lname):
    """Adaptive adversaries are asked round by round through the same engine."""
    for fam in ("single", "kchoice", "subset"):
        assert_same_run(FAMILY_GAMES[fam], LEARNER_SPECS[lname], aname, 2, True, [1, 4, None])


@pytest.mark.parametrize("lname", ["pl", "qs", "pl-logform", "qs-logform", "ftl", "fpl"])
@pytest.mark.parametrize("family, k", [("single", 1), ("kchoice", 2), ("kchoice", 12), ("subset", 1)])
def test_larger_games_every_kernel_path(lname, family, k):
    """n = 40 / 64: the histogram, cached-weight and log-form paths of the expected loss, counted
    positions with k <= 8 and k > 8, many rounds per block."""
    n = 64 if k > 8 else 40
    game = Game(n=n, T=300, family=family, k=k if family == "kchoice" else 1)
    assert_same_run(game, LEARNER_SPECS[lname], "uniform", 3, True, [1, 37, None], K=9)
    assert_same_run(game, LEARNER_SPECS[lname], "popularity", 2, True, [64, None], K=9)


@pytest.mark.parametrize("aname", OBLIVIOUS)
def test_feedback_blocks_equal_per_round_feedback(aname):
    """``feedback_block`` hands out exactly the per-round feedback, whatever the cuts."""
    rng = np.random.default_rng(1)
    cls = ADVERSARIES[aname]
    for fam, game in FAMILY_GAMES.items():
        if fam not in cls.families:
            continue
        R = 3
        adv = cls.example()
        adv.reset(game, replicate_streams(2, ("fb",), range(R), "adversary"))
        rounds = [adv.feedback(t, None) for t in range(1, game.T + 1)]
        adv2 = cls.example()
        adv2.reset(game, replicate_streams(2, ("fb",), range(R), "adversary"))
        t = 1
        while t <= game.T:
            want = int(min(game.T - t + 1, rng.integers(1, 9)))
            blk = adv2.feedback_block(t, want)
            assert isinstance(blk, FeedbackBlock) and 1 <= blk.rounds <= want and blk.reps == R
            for b in range(blk.rounds):
                got, ref = blk.round(b), rounds[t - 1 + b]
                if ref.items is not None:
                    np.testing.assert_array_equal(got.items, ref.items)
                else:
                    np.testing.assert_array_equal(got.values, ref.values)
            t += blk.rounds


def test_block_argument_is_checked_before_any_work():
    class Boom(Learner):
        name = "boom"

        def reset(self, game, reps):
            raise AssertionError("work started")

    game = Game(n=5, T=10)
    for bad in (0, -3, 2.5, True, "7"):
        with pytest.raises(ValueError, match="block must be an integer >= 1"):
            simulate(Boom(), make_adversary("uniform"), game, 2, block=bad, K=20, sample=True)
    with pytest.raises(ValueError, match=r"block=\d+ rounds .* need .* GiB"):
        simulate(
            Boom(), make_adversary("uniform"), Game(n=10**6, T=10**9), 64, block=10**9, K=20, sample=True
        )
    with pytest.raises(TypeError, match="adversary must be an onlinerank Adversary"):
        simulate(make_learner("ftl"), object(), game, 2, K=20, sample=True)
    with pytest.raises(TypeError, match="learner must be an onlinerank Learner"):
        simulate(object(), make_adversary("uniform"), game, 2, K=20, sample=True)


def test_progress_is_called_at_the_same_rounds():
    calls = []
    simulate(
        make_learner("ftl"),
        make_adversary("uniform"),
        Game(n=5, T=1234),
        2,
        progress=lambda t, T: calls.append(t),
        block=500,
        K=20,
        sample=True,
    )
    step = 1234 // 100
    assert calls == [t for t in range(1, 1235) if t % step == 0 or t == 1234]


def test_import_stays_light():
    """``import onlinerank`` (registries and plug-in discovery included) imports neither numba nor
    scipy; the kernels load them on first use."""
    import subprocess
    import sys

    code = "import sys, onlinerank; print(sorted(m for m in ('numba', 'scipy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("tier", ["config.yaml", "smoke.yaml", "stress.yaml"])
def test_validating_a_tier_loads_no_compiled_kernel(tier):
    """Snakemake validates the config at every start (a run, a dry run, ``make figure``): the
    check of ``worst_case.learners`` resets each learner at a toy size, and PermELearn's reset
    balanced its uniform start with the compiled kernel, so every start loaded numba and the
    kernel's cache (about 0.5 s).  The reset now leaves that balancing to the first round."""
    import subprocess
    import sys

    code = (
        "import sys, yaml; from onlinerank.config import load_settings; "
        f"load_settings(yaml.safe_load(open('config/{tier}'))); "
        "print(sorted(m for m in ('numba', 'onlinerank._kernels') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"
