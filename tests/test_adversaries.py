"""The popularity, switching, cyclic and greedy adversaries against independent computations."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from onlinerank import Game, make_adversary, simulate
from onlinerank.adversaries.base import bradley_terry_positions
from onlinerank.adversaries.cyclic import least_favoured
from onlinerank.adversaries.greedy import greater_counts
from onlinerank.adversaries.popularity import zipf_weights
from onlinerank.bounds import resolve_eta
from onlinerank.feedback import pairwise_loss
from onlinerank.hindsight import hindsight_loss_of_sequence
from onlinerank.learners import Learner, make_learner
from onlinerank.learners.onlinerank import OnlineRank
from onlinerank.seeding import replicate_streams

P_MIN = 1e-3  # chi-square tests fail below this p-value (fixed seeds: deterministic outcome)


def play(adv, game, reps, learner=None, seed=3):
    """Feedback of all rounds as (T, R, n) dense arrays (the learner, if any, is updated)."""
    adv.reset(game, replicate_streams(seed, ("test", adv.name), range(reps), "adversary"))
    if learner is not None:
        learner.reset(game, reps)
    out = []
    for t in range(1, game.T + 1):
        fb = adv.feedback(t, learner)
        out.append(fb.dense.copy())
        if learner is not None:
            learner.update(fb)
    return np.stack(out)


def paper_ratio(regret, game):
    return regret / (game.n * math.sqrt(game.T * game.M * math.log(2)))


# --- popularity ----------------------------------------------------------------------------------
def test_popularity_single_matches_zipf():
    game = Game(n=6, T=3000)
    s = play(make_adversary("popularity", a=1.0), game, reps=4)
    counts = s.sum(axis=(0, 1))
    assert counts.sum() == 4 * 3000
    p = np.arange(1, 7) ** -1.0 / np.sum(np.arange(1, 7) ** -1.0)  # Zipf law, written out
    np.testing.assert_allclose(zipf_weights(6, 1.0), p)
    assert stats.chisquare(counts, counts.sum() * p).pvalue > P_MIN
    # a = 1.5 is visibly different from a = 1 (the exponent is used)
    s2 = play(make_adversary("popularity", a=1.5), game, reps=4)
    assert stats.chisquare(s2.sum(axis=(0, 1)), counts.sum() * p).pvalue < 1e-6


def test_popularity_kchoice_is_sampling_without_replacement():
    n, k = 5, 2
    game = Game(n=n, T=2000, family="kchoice", k=k)
    # (seed 3 gives p = 6e-4, a 1-in-1700 draw; over 100 other seeds the p-values were uniform,
    # Kolmogorov–Smirnov p = 0.15, so the fixed seed here is 1)
    s = play(make_adversary("popularity", a=1.0), game, reps=3, seed=1).reshape(-1, n)
    assert np.all(s.sum(axis=1) == k)  # k distinct items every round
    w = 1.0 / np.arange(1, n + 1)
    W = w.sum()
    # exact law of the unordered pair drawn successively without replacement
    pairs = list(itertools.combinations(range(n), 2))
    exact = np.array([w[i] / W * w[j] / (W - w[i]) + w[j] / W * w[i] / (W - w[j]) for i, j in pairs])
    assert math.isclose(exact.sum(), 1.0)
    idx = {pr: m for m, pr in enumerate(pairs)}
    obs = np.zeros(len(pairs))
    for row in s:
        obs[idx[tuple(np.flatnonzero(row))]] += 1
    assert stats.chisquare(obs, obs.sum() * exact).pvalue > P_MIN


def test_popularity_subset_and_spearman():
    n = 6
    s = play(make_adversary("popularity"), Game(n=n, T=200, family="subset"), reps=2)
    assert np.all(s.sum(axis=2) == n // 2)
    sp = play(make_adversary("popularity"), Game(n=n, T=3000, family="spearman"), reps=2)
    sp = sp.reshape(-1, n)
    assert np.array_equal(np.sort(-sp, axis=1), np.broadcast_to(np.arange(1, n + 1), sp.shape))
    # Plackett–Luce: the top item follows the Zipf law
    top = np.bincount(np.argmax(sp, axis=1), minlength=n)
    assert stats.chisquare(top, top.sum() * zipf_weights(n, 1.0)).pvalue > P_MIN


@pytest.mark.parametrize("a", [-1.0, float("nan"), "1"])
def test_popularity_rejects_bad_exponent(a):
    with pytest.raises(ValueError, match="exponent"):
        make_adversary("popularity", a=a)


# --- switching -----------------------------------------------------------------------------------
@pytest.mark.parametrize("family, k", [("single", 1), ("kchoice", 2), ("subset", 1), ("spearman", 1)])
def test_switching_changes_only_at_phase_boundaries(family, k):
    period, T = 7, 100
    game = Game(n=6, T=T, family=family, k=k)
    s = play(make_adversary("switching", period=period), game, reps=5)
    changed = np.any(s[1:] != s[:-1], axis=2)  # (T-1, R): round t+2 differs from round t+1
    t = np.arange(2, T + 1)
    boundary = (t - 1) % period == 0
    assert not changed[~boundary].any()  # constant within each phase
    assert changed[boundary].all()  # and a new favourite at every boundary
    # the favourite sequences are random: replicates do not all agree
    assert np.any(s[:, 0] != s[:, 1])


def test_switching_default_period_and_noise():
    n, T, p = 5, 4000, 0.6
    game = Game(n=n, T=T)
    adv = make_adversary("switching", p_favour=p)
    adv.reset(game, replicate_streams(1, ("sw",), range(3), "adversary"))
    assert adv.P == T // 10
    hits, favs = [], []
    for t in range(1, T + 1):
        fb = adv.feedback(t, None)
        favs.append(adv.favoured[:, 0].copy())
        hits.append(fb.items[:, 0] == adv.favoured[:, 0])
    favs = np.array(favs)
    t = np.arange(2, T + 1)
    changed = np.any(favs[1:] != favs[:-1], axis=1)
    np.testing.assert_array_equal(changed, (t - 1) % adv.P == 0)
    # P(round plays the favourite) = p + (1 - p) / n; binomial test at 5 standard errors
    q = p + (1 - p) / n
    m = np.size(hits)
    assert abs(np.mean(hits) - q) <= 5 * math.sqrt(q * (1 - q) / m)


@pytest.mark.parametrize("kw", [dict(period=0), dict(period=2.5), dict(p_favour=1.5)])
def test_switching_rejects_bad_params(kw):
    with pytest.raises(ValueError):
        make_adversary("switching", **kw)


# --- cyclic --------------------------------------------------------------------------------------
@pytest.mark.parametrize("ties", ["high", "low"])
@pytest.mark.parametrize(
    "n, family, k",
    [(5, "single", 1), (5, "kchoice", 2), (7, "kchoice", 3), (5, "subset", 1), (6, "subset", 1)],
)
def test_cyclic_is_the_least_favoured_rule(n, family, k, ties):
    game = Game(n=n, T=3 * n + 2, family=family, k=k)
    kk = game.chosen
    s = play(make_adversary("cyclic", ties=ties), game, reps=2)
    S = [0] * n
    for t in range(game.T):  # direct re-implementation: lowest score, then id (high or low)
        pick = sorted(range(n), key=lambda u: (S[u], -u if ties == "high" else u))[:kk]
        want = np.zeros(n)
        want[pick] = 1.0
        np.testing.assert_array_equal(s[t], np.broadcast_to(want, (2, n)))
        np.testing.assert_array_equal(least_favoured(np.array([S], float), kk, ties)[0], sorted(pick))
        for u in pick:
            S[u] += 1


@pytest.mark.slow
def test_cyclic_regret_of_onlinerank_is_one_eighth():
    """theory §3.4: regret about eta T (n-1)/8, ratio about 1/8 to n sqrt(T M ln 2)."""
    game = Game(n=10, T=2000)
    res = simulate(OnlineRank(), make_adversary("cyclic"), game, 1, sample=False, K=20)
    reg = res.regret[0, -1]
    eta = resolve_eta("paper", game.n, game.T, game.M)
    assert 0.12 <= paper_ratio(reg, game) <= 0.16
    assert reg == pytest.approx(eta * game.T * (game.n - 1) / 8, rel=0.01)


def test_cyclic_gives_follow_the_leader_linear_regret():
    n = 10

    def ftl_regret(T, ties="high"):
        res = simulate(
            make_learner("ftl"), make_adversary("cyclic", ties=ties), Game(n, T), 1, sample=False, K=20
        )
        return res.regret[0, -1]

    r4, r1 = ftl_regret(2000), ftl_regret(500)
    # the chosen item is always last in FTL's ranking: loss n-1 a round, optimum (n-1)/2
    assert r4 == 2000 * (n - 1) / 2 and r1 == 500 * (n - 1) / 2
    assert r4 / r1 == pytest.approx(4.0, rel=0.01)
    # with ties by lowest id the chosen item tops FTL's tied block: FTL's regret is exactly 0
    assert ftl_regret(503, ties="low") == 0.0


# --- greedy --------------------------------------------------------------------------------------
def pl_expected_loss(a, s):
    """E[ellell(pi, s)] under Plackett–Luce with log-weights a, by enumerating all n! orders."""
    n = len(a)
    orders = np.array(list(itertools.permutations(range(n))))
    ww = np.exp(a - a.max())[orders]
    prob = np.prod(ww / np.cumsum(ww[:, ::-1], axis=1)[:, ::-1], axis=1)
    assert math.isclose(prob.sum(), 1.0)
    return float(prob @ pairwise_loss(orders, np.broadcast_to(s, orders.shape)))


def increments_by_enumeration(a, past, candidates, n):
    """One-step regret increment of each candidate set: PL enumeration + hindsight by sorting."""
    seq = np.array(past).reshape(-1, n)
    before = hindsight_loss_of_sequence(seq) if len(past) else 0.0
    out = []
    for C in candidates:
        s = np.zeros(n)
        s[list(C)] = 1.0
        after = hindsight_loss_of_sequence(np.vstack([seq, s]))
        out.append(pl_expected_loss(a, s) - (after - before))
    return np.array(out)


@pytest.mark.parametrize(
    "n, family, k, eta", [(4, "single", 1, 0.7), (5, "kchoice", 2, 0.5), (6, "subset", 1, 0.4)]
)
def test_greedy_maximises_the_increment_over_all_candidates(n, family, k, eta):
    """Greedy's set attains the max over *all* candidate sets (the item-by-item construction is
    exact, see the module docstring), and its reported increment is the enumerated one."""
    game = Game(n=n, T=14, family=family, k=k)
    size = game.chosen
    cands = list(itertools.combinations(range(n), size))
    adv = make_adversary("greedy")
    learner = OnlineRank(eta=eta)
    adv.reset(game, replicate_streams(0, ("g",), [0], "adversary"))
    learner.reset(game, 1)
    past = []
    for t in range(1, game.T + 1):
        a = learner.eta_value * (np.sum(past, axis=0) if past else np.zeros(n))
        inc = increments_by_enumeration(a, past, cands, n)
        fb = adv.feedback(t, learner)
        C = tuple(fb.items[0])
        assert inc[cands.index(C)] == pytest.approx(inc.max(), abs=1e-9)
        assert adv.last_increment[0] == pytest.approx(inc[cands.index(C)], abs=1e-9)
        # ties go to the lexicographically smallest of the maximisers (lowest ids first)
        if size == 1:
            assert C[0] == int(np.flatnonzero(inc >= inc.max() - 1e-9)[0])
        learner.update(fb)
        past.append(fb.dense[0])


class Wrapped(Learner):
    """A learner with only the required protocol and an exact expected loss (no log_weights);
    ``rank`` must never be called."""

    name = "wrapped"

    def __init__(self, inner):
        self.inner = inner

    def reset(self, game, reps):
        super().reset(game, reps)
        self.inner.reset(game, reps)

    def expected_loss(self, fb):
        return self.inner.expected_loss(fb)

    def update(self, fb):
        self.inner.update(fb)

    def _rank(self, seeds):
        raise AssertionError("the adversary read the learner's sampled ranking")


@pytest.mark.parametrize("family, k", [("single", 1), ("kchoice", 2), ("subset", 1)])
def test_greedy_generic_path_equals_fast_path_and_never_ranks(family, k):
    game = Game(n=7, T=60, family=family, k=k)
    fast = play(make_adversary("greedy"), game, 3, learner=OnlineRank())
    generic = play(make_adversary("greedy"), game, 3, learner=Wrapped(OnlineRank()))
    np.testing.assert_array_equal(fast, generic)


def test_greedy_helpers_against_definitions():
    rng = np.random.default_rng(4)
    S = rng.integers(0, 4, size=(3, 7)).astype(float)
    brute = (S[:, None, :] > S[:, :, None]).sum(axis=2)
    np.testing.assert_array_equal(greater_counts(S), brute)
    a = rng.normal(size=(3, 7))
    want = np.array(
        [
            [sum(1 / (1 + math.exp(a[r, u] - a[r, v])) for v in range(7) if v != u) for u in range(7)]
            for r in range(3)
        ]
    )
    np.testing.assert_allclose(bradley_terry_positions(a), want, rtol=1e-12)


def _greedy_sets_numpy(h, S, k):
    """The greedy construction written with numpy (the adversary's code before it was compiled):
    the reference the compiled kernel must equal bit for bit."""
    R = h.shape[0]
    rows = np.arange(R)

    def argmax_low(x):
        best = x.max(axis=1, keepdims=True)
        return np.argmax(x >= best - 1e-9 * np.maximum(1.0, np.abs(best)), axis=1)

    marg, items, inc = h.copy(), np.empty((R, k), dtype=np.int64), np.zeros(R)
    for j in range(k):
        c = argmax_low(marg)
        items[:, j] = c
        inc += marg[rows, c]
        marg -= S == S[rows, c][:, None]
        marg[rows, c] = -np.inf
    items.sort(axis=1)
    return items, inc


@pytest.mark.parametrize("n, k", [(2, 1), (7, 3), (10, 5), (40, 20)])
def test_greedy_sets_kernel_equals_the_numpy_construction_bit_for_bit(n, k):
    """Rows with many equal scores and increments equal or within the 1e-9 tie tolerance (the
    cases where the order of the operations could matter), scaled up to 1e6."""
    from onlinerank._kernels.adversaries import greedy_sets

    rng = np.random.default_rng(n)
    for scale in (1.0, 1e6):
        S = rng.integers(0, 3, size=(64, n)).astype(float)
        h = scale * rng.integers(-2, 3, size=(64, n)) + rng.choice([0.0, 1e-10, 0.3], size=(64, n)) * scale
        items, inc = np.empty((64, k), dtype=np.int64), np.empty(64)
        greedy_sets(h, S, k, items, inc)
        want_items, want_inc = _greedy_sets_numpy(h, S, k)
        np.testing.assert_array_equal(items, want_items)
        assert inc.tobytes() == want_inc.tobytes()


@pytest.mark.slow
def test_greedy_beats_the_uniform_adversary():
    game = Game(n=8, T=300)
    greedy = simulate(OnlineRank(), make_adversary("greedy"), game, 2, sample=False, K=20)
    unif = simulate(OnlineRank(), make_adversary("uniform"), game, 16, seed=2, sample=False, K=20)
    g = greedy.regret[:, -1]
    u = unif.regret[:, -1]
    assert np.all(g == g[0])  # deterministic
    assert g[0] > u.mean() + 5 * u.std(ddof=1) / math.sqrt(u.size)
    assert g[0] > u.max()
    assert paper_ratio(g[0], game) < 1.0  # still below Theorem 3.1


def test_greedy_needs_an_exact_expected_loss():
    class NoExp(Wrapped):
        def expected_loss(self, fb):
            return None

    game = Game(n=4, T=3)
    adv = make_adversary("greedy")
    adv.reset(game, replicate_streams(0, ("g",), [0], "adversary"))
    lrn = NoExp(OnlineRank())
    lrn.reset(game, 1)
    with pytest.raises(ValueError, match="exact expected"):
        adv.feedback(1, lrn)


def test_feedback_container_is_binary_for_all_adversaries():
    """Quick cross-check of the dense form of each new adversary on one k-choice game."""
    game = Game(n=8, T=25, family="kchoice", k=3)
    for name in ("popularity", "switching", "cyclic", "greedy"):
        s = play(make_adversary(name), game, 2, learner=OnlineRank())
        assert np.all(s.sum(axis=2) == 3), name
        assert isinstance(make_adversary(name).describe(), dict)


@pytest.mark.parametrize("n", [1, 2, 5, 7, 8, 9, 16, 40, 129, 300])
def test_bradley_terry_positions_are_the_numpy_formula_bit_for_bit(n, monkeypatch):
    """The compiled elementwise steps around numpy's ``exp`` give the bits of the plain numpy
    expression ``expit(a_v - a_u).sum(axis=2) - 0.5`` (samplers.expit): random log-weights, ties
    (differences of 0 and -0), saturating differences (exp underflows to 0), and blocks of
    replicates (a block size that splits R unevenly)."""
    import onlinerank.adversaries.base as base
    from onlinerank.samplers import expit

    rng = np.random.default_rng(n)
    R = 7
    a = rng.normal(scale=3.0, size=(R, n))
    a[0] = 0.0  # every difference 0
    a[1, : n // 2] = -0.0
    if n > 2:
        a[2, :2] = [-900.0, 900.0]  # exp(-1800) = 0
        a[3] = np.round(a[3])  # integer log-weights: many equal differences
    monkeypatch.setattr(base, "_BLOCK", 3 * n * n)  # blocks of 3 replicates: 3 + 3 + 1
    got = bradley_terry_positions(a)
    want = expit(a[:, None, :] - a[:, :, None]).sum(axis=2) - 0.5
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))
