"""Search adversaries and the issue-14 tables (onlinerank.worst_case_search, worst_case_tables).

Oracles: the exact DP (every search value is a lower bound on it, and the beam with a width
above the number of reachable states is the DP), replay of every recorded sequence by the
learner's own play and, for OnlineRank, by the simulator's independent exact-regret function, a
per-round loop implementation of the staircase policy, and the numbers quoted in theory §3.4.
"""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

from onlinerank.config import ConfigError, load_settings, validate_worst_case
from onlinerank.simulate import exact_expected_regret
from onlinerank.worst_case import estimate_states, exact_worst_regret, family_actions, sequence_regret
from onlinerank.worst_case_search import (
    adversary_regret,
    beam_search,
    search_worst_regret,
    staircase_search,
    staircase_sequences,
)
from onlinerank.worst_case_tables import (
    comparison_rows,
    decode_sequence,
    encode_sequence,
    fraction_of_exact_rows,
    largest_ratio_rows,
    replay_row,
    tightness_rows,
)

LEARNERS = {
    "onlinerank-pl": {"name": "onlinerank", "sampler": "plackett-luce", "eta": "paper"},
    "onlinerank-qs": {"name": "onlinerank", "sampler": "quicksort", "eta": "paper"},
    "ftl": {"name": "ftl"},
    "hedge": {"name": "hedge"},
    "fpl": {"name": "fpl"},
    "fpl-mc": {"name": "fpl", "expected": "mc"},
    "permelearn": {"name": "permelearn"},
    "uniform-ranking": {"name": "uniform"},
}

#: the issue-14 section proposed for the smoke tier (the default tier's is in the report)
SMOKE = {
    "exact": [{"family": "single", "n": 3, "T": [10, 20, 40]}],
    "family": "single",
    "learners": ["onlinerank-pl", "hedge", "fpl", "permelearn", "ftl", "uniform-ranking"],
    "comparison": {
        "exact": [{"n": 3, "T": 20}, {"n": 4, "T": 10}],
        "search": [{"n": 5, "T": 30}],
        "adversaries": ["greedy", "cyclic"],
        "max_n": {"hedge": 4},
    },
    "tightness": {
        "eta_factor": [0.25, 1.0],
        "exact": [{"n": 3, "T": [20, 40]}, {"n": 4, "T": [20]}],
        "search": [{"n": 6, "T": [60]}],
        "width": 0,
    },
    "search": {"width": 50, "max_evals": 300},
}


def _staircase_loop(n: int, lengths: list[int], k: int) -> np.ndarray:
    """The staircase policy round by round: phase i has n - i active items, the m with the
    largest S (ties: lowest id); the round's k chosen items are the active ones with the smallest
    S (ties: lowest id)."""
    S = [0] * n
    rows = []
    for i, L in enumerate(lengths):
        m = n - i
        for _ in range(L):
            active = sorted(range(n), key=lambda u: (-S[u], u))[:m]
            chosen = sorted(active, key=lambda u: (S[u], u))[:k]
            row = [0] * n
            for u in chosen:
                row[u] = 1
                S[u] += 1
            rows.append(row)
    return np.array(rows, dtype=np.int64).reshape(-1, n)


@pytest.mark.parametrize("n,k", [(5, 1), (6, 2), (4, 2), (3, 1)])
def test_staircase_sequences_match_a_round_by_round_loop(n, k):
    rng = np.random.default_rng(n * 10 + k)
    L = rng.multinomial(23, np.ones(n - k + 1) / (n - k + 1), size=7)
    got = staircase_sequences(n, L, k)
    for r in range(len(L)):
        np.testing.assert_array_equal(got[r], _staircase_loop(n, list(L[r]), k))
    with pytest.raises(ValueError, match="lengths"):
        staircase_sequences(n, L[:, :-1], k)


@pytest.mark.parametrize(
    "learner,n,T",
    [("onlinerank", 4, 40), ("onlinerank", 5, 30), ("onlinerank", 3, 100), ("hedge", 5, 20), ("fpl", 5, 30)],
)
def test_staircase_reaches_the_exact_worst_case(learner, n, T):
    """The DP's argmax sequences are staircases (module docstring): at these sizes the searched
    staircase attains the exact worst case."""
    exact = exact_worst_regret(n, T, learner=learner, return_argmax=False).value
    s = staircase_search(n, T, learner=learner, max_evals=20_000)
    assert s.value == pytest.approx(exact, abs=1e-9)
    assert sum(s.params["phases"]) == T and s.method == "staircase"


