"""The figure catalog (onlinerank.figures): every figure is one module whose FigureSpec names
registered claims and existing tables, the claims document takes a claim's figures from it, and
each plot function draws from small tables (the bounds, lower-bound and DP tables of the smoke
config computed here, the simulation, timing and search tables synthetic) what its caption
promises, without files or pyplot state."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

import matplotlib
import numpy as np
import pytest
import yaml

matplotlib.use("Agg")
from matplotlib import _pylab_helpers  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from onlinerank import figures as F  # noqa: E402
from onlinerank.claims import REGISTRY  # noqa: E402
from onlinerank.claims.registry import Claim  # noqa: E402
from onlinerank.config import load_settings  # noqa: E402
from onlinerank.drawing import draw  # noqa: E402
from onlinerank.tables import TABLE_STAGE, make_table  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: the smoke tier's config file and its settings (the one validator: what the figure jobs are handed)
CONFIG_PATH = ROOT / "config" / "smoke.yaml"
CONFIG = load_settings(yaml.safe_load(CONFIG_PATH.read_text()))
LEARNERS = ["onlinerank-pl", "onlinerank-qs"]


# --- the catalog ---------------------------------------------------------------------------------


def test_every_module_of_the_package_declares_a_figure_of_the_catalog():
    """Each module of the package (but the contract, base.py) declares one figure, drawn by a
    function of that module."""
    modules = sorted(
        p.stem
        for p in Path(F.__file__).parent.glob("*.py")
        if not p.stem.startswith("_") and p.stem != "base"
    )
    assert sorted(m.__name__.rsplit(".", 1)[1] for m in F.MODULES) == modules and len(modules) >= 18
    declared = sorted(spec.draw.__module__.rsplit(".", 1)[1] for spec in F.FIGURES.values())
    assert declared == modules
    for name, spec in F.FIGURES.items():
        assert spec.name == name and F.plot_function(name) is spec.draw


def test_every_figure_names_registered_claims_and_existing_tables():
    F.check_catalog(REGISTRY, TABLE_STAGE)  # raises naming the figure and the unknown name


@pytest.mark.parametrize(
    "spec,message",
    [
        (F.FigureSpec("bad", ("sim_upper",), ("thm9.9",), "c"), "figure 'bad' supports claim 'thm9.9'"),
        (F.FigureSpec("bad", ("sim_nowhere",), ("thm3.1",), "c"), "figure 'bad' reads table 'sim_nowhere'"),
    ],
)
def test_an_unknown_claim_or_table_is_named(monkeypatch, spec, message):
    monkeypatch.setitem(F.FIGURES, "bad", spec)
    with pytest.raises(ValueError, match=message):
        F.check_catalog(REGISTRY, TABLE_STAGE)


def test_a_spec_without_claims_or_caption_is_refused():
    with pytest.raises(ValueError, match="claims must be a non-empty tuple"):
        F.FigureSpec("x", ("sim_upper",), (), "caption")
    with pytest.raises(ValueError, match="tables must be a non-empty tuple"):
        F.FigureSpec("x", ["sim_upper"], ("thm3.1",), "caption")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="caption is empty"):
        F.FigureSpec("x", ("sim_upper",), ("thm3.1",), " ")


def test_the_claim_figure_link_is_stated_once_in_the_catalog():
    """Claims carry no figure list of their own; the claims document lists, for each claim, the
    figures whose spec names it."""
    from onlinerank.claims.report import evaluate

    assert "figures" not in {f.name for f in fields(Claim)}
    assert F.claim_figures("sec5.spearman") == [
        "spearman_correlation",
        "spearman_regret_vs_T",
        "spearman_vs_n",
    ]
    bare = load_settings(
        {"seed": 0, "learners": {"l": {"name": "ftl"}}, "adversaries": {"a": {"name": "uniform"}}}
    )
    for cid in ("thm3.1", "sec5.spearman", "beyond.h_c"):  # not run: no stage configured
        assert evaluate(REGISTRY[cid], {}, bare, 0.05)["figures"] == F.claim_figures(cid)
    linked = {c for spec in F.FIGURES.values() for c in spec.claims}
    assert {"thm3.1", "sec4.runtime", "thm3.3.lower"} <= linked


def test_importing_the_catalog_imports_no_plotting_or_symbolic_library():
    """The Snakefile and the claims report read the catalog: it imports the figure modules but
    none of what they draw with (matplotlib, scipy, sympy): of the package (whose facade imports
    nothing), only the registry, the plotting helpers (and the stamp's provenance), the files'
    reader, the closed forms some figures draw (``bounds``, and ``cited_bounds``, ``feedback`` and
    ``results`` beneath them) and the timings' fits (numpy only)."""
    light = (
        "onlinerank.registry",
        "onlinerank.plotting",
        "onlinerank.provenance",
        "onlinerank.io",
        "onlinerank.results",
        "onlinerank.bounds",
        "onlinerank.cited_bounds",
        "onlinerank.feedback",
        "onlinerank.timing_fits",
    )
    code = (
        "import sys, onlinerank; before = set(sys.modules); import onlinerank.figures;"
        "new = sorted(m for m in set(sys.modules) - before if m.startswith('onlinerank.')"
        f" and not m.startswith('onlinerank.figures') and m not in {light!r});"
        "heavy = [m for m in ('matplotlib', 'scipy', 'sympy') if m in sys.modules];"
        "print(new, heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[] []", out


def test_importing_the_catalog_does_not_import_the_engine():
    code = (
        "import sys, onlinerank.figures;"
        "print([m for m in ('onlinerank.simulate', 'onlinerank._kernels') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def test_the_docs_page_lists_every_figure_of_the_catalog():
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    import onlinerank_docs

    rows = onlinerank_docs.figure_rows()
    assert [r[0] for r in rows] == list(F.FIGURES)
    for name, caption, tables, claims in rows:
        spec = F.FIGURES[name]
        assert caption == spec.caption and tables == ", ".join(spec.tables)
        assert claims == ", ".join(spec.claims)
    page = (ROOT / "docs" / "reference" / "figures.md").read_text()
    assert "```{figure-catalog}" in page
    assert "figures" in (ROOT / "docs" / "reference" / "index.md").read_text().split("toctree")[1]


# --- the drawings --------------------------------------------------------------------------------


def _bound_rows(cells: list[tuple[str, int, int]], Ts: list[int]) -> list[dict]:
    """Rows of a bounds table (onlinerank.tables.stage_bounds.bounds_rows' columns) for (family, n, k) x T."""
    from onlinerank import bounds
    from onlinerank.feedback import family_M

    out = []
    for family, n, k in cells:
        M = float(family_M(family, n, k))
        for T in Ts:
            eta = float(bounds.eta_paper(n, T, M))
            out.append(
                {
                    "family": family,
                    "n": n,
                    "k": k,
                    "T": T,
                    "M": M,
                    "eta_paper": eta,
                    "bound_paper": float(bounds.theorem31_paper(n, T, M)),
                    "bound_sharp": float(bounds.theorem31_sharp(n, T, M, eta)),
                    "bound_optimal": float(bounds.theorem31_optimal(n, T, M)),
                }
            )
    return out


def _sim_rows(bounds: list[dict], adversaries: list[str], factor: float = 0.3) -> list[dict]:
    """Regret rows at t = T for every bound row, learner and adversary: ``factor`` times the
    sharp bound (the second learner and adversary a little lower)."""
    out = []
    for b in bounds:
        for i, lab in enumerate(LEARNERS):
            for j, adv in enumerate(adversaries):
                m = factor * b["bound_sharp"] * (1 - 0.1 * i) * (1 - 0.2 * j)
                out.append(
                    {
                        **{k: b[k] for k in ("family", "n", "k", "T", "M")},
                        "eta": b["eta_paper"],
                        "adversary": adv,
                        "learner": lab,
                        "t": b["T"],
                        "metric": "regret",
                        "mean": m,
                        "sem": 0.05 * m,
                        "reps": 4,
                        "exact": True,
                    }
                )
    return out


@pytest.fixture(scope="module")
def tables() -> dict[str, list[dict]]:
    t = {
        name: make_table(name, CONFIG)
        for name in (
            "bounds_baselines",
            "bounds_spearman",
            "worst_case",
            "lower_curves",
            "lower_hc",
            "lower_abg",
            "lower_frequencies",
            "bound_comparison",
        )
    }
    t["bounds_upper"] = _bound_rows([("single", 10, 1), ("kchoice", 10, 2)], [60, 600])
    t["sim_upper"] = _sim_rows(t["bounds_upper"], ["uniform", "reverse"])
    t["sim_baselines"] = _sim_rows(t["bounds_baselines"], ["uniform", "greedy"])
    t["sim_spearman"] = _sim_rows(t["bounds_spearman"], ["mallows", "reverse"], factor=0.1)
    t["sim_spearman"] += [
        {**r, "metric": "spearman_centre", "t": tt, "mean": 1 - 1 / np.sqrt(tt), "sem": 0.01}
        for r in t["sim_spearman"]
        if r["adversary"] == "mallows" and r["family"] == "spearman"
        for tt in (1, 10, r["T"])
    ]
    curves = [c for c in t["lower_curves"] if c["T"] in sorted({c["T"] for c in t["lower_curves"]})[::4]]
    t["sim_lower"] = [
        {**c, "learner": lab, "t": c["T"], "metric": "regret", "mean": c["exact"], "sem": 0.02 * c["exact"]}
        for c in curves
        for lab in LEARNERS
    ]
    t["tightness"] = [
        {"family": "single", "n": n, "k": 1, "T": T, "eta_factor": f, "kind": kind, "ratio_sharp": r}
        for n, kind in ((3, "exact"), (6, "search"))
        for f in (0.25, 1.0)
        for T, r in ((10, 0.3 * f + 0.1), (40, 0.4 * f + 0.1))
    ]
    t["worst_case_learners"] = [
        {
            "family": "single",
            "n": n,
            "T": T,
            "learner": lab,
            "kind": kind,
            "method": method,
            "value": v,
            "bound_thm31": 10.0,
            "bound_own": own,
        }
        for n, T in ((3, 8), (6, 40))
        for lab, own in (("onlinerank-pl", float("nan")), ("hedge", 25.0), ("ftl", float("nan")))
        for kind, method, v in (
            (("exact", "exact", 4.0),)
            if n == 3
            else (("adversary", "greedy", 3.0), ("adversary", "cyclic", 20.0))
        )
    ]
    t["runtime"] = [
        {
            "learner": lab,
            "name": name,
            "n": n,
            "part": part,
            "process": rep // 2,
            "repeat": rep,
            "seconds_per_round": s,
        }
        for lab, name, e in (("onlinerank-pl", "onlinerank", 1.1), ("permelearn", "permelearn", 2.0))
        for part in ("round", "update", *(("sweep",) if name == "permelearn" else ()))
        for n in (4, 300, 1000)
        for rep in range(4)
        for s in (1e-6 * n**e * (1 + 0.1 * rep),)
    ]
    cells = [
        {
            "cell": f"cell {i} (x)",
            "verdict": v,
            "threshold": 0.1,
            "params": {"estimate": 0.5 + 0.01 * i, "reference": 0.5, "ci": [0.45, 0.6]},
        }
        for i, v in enumerate(["PASS", "INCONCLUSIVE", "FAIL"])
    ]
    t["claims"] = [
        {"id": "beyond.exponent.T", "cells": cells},
        {"id": "beyond.exponent.n", "cells": cells[:2]},
        {"id": "beyond.exponent.k", "cells": []},
    ]
    return t


#: the exact infimum c and limit L of each method (stands in for onlinerank.asymptotics.decide,
#: whose symbolic derivation takes seconds; tests/test_asymptotics.py checks it)
DECIDED = {"hedge": (0.2, 0.5), "fpl": (0.1, 0.3), "permelearn": (0.05, 0.25)}


@pytest.fixture(scope="module")
def drawn(tables) -> Iterator[dict[str, Figure]]:
    from types import SimpleNamespace

    import onlinerank.asymptotics

    mp = pytest.MonkeyPatch()
    mp.setattr(
        onlinerank.asymptotics,
        "decide",
        lambda method, family: SimpleNamespace(c=DECIDED[method][0], limit=DECIDED[method][1]),
    )
    try:
        yield {
            name: draw(name, {t: tables[t] for t in spec.tables}, CONFIG) for name, spec in F.FIGURES.items()
        }
    finally:
        mp.undo()


def _labels(ax) -> list[str]:
    return [ln.get_label() for ln in ax.lines]


@pytest.mark.parametrize("name", list(F.FIGURES))
def test_every_figure_draws_from_its_tables_only_and_leaves_no_pyplot_figure(name, drawn):
    fig = drawn[name]
    assert isinstance(fig, Figure)
    assert _pylab_helpers.Gcf.get_num_fig_managers() == 0  # pure object API: nothing registered
    visible = [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]
    assert visible and all(ax.get_title() or ax.get_xlabel() for ax in visible), name
    assert all(ax.get_ylabel() or ax.get_yticklabels() for ax in visible), name


def test_a_missing_table_is_named(tables):
    with pytest.raises(KeyError, match="needs the table.*bounds_upper"):
        draw("regret_vs_T", {"sim_upper": tables["sim_upper"]}, CONFIG)


@pytest.mark.parametrize("name", ["regret_vs_T", "baselines_regret", "spearman_regret_vs_T", "graded_regret"])
def test_regret_panels_are_log_log_with_the_three_theorem_curves(name, drawn, tables):
    fig = drawn[name]
    panels = [ax for ax in fig.axes if ax.get_visible()]
    for ax in panels:
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
        labels = _labels(ax)
        assert sum(lab.startswith(("Thm 3.1", "sharp bound")) for lab in labels) == 3
        assert sum(lab.startswith("OnlineRank") for lab in labels) == len(LEARNERS)
    assert fig.get_suptitle()


def test_regret_vs_T_has_one_panel_per_family_size_and_adversary(drawn, tables):
    keys = {(r["family"], r["n"], r["k"], r["adversary"]) for r in tables["sim_upper"]}
    assert len(keys) == 4
    titles = sorted(ax.get_title() for ax in drawn["regret_vs_T"].axes if ax.get_visible())
    assert titles == sorted(
        f"{a}: {f}, n=10" + (", k=2" if f == "kchoice" else "") + ", 4 reps" for f, _, _, a in keys
    )


def test_heatmap_shows_the_ratio_to_the_bound_per_family(drawn, tables):
    fig = drawn["regret_ratio_heatmap"]
    images = [im for ax in fig.axes for im in ax.images]
    assert len(images) == len({(r["family"], r["k"]) for r in tables["sim_upper"]})
    for im in images:
        z = np.asarray(im.get_array())
        assert np.nanmax(z) == pytest.approx(0.3)  # the synthetic regret is 0.3 x the sharp bound


def test_exponents_marks_every_cell_and_its_reference(drawn):
    fig = drawn["exponents"]
    assert len(fig.axes) == 2  # T and n have cells, k none
    ax = fig.axes[0]
    points = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert len(points) == 2 * 3  # estimate and reference per cell
    assert "±0.1" in ax.get_xlabel()


def test_worst_case_draws_the_dp_value_against_the_bounds(drawn, tables):
    ax = drawn["worst_case"].axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    labels = _labels(ax)
    factors = {r["eta_factor"] for r in tables["worst_case"]}
    assert sum(lab.startswith("exact worst case") for lab in labels) == len(factors)
    assert sum(lab.startswith("sharp bound") for lab in labels) == len(factors)
    assert any(lab.startswith("Thm 3.1") for lab in labels)


def test_worst_case_learners_caps_large_ratios_and_annotates_them(drawn):
    fig = drawn["worst_case_learners"]
    beyond = fig.axes[1]
    assert beyond.get_ylim()[1] == pytest.approx(1.6 * 1.08)
    assert "2" in [t.get_text() for t in beyond.texts]  # the cyclic adversary's 20/10 on FTL, capped
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "the learner's own bound" in legend and "greedy" in legend


def test_tightness_has_a_panel_per_rate_and_the_largest_ratios(drawn):
    fig = drawn["tightness"]
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == [
        "η = 0.25·η_p",
        "η = 1·η_p",
        "largest ratio found at each n",
    ]
    assert all(ax.get_ylim() == (0, 1.05) for ax in visible)


def test_lower_normalized_draws_exact_curve_limit_and_monte_carlo(drawn, tables):
    fig = drawn["lower_normalized"]
    ks = sorted({r["k"] for r in tables["lower_curves"]})
    assert len(fig.axes) == len(ks)
    for ax, k in zip(fig.axes, ks, strict=True):
        ns = {r["n"] for r in tables["lower_curves"] if r["k"] == k}
        assert sum(lab.endswith(": exact") for lab in _labels(ax)) == len(ns)
        assert len(ax.containers) == len(ns) * len(LEARNERS)  # Monte Carlo error bars
        assert ax.get_xscale() == "log" and ax.get_ylim()[0] == 0


def test_lower_sandwich_draws_upper_exact_and_three_lower_bounds(drawn):
    (ax,) = [ax for ax in drawn["lower_sandwich"].axes if ax.get_title() == "n=10, k=2"]
    labels = _labels(ax)
    assert ax.get_yscale() == "log"
    assert "exact regret, random adversary" in labels
    assert sum(lab.startswith("lower bound") for lab in labels) == 3
    assert "worst OnlineRank regret found (upper-bound runs)" in labels
    assert "limit 2√(π ln 2)" in ax.texts[0].get_text()


def test_lower_hc_lower_abg_and_frequencies(drawn):
    hc = drawn["lower_hc"].axes[0]
    assert "explicit h(n)=n/2 (c=1/16, Hölder)" in _labels(hc)
    a1, a2 = drawn["lower_abg"].axes
    assert len(a1.patches) == 3 * len({p.get_x() for p in a1.patches})  # alpha, beta, gamma per j
    assert "exact regret" in _labels(a2)
    fr = drawn["lower_frequencies"].axes[0]
    assert any(lab.startswith("Binomial(") for lab in _labels(fr)) and fr.patches


def test_runtime_fits_slopes_and_draws_the_references(drawn):
    fig = drawn["runtime"]
    assert len(fig.axes) == 3
    for ax in fig.axes:
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    labels = _labels(fig.axes[0])
    assert "∝ n log n" in labels and "∝ n²" in labels
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any("slope 1.10" in text for text in legend), legend  # the synthetic n^1.1 timings
    assert "median of 4 timings (2 processes × 2 repeats)" in fig.get_suptitle()


def test_bound_comparison_draws_the_infimum_and_the_limit(drawn, tables):
    from onlinerank.figures.bound_comparison import NAMES, panels_of

    fig = drawn["bound_comparison"]
    visible = [ax for ax in fig.axes if ax.get_visible()]
    keys, _ = panels_of(tables["bound_comparison"])
    assert len(visible) == len(keys)
    for ax in visible:
        markers = [ln for ln in ax.lines if ln.get_marker() == "o"]
        levels = sorted(ln.get_ydata()[0] for ln in ax.lines if ln.get_marker() != "o")
        methods = [m for m in DECIDED if any(ln.get_label().startswith(NAMES[m]) for ln in markers)]
        assert levels == sorted(v for m in methods for v in DECIDED[m])  # c and L of each method


def test_spearman_vs_n_and_correlation(drawn):
    for ax in drawn["spearman_vs_n"].axes:
        assert "Spearman bound" in _labels(ax) and ax.get_xscale() == "log"
    corr = [ax for ax in drawn["spearman_correlation"].axes if ax.get_visible()]
    assert corr and all(ax.get_ylim() == (-0.1, 1.02) for ax in corr)


def test_the_style_applies_inside_draw_only(tables):
    before = matplotlib.rcParams["font.size"]
    fig = draw("lower_hc", {"lower_hc": tables["lower_hc"]}, CONFIG)
    assert fig.dpi == 110 and matplotlib.rcParams["font.size"] == before


def test_the_figure_script_reads_the_claims_document(tmp_path):
    doc = {"claims": [{"id": "a", "cells": []}]}
    (tmp_path / "claims.json").write_text(json.dumps(doc))
    assert F.read_figure_table(tmp_path / "claims.json") == doc["claims"]


# --- drawing in batches --------------------------------------------------------------------------


def test_figure_batches_split_the_catalog_by_what_the_figures_read():
    """Every figure in exactly one batch, in catalog order: those reading the claims document,
    those reading a simulation stage's table (one batch per stage), the rest (tables computed
    from the config)."""
    batches = F.figure_batches(F.FIGURES)
    assert sorted(f for names in batches.values() for f in names) == sorted(F.FIGURES)
    simulated = ("upper", "lower", "baselines", "spearman")
    for batch, names in batches.items():
        assert names == [f for f in F.FIGURES if f in names]
        for f in names:
            stages = [TABLE_STAGE[t] for t in F.FIGURES[f].tables if TABLE_STAGE.get(t) in simulated]
            expected = "claims" if "claims" in F.FIGURES[f].tables else stages[0] if stages else "tables"
            assert batch == expected, (f, F.FIGURES[f].tables)
    assert set(batches) == {*simulated, "tables", "claims"}
    assert F.figure_batches(["lower_hc", "runtime"]) == {"tables": ["lower_hc", "runtime"]}


_DRAW_ALONE = """
import json, sys
import yaml
from onlinerank.config import load_settings
from onlinerank.drawing import draw_figures
names, paths, config_path, outputs = json.loads(sys.argv[1])
settings = load_settings(yaml.safe_load(open(config_path).read()))
draw_figures(names, paths, settings, {k: tuple(v) for k, v in outputs.items()})
"""


def test_a_figure_drawn_after_others_in_one_process_is_the_figure_drawn_alone(tables, tmp_path):
    """A figure job draws its batch in one process: each figure's PNG and PDF are byte for byte
    those of the figure drawn alone in a fresh process (the figures of a batch share their table
    files, not their rows, nor any state)."""
    from onlinerank.drawing import draw_figures
    from onlinerank.io import write_csv

    names = ["spearman_vs_n", "spearman_correlation"]  # both read sim_spearman
    paths = {}
    for t in sorted({t for f in names for t in F.FIGURES[f].tables}):
        paths[t] = str(tmp_path / f"{t}.csv")
        write_csv(paths[t], tables[t])
    batch = {f: (str(tmp_path / f"batch_{f}.png"), str(tmp_path / f"batch_{f}.pdf")) for f in names}
    draw_figures(names, paths, CONFIG, batch)
    alone = {"spearman_correlation": [str(tmp_path / "alone.png"), str(tmp_path / "alone.pdf")]}
    job = json.dumps([["spearman_correlation"], paths, str(CONFIG_PATH), alone])
    subprocess.run(
        [sys.executable, "-c", _DRAW_ALONE, job],
        check=True,
        cwd=ROOT,
    )
    for made, lone in zip(batch["spearman_correlation"], alone["spearman_correlation"], strict=True):
        assert Path(made).read_bytes() == Path(lone).read_bytes(), made
    assert Path(batch["spearman_vs_n"][0]).stat().st_size > 10_000


@pytest.mark.parametrize(
    ("limits", "which", "width", "expected"),
    [
        # a y axis over two decades: 1-2-5 ticks, each labelled with its own value (2e5, not 1e5)
        ((1e4, 1e6), "y", 6.0, [1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6]),
        ((1e-5, 1e-3), "y", 6.0, [1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3]),
        # an x axis over two decades: 1-2-5 where the labels fit, one tick a decade in a narrow panel
        ((100, 1e4), "x", 6.0, [100, 200, 500, 1000, 2000, 5000, 1e4]),
        ((100, 1e4), "x", 1.6, [100, 1000, 1e4]),
        # beyond three decades: one tick a decade whatever the width
        ((1, 1e6), "x", 6.0, [1, 10, 100, 1000, 1e4, 1e5, 1e6]),
    ],
)
def test_a_plain_log_axis_labels_every_tick_with_its_value(limits, which, width, expected):
    from onlinerank.plotting import plain_log_axis

    fig = Figure(figsize=(width, 2.0))
    ax = fig.add_axes((0.1, 0.1, 0.85, 0.85))
    ax.set_xscale("log")
    ax.set_yscale("log")
    (ax.set_xlim if which == "x" else ax.set_ylim)(*limits)
    plain_log_axis(ax, which)
    fig.canvas.draw()
    axis = ax.xaxis if which == "x" else ax.yaxis
    shown = [
        (loc, label.get_text())
        for loc, label in zip(axis.get_majorticklocs(), axis.get_majorticklabels(), strict=True)
        if limits[0] * (1 - 1e-9) <= loc <= limits[1] * (1 + 1e-9)
    ]
    assert np.allclose([loc for loc, _ in shown], expected)
    assert np.allclose([float(text) for _, text in shown], expected)  # each label is its tick's value


@pytest.mark.parametrize("name", ["regret_vs_T", "tightness", "runtime"])
def test_saving_skips_the_extra_layout_draw_and_the_files_are_unchanged(name, tables, tmp_path):
    """``save_figure`` drops the placeholder layout engine ``tight_layout`` leaves behind, so that
    matplotlib does not draw the figure once more before each format; the PNG and PDF are byte for
    byte those saved with the placeholder kept (matplotlib's own ``savefig``), with half the draws."""
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    from onlinerank.plotting import save_figure, style

    def saved(keep: bool) -> tuple[list[bytes], int]:
        fig = draw(name, {t: tables[t] for t in F.FIGURES[name].tables}, CONFIG)
        assert isinstance(fig.get_layout_engine(), PlaceHolderLayoutEngine), name  # tight_layout's
        draws = 0
        real = fig.draw

        def counted(renderer):
            nonlocal draws
            draws += 1
            real(renderer)

        fig.draw = counted  # type: ignore[method-assign]
        paths = [tmp_path / f"{name}-{keep}.png", tmp_path / f"{name}-{keep}.pdf"]
        with style():
            if keep:
                for p in paths:
                    meta = {"CreationDate": None} if p.suffix == ".pdf" else None
                    fig.savefig(p, format=p.suffix[1:], metadata=meta)
            else:
                save_figure(fig, *paths)
        return [p.read_bytes() for p in paths], draws

    kept, kept_draws = saved(keep=True)
    dropped, dropped_draws = saved(keep=False)
    assert dropped == kept
    assert (kept_draws, dropped_draws) == (4, 2)


@pytest.mark.parametrize("name", ["regret_vs_T", "lower_sandwich", "tightness"])
def test_the_layout_without_minor_ticks_saves_the_same_files(name, tables, tmp_path, monkeypatch):
    """``plotting.tight_layout`` leaves the minor ticks out of the layout (their labels are empty):
    the PNG and PDF are byte for byte those laid out by matplotlib's own ``fig.tight_layout``
    with every minor tick in place (log axes with minor ticks in all three figures)."""
    from onlinerank import plotting
    from onlinerank.figures.base import plot_function
    from onlinerank.plotting import save_figure, style

    def saved(tag: str) -> list[bytes]:
        fig = draw(name, {t: tables[t] for t in F.FIGURES[name].tables}, CONFIG)
        assert any(ax.xaxis.get_minorticklocs().size or ax.yaxis.get_minorticklocs().size for ax in fig.axes)
        paths = [tmp_path / f"{name}-{tag}.png", tmp_path / f"{name}-{tag}.pdf"]
        with style():
            save_figure(fig, *paths)
        return [p.read_bytes() for p in paths]

    ours = saved("ours")

    def matplotlibs(fig, rect):
        fig.tight_layout(rect=rect)

    monkeypatch.setattr(plotting, "tight_layout", matplotlibs)
    module = sys.modules[plot_function(name).__module__]
    if hasattr(module, "tight_layout"):
        monkeypatch.setattr(module, "tight_layout", matplotlibs)
    assert saved("matplotlib") == ours
