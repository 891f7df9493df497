"""regret_panels and learner_style: what a user sees in the regret figures."""

import math

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402

from onlinerank import bounds  # noqa: E402
from onlinerank.plotting import learner_style, regret_panels  # noqa: E402

TS = [100, 1000, 10000]
N = 10
LEARNERS = {
    "onlinerank-pl": {"name": "onlinerank", "sampler": "plackett-luce", "eta": "paper"},
    "onlinerank-qs": {"name": "onlinerank", "sampler": "quicksort", "eta": "paper"},
    "ftl": {"name": "ftl"},
}


def bound_rows(n=N, Ts=TS):
    M = n - 1
    return {
        ("single", n, 1, T): {
            "bound_paper": float(bounds.theorem31_paper(n, T, M)),
            "bound_sharp": float(bounds.theorem31(n, T, M)),
            "bound_optimal": float(bounds.theorem31_optimal(n, T, M)),
        }
        for T in Ts
    }


#: OnlineRank variants at other rates, and two learners differing in a tag only
OTHER_ETA = {
    "onlinerank-pl-small": {"name": "onlinerank", "sampler": "plackett-luce", "eta": 0.05},
    "onlinerank-pl-opt": {"name": "onlinerank", "sampler": "plackett-luce", "eta": "optimal"},
    "pl-a": {"name": "onlinerank", "sampler": "plackett-luce", "eta": 0.1, "tag": "a"},
    "pl-b": {"name": "onlinerank", "sampler": "plackett-luce", "eta": 0.1, "tag": "b"},
}


def recorded_eta(learner, T):
    """The ``eta`` a simulation table records for ``learner`` at (N, T): the rate it resolved for
    the single-choice game (M = n - 1); NaN for a learner without one."""
    spec = {**LEARNERS, **OTHER_ETA}[learner]
    if spec["name"] != "onlinerank":
        return math.nan
    return bounds.resolve_eta(spec["eta"], N, T, float(N - 1), "single")


def rows_for(learner, means, sems=None, adversary="uniform"):
    sems = sems or [0.1 * m for m in means]
    return [
        {
            "metric": "regret",
            "t": T,
            "T": T,
            "family": "single",
            "n": N,
            "k": 1,
            "adversary": adversary,
            "learner": learner,
            "M": float(N - 1),
            "eta": recorded_eta(learner, T),
            "mean": m,
            "sem": s,
            "exact": True,
            "reps": 8,
        }
        for T, m, s in zip(TS, means, sems, strict=True)
    ]


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_positive_regret_panel_stays_log_log_with_its_floor():
    """A panel of positive means only is log-log, its bottom half a decade below the smallest
    positive mean (bands reaching below zero are clipped there, not run down to 1e-9)."""
    rows = rows_for("onlinerank-pl", [20.0, 70.0, 230.0])
    rows += rows_for("onlinerank-qs", [20.0, 70.0, 230.0], [15.0, 40.0, 200.0])  # bands reach below 0
    fig = regret_panels(rows, bound_rows(), LEARNERS, "test")
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and ax.get_xscale() == "log"
    lo, hi = ax.get_ylim()
    assert lo == pytest.approx(20.0 / 10**0.5)
    assert hi > 230
    for coll in ax.collections:
        if isinstance(coll, PolyCollection):
            for path in coll.get_paths():
                assert path.vertices[:, 1].min() >= lo * (1 - 1e-12)


def _learner_line(ax, learner):
    label = learner_style(LEARNERS[learner], learner, LEARNERS)["label"]
    (line,) = [ln for ln in ax.lines if ln.get_label() == label]
    return line