@pytest.mark.parametrize(
    "learner,family,n,T,k",
    [
        ("onlinerank", "single", 5, 12, 1),
        ("fpl", "single", 4, 15, 1),
        ("hedge", "kchoice", 4, 8, 2),
        ("ftl", "single", 4, 8, 1),
        ("ftl", "subset", 3, 5, 1),
        ("onlinerank", "subset", 4, 6, 1),
        ("permelearn", "single", 4, 8, 1),
        ("onlinerank", "spearman", 4, 4, 1),
        ("uniform", "kchoice", 6, 5, 3),
    ],
)
def test_beam_wider_than_the_state_space_is_the_dp(learner, family, n, T, k):
    exact = exact_worst_regret(n, T, learner=learner, family=family, k=k)
    width = int(estimate_states(n, T, family, k, labelled=learner == "ftl")) + 1
    b = beam_search(n, T, learner=learner, family=family, k=k, width=width)
    assert b.value == pytest.approx(exact.value, abs=1e-8)
    assert b.n_states == exact.n_states


@pytest.mark.parametrize("learner", ["onlinerank", "fpl", "hedge", "permelearn", "ftl", "uniform"])
@pytest.mark.parametrize("family,n,T,k", [("single", 5, 14, 1), ("kchoice", 5, 8, 2)])
def test_every_search_is_a_replayable_lower_bound(learner, family, n, T, k):
    exact = exact_worst_regret(n, T, learner=learner, family=family, k=k, return_argmax=False).value
    found = [
        staircase_search(n, T, learner=learner, family=family, k=k, max_evals=200),
        beam_search(n, T, learner=learner, family=family, k=k, width=20),
        search_worst_regret(n, T, learner=learner, family=family, k=k, width=20, max_evals=200),
    ]
    for adv in ("greedy", "cyclic"):
        found.append(adversary_regret(n, T, learner=learner, adversary=adv, family=family, k=k))
    acts = {tuple(r) for r in family_actions(n, family, k)}
    for r in found:
        assert r.value <= exact + 1e-8, r.method
        assert r.argmax_seq.shape == (T, n) and all(tuple(x) in acts for x in r.argmax_seq)
        replay = sequence_regret(r.argmax_seq, learner=learner, family=family, k=k)
        assert replay == pytest.approx(r.value, abs=1e-9), r.method
        if learner == "onlinerank":
            assert exact_expected_regret(r.argmax_seq, r.eta) == pytest.approx(r.value, abs=1e-9)
    assert found[2].value == max(found[0].value, found[1].value)


def test_issue_14_greedy_fractions_of_the_exact_worst_case():
    """Greedy reaches 0.86–0.94 of OnlineRank's exact worst case at n = 3, 4 but only 0.29–0.53
    of FPL's: at (n, T) = (3, 100) and (4, 40), single choice, default rates."""
    for n, T in [(3, 100), (4, 40)]:
        frac = {}
        for lr in ("onlinerank", "fpl"):
            e = exact_worst_regret(n, T, learner=lr, return_argmax=False).value
            frac[lr] = adversary_regret(n, T, learner=lr, adversary="greedy").value / e
        assert 0.855 <= frac["onlinerank"] <= 0.94 and 0.285 <= frac["fpl"] <= 0.53, frac


def test_search_rejects_bad_input_before_any_work():
    with pytest.raises(ValueError, match="family"):
        staircase_search(4, 10, family="subset", max_evals=20_000)
    with pytest.raises(ValueError, match="width"):
        beam_search(4, 10, width=0)
    with pytest.raises(ValueError, match="learner"):
        search_worst_regret(4, 10, learner={"name": "fpl", "expected": "mc"}, width=1000, max_evals=20_000)
    with pytest.raises(ValueError, match="family"):
        search_worst_regret(4, 10, family="graded", width=1000, max_evals=20_000)


# ------------------------------------------------------------------------------------------
# Tables
# ------------------------------------------------------------------------------------------


FAMS = [("single", 5, 1), ("kchoice", 5, 2), ("subset", 4, 1), ("spearman", 4, 1)]


@pytest.mark.parametrize("family,n,k", FAMS)
def test_sequence_cells_round_trip(family, n, k):
    rng = np.random.default_rng(1)
    acts = family_actions(n, family, k)
    seq = acts[rng.integers(len(acts), size=9)]
    text = encode_sequence(seq, family)
    np.testing.assert_array_equal(decode_sequence(text, n, family), seq)


def with_worst_case(section):
    """A whole config around the ``worst_case`` section ``section``: it is checked with the rest
    of the config, by the one builder (:func:`onlinerank.config.load_settings`)."""
    return {
        "seed": 1,
        "learners": copy.deepcopy(LEARNERS),
        "adversaries": {"uniform": {"name": "uniform"}},
        "worst_case": section,
    }


