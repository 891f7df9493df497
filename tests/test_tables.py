"""onlinerank.tables: the table registry against the tables the pipeline writes, dispatch, the
Theorem 3.1 bounds table against its closed forms, and the aggregation of replicate blocks."""

import math

import numpy as np
import pytest

from onlinerank import bounds
from onlinerank.cells import Cell, cells_of
from onlinerank.comparison import bound_comparison_rows
from onlinerank.results import SimResult
from onlinerank.sim_tables import aggregate
from onlinerank.tables import (
    BUILT_TABLES,
    SIM_COLUMNS,
    TABLE_STAGE,
    TABLES,
    check_columns,
    columns,
    make_table,
)
from onlinerank.tables.stage_bounds import bounds_rows

LN2 = math.log(2)


def test_every_table_written_has_exactly_the_registered_columns(smoke_tables, smoke_config):
    made = {t for t, stage in TABLE_STAGE.items() if smoke_config.get(stage)}
    # the mutations table is written by its own rule in every tier (workflow/mutants)
    written = {t: rows for t, rows in smoke_tables.items() if t != "mutations"}
    assert set(written) == made  # the smoke tier makes every table of its sections
    assert "mutations" in smoke_tables
    for name, rows in written.items():
        assert rows, name
        assert all(tuple(r) == columns(name) for r in rows), name
    assert all(tuple(r) == columns("mutations") for r in smoke_tables["mutations"])


def test_every_table_is_declared_once_beside_its_builder():
    """Every declaration: a known stage, described columns without repeats, and (for a config-only
    table) a builder defined in the module of the package onlinerank.tables that declares it,
    reading its own section."""
    assert set(BUILT_TABLES) | {f"sim_{s}" for s in ("upper", "lower", "baselines", "spearman")} | {
        "mutations"
    } == set(TABLES)
    assert "mutations" not in TABLE_STAGE  # made in every tier by its own rule
    for name, spec in TABLES.items():
        names = spec.column_names
        assert len(set(names)) == len(names), name
        assert all(c.meaning for c in spec.columns), name
        assert spec.description, name
    for name, spec in BUILT_TABLES.items():
        assert callable(spec.build) and spec.build.__module__.startswith("onlinerank.tables."), name
        assert spec.stage in spec.keys  # it reads its own section


def test_a_producer_that_drifts_from_its_schema_is_refused():
    rows = [dict.fromkeys(columns("lower_hc"), 1)]
    check_columns("lower_hc", rows)
    with pytest.raises(ValueError, match=r"'lower_hc', row 1.*missing \['h_c'\]"):
        check_columns("lower_hc", [*rows, {c: 1 for c in columns("lower_hc") if c != "h_c"}])
    with pytest.raises(ValueError, match=r"undeclared \['extra'\]"):
        check_columns("lower_hc", [{**rows[0], "extra": 2}])
    with pytest.raises(ValueError, match="another order"):
        check_columns("lower_hc", [dict(reversed(list(rows[0].items())))])
    with pytest.raises(KeyError, match="unknown table 'nope'"):
        columns("nope")


def test_make_table_dispatches_to_the_registered_function(smoke_settings):
    settings = smoke_settings
    assert make_table("bounds_upper", settings) == bounds_rows(settings, "upper")
    assert make_table("bounds_spearman", settings) == bounds_rows(settings, "spearman")
    from onlinerank.lower_tables import hc_rows

    # the builders take the typed settings' sections
    assert settings.bound_comparison is not None and settings.lowerbound is not None
    assert make_table("bound_comparison", settings) == bound_comparison_rows(settings.bound_comparison)
    assert make_table("lower_hc", settings) == hc_rows(settings.lowerbound.hc)
    with pytest.raises(KeyError):
        make_table("no_such_table", settings)


def _family_M(family, n, k):
    return {
        "single": n - 1,
        "kchoice": k * (n - k),
        "subset": n * n // 4,
        "spearman": n * n * (n * n - 1) / 12,
    }[family]


