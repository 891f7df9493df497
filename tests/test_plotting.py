"""regret_panels and learner_style: what a user sees in the regret figures (issue 17.9)."""

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


def test_zero_regret_learner_does_not_squash_the_log_axis():
    """A learner with zero regret (and a band reaching zero) made the panel's log axis run down
    to 1e-9, squashing every curve into its top."""
    rows = rows_for("onlinerank-pl", [20.0, 70.0, 230.0]) + rows_for("ftl", [0.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    rows += rows_for("onlinerank-qs", [20.0, 70.0, 230.0], [15.0, 40.0, 200.0])  # bands reach below 0
    fig = regret_panels(rows, bound_rows(), LEARNERS, "test")
    ax = fig.axes[0]
    lo, hi = ax.get_ylim()
    assert lo == pytest.approx(20.0 / 10**0.5)  # half a decade below the smallest positive mean
    assert hi > 230
    for coll in ax.collections:
        if isinstance(coll, PolyCollection):
            for path in coll.get_paths():
                assert path.vertices[:, 1].min() >= lo * (1 - 1e-12)
    # the zero means are shown (hollow down-triangles on the bottom edge), not silently dropped
    ftl = learner_style(LEARNERS["ftl"], "ftl")["color"]
    marks = [ln for ln in ax.lines if ln.get_marker() == "v" and ln.get_color() == ftl]
    assert len(marks) == 1 and np.allclose(marks[0].get_ydata(), lo) and len(marks[0].get_xdata()) == 3
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("regret ≤ 0" in t for t in legend)


def test_positive_regret_only_panel_has_no_zero_marker():
    rows = rows_for("onlinerank-pl", [20.0, 70.0, 230.0])
    fig = regret_panels(rows, bound_rows(), LEARNERS, "test")
    assert not [ln for ln in fig.axes[0].lines if ln.get_marker() == "v"]
    assert not any("regret ≤ 0" in t.get_text() for t in fig.legends[0].get_texts())


VARIANTS = {
    **LEARNERS,
    "onlinerank-pl-small": {"name": "onlinerank", "sampler": "plackett-luce", "eta": 0.05},
    "onlinerank-pl-opt": {"name": "onlinerank", "sampler": "plackett-luce", "eta": "optimal"},
}
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
    learners = {
        "pl-a": {"name": "onlinerank", "sampler": "plackett-luce", "eta": 0.1, "tag": "a"},
        "pl-b": {"name": "onlinerank", "sampler": "plackett-luce", "eta": 0.1, "tag": "b"},
    }
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
