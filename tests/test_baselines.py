"""Baselines of theory §3.3 (Hedge over n! rankings, FPL, PermELearn) against independent oracles."""

import itertools
import math

import numpy as np
import pytest

from onlinerank import Game
from onlinerank.feedback import Feedback
from onlinerank.learners import permelearn as permelearn_module
from onlinerank.learners.fpl import FollowPerturbedLeader, row_uniforms
from onlinerank.learners.hedge import Hedge
from onlinerank.learners.permelearn import PermELearn, birkhoff_decomposition
from onlinerank.learners.simple import FollowTheLeader


def random_fb(game, R, rng, ties=False):
    """Random feedback of the game's family (graded: small integers when ``ties``)."""
    n = game.n
    if game.family in ("single", "kchoice", "subset"):
        items = np.stack([rng.choice(n, game.chosen, replace=False) for _ in range(R)])
        return Feedback(n, items=items, family=game.family)
    if game.family == "spearman":
        sigma = np.stack([rng.permutation(n) for _ in range(R)]) + 1.0
        return Feedback(n, values=-sigma, family="spearman")
    vals = rng.integers(-2, 3, size=(R, n)).astype(float) if ties else rng.normal(size=(R, n))
    return Feedback(n, values=vals, family="graded")


def ellell_definition(order, s):
    """Pairwise loss (2.2) straight from the definition: sum_{u != v} [s(v)-s(u)]_+ [u before v]."""
    pos = {u: i for i, u in enumerate(order)}
    n = len(order)
    return sum(max(s[v] - s[u], 0.0) for u in range(n) for v in range(n) if u != v and pos[u] < pos[v])


GAMES = [
    Game(n=4, T=20),
    Game(n=4, T=20, family="kchoice", k=2),
    Game(n=4, T=20, family="subset"),
    Game(n=4, T=20, family="spearman"),
    Game(n=4, T=20, family="graded", M=10.0),
]


# --------------------------------------------------------------------------------------- Hedge
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.family)
def test_hedge_equals_direct_exponential_weights(game):
    rng = np.random.default_rng(1)
    R = 2
    learner = Hedge()
    learner.reset(game, R)
    perms = list(itertools.permutations(range(game.n)))
    beta = learner.beta_value
    cum = np.zeros((R, len(perms)))
    for _ in range(6):
        fb = random_fb(game, R, rng)
        s = fb.dense
        loss = np.array([[ellell_definition(p, s[r]) for p in perms] for r in range(R)])
        w = np.exp(-beta * (cum - cum.min(axis=1, keepdims=True)))
        P = w / w.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(learner.expected_loss(fb), (P * loss).sum(axis=1), rtol=1e-12)
        marg = np.zeros((R, game.n, game.n))
        for i, p in enumerate(perms):
            for a, b in itertools.combinations(p, 2):  # a before b
                marg[:, a, b] += P[:, i]
        np.testing.assert_allclose(learner.marginals(), marg, atol=1e-12)
        learner.update(fb)
        cum += loss


def test_hedge_tuning():
    g = Game(n=5, T=40, family="kchoice", k=2)
    h = Hedge()
    h.reset(g, 1)
    assert h.loss_range == 6.0
    assert h.beta_value == pytest.approx(math.sqrt(8 * math.log(120) / 40) / 6.0)
    h.reset(Game(n=5, T=40, family="spearman"), 1)
    assert h.loss_range == 20.0  # (n^3 - n)/6
    h.reset(Game(n=5, T=40, family="graded", M=4.0), 1)
    assert h.loss_range == pytest.approx(math.sqrt(10 * 4.0))


def test_hedge_sampling_law_chi_square():
    from scipy.stats import chisquare

    game = Game(n=4, T=10, family="kchoice", k=2)
    rng = np.random.default_rng(3)
    m = 24000  # m replicates with the same history: one draw each from the same law
    h = Hedge()
    h.reset(game, m)
    for _ in range(5):
        h.update(Feedback(4, items=np.repeat(rng.choice(4, 2, replace=False)[None], m, axis=0)))
    seeds = np.arange(m, dtype=np.uint64) * np.uint64(104729) + np.uint64(11)
    orders = h.rank(seeds)
    idx = {p: i for i, p in enumerate(itertools.permutations(range(4)))}
    counts = np.bincount([idx[tuple(o)] for o in orders], minlength=24)
    assert chisquare(counts, m * h.P[0]).pvalue > 1e-4  # stated threshold


