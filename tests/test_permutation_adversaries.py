"""Permutation (Spearman) and graded adversaries: mallows, reverse, graded (theory §1, §3.2).

Every check compares against an independent computation (enumeration of all n! rankings, plain
Python loops over pairs, brute force over vertices).  Chi-square tests use fixed seeds and reject
at p < 1e-3.
"""

from itertools import permutations, product

import numpy as np
import pytest
from laws import pl_law_arrays
from scipy.stats import chisquare

from onlinerank import ADVERSARIES, Game, OnlineRank, exact_expected_regret, simulate
from onlinerank.adversaries.base import expected_positions
from onlinerank.adversaries.graded import GradedAdversary, graded_game, graded_M
from onlinerank.adversaries.mallows import MallowsAdversary, mallows_pmf, mallows_sample, mallows_Z
from onlinerank.adversaries.reverse import ReverseAdversary
from onlinerank.bounds import spearman_bound, theorem31
from onlinerank.feedback import Feedback, complexity_M, pairwise_loss, position_loss, spearman_rho
from onlinerank.learners import Learner
from onlinerank.learners.simple import FollowTheLeader
from onlinerank.seeding import replicate_streams

P_MIN = 1e-3  # chi-square rejection threshold


# --- independent helpers -------------------------------------------------------------------------
def kendall_loop(sigma, tau):
    n = len(sigma)
    return sum((sigma[u] - sigma[v]) * (tau[u] - tau[v]) < 0 for u in range(n) for v in range(u + 1, n))


def positions_of(order):
    """order[i] = item at position i + 1  ->  sigma[u] = position of u (1..n)."""
    sigma = np.empty(len(order), dtype=np.int64)
    sigma[np.asarray(order)] = np.arange(1, len(order) + 1)
    return sigma


def all_positions(n):
    """All n! position vectors (n!, n) and a dict position-tuple -> index."""
    perms = np.array(list(permutations(range(1, n + 1))), dtype=np.int64)
    return perms, {tuple(p): i for i, p in enumerate(perms)}


def ellell_loop(order, s):
    """Pairwise loss (2.2) by its definition over ordered pairs."""
    pos = positions_of(order)
    n = len(s)
    return sum(max(s[v] - s[u], 0.0) for u in range(n) for v in range(n) if u != v and pos[u] < pos[v])


def counts_chi2(idx, probs):
    counts = np.bincount(idx, minlength=len(probs))
    return chisquare(counts, probs * counts.sum()).pvalue


# --- Mallows: exact law ----------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("phi", [0.05, 0.3, 0.8, 1.0])
def test_mallows_pmf_by_enumeration(n, phi):
    rng = np.random.default_rng(n)
    centre = rng.permutation(n)
    cpos = positions_of(centre)
    perms, _ = all_positions(n)
    d = np.array([kendall_loop(p, cpos) for p in perms])
    brute_Z = np.sum(phi**d)
    closed_Z = np.prod([(1 - phi**i) / (1 - phi) if phi < 1 else i for i in range(1, n + 1)])
    assert brute_Z == pytest.approx(closed_Z, rel=1e-12)
    assert mallows_Z(n, phi) == pytest.approx(closed_Z, rel=1e-12)
    pmf = mallows_pmf(perms, centre, phi)
    np.testing.assert_allclose(pmf, phi**d / brute_Z, rtol=1e-12)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("phi", [0.3, 0.8, 1.0])
def test_mallows_sampler_chi_square(phi):
    n, m = 4, 100_000
    rng = np.random.default_rng(11)
    centre = rng.permutation(n)  # a random centre
    perms, index = all_positions(n)
    cpos = positions_of(centre)
    probs = np.array([phi ** kendall_loop(p, cpos) for p in perms])
    probs /= probs.sum()
    if phi == 1.0:
        np.testing.assert_allclose(probs, 1 / 24)  # phi = 1 is uniform
    x = mallows_sample(n, phi, centre, rng, size=m)
    assert x.shape == (m, n)
    idx = np.array([index[tuple(r)] for r in x])
    assert counts_chi2(idx, probs) > P_MIN
    one = mallows_sample(n, phi, centre, np.random.default_rng(0))
    assert one.shape == (n,) and sorted(one) == [1, 2, 3, 4]