@pytest.fixture(scope="module")
def section_settings():
    """SMOKE checked and typed by the one validator (the schema fills the defaults)."""
    return load_settings(with_worst_case(copy.deepcopy(SMOKE)))


@pytest.fixture(scope="module")
def smoke_tables(section_settings):
    wc = section_settings.worst_case
    return comparison_rows(wc, section_settings.learners), tightness_rows(wc)


def test_comparison_rows(smoke_tables, section_settings):
    rows, _ = smoke_tables
    exact = [r for r in rows if r["kind"] == "exact"]
    # every learner at both DP points, Hedge skipped above its max_n
    assert len(exact) == 6 * 2
    assert {r["learner"] for r in rows if r["n"] == 5} == set(SMOKE["learners"]) - {"hedge"}
    for r in exact:
        spec = LEARNERS[r["learner"]]
        assert r["value"] == exact_worst_regret(r["n"], r["T"], learner=spec).value
    for r in rows:  # every value is the exact regret of its recorded sequence
        assert replay_row(r, section_settings.learners) == pytest.approx(r["value"], abs=1e-8), (
            r["learner"],
            r["method"],
        )
        assert r["ratio_thm31"] == pytest.approx(r["value"] / r["bound_thm31"])
        if r["kind"] == "adversary":
            ex = [e for e in exact if (e["learner"], e["n"], e["T"]) == (r["learner"], r["n"], r["T"])]
            assert not ex or r["value"] <= ex[0]["value"] + 1e-8
    assert {r["method"] for r in rows} == {"exact", "greedy", "cyclic", "staircase", "beam"}
    frac = fraction_of_exact_rows(rows)
    assert len(frac) == 6 * 2 * 4  # learners x DP sizes x (greedy, cyclic, staircase, beam)
    for f in frac:
        assert 0 <= f["fraction"] <= 1 + 1e-9 and f["fraction"] == pytest.approx(f["value"] / f["exact"])
    wc, specs = section_settings.worst_case, section_settings.learners
    split = comparison_rows(wc, specs, part="exact") + comparison_rows(wc, specs, part="search")
    assert sorted(map(str, split)) == sorted(map(str, rows))


def test_tightness_rows(smoke_tables):
    _, rows = smoke_tables
    assert len(rows) == (2 + 1 + 1) * 2
    for r in rows:
        assert 0 < r["ratio_sharp"] < 1
        assert r["kind"] == ("exact" if r["n"] in (3, 4) else "search")
        assert r["method"] == ("exact" if r["n"] in (3, 4) else "staircase")  # width 0: no beam
        seq = decode_sequence(r["sequence"], r["n"], r["family"])
        assert exact_expected_regret(seq, r["eta"]) == pytest.approx(r["value"], abs=1e-9)
        if r["kind"] == "exact":
            assert r["value"] == exact_worst_regret(r["n"], r["T"], eta=r["eta"]).value
    best = largest_ratio_rows(rows)
    assert [r["n"] for r in best] == [3, 4, 6]
    for b in best:
        assert b["ratio_sharp"] == max(r["ratio_sharp"] for r in rows if r["n"] == b["n"])
    # theory §3.4: at eta_p / 4 the ratio grows with T for n = 3
    r3 = {r["T"]: r["ratio_sharp"] for r in rows if r["n"] == 3 and r["eta_factor"] == 0.25}
    assert r3[40] > r3[20]


def test_figures_render_from_the_tables(smoke_tables, section_settings, tmp_path):
    from onlinerank.drawing import draw
    from onlinerank.plotting import save_figure, style

    cmp_rows, tight_rows = smoke_tables
    for name, rows in (("worst_case_learners", cmp_rows), ("tightness", tight_rows)):
        fig = draw(name, {name: rows}, section_settings)
        with style():
            save_figure(fig, tmp_path / f"{name}.png", tmp_path / f"{name}.pdf")
        for p in (tmp_path / f"{name}.png", tmp_path / f"{name}.pdf"):
            assert p.read_bytes()[:4] in (b"\x89PNG", b"%PDF")