def test_hedge_refuses_large_n():
    big = Game(n=10, T=5)
    msg = r"hedge enumerates n! rankings; n=10 gives 3628800 > limit .*use n <= 9"
    with pytest.raises(ValueError, match=msg):
        Hedge.check(big)
    with pytest.raises(ValueError, match=msg):
        Hedge().reset(big, 1)
    Hedge.check(Game(n=9, T=5))  # allowed


# ----------------------------------------------------------------------------------------- FPL
@pytest.mark.parametrize(
    "game",
    [
        Game(n=7, T=60),
        Game(n=7, T=60, family="kchoice", k=3),
        Game(n=7, T=60, family="spearman"),
        Game(n=7, T=60, family="graded", M=50.0),
    ],
    ids=lambda g: g.family,
)
def test_fpl_scale0_is_ftl(game):
    rng = np.random.default_rng(4)
    R = 5
    fpl, ftl = FollowPerturbedLeader(scale=0), FollowTheLeader()
    fpl.reset(game, R)
    ftl.reset(game, R)
    for t in range(game.T):
        seeds = np.arange(R, dtype=np.uint64) + np.uint64(1000 * t)
        np.testing.assert_array_equal(fpl.rank(seeds), ftl.rank(seeds))
        fb = random_fb(game, R, rng, ties=True)  # many ties in S: tie-break by lowest item id
        np.testing.assert_array_equal(fpl.expected_loss(fb), ftl.expected_loss(fb))
        fpl.update(fb)
        ftl.update(fb)


def ftl_items_oracle(S, items, exp_loss, loss, sample):
    """Follow-the-Leader's block kernel from its definition: each round sort by decreasing score
    (ties by item id, numpy's stable argsort), add the chosen items' positions minus C(k, 2), then
    count the choices."""
    R, B, k = items.shape
    for r in range(R):
        for b in range(B):
            pos = np.empty(S.shape[1], dtype=np.int64)
            pos[np.argsort(-S[r], kind="stable")] = np.arange(S.shape[1])
            v = float(pos[items[r, b]].sum()) - k * (k - 1) // 2
            exp_loss[r] += v
            if sample:
                loss[r] += v
            np.add.at(S[r], items[r, b], 1.0)


@pytest.mark.parametrize(
    ("n", "k", "start"),
    [
        (6, 1, "zeros"),
        (10, 2, "ties"),
        (50, 1, "ties"),
        (40, 12, "halves"),
        (7, 7, "ties"),
        (9, 3, "repeats"),
    ],
)
def test_compiled_ftl_keeps_the_sorted_order_bit_for_bit(n, k, start):
    """The compiled FTL sorts once per call and moves each chosen item forward as its score rises:
    the same losses and scores as sorting every round, over several calls (the state carried in
    ``S``), with ties (equal scores break by item id), scores that are not integers, k above the
    counting kernel's small-k branch, every item chosen, and an item chosen twice in a round."""
    from onlinerank._kernels.baselines import ftl_items

    rng = np.random.default_rng(n * 100 + k)
    R, B = 4, 150
    S0 = {
        "zeros": np.zeros((R, n)),
        "ties": rng.integers(0, 3, size=(R, n)).astype(float),
        "halves": rng.integers(0, 6, size=(R, n)) / 2.0,
        "repeats": rng.integers(0, 2, size=(R, n)).astype(float),
    }[start]
    S_fast, S_slow = S0.copy(), S0.copy()
    e_fast, e_slow = np.full(R, 0.5), np.full(R, 0.5)
    l_fast, l_slow = np.zeros(R), np.zeros(R)
    for call in range(3):
        if start == "repeats":
            items = rng.integers(0, n, size=(R, B, k))
        else:
            # skewed choices: a few leaders and long runs of tied scores
            p = rng.dirichlet(np.full(n, 0.3))
            items = np.stack([[rng.choice(n, k, replace=False, p=p) for _ in range(B)] for _ in range(R)])
        ftl_items(S_fast, items, e_fast, l_fast, call != 1)
        ftl_items_oracle(S_slow, items, e_slow, l_slow, call != 1)
        np.testing.assert_array_equal(S_fast, S_slow)
        np.testing.assert_array_equal(e_fast, e_slow)
        np.testing.assert_array_equal(l_fast, l_slow)


