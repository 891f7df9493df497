"""The tables of the lower-bound stage (theory §4): exact curves, the minimum of Theorem 3.3's
statistic, h_c(n), the alpha/beta/gamma route and the frequency law.  Their producer is
:mod:`onlinerank.lower_tables`; each builder hands it its part of the typed settings'
``lowerbound``."""

from __future__ import annotations

from ..settings import LowerBound, Settings
from .base import Column, K, N, T, table

__all__ = [
    "lower_curves_table",
    "lower_minimum_table",
    "lower_hc_table",
    "lower_abg_table",
    "lower_frequencies_table",
]


def _lowerbound(settings: Settings) -> LowerBound:
    """The settings' ``lowerbound`` section (the tables are made only when it is there)."""
    assert settings.lowerbound is not None
    return settings.lowerbound


@table(
    "lower_curves",
    stage="lowerbound",
    description="The random adversary's exact regret, its asymptotes, the explicit lower bounds and "
    "Theorem 3.1 at M = k(n-k) (theory §4.2-§4.5).",
    columns=(
        N,
        K,
        T,
        Column("scale", "n^{3/2} sqrt(kT), the rate of Theorem 3.3", "loss"),
        Column("exact", "exact expected regret against the random adversary (theory §4.2)", "loss"),
        Column("asymptotic", "its asymptote (theory §4.3)", "loss"),
        Column("asymptotic_corrected", "the asymptote with its correction term (theory §4.3)", "loss"),
        Column("holder", "lower bound (a), Hölder (theory §4.5)", "loss"),
        Column("sharp", "lower bound (b), sharp rate (theory §4.5)", "loss"),
        Column("berry_esseen", "lower bound (c), Berry–Esseen (theory §4.5)", "loss"),
        Column("thm31_paper", "Theorem 3.1 at η_p, n sqrt(T M ln 2)", "loss"),
        Column("thm31_optimal", "Theorem 3.1 at its optimal η", "loss"),
        Column("h_holder", "the explicit horizon h(n) from which bound (a) holds (theory §4.5)", "rounds"),
    ),
    keys=("lowerbound",),
)
def lower_curves_table(settings: Settings) -> list[dict]:
    """The exact curves of ``lowerbound.curves`` (:func:`onlinerank.lower_tables.exact_curve_rows`)."""
    # lazy: the exact sums load SciPy, which reading the tables' declarations must not
    from ..lower_tables import exact_curve_rows

    return exact_curve_rows(_lowerbound(settings).curves)


@table(
    "lower_minimum",
    stage="lowerbound",
    description="Theorem 3.3's statistic at every integer horizon from h(n, k): the minimum over "
    "T >= h of the exact regret over n^{3/2} sqrt(kT), certified beyond the scanned range by bound "
    "(b) (theory §4.5 e).",
    columns=(
        N,
        K,
        Column("T_from", "the first horizon ceil(h(n, k)), h = n(n-1)/(2k(n-k)) (theory §4.5 a)", "rounds"),
        Column("T_to", "the last horizon scanned: from there bound (b) stays above the minimum", "rounds"),
        Column("T_min", "the horizon of the minimum", "rounds"),
        Column("exact", "exact expected regret against the random adversary at T_min (theory §4.2)", "loss"),
        Column("scale", "n^{3/2} sqrt(k T_min), the rate of Theorem 3.3", "loss"),
        Column("ratio_min", "min over every integer T >= h of exact / n^{3/2} sqrt(kT)"),
        Column("limit", "the ratio's limit as T grows, sqrt((n-1)(n-k)) / (2 sqrt(pi) n) (theory §4.5 d)"),
        Column("bound_ratio_at_T_to", "bound (b) / n^{3/2} sqrt(k T_to): at least ratio_min (theory §4.5 b)"),
    ),
    keys=("lowerbound",),
)
def lower_minimum_table(settings: Settings) -> list[dict]:
    """The minimum of Theorem 3.3's statistic over ``lowerbound.curves``
    (:func:`onlinerank.lower_tables.minimum_rows`)."""
    # lazy: the exact sums load SciPy, which reading the tables' declarations must not
    from ..lower_tables import minimum_rows

    return minimum_rows(_lowerbound(settings).curves)


