"""onlinerank.cells: from a config to cells, job directories and replicate blocks; a block's
replicates do not depend on how the replicates are split into blocks."""

import math

import numpy as np
import pytest

from onlinerank.cells import (
    Cell,
    cell_game,
    cells_of,
    find_group,
    groups_of,
    run_block,
    run_group_block,
    spec_params,
    stage_cells,
)
from onlinerank.config import load_settings


def config(block_size=2, replicates=5):
    """The settings of :func:`config_dict` (the one validator)."""
    return load_settings(config_dict(block_size, replicates))


def config_dict(block_size=2, replicates=5):
    return {
        "seed": 11,
        "checkpoints": 3,
        "learners": {"pl": {"name": "onlinerank"}, "ftl": {"name": "ftl"}},
        "adversaries": {"u": {"name": "uniform"}, "g": {"name": "graded", "levels": 3}},
        "upper": {
            "block_size": block_size,
            "experiments": [
                {
                    "name": "e1",
                    "adversaries": ["u"],
                    "learners": ["pl", "ftl"],
                    "family": "kchoice",
                    "n": [4, 6],
                    "k": [1, 2],
                    "T": [5, 9],
                    "replicates": replicates,
                    "closed_form": False,  # simulated: the jobs and blocks are under test here
                },
                {
                    "name": "e2",
                    "adversaries": ["g"],
                    "learners": ["pl"],
                    "family": "graded",
                    "n": [3],
                    "T": [4],
                    "replicates": 1,
                    "sample": False,
                },
            ],
        },
    }


def test_cell_paths_blocks_and_ranges():
    kw = {"sample": True, "closed_form": False}
    c = Cell("upper", "e1", "u", "pl", "kchoice", 6, 2, 9, 5, 2, split=("adversary", "n", "k"), **kw)
    assert c.path == "upper/e1/u/pl/kchoice_n6_k2_T9"
    assert c.group == "upper/e1/adversary-u/n-6/k-2"
    assert c.key == "u|pl|n6|k2|T9"
    assert Cell("upper", "e1", "u", "pl", "kchoice", 6, 2, 9, 5, 2, split=("adversary",), **kw).group == (
        "upper/e1/adversary-u"
    )
    # the schema's default split is adversary, n, k
    assert cells_of(config(), "upper")[-1].split == ("adversary", "n", "k")
    assert c.blocks == 3 == math.ceil(5 / 2)
    ranges = [c.block_range(b) for b in range(c.blocks)]
    assert ranges == [(0, 2), (2, 4), (4, 5)]
    covered = [r for lo, hi in ranges for r in range(lo, hi)]
    assert covered == list(range(5))  # every replicate exactly once
    assert c.stream_names == ("upper", "e1", "u", "kchoice", 6, 2, 9)  # no learner: shared feedback
    assert c.game().M == 8.0


def test_cells_of_enumerates_the_grid_in_a_fixed_order():
    cfg = config()
    cells = cells_of(cfg, "upper")
    assert len(cells) == 1 * 2 * 2 * 2 * 2 + 1  # adversaries x learners x n x k x T, plus e2
    assert cells == cells_of(cfg, "upper")
    first = cells[0]
    assert (first.adversary, first.learner, first.n, first.k, first.T) == ("u", "pl", 4, 1, 5)
    assert cells[1].T == 9 and cells[2].k == 2
    assert all(c.block_size == 2 and c.sample for c in cells[:-1])
    assert not cells[-1].sample and cells[-1].family == "graded"
    assert cells_of(cfg, "lower") == []
    assert set(stage_cells(cfg)) == {"upper"}