@pytest.mark.parametrize(
    "game",
    [Game(n=6, T=30), Game(n=6, T=30, family="kchoice", k=2), Game(n=5, T=30, family="spearman")],
    ids=lambda g: g.family,
)
def test_fpl_expected_loss_vs_large_sample(game):
    rng = np.random.default_rng(5)
    R = 3
    fpl = FollowPerturbedLeader()
    fpl.reset(game, R)
    for _ in range(6):
        fpl.update(random_fb(game, R, rng))
    fb = random_fb(game, R, rng)
    exact = fpl.expected_loss(fb)
    m = 20000
    base = np.arange(m, dtype=np.uint64)[:, None] * np.uint64(R) + np.arange(R, dtype=np.uint64)
    u = row_uniforms(base.ravel(), game.n).reshape(m, R, game.n)
    orders = np.argsort(-(fpl.S[None] + fpl.scale_value * u), axis=2, kind="stable")
    losses = np.stack([fb.pairwise_loss(orders[i]) for i in range(m)])
    se = losses.std(axis=0, ddof=1) / np.sqrt(m)
    assert np.all(np.abs(losses.mean(axis=0) - exact) <= 5 * se), (losses.mean(0), exact, se)
    # pairwise marginals against the same sample
    pos = np.argsort(orders, axis=2)
    freq = (pos[:, :, :, None] < pos[:, :, None, :]).mean(axis=0)
    p = fpl.pair_probs()
    off = ~np.eye(game.n, dtype=bool)
    se_p = np.sqrt(np.maximum(p * (1 - p), 1.0 / m) / m)
    assert np.all(np.abs(freq - p)[:, off] <= 5 * se_p[:, off])


def test_fpl_monte_carlo_mode():
    game = Game(n=6, T=30, family="kchoice", k=2)
    rng = np.random.default_rng(6)
    R = 3
    ex, mc = FollowPerturbedLeader(), FollowPerturbedLeader(expected="mc", mc=4000)
    assert ex.exact and not mc.exact
    ex.reset(game, R)
    mc.reset(game, R)
    for _ in range(5):
        fb = random_fb(game, R, rng)
        ex.update(fb)
        mc.update(fb)
    fb = random_fb(game, R, rng)
    seeds = np.array([7, 8, 9], dtype=np.uint64)
    before = mc.rank(seeds)
    est = mc.expected_loss(fb)
    se = mc.last_expected_loss_se
    np.testing.assert_array_equal(mc.rank(seeds), before)  # MC does not touch rank's randomness
    np.testing.assert_array_equal(mc.expected_loss(fb), est)  # deterministic
    assert np.all(se > 0) and np.all(np.abs(est - ex.expected_loss(fb)) <= 5 * se)
    # block invariance: a replicate's estimate does not depend on the other replicates
    solo = FollowPerturbedLeader(expected="mc", mc=4000)
    solo.reset(game, 1)
    solo.S = mc.S[1:2].copy()
    solo.t = mc.t
    assert solo.expected_loss(Feedback(6, items=fb.items[1:2]))[0] == est[1]


def test_fpl_tuning():
    g = Game(n=10, T=100, family="kchoice", k=2)
    f = FollowPerturbedLeader()
    f.reset(g, 1)
    eps = math.sqrt(50 / (16 * 2 * 100))  # D = 50, R = k(n-k) = 16, A = k = 2
    assert f.scale_value == pytest.approx(1 / eps)


