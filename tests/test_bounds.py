"""Theorem 3.1 bound values (reference values G2) and learning rates."""

import math

import pytest

from onlinerank import bounds


@pytest.mark.parametrize(
    "n, T, M, eta_p, b_paper, b_sharp, b_opt",
    [
        (4, 10, 3, 0.6080119211813511, 18.24035763544053, 15.96031293101047, 15.7966130864),
        (5, 100, 4, 0.2081386527894244, 83.25546111576978, 74.92991500419280, 74.4659482212),
        (10, 1000, 9, 0.08775896159113864, 789.8306543202478, 750.3391216042354, 749.299150042),
        (10, 1000, 25, 0.05265537695468319, 1316.384423867080, 1250.565202673726, 1248.83191674),
        (20, 500, 51, 0.1042731842323803, 2658.966197925698, 2592.492042977556, 2591.6396701),
        (10, 100, 825, 0.02898583103308790, 2391.331060229752, 2271.764507218264, 2268.61583695),
    ],
)
def test_golden_G2(n, T, M, eta_p, b_paper, b_sharp, b_opt):
    assert bounds.eta_paper(n, T, M) == pytest.approx(eta_p, rel=1e-14)
    assert bounds.theorem31_paper(n, T, M) == pytest.approx(b_paper, rel=1e-14)
    assert bounds.theorem31(n, T, M) == pytest.approx(b_sharp, rel=1e-14)
    assert bounds.theorem31(n, T, M, eta=eta_p) == pytest.approx(b_sharp, rel=1e-14)
    assert bounds.theorem31_optimal(n, T, M) == pytest.approx(b_opt, rel=1e-10)
    # the sharp bound at eta_p equals (n - 1/2) sqrt(T M ln 2); eta* minimises it
    assert b_sharp == pytest.approx((n - 0.5) * math.sqrt(T * M * math.log(2)), rel=1e-12)
    e = bounds.eta_optimal(n, T, M)
    for f in (0.9, 1.1):
        assert bounds.theorem31_sharp(n, T, M, e) < bounds.theorem31_sharp(n, T, M, f * e)


def test_corollaries():
    n, T = 20, 1000
    assert bounds.corollary32("single", n, T) <= n**1.5 * math.sqrt(T * math.log(2))
    assert bounds.corollary32("subset", n, T) == pytest.approx(n * n / 2 * math.sqrt(T * math.log(2)))
    assert bounds.corollary32("kchoice", n, T, 3) <= n**1.5 * math.sqrt(3 * T * math.log(2))
    assert bounds.spearman_bound(n, T) <= math.sqrt(math.log(2) / 12) * n**3 * math.sqrt(T)


def test_resolve_eta_errors():
    with pytest.raises(ValueError, match="eta"):
        bounds.resolve_eta("fast", 3, 10, 2)
    with pytest.raises(ValueError, match="positive"):
        bounds.resolve_eta(-1.0, 3, 10, 2)
    assert bounds.resolve_eta("optimal", 4, 10, 3) == pytest.approx(math.sqrt(12 * math.log(2) / 30))