def test_groups_hold_every_learner_and_horizon_of_a_grid_point():
    cfg = config()
    groups = groups_of(cfg, "upper")
    assert len(groups) == 2 * 2 + 1
    for g, cells in groups.items():
        assert {c.group for c in cells} == {g}
        assert find_group(cfg, g) == cells
    g = "upper/e1/adversary-u/n-6/k-2"
    assert sorted((c.learner, c.T) for c in groups[g]) == [("ftl", 5), ("ftl", 9), ("pl", 5), ("pl", 9)]
    with pytest.raises(KeyError, match="no cells"):
        find_group(cfg, "upper/e1/adversary-u/n-5/k-2")
    with pytest.raises(KeyError):
        find_group(cfg, "notastage/x")


def test_spec_params_and_the_graded_game_takes_M_from_its_adversary():
    assert spec_params({"name": "fpl", "scale": 2.0}) == {"scale": 2.0}
    cfg = config()
    graded = cells_of(cfg, "upper")[-1]
    from onlinerank.adversaries import make_adversary

    assert cell_game(cfg, graded).M == make_adversary("graded", levels=3).M(3)
    binary = cells_of(cfg, "upper")[0]
    assert cell_game(cfg, binary).M == 3.0  # single item of 4: k(n-k) with k = 1


def test_a_replicate_does_not_depend_on_the_block_split():
    """Replicate r draws from its own streams: blocks of 2 give the rows of one block of 5."""
    c2 = config(block_size=2)
    c5 = config(block_size=5)
    cell2 = next(c for c in cells_of(c2, "upper") if (c.learner, c.n, c.k, c.T) == ("pl", 6, 2, 9))
    cell5 = next(c for c in cells_of(c5, "upper") if (c.learner, c.n, c.k, c.T) == ("pl", 6, 2, 9))
    whole = run_block(c5, cell5, 0)
    np.testing.assert_array_equal(whole.reps, np.arange(5))
    for b in range(cell2.blocks):
        part = run_block(c2, cell2, b)
        lo, hi = cell2.block_range(b)
        np.testing.assert_array_equal(part.reps, np.arange(lo, hi))
        for name in ("loss", "exp_loss", "best"):
            np.testing.assert_array_equal(getattr(part, name), getattr(whole, name)[lo:hi])
        assert part.meta["cell"] == cell2.path and part.meta["block"] == b
        assert part.meta["learner_label"] == "pl" and part.meta["adversary_label"] == "u"
    assert whole.t[-1] == 9 and len(whole.t) <= 3  # checkpoints from the config


def test_run_group_block_runs_every_learner_and_horizon():
    cfg = config()
    out = run_group_block(cfg, "upper/e1/adversary-u/n-4/k-1", 1)
    assert set(out) == {f"u|{lab}|n4|k1|T{T}" for lab in ("pl", "ftl") for T in (5, 9)}
    for key, res in out.items():
        lab, T = key.split("|")[1], int(key.split("|T")[1])
        np.testing.assert_array_equal(res.reps, [2, 3])
        assert res.t[-1] == T and res.meta["learner_label"] == lab
    # every learner of the cell sees the same feedback: the same hindsight optimum
    np.testing.assert_array_equal(out["u|pl|n4|k1|T9"].best, out["u|ftl|n4|k1|T9"].best)


def test_closed_form_cells_have_no_job_and_only_they():
    """The uniform adversary's cells have a closed form (theory §4.6): computed, so in no job
    directory; ``closed_form: false`` simulates them; an adversary without one is simulated."""
    raw = config_dict()
    del raw["upper"]["experiments"][0]["closed_form"]  # the default: computed where possible
    cfg = load_settings(raw)
    cells = cells_of(cfg, "upper")
    assert [c.closed_form for c in cells] == [True] * 16 + [False]  # e2 (graded) has no closed form
    groups = groups_of(cfg, "upper")
    assert list(groups) == ["upper/e2/adversary-g/n-3/k-1"]
    with pytest.raises(KeyError, match="no cells"):
        find_group(cfg, "upper/e1/adversary-u/n-6/k-2")
    assert not any(c.closed_form for c in cells_of(config(), "upper"))  # closed_form: false