@pytest.mark.parametrize("phi", [0.3, 0.8, 1.0])
def test_mallows_adversary_chi_square(phi):
    """The adversary's rankings (random centre per replicate) follow Mallows(phi) about the
    centre: relabelled by the centre they follow the Mallows law about the identity."""
    n, R, T = 4, 10, 10_000
    adv = MallowsAdversary(phi=phi, centre="random")
    game = Game(n=n, T=T, family="spearman")
    adv.reset(game, replicate_streams(3, ("mallows-chi2",), range(R), "adversary"))
    centres = adv.centres.copy()
    assert len({tuple(c) for c in centres}) > 1  # centres are random per replicate
    sig = np.stack([-adv.feedback(t, None).values for t in range(1, T + 1)]).astype(np.int64)
    np.testing.assert_array_equal(adv.centres, centres)  # no switching
    rel = np.take_along_axis(sig, np.broadcast_to(centres, sig.shape), axis=2)  # rel[k] = sigma(c_k)
    perms, index = all_positions(n)
    probs = np.array([phi ** kendall_loop(p, np.arange(1, n + 1)) for p in perms])
    probs /= probs.sum()
    idx = np.array([index[tuple(r)] for r in rel.reshape(-1, n)])
    assert counts_chi2(idx, probs) > P_MIN


def test_mallows_identity_centre_and_concentration():
    n = 6
    adv = MallowsAdversary(phi=1e-9)  # essentially the centre itself
    adv.reset(Game(n=n, T=5, family="spearman"), replicate_streams(0, ("x",), range(3), "adversary"))
    np.testing.assert_array_equal(adv.centres, np.tile(np.arange(n), (3, 1)))
    for t in range(1, 6):
        np.testing.assert_array_equal(adv.feedback(t, None).values, -np.tile(np.arange(1.0, n + 1), (3, 1)))


@pytest.mark.parametrize("P", [1, 3, 5])
def test_switching_centres_change_only_at_multiples(P):
    n, T, R = 6, 40, 4
    adv = MallowsAdversary(phi=0.5, centre="random", switch_every=P)
    adv.reset(Game(n=n, T=T, family="spearman"), replicate_streams(1, ("switch",), range(R), "adversary"))
    hist = []
    for t in range(1, T + 1):
        adv.feedback(t, None)
        hist.append(adv.centres.copy())
        assert np.array_equal(np.sort(adv.centres, axis=1), np.tile(np.arange(n), (R, 1)))
    hist = np.stack(hist)  # (T, R, n): hist[t-1] is the centre of round t
    changed = np.any(hist[1:] != hist[:-1], axis=2)  # change between round t and t+1, t = 1..T-1
    t_before = np.arange(1, T)
    assert not np.any(changed[t_before % P != 0])  # changes only after rounds P, 2P, ...
    assert changed[t_before % P == 0].mean() > 0.9  # and a fresh uniform centre almost always
    # the Mallows noise is common to switching and fixed centres (separate child streams)
    fixed = MallowsAdversary(phi=0.5, centre="random")
    fixed.reset(Game(n=n, T=T, family="spearman"), replicate_streams(1, ("switch",), range(R), "adversary"))
    np.testing.assert_array_equal(fixed.centres, hist[0])


def test_mallows_parameter_validation():
    for bad in (
        dict(phi=0),
        dict(phi=1.5),
        dict(centre="middle"),
        dict(switch_every=0),
        dict(switch_every=2.5),
    ):
        with pytest.raises(ValueError):
            MallowsAdversary(**bad)
    with pytest.raises(ValueError):
        MallowsAdversary().reset(Game(n=4, T=3), replicate_streams(0, (), range(1), "adversary"))


# --- reverse ---------------------------------------------------------------------------------------
class NoSampling:
    """Wraps a learner; its sampled ranking is off limits."""

    def __init__(self, learner, expose_state=True):
        self._l = learner
        self._expose_state = expose_state

    def rank(self, seeds):
        raise AssertionError("the adversary must not read the sampled ranking")

    def log_weights(self):
        return self._l.log_weights() if self._expose_state else None  # None: not exposed

    def __getattr__(self, name):
        if name == "state" and not self._expose_state:
            raise AttributeError(name)
        return getattr(self._l, name)