@pytest.mark.parametrize(
    "edit,key",
    [
        (lambda s: s.update(family="choice"), "worst_case.family"),
        (lambda s: s.update(colour="red"), "worst_case.colour"),
        (lambda s: s["exact"][0].update(family="subsets"), "worst_case.exact[0].family"),
        (lambda s: s["exact"][0].update(T=[10, 5000]), "worst_case.exact[0].T"),
        (lambda s: s["exact"][0].update(n=1), "worst_case.exact[0].n"),
        (lambda s: s["exact"][0].update(eta_factor=[0.0]), "worst_case.exact[0].eta_factor"),
        (lambda s: s.update(learners=["onlinerank-pl", "nosuch"]), "worst_case.learners"),
        (lambda s: s.update(learners=["fpl-mc"]), "worst_case.learners"),
        (lambda s: s["comparison"].update(exact=[{"n": 9, "T": 200}]), "worst_case.comparison.exact[0].T"),
        (lambda s: s["comparison"].update(search=[{"n": 9}]), "worst_case.comparison.search[0]"),
        (lambda s: s["comparison"].update(adversaries=["uniform", "x"]), "worst_case.comparison.adversaries"),
        (lambda s: s["comparison"].update(adversaries=["mallows"]), "worst_case.comparison.adversaries"),
        (lambda s: s["comparison"].update(max_n={"nosuch": 3}), "worst_case.comparison.max_n.nosuch"),
        (lambda s: s["tightness"].update(exact=[{"n": 12, "T": [400]}]), "worst_case.tightness.exact[0].T"),
        (lambda s: s["tightness"].update(eta_factor=[-1]), "worst_case.tightness.eta_factor"),
        (lambda s: s["search"].update(width=0), "worst_case.search.width"),
        (lambda s: s["tightness"].update(width=-1), "worst_case.tightness.width"),
        (lambda s: s.update(max_states="big"), "worst_case.max_states"),
    ],
)
def test_validate_names_the_key_and_value(edit, key):
    """Through the one validator (the schema's checks first, then the sizes of the dynamic
    programs): one line naming the key and, but for an unknown key, the value."""
    sec = copy.deepcopy(SMOKE)
    edit(sec)
    with pytest.raises(ConfigError, match=re.escape(key)) as e:
        load_settings(with_worst_case(sec))
    msg = str(e.value)
    assert "\n" not in msg and ("got" in msg or "unknown key" in msg), msg
    with pytest.raises(ConfigError, match=r"config error at worst_case: .* not of type 'object'"):
        load_settings(with_worst_case([{"family": "choice", "n": 3, "T": [10]}]))
    with pytest.raises(ConfigError, match="worst_case: must be a mapping"):
        validate_worst_case([{"family": "choice", "n": 3, "T": [10]}], LEARNERS)


def test_largest_ratio_rows_picks_the_maximum_per_n():
    rows = [
        {"n": 3, "ratio_sharp": 0.5, "T": 1},
        {"n": 3, "ratio_sharp": 0.7, "T": 2},
        {"n": 5, "ratio_sharp": 0.4, "T": 3},
    ]
    assert [r["T"] for r in largest_ratio_rows(rows)] == [2, 3]


def test_pipeline_tables_are_these_rows(smoke_tables, tmp_path):
    """The pipeline's tables (built as onlinerank.tables declares) are these rows, with the
    declared columns."""
    from onlinerank.io import read_table, write_csv
    from onlinerank.tables import columns, make_table

    cmp_rows, tight_rows = smoke_tables
    settings = load_settings(with_worst_case(copy.deepcopy(SMOKE)))
    for name, want in (("worst_case_learners", cmp_rows), ("tightness", tight_rows)):
        path = tmp_path / f"{name}.csv"
        write_csv(path, make_table(name, settings))
        got = read_table(path)
        assert tuple(got[0]) == columns(name)
        assert [(r["n"], r["T"], r["method"]) for r in got] == [(r["n"], r["T"], r["method"]) for r in want]
        assert [r["value"] for r in got] == pytest.approx([r["value"] for r in want], abs=1e-12)


def test_the_pieces_of_the_worst_case_tables_are_the_whole_tables(section_settings, smoke_tables, tmp_path):
    """Each piece of worst_case_learners (a learner) and of tightness (a point of its grid) is an
    independent job; their files pooled in order are byte for byte the table written whole."""
    from onlinerank.io import concat_csv, write_csv
    from onlinerank.tables import make_table, table_pieces

    config = section_settings
    assert table_pieces("worst_case_learners", config) == SMOKE["learners"]
    assert table_pieces("tightness", config) == ["exact0-n3", "exact1-n4", "search0-n6"]
    assert table_pieces("worst_case", config) == []  # one job
    for name, whole in zip(("worst_case_learners", "tightness"), smoke_tables, strict=True):
        paths = []
        for piece in table_pieces(name, config):
            rows = make_table(name, config, piece=piece)
            assert rows, piece
            paths.append(tmp_path / f"{name}-{piece}.csv")
            write_csv(paths[-1], rows)
        write_csv(tmp_path / f"{name}.csv", whole)
        assert concat_csv(paths) == (tmp_path / f"{name}.csv").read_text()
        with pytest.raises(ValueError, match="has no piece 'nope'"):
            make_table(name, config, piece="nope")
    with pytest.raises(ValueError, match="piece must be one of"):
        tightness_rows(section_settings.worst_case, piece="exact9-n3")