@pytest.mark.parametrize("ftl_means", [[-40.0, -3.0, -0.5], [0.0, 0.0, 0.0], [-5.0, 0.0, 12.0]])
def test_zero_or_negative_regret_is_drawn_on_a_symlog_axis_in_the_learners_own_style(ftl_means, tmp_path):
    """A learner with negative (or zero) regret was drawn on log axes as bottom-edge markers that
    matched no learner: the panel is now symmetric-log, linear within ±linthresh (the decade below
    the smallest nonzero |value|), and the learner's line carries its own colour and marker through
    its negative values."""
    rows = rows_for("onlinerank-pl", [20.0, 70.0, 230.0]) + rows_for("ftl", ftl_means, [0.2, 0.2, 0.2])
    fig = regret_panels(rows, bound_rows(), LEARNERS, "test")
    ax = fig.axes[0]
    assert ax.get_yscale() == "symlog"
    nonzero = [abs(x) for x in ftl_means + [20.0, 70.0, 230.0] if x != 0]
    linthresh = 10.0 ** np.floor(np.log10(min(nonzero)))
    assert ax.yaxis.get_transform().linthresh == pytest.approx(linthresh)
    ftl = _learner_line(ax, "ftl")
    style = learner_style(LEARNERS["ftl"], "ftl", LEARNERS)
    assert matplotlib.colors.same_color(ftl.get_color(), style["color"])
    assert ftl.get_marker() == style["marker"]
    np.testing.assert_array_equal(ftl.get_ydata(), ftl_means)  # every value drawn, none on an edge
    lo, hi = ax.get_ylim()
    assert lo <= min(ftl_means) and hi >= 230
    assert not [ln for ln in ax.lines if ln.get_marker() == "v"]
    assert not any("bottom edge" in t.get_text() for t in fig.legends[0].get_texts())
    assert "symlog" in ax.get_ylabel()
    fig.savefig(tmp_path / "panel.png", dpi=60)  # renders (ticks of a symlog axis included)


def test_positive_regret_only_panel_has_no_zero_marker():
    rows = rows_for("onlinerank-pl", [20.0, 70.0, 230.0])
    fig = regret_panels(rows, bound_rows(), LEARNERS, "test")
    assert fig.axes[0].get_yscale() == "log"
    assert not [ln for ln in fig.axes[0].lines if ln.get_marker() == "v"]


def test_symlog_threshold_is_the_decade_below_the_smallest_nonzero_value():
    from onlinerank.plotting import symlog_threshold

    assert symlog_threshold([-0.5, 3.0, 0.0]) == 0.1
    assert symlog_threshold([-40.0, 230.0]) == 10.0
    assert symlog_threshold([0.0, float("nan")]) == 1.0


VARIANTS = {**LEARNERS, **{lab: OTHER_ETA[lab] for lab in ("onlinerank-pl-small", "onlinerank-pl-opt")}}
TITLE = "OnlineRank vs Theorem 3.1 (learning rate η = paper's η_p)"


def _line_style(ax, label):
    (ln,) = [ln for ln in ax.lines if ln.get_label() == label]
    return ln.get_color(), ln.get_marker(), str(ln.get_linestyle())


def test_onlinerank_variants_with_different_eta_are_distinguishable_and_title_is_honest():
    """Two OnlineRank variants with different η shared colour, marker and the title
    'η = paper's η_p'."""
    rows = rows_for("onlinerank-pl", [20.0, 70.0, 230.0])
    rows += rows_for("onlinerank-pl-small", [25.0, 150.0, 1200.0])
    rows += rows_for("onlinerank-pl-opt", [22.0, 60.0, 200.0])
    fig = regret_panels(rows, bound_rows(), VARIANTS, TITLE)
    ax = fig.axes[0]
    labels = {lab: learner_style(VARIANTS[lab], lab, VARIANTS)["label"] for lab in VARIANTS}
    assert labels["onlinerank-pl"] == "OnlineRank, Plackett–Luce"
    assert labels["onlinerank-pl-small"] == "OnlineRank, Plackett–Luce (η = 0.05)"
    assert labels["onlinerank-pl-opt"] == "OnlineRank, Plackett–Luce (η*)"
    styles = [
        _line_style(ax, labels[lab]) for lab in ("onlinerank-pl", "onlinerank-pl-small", "onlinerank-pl-opt")
    ]
    for attr in range(3):  # colour, marker and line style each differ
        assert len({s[attr] for s in styles}) == 3, styles
    title = fig._suptitle.get_text()
    assert "paper's η_p" not in title
    assert title.startswith("OnlineRank vs Theorem 3.1 (learning rate η_p unless the legend names another)")
    # without a learner at the paper's η, the title lists the rates
    rows = rows_for("onlinerank-pl-small", [25.0, 150.0, 1200.0]) + rows_for("onlinerank-pl-opt", [1.0, 2, 3])
    title = regret_panels(rows, bound_rows(), VARIANTS, TITLE)._suptitle.get_text()
    assert title.startswith("OnlineRank vs Theorem 3.1 (learning rates η = 0.05, η*, as the legend says)")