def trained_onlinerank(n, R, rounds, seed):
    rng = np.random.default_rng(seed)
    learner = OnlineRank(eta=0.37)
    learner.reset(Game(n=n, T=10, family="spearman"), R)
    for _ in range(rounds):  # real-valued scores: no ties between items
        learner.update(Feedback(n, values=rng.normal(size=(R, n)), family="graded"))
    return learner


@pytest.mark.parametrize("expose_state", [True, False])
def test_reverse_plays_reverse_of_pl_expected_order(expose_state):
    n, R = 4, 5
    learner = trained_onlinerank(n, R, rounds=3, seed=2)
    adv = ReverseAdversary()
    adv.reset(Game(n=n, T=10, family="spearman"), replicate_streams(0, (), range(R), "adversary"))
    wrapped = NoSampling(learner, expose_state)
    sigma = -adv.feedback(1, wrapped).values
    got_epos = 1.0 + expected_positions(wrapped, R, n)  # 1..n scale
    a = learner.state.a
    for r in range(R):
        orders, p = pl_law_arrays(a[r])
        pos = np.array([positions_of(o) for o in orders])
        epos = p @ pos  # E[pi(u)] under the enumerated Plackett–Luce law
        np.testing.assert_allclose(got_epos[r], epos, rtol=1e-12)
        assert len(np.unique(np.round(epos, 9))) == n  # no ties in this case
        expected_order = sorted(range(n), key=lambda u: (epos[u], u))
        want = np.empty(n)
        for k, u in enumerate(expected_order):
            want[u] = n - k  # expected top item -> last
        np.testing.assert_array_equal(sigma[r], want)


def test_reverse_ties_by_item_id_and_deterministic_learner():
    n = 5
    learner = OnlineRank()
    learner.reset(Game(n=n, T=10, family="spearman"), 2)
    adv = ReverseAdversary()
    adv.reset(learner.game, replicate_streams(0, (), range(2), "adversary"))
    # uniform start: every expected position ties -> order by id, reversed
    np.testing.assert_array_equal(
        -adv.feedback(1, NoSampling(learner)).values, np.tile(np.arange(n, 0, -1.0), (2, 1))
    )
    # generic path with a deterministic learner (no `state`): the reverse of its own order
    ftl = FollowTheLeader()
    ftl.reset(learner.game, 2)
    ftl.update(Feedback(n, values=np.array([[0, 3, 1, 4, 2], [2, 2, 0, 1, 1]], float)))
    sigma = -adv.feedback(2, NoSampling(ftl)).values
    for r, order in enumerate(ftl._order()):
        np.testing.assert_array_equal(sigma[r], n + 1 - positions_of(order))


def test_reverse_needs_exact_expected_loss():
    class Blind(Learner):
        name = "blind"
        reps = 1
        game = Game(n=3, T=2, family="spearman")

        def expected_loss(self, fb):
            return None

    adv = ReverseAdversary()
    adv.reset(Blind.game, replicate_streams(0, (), range(1), "adversary"))
    with pytest.raises(ValueError, match="exact expected"):
        adv.feedback(1, Blind())


# --- graded ----------------------------------------------------------------------------------------
def graded_play(adv, game, rep_ids, root=5):
    learner = OnlineRank()
    learner.reset(game, len(rep_ids))
    adv.reset(game, replicate_streams(root, ("graded",), rep_ids, "adversary"))
    out = []
    for t in range(1, game.T + 1):
        fb = adv.feedback(t, learner)
        assert fb.reps == len(rep_ids) and fb.n == game.n and fb.family == "graded"
        s = fb.dense
        assert s.shape == (len(rep_ids), game.n) and np.all(np.isfinite(s))
        learner.update(fb)
        out.append(s.copy())
    return np.stack(out, axis=1)  # (R, T, n)