def test_row_uniforms_rows_independent():
    seeds = np.array([5, 6, 7], dtype=np.uint64)
    u = row_uniforms(seeds, 10)
    np.testing.assert_array_equal(u[1], row_uniforms(seeds[1:2], 10)[0])
    assert u.min() >= 0 and u.max() < 1


# ---------------------------------------------------------------------------------- PermELearn
def sinkhorn_reference_log(logA, tol=1e-14, iters=200000):
    """Alternate row/column normalisation of ``exp(logA)`` in the log domain; returns log W."""
    f = np.zeros(logA.shape[0])
    g = np.zeros(logA.shape[1])
    for _ in range(iters):
        f = -np.logaddexp.reduce(logA + g[None, :], axis=1)
        g = -np.logaddexp.reduce(logA + f[:, None], axis=0)
        logW = logA + f[:, None] + g[None, :]
        if np.abs(np.exp(logW).sum(axis=1) - 1).max() < tol:
            return logW
    raise AssertionError("reference Sinkhorn did not converge")


def hw_reference(fbs, eta, c):
    """Helmbold–Warmuth literally, one replicate: W <- Sinkhorn(W * exp(-eta Lmat_t)) with
    Lmat_t[u, j] = j (s(u) - min s)/c, kept as log W."""
    n = len(fbs[0])
    j = np.arange(n)
    logW = np.full((n, n), -np.log(n))
    for s in fbs:
        logW = sinkhorn_reference_log(logW - eta * np.outer(s - s.min(), j) / c)
    return np.exp(logW)


@pytest.mark.parametrize(
    "game, eta",
    [
        (Game(n=5, T=40), "tuned"),
        (Game(n=5, T=40, family="kchoice", k=2), "tuned"),
        (Game(n=5, T=40, family="spearman"), "tuned"),
        (Game(n=5, T=40, family="graded", M=20.0), "tuned"),
        (Game(n=5, T=40), 3.0),
    ],  # absorption path (see below)
    ids=["single", "kchoice", "spearman", "graded", "absorb"],
)
@pytest.mark.parametrize("balancing", ["compiled", "numpy"])
def test_permelearn_matches_reference_and_is_doubly_stochastic(game, eta, balancing, monkeypatch):
    if eta == 3.0:  # absorb the scalings into K whenever |log a| or |log b| > 2
        monkeypatch.setattr(permelearn_module, "_ABSORB", 2.0)
    if balancing == "numpy":  # the path of n > COMPILED_MAX_N, here at n = 5
        monkeypatch.setattr(permelearn_module, "COMPILED_MAX_N", 0)
    rng = np.random.default_rng(7)
    R = 2
    pl = PermELearn(eta=eta, tol=1e-10)
    pl.reset(game, R)
    fbs = [random_fb(game, R, rng) for _ in range(game.T)]
    absorbed = False
    for fb in fbs:
        pl.update(fb)
        absorbed |= bool(np.any(pl.f != 0))
        assert np.abs(pl.W.sum(axis=2) - 1).max() <= 1e-10  # rows within tol
        assert np.abs(pl.W.sum(axis=1) - 1).max() <= 1e-12  # columns exact to rounding
        assert np.all(pl.W >= 0)
    if eta == 3.0:
        assert absorbed  # the rescaling path was exercised
    for r in range(R):
        ref = hw_reference([fb.dense[r] for fb in fbs], pl.eta_value, pl.c)
        np.testing.assert_allclose(pl.W[r], ref, atol=1e-8)


def near_permutation_kernels(R, n, rng, strength):
    """Positive (R, n, n) kernels concentrated on a random permutation each (weight ``e^strength``
    there, random elsewhere): a confident learner's K, on which plain Sinkhorn crawls and the
    balancing finishes with Newton steps."""
    K = rng.uniform(0.5, 1.5, size=(R, n, n))
    for r in range(R):
        K[r, np.arange(n), rng.permutation(n)] *= math.exp(strength)
    return K


