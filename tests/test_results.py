"""onlinerank.results.SimResult: the regret arrays derived from the stored losses."""

import numpy as np

from onlinerank.results import SimResult


def make(loss, exp_loss, best):
    t = np.array([1, 2])
    return SimResult(t, np.asarray(loss), np.asarray(exp_loss), np.asarray(best), np.arange(len(loss)))


def test_regret_is_expected_loss_minus_hindsight_optimum():
    r = make([[3.0, 5.0], [2.0, 6.0]], [[2.5, 4.0], [2.0, 7.5]], [[1.0, 2.0], [0.0, 3.0]])
    np.testing.assert_array_equal(r.regret, [[1.5, 2.0], [2.0, 4.5]])
    np.testing.assert_array_equal(r.realised_regret, [[2.0, 3.0], [2.0, 3.0]])


def test_missing_expectations_give_nan_regret_only():
    r = make([[3.0]], [[np.nan]], [[1.0]])
    assert np.isnan(r.regret).all()
    assert r.realised_regret[0, 0] == 2.0


def test_meta_and_extra_are_per_instance():
    a, b = make([[1.0]], [[1.0]], [[0.0]]), make([[1.0]], [[1.0]], [[0.0]])
    a.meta["x"] = 1
    a.extra["m"] = np.zeros((1, 1))
    assert b.meta == {} and b.extra == {}