@pytest.mark.parametrize(
    "params", [dict(), dict(levels=2, noise=1.0), dict(continuous=True), dict(relevance="ramp", noise=0.1)]
)
def test_graded_conformance(params):
    n, T = 7, 60
    adv = GradedAdversary(**params)
    g = 1 if adv.continuous else adv.levels
    game = graded_game(n, T, adv.levels, adv.continuous)
    assert game.M == graded_M(n, adv.levels, adv.continuous) == adv.M(n)
    whole = graded_play(GradedAdversary(**params), game, [0, 1, 2, 3])
    assert whole.min() >= 0 and whole.max() <= g
    if not adv.continuous:
        np.testing.assert_array_equal(whole, np.round(whole))  # integer grades
        assert len(np.unique(whole)) > 2
    else:
        assert len(np.unique(whole)) > 100  # real-valued
    np.testing.assert_array_equal(
        whole, graded_play(GradedAdversary(**params), game, [0, 1, 2, 3])
    )  # deterministic
    np.testing.assert_array_equal(
        whole[2:], graded_play(GradedAdversary(**params), game, [2, 3])
    )  # block-invariant
    assert game.M >= complexity_M(whole.reshape(-1, n))  # the family bound covers the data
    # the relevance shows through the noise: per-item means follow r_u
    if params.get("relevance") == "ramp":
        assert np.all(np.diff(whole.mean(axis=(0, 1))) < 0)


@pytest.mark.parametrize("n", [2, 3, 5, 6])
@pytest.mark.parametrize("g", [1, 3])
def test_graded_M_is_worst_case_over_vertices(n, g):
    """Brute force over {0, g}^n (the maximum of a convex function over the box is at a vertex),
    plus random interior points that never exceed it."""
    brute = max(
        sum((s[u] - s[v]) ** 2 for u in range(n) for v in range(u + 1, n)) for s in product((0, g), repeat=n)
    )
    assert graded_M(n, levels=g) == brute
    assert GradedAdversary.graded_M(n, 1, continuous=True) == graded_M(n, levels=1)
    rng = np.random.default_rng(n)
    assert complexity_M(rng.uniform(0, g, size=(2000, n))) <= brute


def test_graded_parameter_validation():
    for bad in (dict(levels=0), dict(levels=2.5), dict(noise=-1), dict(relevance="zipf")):
        with pytest.raises(ValueError):
            GradedAdversary(**bad)
    with pytest.raises(ValueError):
        GradedAdversary().reset(
            Game(n=4, T=3, family="spearman"), replicate_streams(0, (), range(1), "adversary")
        )


def test_graded_regret_below_theorem31():
    n, T, R = 6, 200, 4
    game = graded_game(n, T)
    res = simulate(OnlineRank(), GradedAdversary(), game, R, seed=1, sample=False, K=20)
    assert np.all(res.regret[:, -1] <= theorem31(n, T, game.M))


# --- Spearman losses and regret ----------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 5, 7])
def test_spearman_loss_identity(n):
    rng = np.random.default_rng(n)
    sq = sum(i * i for i in range(1, n + 1))
    for _ in range(20):
        order = rng.permutation(n)
        sigma = rng.permutation(n) + 1
        s = -sigma.astype(float)
        pos = positions_of(order)
        ell = sum((pos[u] - 1) * s[u] for u in range(n))
        ll = ellell_loop(order, s)
        rho = sum(pos[u] * sigma[u] for u in range(n))
        assert ll - ell == (n + 1) * n * (n - 1) / 3
        assert -rho == ll - sq
        assert pairwise_loss(order, s) == pytest.approx(ll, abs=1e-9)
        assert position_loss(order, s) == pytest.approx(ell, abs=1e-9)
        assert spearman_rho(order, sigma) == rho


def test_spearman_regret_pairwise_equals_minus_rho_exact_n4():
    """Exact expected regret for ellell (exact_expected_regret) == exact expected regret for -rho
    computed directly: E[-rho] by enumerating the Plackett–Luce law of every round and the best
    fixed ranking by enumeration of all 24 rankings."""
    n, T, eta = 4, 25, 0.3
    adv = MallowsAdversary(phi=0.7, centre="random", switch_every=10)
    adv.reset(Game(n=n, T=T, family="spearman"), replicate_streams(9, ("rho",), [0], "adversary"))
    sig = np.stack([-adv.feedback(t, None).values[0] for t in range(1, T + 1)])  # (T, n)
    orders_all = np.array(list(permutations(range(n))))
    pos_all = np.array([positions_of(o) for o in orders_all])  # (24, n)
    S = np.zeros(n)
    exp_rho_loss = 0.0
    for t in range(T):
        orders, p = pl_law_arrays(eta * S)
        pos = np.array([positions_of(o) for o in orders])
        exp_rho_loss += p @ (-(pos * sig[t]).sum(axis=1))
        S -= sig[t]
    best = min(-float(np.sum(pos_all[i] * sig)) for i in range(len(pos_all)))  # min sum_t -rho
    regret_rho = exp_rho_loss - best
    assert exact_expected_regret(-sig, eta) == pytest.approx(regret_rho, rel=1e-10, abs=1e-9)