@pytest.mark.parametrize("n, strength", [(3, 2.0), (6, 12.0), (10, 20.0), (40, 25.0)])
def test_compiled_balancing_equals_the_numpy_balancing(n, strength, monkeypatch):
    """Both paths of ``sinkhorn`` (compiled per replicate up to COMPILED_MAX_N, numpy over the
    replicates above it) reach a doubly stochastic ``diag(a) K diag(b)`` within ``tol``, the same
    matrix (it is unique) to the order of ``tol`` (the numpy path sweeps a replicate on until every
    replicate has converged, the compiled one stops each at its own), with the same number of
    sweeps; the near-permutation kernels need Newton steps in both."""
    rng = np.random.default_rng(n)
    K = near_permutation_kernels(4, n, rng, strength)
    a0, b0 = rng.uniform(0.5, 2.0, size=(2, 4, n))
    tol = 1e-10
    out = {}
    for path, limit in (("compiled", 64), ("numpy", 0)):
        monkeypatch.setattr(permelearn_module, "COMPILED_MAX_N", limit)
        a, b, sweeps, newton = permelearn_module.sinkhorn(K, a0, b0, tol, newton_after=100)
        W = a[:, :, None] * K * b[:, None, :]
        assert np.abs(W.sum(axis=2) - 1).max() <= tol, path
        assert np.abs(W.sum(axis=1) - 1).max() <= 1e-12, path
        out[path] = (W, sweeps, newton)
    np.testing.assert_allclose(out["compiled"][0], out["numpy"][0], rtol=0, atol=10 * tol)
    assert out["compiled"][1] == out["numpy"][1]
    if strength > 10:
        assert out["compiled"][2] > 0 and out["numpy"][2] > 0  # Newton finished the balancing


def _balance_rows_by_dot_products(K, a, b, tol, newton_after, max_newton):
    """The compiled balancing's Sinkhorn sweeps written as one dot product per entry, each over
    its index ascending, in Python floats (the reference of ``balance_rows``'s loop order); the
    Newton steps are the kernel's own ``_newton_row``.  Returns the sweeps and Newton steps of
    each replicate."""
    from onlinerank._kernels.baselines import _newton_row

    R, n, _ = K.shape
    steps = []
    for r in range(R):
        Kr = K[r].tolist()
        ar, br = a[r].tolist(), b[r].tolist()

        def kb(Kr: list, br: list) -> list:
            out = []
            for u in range(n):
                s = 0.0
                for j in range(n):
                    s += Kr[u][j] * br[j]
                out.append(s)
            return out

        Kb, it, done = kb(Kr, br), 0, False
        while it < newton_after:
            it += 1
            ar = [1.0 / x for x in Kb]
            for j in range(n):
                s = 0.0
                for u in range(n):
                    s += ar[u] * Kr[u][j]
                br[j] = 1.0 / s
            Kb = kb(Kr, br)
            if max(abs(ar[u] * Kb[u] - 1.0) for u in range(n)) <= tol:
                done = True
                break
        a[r], b[r] = ar, br
        newton = 0 if done else _newton_row(K[r], a[r], b[r], tol, max_newton)
        steps.append((it, newton))
    return steps


@pytest.mark.parametrize("n, strength", [(2, 0.0), (3, 2.0), (7, 5.0), (10, 20.0), (40, 8.0), (64, 3.0)])
def test_compiled_balancing_is_the_dot_products_bit_for_bit(n, strength):
    """``balance_rows`` accumulates its sums a row at a time (so that its loops vectorise): the
    scalings are bit-identical to one dot product per entry in index order, whether the sweeps
    converge or Newton steps finish (``strength`` 20: near-permutation kernels)."""
    from onlinerank._kernels.baselines import balance_rows

    rng = np.random.default_rng(100 + n)
    K = near_permutation_kernels(3, n, rng, strength)
    a0, b0 = rng.uniform(0.5, 2.0, size=(2, 3, n))
    a, b = a0.copy(), b0.copy()
    counts = np.zeros(2, dtype=np.int64)
    assert balance_rows(K, a, b, 1e-10, 100, 200, counts) == -1
    ra, rb = a0.copy(), b0.copy()
    steps = _balance_rows_by_dot_products(K, ra, rb, 1e-10, 100, 200)
    assert a.tobytes() == ra.tobytes() and b.tobytes() == rb.tobytes()
    assert list(counts) == [max(s for s, _ in steps), max(t for _, t in steps)]
    if strength > 10:
        assert counts[1] > 0


