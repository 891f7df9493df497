"""onlinerank.iid_regret: every learner's exact expected loss and regret against an i.i.d.
adversary that ignores it (theory §4.6), against enumeration of every sequence, exact rational
convolution, the lazy walk's formula of theory §4.2 and Monte Carlo; and the closed-form cells of
the simulation tables."""

import copy
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from onlinerank import Game
from onlinerank.adversaries import make_adversary
from onlinerank.cells import cells_of, run_block
from onlinerank.config import load_settings
from onlinerank.iid_regret import abs_sum_mean, check_law, expected_best, expected_loss, expected_regret
from onlinerank.lowerbound import exact_regret
from onlinerank.sim_tables import aggregate, closed_form_rows
from onlinerank.worst_case import dp_learner, family_actions, play_regret

UNIFORM = make_adversary("uniform")


def law_of(game):
    return UNIFORM.pair_difference_law(game)


def enumerated(game, learner):
    """Mean over every equally likely sequence of the uniform adversary (all A^T of them) of the
    learner's exact expected regret and loss, each sequence played forward by the learner itself
    (no formula of this module)."""
    acts = family_actions(game.n, game.family, game.k)
    if game.family == "subset":  # the uniform adversary's subsets have n // 2 items
        acts = acts[acts.sum(axis=1) == game.n // 2]
    seqs = np.array(list(itertools.product(acts, repeat=game.T)), dtype=np.float64)
    _, lrn, _ = dp_learner(learner, game.n, game.T, game.family, game.k)
    regret = play_regret(lrn, game, seqs)
    lrn.reset(game, len(seqs))
    loss = np.zeros(len(seqs))
    from onlinerank.feedback import Feedback

    for t in range(game.T):
        fb = Feedback(game.n, values=np.ascontiguousarray(seqs[:, t]), family=game.family)
        loss += lrn.expected_loss(fb)
        lrn.update(fb)
    return float(regret.mean()), float(loss.mean())


@pytest.mark.parametrize(
    "game",
    [
        Game(n=3, T=5),
        Game(n=4, T=4, family="kchoice", k=2),
        Game(n=5, T=3, family="subset"),
        Game(n=3, T=3, family="spearman"),
    ],
    ids=lambda g: g.family,
)
@pytest.mark.parametrize("learner", ["onlinerank", "ftl", "uniform"])
def test_every_learner_pays_the_closed_form_over_every_sequence(game, learner):
    """The mean over all A^T sequences of a learner's exact expected regret and loss is the closed
    form, whatever the learner (OnlineRank, Follow the Leader, the uniform ranking)."""
    regret, loss = enumerated(game, learner)
    law = law_of(game)
    assert expected_regret(game.n, law, game.T) == pytest.approx(regret, rel=1e-12)
    assert expected_loss(game.n, law, game.T) == pytest.approx(loss, rel=1e-12)
    assert expected_best(game.n, law, game.T) == pytest.approx(loss - regret, rel=1e-12, abs=1e-12)


def test_binary_laws_are_the_lazy_walk_formula_bit_for_bit():
    """For a uniform c-subset the regret is theory §4.2's exact_regret (the same float), and the
    Fejér sum, an independent evaluation, agrees with it to rounding."""
    from onlinerank.iid_regret import _fejer_abs_mean

    for n, k, T in ((10, 1, 100), (40, 8, 10000), (6, 3, 7), (2, 1, 9)):
        law = law_of(Game(n=n, T=T, family="kchoice" if k > 1 else "single", k=k))
        assert expected_regret(n, law, T) == exact_regret(n, T, k)
        fejer = n * (n - 1) / 4 * _fejer_abs_mean(check_law(law), T)
        assert fejer == pytest.approx(exact_regret(n, T, k, exact=True), rel=1e-12)
        assert expected_loss(n, law, T) == T * k * (n - k) / 2


def test_spearman_law_against_exact_rational_convolution():
    """E|D_T| of the Spearman difference law by the Fejér sum against the law of D_T convolved
    in exact rationals."""
    for n, T in ((3, 6), (4, 5), (6, 3)):
        law = law_of(Game(n=n, T=T, family="spearman"))
        dist = {0: Fraction(1)}
        for _ in range(T):
            nxt: dict[int, Fraction] = {}
            for d0, p0 in dist.items():
                for d, p in law.items():
                    nxt[d0 + d] = nxt.get(d0 + d, Fraction(0)) + p0 * p
            dist = nxt
        exact = sum(abs(d) * p for d, p in dist.items())
        assert abs_sum_mean(law, T) == pytest.approx(float(exact), rel=1e-13)
        # E|X| = (n + 1)/3: every pair costs half of it per round
        assert expected_loss(n, law, 1) == pytest.approx(n * (n - 1) / 4 * (n + 1) / 3, rel=1e-15)


def test_monte_carlo_agrees_with_the_closed_form():
    """OnlineRank against the simulated uniform adversary (fixed seed, 4000 sequences): the mean
    regret at every checkpoint is within 4.5 standard errors of the closed form, and a formula 5 %
    off would be more than 8 standard errors off at the horizon."""
    from onlinerank.learners import make_learner
    from onlinerank.simulate import simulate

    for game in (Game(n=5, T=40, family="spearman"), Game(n=8, T=60, family="subset")):
        res = simulate(
            make_learner("onlinerank"),
            make_adversary("uniform"),
            game,
            4000,
            seed=5,
            cell=("iid-mc", game.family),
            K=4,
            sample=False,
        )
        law = law_of(game)
        for j, t in enumerate(res.t):
            x = res.regret[:, j]
            exact = expected_regret(game.n, law, int(t))
            sem = x.std(ddof=1) / math.sqrt(x.size)
            assert abs(x.mean() - exact) <= 4.5 * sem, (game.family, t, x.mean(), exact, sem)
        assert abs(x.mean() - 1.05 * exact) > 8 * sem  # the test's power, at t = T


def test_check_law_refuses_what_is_not_a_symmetric_law():
    quarter, half = Fraction(1, 4), Fraction(1, 2)
    assert check_law({-1: 0.25, 0: 0.5, 1: 0.25}) == {-1: quarter, 0: half, 1: quarter}
    with pytest.raises(ValueError, match="sum to"):
        check_law({-1: Fraction(1, 3), 1: Fraction(1, 3)})
    with pytest.raises(ValueError, match="not symmetric"):
        check_law({-1: Fraction(1, 4), 0: Fraction(1, 4), 1: Fraction(1, 2)})
    with pytest.raises(ValueError, match="integers"):
        check_law({0.5: Fraction(1, 2), -0.5: Fraction(1, 2)})
    with pytest.raises(ValueError, match="not a probability"):
        check_law({0: Fraction(3, 2), 1: Fraction(-1, 4), -1: Fraction(-1, 4)})
    with pytest.raises(ValueError, match="T must be"):
        abs_sum_mean({0: 1}, -1)
    assert abs_sum_mean({0: 1}, 10) == 0.0 == abs_sum_mean({-1: 0.5, 1: 0.5}, 0)


CONFIG = {
    "seed": 4,
    "checkpoints": 4,
    "learners": {"pl": {"name": "onlinerank"}, "ftl": {"name": "ftl"}},
    "adversaries": {"u": {"name": "uniform"}},
    "upper": {
        "block_size": 400,
        "experiments": [
            {
                "name": "e",
                "family": "kchoice",
                "adversaries": ["u"],
                "learners": ["pl", "ftl"],
                "n": [6],
                "k": [2],
                "T": [50],
                "replicates": 400,
            }
        ],
    },
}


def test_closed_form_rows_are_the_simulated_rows_without_the_noise():
    """A closed-form cell's rows (theory §4.6): the simulated cell's columns, learners and
    checkpoints, its rate in the eta column, exact values with sem 0 and no replicates, no realised
    loss; and the same cell simulated (closed_form: false, 400 sequences) agrees within 4.5
    standard errors at every checkpoint."""
    raw = copy.deepcopy(CONFIG)
    raw["upper"]["experiments"][0]["closed_form"] = False
    settings, simulated = load_settings(copy.deepcopy(CONFIG)), load_settings(raw)
    for closed, sim in zip(cells_of(settings, "upper"), cells_of(simulated, "upper"), strict=True):
        assert closed.closed_form and not sim.closed_form
        rows = closed_form_rows(settings, closed)
        mc = aggregate(sim, [run_block(simulated, sim, 0)])
        assert [(r["t"], r["metric"]) for r in rows] == [(r["t"], r["metric"]) for r in mc]
        assert {k for r in rows for k in r} == {k for r in mc for k in r}
        for r, m in zip(rows, mc, strict=True):
            assert (r["eta"] == m["eta"]) or (math.isnan(r["eta"]) and math.isnan(m["eta"]))
            assert r["M"] == m["M"] and r["exact"] is True and r["reps"] == 0
            if r["metric"] in ("loss", "realised_regret"):
                assert math.isnan(r["mean"]) and math.isnan(r["sem"])
                continue
            assert r["sem"] == 0.0
            if m["sem"] > 0:
                assert abs(m["mean"] - r["mean"]) <= 4.5 * m["sem"], (r, m)
            else:  # t = 1: every learner ranks uniformly, every replicate equal
                assert m["mean"] == pytest.approx(r["mean"], abs=1e-12)
        final = [r for r in rows if r["t"] == 50 and r["metric"] == "regret"][0]
        assert final["mean"] == exact_regret(6, 50, 2)


def test_a_cell_without_a_closed_form_is_refused():
    cfg = load_settings({**copy.deepcopy(CONFIG), "adversaries": {"u": {"name": "greedy"}}})
    (cell, *_) = cells_of(cfg, "upper")
    assert not cell.closed_form
    with pytest.raises(ValueError, match="no closed form"):
        closed_form_rows(cfg, cell)