def test_title_keeps_the_paper_eta_claim_when_it_is_true():
    rows = rows_for("onlinerank-pl", [20.0, 70.0, 230.0]) + rows_for("onlinerank-qs", [20.0, 70.0, 230.0])
    fig = regret_panels(rows, bound_rows(), VARIANTS, TITLE)  # the variants are not in this figure
    assert fig._suptitle.get_text().startswith(TITLE + " — ")


def test_paper_eta_learners_keep_their_usual_style():
    for lab in ("onlinerank-pl", "onlinerank-qs"):
        assert learner_style(VARIANTS[lab], lab, VARIANTS) == learner_style(LEARNERS[lab], lab)


def test_learner_style_without_the_config_still_separates_learning_rates():
    a = learner_style({"name": "onlinerank", "eta": "paper"}, "a")
    b = learner_style({"name": "onlinerank", "eta": 0.05}, "b")
    c = learner_style({"name": "onlinerank", "eta": "optimal"}, "c")
    assert len({(s["color"], s["marker"]) for s in (a, b, c)}) == 3


def test_identical_labels_get_the_config_key():
    learners = {lab: OTHER_ETA[lab] for lab in ("pl-a", "pl-b")}
    rows = rows_for("pl-a", [20.0, 70.0, 230.0]) + rows_for("pl-b", [21.0, 71.0, 231.0])
    fig = regret_panels(rows, bound_rows(), learners, "t")
    legend = {t.get_text() for t in fig.legends[0].get_texts()}
    assert {
        "OnlineRank, Plackett–Luce (η = 0.1) [pl-a]",
        "OnlineRank, Plackett–Luce (η = 0.1) [pl-b]",
    } <= legend


def test_panel_merging_experiments_names_every_replicate_count():
    """The regret_vs_T panel of an adversary at n = 100 merges the 64-replicate experiment (T up
    to 10^5) and the 16-replicate one (beyond): its title said "64 reps" for both."""
    rows = rows_for("onlinerank-pl", [20.0, 70.0, 230.0])
    for r in rows[-1:]:
        r["reps"] = 2
    fig = regret_panels(rows, bound_rows(), LEARNERS, "test")
    assert fig.axes[0].get_title().endswith(", 8/2 reps")
    fig = regret_panels(rows_for("onlinerank-pl", [20.0, 70.0, 230.0]), bound_rows(), LEARNERS, "test")
    assert fig.axes[0].get_title().endswith(", 8 reps")


def test_a_panel_of_closed_forms_says_exact_not_zero_replicates():
    """An oblivious adversary's cells are exact expectations with 0 replicates: the title said
    "0 reps"."""
    rows = rows_for("onlinerank-pl", [20.0, 70.0, 230.0])
    for r in rows:
        r["reps"] = 0
    assert regret_panels(rows, bound_rows(), LEARNERS, "t").axes[0].get_title().endswith(", exact")
    rows[-1]["reps"] = 8
    assert regret_panels(rows, bound_rows(), LEARNERS, "t").axes[0].get_title().endswith(", 8 reps + exact")