def test_permelearn_regret_is_the_same_on_both_balancing_paths(monkeypatch):
    """A whole game against the greedy adversary (which reads PermELearn's expected positions every
    round): the compiled and numpy balancings give the same expected losses to 1e-12 relative."""
    from onlinerank.adversaries import make_adversary
    from onlinerank.simulate import simulate

    out = {}
    for limit in (64, 0):
        monkeypatch.setattr(permelearn_module, "COMPILED_MAX_N", limit)
        res = simulate(PermELearn(), make_adversary("greedy"), Game(n=6, T=600), 2, K=6, sample=False)
        out[limit] = res.exp_loss
    np.testing.assert_allclose(out[64], out[0], rtol=1e-9)  # the balancing tolerance, 1e-9


@pytest.mark.parametrize(
    "game", [Game(n=6, T=20), Game(n=5, T=20, family="spearman")], ids=["single", "spearman"]
)
def test_permelearn_balances_its_uniform_start_in_the_first_round_that_reads_it(game):
    """``reset`` leaves the balancing of the uniform start to the first round (so that a learner
    reset only to be validated loads no compiled kernel): the balanced start equals ``sinkhorn`` of
    the all-ones kernel, and the expected losses, ``W`` and draws of every round equal, bit for
    bit, those of a learner whose start was balanced at once, whichever call comes first."""
    R, rng = 3, np.random.default_rng(11)
    fbs = [random_fb(game, R, rng) for _ in range(game.T)]
    ones = np.ones((R, game.n))
    a, b, _, _ = permelearn_module.sinkhorn(np.ones((R, game.n, game.n)), ones, ones)
    for first in ("expected_loss", "update", "rank", "W"):
        lazy, eager = PermELearn(), PermELearn()
        lazy.reset(game, R)
        eager.reset(game, R)
        eager._balance()  # the start balanced at once, as reset did before
        assert lazy.timing_counters() == {"sweeps": 0}
        seeds = np.arange(R, dtype=np.uint64) + 5
        if first == "update":
            lazy.update(fbs[0])
            eager.update(fbs[0])
        elif first == "rank":
            assert np.array_equal(lazy.rank(seeds), eager.rank(seeds))
        elif first == "W":
            assert np.array_equal(lazy.W, (a[:, :, None] * b[:, None, :]))  # K is all ones
        for t, fb in enumerate(fbs[1:] if first == "update" else fbs):
            assert np.array_equal(lazy.expected_loss(fb), eager.expected_loss(fb)), (first, t)
            lazy.update(fb)
            eager.update(fb)
            assert np.array_equal(lazy.W, eager.W), (first, t)
        assert np.array_equal(lazy.rank(seeds), eager.rank(seeds))
        assert lazy.timing_counters() == eager.timing_counters()


@pytest.mark.parametrize("n", [2, 3, 6, 9, 17])
def test_logsumexp_is_scipys_bit_for_bit(n):
    """PermELearn's cold start uses a plain-numpy copy of SciPy's ``logsumexp`` arithmetic: every
    value equal to SciPy's to the last bit, on either axis, with ties at the maximum (the terms SciPy
    keeps out of the sum) and magnitudes from 1e-3 to 300."""
    from scipy.special import logsumexp as scipy_logsumexp

    rng = np.random.default_rng(n)
    for scale in (1e-3, 1.0, 30.0, 300.0):
        a = rng.normal(size=(3, n, n)) * scale
        a[..., 0] = a[..., -1]  # a tie in every row
        a[:, 0, :] = np.round(a[:, 0, :])  # and in some columns
        for axis in (1, 2):
            ours, theirs = permelearn_module.logsumexp(a, axis), scipy_logsumexp(a, axis=axis)
            assert ours.shape == theirs.shape
            assert np.array_equal(ours.view(np.int64), theirs.view(np.int64)), (scale, axis)