@table(
    "lower_hc",
    stage="lowerbound",
    description="h_c(n): the smallest horizon from which the exact regret exceeds c n^{3/2} sqrt(kT) "
    "(theory §4.5).",
    columns=(
        N,
        K,
        Column("c", "the constant c"),
        Column("limit", "the asymptotic constant of the exact regret over n^{3/2} sqrt(kT)"),
        Column("h_c", "smallest such horizon (-1: c is not below the limit, none exists)", "rounds"),
    ),
    keys=("lowerbound",),
)
def lower_hc_table(settings: Settings) -> list[dict]:
    """h_c(n) of ``lowerbound.hc`` (:func:`onlinerank.lower_tables.hc_rows`)."""
    # lazy: the exact sums load SciPy, which reading the tables' declarations must not
    from ..lower_tables import hc_rows

    return hc_rows(_lowerbound(settings).hc)


@table(
    "lower_abg",
    stage="lowerbound",
    description="The paper's alpha + beta + gamma route to Theorem 3.3 for each j, in exact Binomial "
    "sums and in CLT form, against the exact values (theory §4.4).",
    columns=(
        N,
        K,
        T,
        Column("j", "the split parameter j of the route (in standard deviations of a count)"),
        Column("p", "k/n, the frequency of an item", "probability"),
        Column("mu", "Tk/n, the mean count of an item", "rounds"),
        Column("sigma", "the count's standard deviation sqrt(T p (1-p))", "rounds"),
        Column("alpha", "bound on E L* over counts x <= mu - j sigma (exact Binomial sum)", "loss"),
        Column("beta", "bound on E L* over mu - j sigma < x <= mu + j sigma (exact)", "loss"),
        Column("gamma", "bound on E L* over x > mu + j sigma (exact; the integer part, see errata)", "loss"),
        Column("total", "alpha + beta + gamma, an upper bound on E L*", "loss"),
        Column(
            "alg_loss",
            "every algorithm's expected loss against the random adversary, n(n-1)/2 · mu",
            "loss",
        ),
        Column("regret_lower", "the regret lower bound the route implies", "loss"),
        Column("scale", "n(n-1)/2 · sigma, the scale of the CLT form", "loss"),
        Column("alpha_clt", "alpha in CLT form", "loss"),
        Column("beta_clt", "beta in CLT form", "loss"),
        Column("gamma_clt", "gamma in CLT form", "loss"),
        Column("regret_clt", "the implied regret lower bound in CLT form, scale · kappa", "loss"),
        Column("kappa", "κ(j) of the CLT form (theory §4.4)"),
        Column("exact_regret", "exact expected regret (theory §4.2)", "loss"),
        Column("exact_best_loss_position", "exact E[L*], the hindsight optimum's expected loss", "loss"),
    ),
    keys=("lowerbound",),
)
def lower_abg_table(settings: Settings) -> list[dict]:
    """The alpha/beta/gamma route of ``lowerbound.abg`` (:func:`onlinerank.lower_tables.abg_rows`)."""
    # lazy: the exact sums load SciPy, which reading the tables' declarations must not
    from ..lower_tables import abg_rows

    return abg_rows(_lowerbound(settings).abg)


@table(
    "lower_frequencies",
    stage="lowerbound",
    description="Monte Carlo of the random adversary (sampled, not exact): the histogram of item 0's "
    "count next to the Binomial(T, k/n) law (theory §4.1).",
    columns=(
        N,
        K,
        T,
        Column("reps", "sampled sequences"),
        Column("x", "count of item 0 over the horizon", "rounds"),
        Column("count", "sequences with that count"),
        Column("freq", "count / reps", "probability"),
        Column("pmf", "Binomial(T, k/n) probability of x", "probability"),
        Column("regret_mc_mean", "Monte Carlo mean regret over the sequences", "loss"),
        Column("regret_mc_sem", "its standard error", "loss"),
        Column("regret_exact", "exact expected regret (theory §4.2)", "loss"),
    ),
    keys=("lowerbound", "seed"),
)
def lower_frequencies_table(settings: Settings) -> list[dict]:
    """The Monte Carlo of ``lowerbound.frequencies`` from the run's seed
    (:func:`onlinerank.lower_tables.frequency_rows`)."""
    # lazy: the exact sums load SciPy, which reading the tables' declarations must not
    from ..lower_tables import frequency_rows

    return frequency_rows(_lowerbound(settings).frequencies, settings.seed)
