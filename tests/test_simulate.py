"""The simulation engine: seeding invariance, exactness of the expected regret, checkpoints."""

import itertools

import numpy as np
import pytest
from laws import pl_law_arrays

from onlinerank import Adversary, Game, OnlineRank, exact_expected_regret, make_adversary, simulate
from onlinerank.feedback import pairwise_loss, single_choice
from onlinerank.hindsight import hindsight_loss_of_sequence
from onlinerank.learners import make_learner
from onlinerank.simulate import checkpoints


def test_checkpoints():
    c = checkpoints(1000, 10)
    assert c[0] == 1 and c[-1] == 1000 and np.all(np.diff(c) > 0) and c.size <= 11
    assert list(checkpoints(3, 10)) == [1, 2, 3]
    with pytest.raises(ValueError):
        checkpoints(0, 3)


@pytest.mark.parametrize("sampler", ["plackett-luce", "quicksort"])
@pytest.mark.parametrize("family, k", [("single", 1), ("kchoice", 2), ("spearman", 1)])
def test_blocks_in_any_order_are_bit_identical(sampler, family, k):
    """Replicates computed as one block or as several blocks in any order are bit-identical."""
    game = Game(n=6, T=40, family=family, k=k)
    kw = dict(seed=7, cell=("test", family), K=5, sample=True)

    def run(lo, hi):
        return simulate(
            OnlineRank(sampler=sampler), make_adversary("uniform"), game, hi - lo, rep_start=lo, **kw
        )

    whole = run(0, 8)
    parts = [run(5, 8), run(0, 2), run(2, 5)]  # shuffled order, uneven sizes
    parts.sort(key=lambda r: r.reps[0])
    for name in ("loss", "exp_loss", "best"):
        joined = np.concatenate([getattr(p, name) for p in parts])
        np.testing.assert_array_equal(getattr(whole, name), joined)
    again = run(0, 8)
    np.testing.assert_array_equal(whole.loss, again.loss)


def test_common_random_numbers_across_learners():
    """Every learner of a cell sees the same adversary stream: identical hindsight optimum."""
    game = Game(n=8, T=50)
    a = simulate(
        OnlineRank(sampler="plackett-luce"),
        make_adversary("uniform"),
        game,
        4,
        seed=3,
        cell=("c",),
        K=20,
        sample=True,
    )
    b = simulate(
        make_learner("ftl"), make_adversary("uniform"), game, 4, seed=3, cell=("c",), K=20, sample=True
    )
    np.testing.assert_array_equal(a.best, b.best)


def test_samplers_give_identical_exact_regret():
    """Lemma 6.1: the exact expected regret is the same for QuickSort and Plackett–Luce."""
    game = Game(n=7, T=60, family="kchoice", k=2)
    r = [
        simulate(
            OnlineRank(sampler=s), make_adversary("uniform"), game, 4, seed=1, cell=("x",), K=20, sample=True
        ).regret
        for s in ("plackett-luce", "quicksort")
    ]
    np.testing.assert_allclose(r[0], r[1], rtol=0, atol=1e-9)


@pytest.mark.parametrize("sampler", ["plackett-luce", "quicksort"])
def test_realised_loss_matches_exact_expectation(sampler):
    """Mean of (realised - exact expected) cumulative loss is 0 within 5 standard errors."""
    game = Game(n=10, T=200, family="kchoice", k=3)
    res = simulate(
        OnlineRank(sampler=sampler),
        make_adversary("uniform"),
        game,
        200,
        seed=11,
        cell=("mc",),
        K=3,
        sample=True,
    )
    d = res.loss[:, -1] - res.exp_loss[:, -1]
    assert abs(d.mean()) < 5 * d.std(ddof=1) / np.sqrt(d.size)


def test_exact_expected_regret_by_enumeration():
    """exact_expected_regret == sum over rounds of the enumerated PL expectation - L*(brute)."""
    rng = np.random.default_rng(5)
    for n, T, eta in [(3, 6, 0.7), (4, 5, 0.3), (5, 4, 1.5)]:
        seq = rng.normal(size=(T, n)).round(2)
        S = np.zeros(n)
        total = 0.0
        for s in seq:
            orders, probs = pl_law_arrays(eta * S)
            total += float(probs @ pairwise_loss(orders, s))
            S += s
        brute_best = min(
            pairwise_loss(np.broadcast_to(np.array(o), seq.shape), seq).sum()
            for o in itertools.permutations(range(n))
        )
        assert exact_expected_regret(seq, eta) == pytest.approx(total - brute_best, abs=1e-10)


def test_exact_expected_regret_agrees_with_simulator_and_worst_case_module():
    from onlinerank.worst_case import sequence_regret

    rng = np.random.default_rng(9)
    n, T = 6, 80
    items = rng.integers(n, size=T)
    seq = single_choice(items, n)
    game = Game(n=n, T=T)
    learner = OnlineRank(eta="paper")

    class Replay(Adversary):  # a minimal oblivious adversary replaying the fixed sequence
        name = "replay"
        families = ("single",)

        def feedback(self, t, learner):
            from onlinerank.feedback import Feedback

            return Feedback(n, items=np.array([[items[t - 1]]]), family="single")

    res = simulate(learner, Replay(), game, 1, seed=0, K=2, sample=False)
    eta = learner.eta_value
    want = exact_expected_regret(seq, eta)
    assert res.regret[0, -1] == pytest.approx(want, abs=1e-9)
    assert sequence_regret(seq, n, eta) == pytest.approx(want, abs=1e-9)
    assert res.best[0, -1] == pytest.approx(hindsight_loss_of_sequence(seq))


def test_memory_is_checkpoint_sized():
    res = simulate(OnlineRank(), make_adversary("uniform"), Game(n=5, T=500), 3, K=7, sample=True)
    assert res.loss.shape == res.exp_loss.shape == res.best.shape == (3, res.t.size)
    assert res.t.size <= 8


def test_bad_arguments():
    with pytest.raises(ValueError, match="k must be <= n"):
        Game(n=3, T=5, family="kchoice", k=4)
    with pytest.raises(ValueError, match="k <= n/2"):
        Game(n=5, T=5, family="kchoice", k=3)
    with pytest.raises(ValueError, match="T must be"):
        Game(n=3, T=0)
    with pytest.raises(ValueError, match="n must be"):
        Game(n=1, T=3)
    with pytest.raises(ValueError, match="unknown feedback family"):
        Game(n=3, T=3, family="clicks")
    with pytest.raises(ValueError, match="unknown sampler"):
        OnlineRank(sampler="mergesort")
    with pytest.raises(ValueError, match="unknown learner"):
        make_learner("nope")
    with pytest.raises(ValueError, match="unknown adversary"):
        make_adversary("nope")
    with pytest.raises(ValueError, match="reps"):
        simulate(OnlineRank(), make_adversary("uniform"), Game(n=3, T=3), 0, K=20, sample=True)