def test_permelearn_decomposition_and_sampling():
    game = Game(n=5, T=30, family="kchoice", k=2)
    rng = np.random.default_rng(8)
    pl = PermELearn()
    pl.reset(game, 1)
    for _ in range(8):
        pl.update(random_fb(game, 1, rng))
    W = pl.W[0]
    orders, weights = birkhoff_decomposition(W)
    assert sum(weights) == pytest.approx(1.0, abs=1e-9)
    assert all(w > 0 for w in weights)
    rebuilt = np.zeros_like(W)
    for o, w in zip(orders, weights, strict=True):
        assert sorted(o.tolist()) == list(range(5))
        rebuilt[o, np.arange(5)] += w
    np.testing.assert_allclose(rebuilt, W, atol=1e-9)
    # exact expected loss == the decomposition's mixture of exact losses
    fb = random_fb(game, 1, rng)
    mix = sum(w * fb.pairwise_loss(o[None, :])[0] for o, w in zip(orders, weights, strict=True))
    assert pl.expected_loss(fb)[0] == pytest.approx(mix, abs=1e-8)
    dense = Feedback(5, values=rng.normal(size=(1, 5)))
    mix = sum(w * dense.pairwise_loss(o[None, :])[0] for o, w in zip(orders, weights, strict=True))
    assert pl.expected_loss(dense)[0] == pytest.approx(mix, abs=1e-8)
    # sampled position frequencies match W (5 standard errors each)
    m = 20000
    seeds = np.arange(m, dtype=np.uint64) * np.uint64(7919) + np.uint64(3)
    samples = np.concatenate([pl.rank(seeds[i : i + 1]) for i in range(m)])
    freq = np.zeros_like(W)
    for pos in range(5):
        freq[:, pos] = np.bincount(samples[:, pos], minlength=5) / m
    se = np.sqrt(np.maximum(W * (1 - W), 1.0 / m) / m)
    assert np.all(np.abs(freq - W) <= 5 * se), np.abs(freq - W) / se


def test_permelearn_tuning():
    g = Game(n=10, T=100, family="kchoice", k=2)
    pl = PermELearn()
    pl.reset(g, 1)
    assert pl.c == 9.0
    assert pl.eta_value == pytest.approx(math.log1p(math.sqrt(2 * 10 * math.log(10) / 100.0)))


@pytest.mark.parametrize("name", ["fpl", "ftl", "uniform", "permelearn"])
@pytest.mark.parametrize("family, n", [("single", 9), ("single", 100), ("spearman", 12), ("graded", 30)])
def test_expected_positions_are_the_single_choice_expected_losses_bit_for_bit(name, family, n):
    """What an adaptive adversary reads in one call equals, float for float, the n queries of
    the expected loss it replaces (integer and real scores, ties included), so the greedy and
    reverse adversaries play the same feedback either way."""
    from onlinerank.adversaries import make_adversary
    from onlinerank.adversaries.base import expected_positions as positions_of
    from onlinerank.feedback import Feedback
    from onlinerank.game import Game
    from onlinerank.learners import make_learner

    game = Game(n=n, T=500, family="spearman" if family == "graded" else family)
    R = 4
    learner = make_learner(name)
    learner.reset(game, R)
    adv = make_adversary("uniform" if family == "single" else "mallows")
    adv.reset(game, [np.random.default_rng(i) for i in range(R)])
    rng = np.random.default_rng(n)
    for t in range(1, 41):
        if family == "graded":  # real-valued scores
            learner.update(Feedback(n, values=rng.normal(size=(R, n)), family="graded"))
        else:
            learner.update(adv.feedback(t, None))
        if t % 10:
            continue
        pos = learner.expected_positions()
        singles = np.stack(
            [learner.expected_loss(Feedback(n, items=np.full((R, 1), u), family="single")) for u in range(n)],
            axis=1,
        )
        assert pos.tobytes() == singles.tobytes()
        assert positions_of(learner, R, n).tobytes() == singles.tobytes()