class RecordingOnlineRank(OnlineRank):
    def reset(self, game, reps):
        super().reset(game, reps)
        self.a_hist, self.orders = [], []

    def expected_loss(self, fb):
        self.a_hist.append(self.state.a.copy())
        return super().expected_loss(fb)

    def rank(self, seeds):
        o = super().rank(seeds)
        self.orders.append(o.copy())
        return o


class RecordingMallows(MallowsAdversary):
    def reset(self, game, rngs):
        super().reset(game, rngs)
        self.seq = []

    def feedback(self, t, learner):
        fb = super().feedback(t, learner)
        self.seq.append(fb.values.copy())
        return fb


def test_spearman_regret_pairwise_equals_minus_rho_simulated():
    n, T, R = 6, 50, 2
    sq = n * (n + 1) * (2 * n + 1) / 6
    learner = RecordingOnlineRank()
    adv = RecordingMallows(phi=0.6, centre="random", switch_every=20)
    res = simulate(learner, adv, Game(n=n, T=T, family="spearman"), R, seed=4, K=3, sample=True)
    sigma = -np.stack(adv.seq, axis=1)  # (R, T, n)
    orders = np.stack(learner.orders, axis=1)  # (R, T, n)
    a_hist = np.stack(learner.a_hist, axis=1)  # (R, T, n)
    pos_all = np.array([positions_of(o) for o in permutations(range(n))])  # (720, n)
    for r in range(R):
        rho_real = sum(float(positions_of(orders[r, t]) @ sigma[r, t]) for t in range(T))
        exp_rho = 0.0
        for t in range(T):
            o, p = pl_law_arrays(a_hist[r, t])
            exp_rho += p @ (np.array([positions_of(x) for x in o]) @ sigma[r, t])
        best_rho = -max(pos_all @ sigma[r].sum(axis=0))  # min over rankings of sum_t -rho
        # per round: ellell = -rho + sum i^2, so cumulative losses differ by T sum i^2 ...
        assert res.loss[r, -1] == pytest.approx(-rho_real + T * sq, abs=1e-8)
        assert res.exp_loss[r, -1] == pytest.approx(-exp_rho + T * sq, rel=1e-10)
        assert res.best[r, -1] == pytest.approx(best_rho + T * sq, abs=1e-8)
        # ... and the regrets coincide
        assert res.regret[r, -1] == pytest.approx(-exp_rho - best_rho, rel=1e-10, abs=1e-8)
        assert res.realised_regret[r, -1] == pytest.approx(-rho_real - best_rho, abs=1e-8)


def test_onlinerank_vs_mallows_below_spearman_bound():
    n, T, R = 8, 300, 8
    for adv in (MallowsAdversary(), MallowsAdversary(phi=0.9, centre="random", switch_every=50)):
        res = simulate(OnlineRank(), adv, Game(n=n, T=T, family="spearman"), R, seed=2, sample=False, K=20)
        assert np.all(res.regret[:, -1] <= spearman_bound(n, T))
        assert res.regret[:, -1].mean() < spearman_bound(n, T)


def test_onlinerank_vs_reverse_below_spearman_bound():
    n, T, R = 6, 200, 2
    res = simulate(
        OnlineRank(), ReverseAdversary(), Game(n=n, T=T, family="spearman"), R, seed=0, sample=False, K=20
    )
    assert np.all(res.regret[:, -1] <= spearman_bound(n, T))
    assert np.all(np.isfinite(res.regret))


def test_registered():
    assert {"mallows", "reverse", "graded"} <= set(ADVERSARIES)
    assert ADVERSARIES["reverse"].oblivious is False
    assert ADVERSARIES["mallows"].oblivious and ADVERSARIES["graded"].oblivious
