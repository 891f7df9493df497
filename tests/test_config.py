"""onlinerank.config digests: a step's digest changes exactly when the slice of the config it reads
changes (validation itself: tests/test_config_validation.py)."""

import copy

import pytest

from onlinerank.cells import STAGES, groups_of
from onlinerank.config import group_digest, load_settings, section_digest
from onlinerank.provenance import config_digest


@pytest.fixture
def cfg(smoke_config):
    return copy.deepcopy(smoke_config)  # the fixture is shared by the session


def typed(config):
    """The settings of an edited config (the digests are of a validated config's settings)."""
    return load_settings(copy.deepcopy(config))


def test_section_digest_is_the_digest_of_the_named_entries(cfg):
    assert section_digest(typed(cfg), "lowerbound", "seed") == config_digest(
        {"lowerbound": cfg.get("lowerbound"), "seed": cfg["seed"]}
    )
    assert section_digest(typed(cfg), "not_there") == config_digest({"not_there": None})


def test_section_digest_changes_exactly_when_its_slice_changes(cfg):
    before = section_digest(typed(cfg), "lowerbound", "seed")
    other = copy.deepcopy(cfg)
    other["checkpoints"] = other.get("checkpoints", 12) + 1
    other["upper"]["block_size"] += 1
    other["strict"] = True
    assert section_digest(typed(other), "lowerbound", "seed") == before
    changed = copy.deepcopy(cfg)
    changed["seed"] += 1
    assert section_digest(typed(changed), "lowerbound", "seed") != before
    changed = copy.deepcopy(cfg)
    changed["lowerbound"]["abg"]["T"] += 1
    assert section_digest(typed(changed), "lowerbound", "seed") != before
    assert section_digest(typed(changed), "seed") == section_digest(typed(cfg), "seed")


#: a valid edit of a learner's or adversary's parameters, by registered name (the digest is of a
#: valid config: it is computed from the config's typed settings)
SPEC_EDIT = {
    "onlinerank": {"eta": 0.5},
    "fpl": {"scale": 1.0},
    "hedge": {"beta": 0.5},
    "permelearn": {"eta": 0.5},
    "mallows": {"phi": 0.3},
    "cyclic": {"ties": "low"},
    "graded": {"noise": 0.1},
    "uniform": None,  # no parameter: the label is given another adversary's spec below
}


def _edit_spec(spec):
    """``spec`` with one constructor parameter changed (None: it has none to change)."""
    edit = SPEC_EDIT.get(spec["name"])
    return None if edit is None else {**spec, **edit}


def _two_groups(cfg):
    """Two job directories of the upper stage whose learners differ or that share none."""
    groups = groups_of(typed(cfg), "upper")
    assert len(groups) >= 2
    return groups


def test_group_digest_follows_the_cells_learners_adversary_seed_and_checkpoints(cfg):
    groups = _two_groups(cfg)
    for g in groups:
        d = group_digest(typed(cfg), g)
        assert d == group_digest(typed(copy.deepcopy(cfg)), g)  # a pure function of the config
        learner, adversary = groups[g][0].learner, groups[g][0].adversary
        for edit in ("seed", "checkpoints", "learner", "adversary", "block_size"):
            changed = copy.deepcopy(cfg)
            if edit == "seed":
                changed["seed"] += 1
            elif edit == "checkpoints":
                changed["checkpoints"] = changed.get("checkpoints", 12) + 1
            elif edit == "learner":
                changed["learners"][learner] = _edit_spec(changed["learners"][learner])
            elif edit == "adversary":
                spec = changed["adversaries"][adversary]
                changed["adversaries"][adversary] = _edit_spec(spec) or {"name": "popularity", "a": 2.0}
            else:
                changed["upper"]["block_size"] = changed["upper"].get("block_size", 32) + 1
            assert group_digest(typed(changed), g) != d, (g, edit)


def test_group_digest_ignores_what_other_jobs_read(cfg):
    groups = groups_of(typed(cfg), "upper")
    for g, cells in groups.items():
        d = group_digest(typed(cfg), g)
        used = {c.learner for c in cells}
        changed = copy.deepcopy(cfg)
        edited = 0
        for kind, labels in (
            ("learners", set(changed["learners"]) - used),
            ("adversaries", set(changed["adversaries"]) - {cells[0].adversary}),
        ):
            for lab in labels:
                spec = _edit_spec(changed[kind][lab])
                if spec is not None:
                    changed[kind][lab] = spec
                    edited += 1
        assert edited >= 3, g
        for stage in STAGES:
            if stage != "upper" and changed.get(stage):
                changed[stage]["block_size"] = changed[stage].get("block_size", 32) + 1
        changed["lowerbound"]["abg"]["T"] += 1
        changed["strict"] = True
        assert group_digest(typed(changed), g) == d, g


def test_group_digest_changes_when_the_grid_of_its_experiment_changes(cfg):
    groups = groups_of(typed(cfg), "upper")
    g, cells = next(iter(groups.items()))
    d = group_digest(typed(cfg), g)
    ex = next(e for e in cfg["upper"]["experiments"] if e["name"] == cells[0].experiment)
    changed = copy.deepcopy(cfg)
    ex2 = next(e for e in changed["upper"]["experiments"] if e["name"] == cells[0].experiment)
    ex2["T"] = [*ex["T"], max(ex["T"]) + 1]  # one more horizon in the same job directory
    assert group_digest(typed(changed), g) != d
    changed = copy.deepcopy(cfg)
    ex2 = next(e for e in changed["upper"]["experiments"] if e["name"] == cells[0].experiment)
    ex2["replicates"] += 1
    assert group_digest(typed(changed), g) != d


def test_group_digest_of_an_unknown_group_is_a_key_error(cfg):
    with pytest.raises(KeyError, match="no cells"):
        group_digest(typed(cfg), "upper/nope/nope/single_n3_k1")