def test_bounds_rows_against_the_closed_forms(smoke_settings):
    cfg = smoke_settings
    for stage in ("upper", "baselines"):
        rows = bounds_rows(cfg, stage)
        games = sorted({(c.family, c.n, c.k, c.T) for c in cells_of(cfg, stage)})
        assert [(r["family"], r["n"], r["k"], r["T"]) for r in rows] == games  # one row per game
        for r in rows:
            n, T = r["n"], r["T"]
            M = _family_M(r["family"], n, r["k"])
            assert r["M"] == M
            assert r["eta_paper"] == pytest.approx(n * math.sqrt(LN2 / (T * M)), rel=1e-13)
            assert r["bound_paper"] == pytest.approx(n * math.sqrt(T * M * LN2), rel=1e-13)
            # the sharp bound at the paper's rate: C(n,2) ln2/eta_p + eta_p T M/2 = (n - 1/2) sqrt(T M ln 2)
            assert r["bound_sharp"] == pytest.approx((n - 0.5) * math.sqrt(T * M * LN2), rel=1e-12)
            assert r["bound_optimal"] == pytest.approx(math.sqrt(n * (n - 1) * T * M * LN2), rel=1e-13)
            assert r["bound_optimal"] <= r["bound_sharp"] <= r["bound_paper"]
            assert r["bound_paper"] == float(bounds.theorem31_paper(n, T, M))


def test_bounds_rows_of_graded_feedback_use_the_adversary_M(smoke_settings):
    cfg = smoke_settings
    rows = [r for r in bounds_rows(cfg, "spearman") if r["family"] == "graded"]
    assert rows
    from onlinerank.cells import cell_game

    for r in rows:
        cell = next(
            c for c in cells_of(cfg, "spearman") if (c.family, c.n, c.T) == ("graded", r["n"], r["T"])
        )
        assert r["M"] == cell_game(cfg, cell).M


#: the cells' other fields (a simulated cell of one job per grid point)
CELL = {"sample": True, "split": ("adversary", "n", "k"), "closed_form": False}


def _result(reps, loss, exp_loss, best, meta=None):
    R = len(reps)
    t = np.array([2, 4])
    return SimResult(
        t,
        np.asarray(loss, float).reshape(R, 2),
        np.asarray(exp_loss, float).reshape(R, 2),
        np.asarray(best, float).reshape(R, 2),
        np.asarray(reps),
        meta or {"M": 3.0, "learner_eta_value": 0.25, "exact_expected_loss": True},
    )


def test_aggregate_means_and_standard_errors_by_hand():
    cell = Cell("upper", "e", "u", "pl", "single", 4, 1, 4, 3, 2, **CELL)
    blocks = [
        _result([2], [[5, 9]], [[4, 8]], [[1, 2]]),  # out of order: sorted by replicate
        _result([0, 1], [[3, 6], [4, 7]], [[2, 5], [3, 7]], [[1, 1], [2, 3]]),
    ]
    rows = aggregate(cell, blocks)
    assert all(tuple(r) == SIM_COLUMNS for r in rows)
    assert len(rows) == 2 * 5  # checkpoints x metrics
    got = {(r["t"], r["metric"]): r for r in rows}
    # regret at t = 4: exp_loss - best = 5-1, 7-3, 8-2 = 4, 4, 6
    r = got[(4, "regret")]
    assert r["mean"] == pytest.approx(14 / 3)
    assert r["sem"] == pytest.approx(np.std([4, 4, 6], ddof=1) / math.sqrt(3))
    assert r["reps"] == 3 and r["exact"] is True and r["eta"] == 0.25 and r["M"] == 3.0
    # realised regret at t = 2: loss - best = 2, 2, 4
    assert got[(2, "realised_regret")]["mean"] == pytest.approx(8 / 3)
    assert got[(2, "loss")]["mean"] == pytest.approx(4.0)
    assert {k[1] for k in got} == {"regret", "realised_regret", "exp_loss", "loss", "best"}
    assert all(r["stage"] == "upper" and r["learner"] == "pl" and r["T"] == 4 for r in rows)


def test_aggregate_skips_missing_expectations_and_refuses_incomplete_blocks():
    cell = Cell("upper", "e", "u", "mc", "single", 4, 1, 4, 2, 2, **CELL)
    meta = {"M": 3.0, "exact_expected_loss": False}
    res = _result([0, 1], [[1, 2], [3, 4]], [[np.nan, np.nan], [2, 3]], [[0, 0], [0, 0]], meta)
    got = {(r["t"], r["metric"]): r for r in aggregate(cell, [res])}
    assert got[(4, "regret")]["reps"] == 1 and got[(4, "regret")]["mean"] == 3.0
    assert math.isnan(got[(4, "regret")]["sem"])  # one replicate: no standard error
    assert math.isnan(got[(4, "regret")]["eta"]) and got[(4, "regret")]["exact"] is False
    short = Cell("upper", "e", "u", "mc", "single", 4, 1, 4, 3, 2, **CELL)
    with pytest.raises(ValueError, match="do not cover replicates 0..2"):
        aggregate(short, [res])
