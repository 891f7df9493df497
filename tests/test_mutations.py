"""Mutation tests: the claims' verdicts have power against a broken learner, not only against
scaled data (``workflow/mutants``, the package of the pipeline's rule ``mutations``).

The small cells of the mutations table are run once unmutated and once under each mutation (the
smoke tier's seed and thresholds, in-process, about 10 s); each mutation must turn the claims it
breaks to FAIL while the unmutated run PASSes them, and a mutation must not outlive its context.
"""

from __future__ import annotations

import copy
import json
import sys

import numpy as np
import pytest
import yaml
from conftest import ROOT

from onlinerank.adversaries import make_adversary
from onlinerank.claims.report import claims_markdown, document_json, validate_document
from onlinerank.config import ConfigError, load_settings
from onlinerank.game import Game
from onlinerank.io import read_table, write_csv
from onlinerank.learners import LEARNERS, make_learner
from onlinerank.learners.onlinerank import OnlineRank
from onlinerank.samplers import quicksort
from onlinerank.simulate import simulate
from onlinerank.tables import columns

sys.path.insert(0, str(ROOT / "workflow"))  # the package mutants: a testing device, not installed
from mutants import learners as mutant_learners  # noqa: E402
from mutants.table import (  # noqa: E402
    MUTATIONS,
    SMALL_CELLS,
    mutated,
    mutation_rows,
    run_mutations,
    small_settings,
)

#: the claims of the paper that the small cells decide and that must PASS unmutated
DECIDED = (
    "lemma6.1",
    "lemma6.1.samplers",
    "thm3.1",
    "thm3.1.worst_case",
    "cor3.2.single",
    "cor3.2.kchoice",
    "cor3.2.subset",
    "sec5.spearman",
    "sec5.graded",
)
#: claims computed from the exact expected loss or the exact worst case: independent of the sampler
EXACT = (
    "thm3.1",
    "thm3.1.worst_case",
    "cor3.2.single",
    "cor3.2.kchoice",
    "cor3.2.subset",
    "sec5.spearman",
    "sec5.graded",
)


@pytest.fixture(scope="module")
def smoke_cfg():
    """The smoke tier's settings (what the mutations step is handed)."""
    return load_settings(yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text()))


@pytest.fixture(scope="module")
def runs(smoke_cfg) -> dict:
    return run_mutations(smoke_cfg)


def verdicts(run: dict) -> dict[str, str]:
    return {cid: rec["verdict"] for cid, rec in run.items()}


def cell_values(rec: dict) -> list[tuple]:
    return [(x["cell"], x["value"], x["lo"], x["hi"], x["verdict"]) for x in rec["cells"]]


def test_unmutated_small_cells_pass(runs):
    v = verdicts(runs["unmutated"])
    assert {cid: v.get(cid) for cid in DECIDED} == dict.fromkeys(DECIDED, "PASS")


def test_eta_tenth_fails_theorem_31_and_its_corollaries(runs):
    v = verdicts(runs["eta-0.1"])
    for cid in (
        "thm3.1",
        "thm3.1.worst_case",
        "cor3.2.single",
        "cor3.2.kchoice",
        "cor3.2.subset",
        "sec5.spearman",
        "sec5.graded",
    ):
        assert v[cid] == "FAIL", cid
    # the learner with a tenth of eta_p is still a multiplicative-weights learner: the sharp bound
    # C(n,2) ln2/eta + eta T M/2 at its own rate holds for every eta (theory §3.2 [X])
    assert v["beyond.any_eta"] == "PASS"
    # the sampled Lemma 6.1 check does not involve the learning rate: bit-identical
    assert cell_values(runs["eta-0.1"]["lemma6.1"]) == cell_values(runs["unmutated"]["lemma6.1"])
    # the failing cells are the adaptive adversary's, whose regret at a tenth of the rate exceeds the bound
    failing = [x for x in runs["eta-0.1"]["thm3.1"]["cells"] if x["verdict"] == "FAIL"]
    assert failing and all("greedy" in x["cell"] for x in failing)
    assert min(x["lo"] for x in failing) > 1.0


@pytest.mark.parametrize("name", ["quicksort-coin-reversed", "quicksort-coin-tempered-0.8"])
def test_quicksort_coin_fails_lemma_61_and_leaves_the_exact_claims_bit_identical(runs, name):
    v = verdicts(runs[name])
    assert v["lemma6.1"] == "FAIL"
    if name == "quicksort-coin-reversed":
        assert v["lemma6.1.samplers"] == "FAIL"
    for cid in EXACT:  # exact expected losses and the DP use the weights, not the sampler
        assert cell_values(runs[name][cid]) == cell_values(runs["unmutated"][cid]), cid
    cells = {x["cell"]: x for x in runs[name]["lemma6.1"]["cells"]}
    base = {x["cell"]: x for x in runs["unmutated"]["lemma6.1"]["cells"]}
    failing = [c for c, x in cells.items() if x["verdict"] == "FAIL"]
    # only QuickSort's sampled cell fails: the exact laws (laws.py) and Plackett-Luce are not mutated
    assert len(failing) == 1 and failing[0].startswith("quicksort, sampled")
    assert all(cells[c] == base[c] for c in cells if not c.startswith("quicksort, sampled"))


def test_every_mutation_names_its_targets(runs):
    for name, m in MUTATIONS.items():
        got = verdicts(runs[name])
        assert all(got[cid] == "FAIL" for cid in m.targets if cid in got), name


def test_table_rows_render_and_validate(runs, tmp_path):
    rows = mutation_rows(runs)
    assert len(rows) == len(MUTATIONS) * len(runs["unmutated"])
    assert all(tuple(r) == columns("mutations") for r in rows)
    r = next(r for r in rows if r["mutation"] == "quicksort-coin-reversed" and r["claim"] == "lemma6.1")
    assert (r["verdict_unmutated"], r["verdict_mutated"], r["flipped"], r["targeted"]) == (
        "PASS",
        "FAIL",
        True,
        True,
    )
    assert r["worst_cell"].startswith("quicksort, sampled") and r["worst_value"] > 0.5
    # through the CSV the claims step reads, into a document valid against the schema
    write_csv(tmp_path / "mutations.csv", rows)
    back = read_table(tmp_path / "mutations.csv")
    assert [r["flipped"] for r in back] == [r["flipped"] for r in rows]
    meta = {"config_digest": "x", "commit": "x", "alpha": 0.05, "registry_digest": "0" * 12}
    log = {"format": 2, "changes_after_data": 0, "unrecorded": []}
    doc = {"meta": meta, "claims": [], "changes": [], "change_log": log, "mutations": back}
    validate_document(json.loads(document_json(doc)))
    md = claims_markdown(doc)
    assert "## Mutations: claims that flip" in md
    assert "| `quicksort-coin-reversed` | QuickSort's coin reversed" in md
    assert "`lemma6.1` PASS → FAIL" in md
    # without the table, no section
    assert "Mutations" not in claims_markdown({**doc, "mutations": None})


def test_smoke_run_reports_the_mutations(smoke_run):
    """The pipeline's mutations table reaches claims.json (key ``mutations``) and claims.md."""
    res = smoke_run / "results-smoke"
    table = read_table(res / "tables" / "mutations.csv")
    doc = json.loads((res / "figures" / "claims.json").read_text())
    assert [(r["mutation"], r["claim"], r["verdict_mutated"]) for r in doc["mutations"]] == [
        (r["mutation"], r["claim"], r["verdict_mutated"]) for r in table
    ]
    assert {r["mutation"] for r in table} == set(MUTATIONS)
    md = (res / "figures" / "claims.md").read_text()
    assert md.index("## Mutations: claims that flip") < md.index("## Every claim and cell")


# --- the mutated samplers draw the stated laws --------------------------------------------------

W = np.log(np.array([1.0, 2.0, 4.0, 0.5, 3.0]))
PAIRS = [(0, 1), (0, 2), (1, 2), (3, 4), (2, 3)]


def before_freq(orders: np.ndarray) -> np.ndarray:
    pos = np.argsort(orders, axis=1)
    return np.array([(pos[:, u] < pos[:, v]).mean() for u, v in PAIRS])


def coin_probs(c: float) -> np.ndarray:
    w = np.exp(c * W)
    return np.array([w[u] / (w[u] + w[v]) for u, v in PAIRS])


def z_scores(orders: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Pair frequencies minus ``p``, in standard errors."""
    return (before_freq(orders) - p) / np.sqrt(p * (1 - p) / orders.shape[0])


def assert_law(orders: np.ndarray, p: np.ndarray) -> None:
    """Pair frequencies within 5 standard errors of ``p`` (fixed seeds)."""
    assert np.all(np.abs(z_scores(orders, p)) <= 5), (before_freq(orders), p)


@pytest.mark.parametrize(
    ("name", "c"), [("quicksort-coin-reversed", -1.0), ("quicksort-coin-tempered-0.8", 0.8)]
)
def test_mutated_quicksort_has_the_mutated_coin(name, c):
    N = 40_000
    seeds = np.random.default_rng(7).integers(0, 2**63, size=N, dtype=np.uint64)
    S = np.broadcast_to(W, (N, W.size)).copy()
    with mutated(name):
        # the table's orders (Lemma 6.1) and the simulator's (a learner put in the state eta S = W)
        rows = LEARNERS["onlinerank"].orders("quicksort", S, seeds)
        lrn = make_learner("onlinerank", sampler="quicksort", eta=1.0)
    lrn.reset(Game(n=W.size, T=10), N)
    lrn.set_scores(S)
    ranked = lrn.rank(seeds)
    assert type(lrn) is MUTATIONS[name].learner
    # Lemma 6.1 for QuickSort on the weights w^c: P(u before v) = w_u^c / (w_u^c + w_v^c)
    assert_law(rows, coin_probs(c))
    assert_law(ranked, coin_probs(c))
    # and the original law is rejected (the same test with p = w_u / (w_u + w_v))
    assert np.max(np.abs(z_scores(rows, coin_probs(1.0)))) > 10
    assert np.max(np.abs(z_scores(ranked, coin_probs(1.0)))) > 10
    # Plackett-Luce is not mutated: the same orders as OnlineRank's
    pl = LEARNERS["onlinerank"].orders("plackett-luce", S[:100], seeds[:100])
    assert np.array_equal(MUTATIONS[name].learner.orders("plackett-luce", S[:100], seeds[:100]), pl)


def test_the_broken_coin_draws_what_the_kernel_draws_at_the_rate_c_eta():
    """The broken coin's orders (QuickSort on the log-weights ``(c eta) S``, formed in numpy) are
    the compiled kernel's on the scores S at the rate ``c eta`` (formed in the kernel), for both
    coins and for rows in both forms (log-weight range below and above the kernels' LO)."""
    from onlinerank import samplers

    rng = np.random.default_rng(11)
    for c in (-1.0, 0.8):
        for scale in (1.0, 400.0):
            S = np.ascontiguousarray(rng.normal(size=(50, 9)) * scale)
            seeds = rng.integers(0, 2**63, size=50, dtype=np.uint64)
            kernel_state = (S, c * 1.7, samplers._NO_CACHE, samplers._NO_SHIFT, np.ones(50, dtype=np.int8))
            want = samplers._qs_sample(kernel_state, seeds)
            assert np.array_equal(mutant_learners.coin_quicksort_rows(c, 1.7, S, seeds), want), (c, scale)


def test_the_mutation_does_not_outlive_its_context():
    N = 40_000
    for name in MUTATIONS:
        with pytest.raises(RuntimeError, match="boom"), mutated(name):
            raise RuntimeError("boom")
        with mutated(name):
            assert LEARNERS["onlinerank"] is MUTATIONS[name].learner
    assert LEARNERS["onlinerank"] is OnlineRank and not LEARNERS.substitutions
    assert type(make_learner("onlinerank")) is OnlineRank
    # the original sampler again: P(u before v) = w_u / (w_u + w_v)
    assert_law(quicksort(W, np.random.default_rng(3), size=N), coin_probs(1.0))
    seeds = np.random.default_rng(4).integers(0, 2**63, size=N, dtype=np.uint64)
    assert_law(
        LEARNERS["onlinerank"].orders("quicksort", np.broadcast_to(W, (N, W.size)).copy(), seeds),
        coin_probs(1.0),
    )


def test_no_config_can_reach_a_broken_learner():
    """The broken learners are not registered, and the only name they carry is OnlineRank's, which
    a config resolves to OnlineRank: a config can only name a registered learner."""
    broken = {m.learner for m in MUTATIONS.values()}
    assert not broken & set(LEARNERS.values())
    assert {cls.name for cls in broken} == {"onlinerank"} and LEARNERS["onlinerank"] is OnlineRank
    cfg = copy.deepcopy(SMALL_CELLS) | {"seed": 1}
    assert type(make_learner(**cfg["learners"]["onlinerank-qs"])) is OnlineRank
    for cls in broken:
        cfg["learners"]["onlinerank-pl"]["name"] = cls.__name__
        with pytest.raises(ConfigError, match="unknown learner") as err:
            load_settings(cfg)
        assert cls.__name__ in str(err.value)


def test_mutations_refuse_to_nest_and_unknown_names():
    with mutated("eta-0.1"), pytest.raises(RuntimeError, match="already applied"), mutated("eta-0.1"):
        pass
    with pytest.raises(ValueError, match="unknown mutation 'eta-0.2'; known: eta-0.1"), mutated("eta-0.2"):
        pass


def _play(learner, seed=5, T=150, n=7):
    game = Game(n=n, T=T, family="single")
    return simulate(
        learner,
        make_adversary("uniform"),
        game,
        16,
        seed=seed,
        cell=("m",),
        learner_label="qs",
        K=3,
        sample=True,
    )


def test_a_run_after_a_mutation_is_bit_identical_to_one_before():
    before = _play(make_learner("onlinerank", sampler="quicksort"))
    with mutated("quicksort-coin-reversed"):
        during = _play(make_learner("onlinerank", sampler="quicksort"))
    with mutated("eta-0.1"):
        _play(make_learner("onlinerank", sampler="quicksort"))
    after = _play(make_learner("onlinerank", sampler="quicksort"))
    for a in ("loss", "exp_loss", "best"):
        assert np.array_equal(getattr(before, a), getattr(after, a)), a
    assert not np.array_equal(before.loss, during.loss)
    assert np.array_equal(before.exp_loss, during.exp_loss)  # the exact expected loss: weights only


class _PerRound(OnlineRank):
    """OnlineRank played by the engine's per-round reference loop (it overrides ``_rank``)."""

    def _rank(self, seeds):
        return super()._rank(seeds)


def test_a_broken_coin_changes_only_the_quicksort_draws():
    """The broken coin's run equals OnlineRank's but for the realised losses of QuickSort: the
    Plackett-Luce learner's block path and the per-round reference loop the broken learner is
    played by give the same losses, and the expected losses are OnlineRank's."""
    ref = _play(_PerRound("plackett-luce"))
    qs = _play(OnlineRank("quicksort"))
    for name in ("quicksort-coin-reversed", "quicksort-coin-tempered-0.8"):
        broken = MUTATIONS[name].learner
        got = _play(broken("plackett-luce"))
        for a in ("loss", "exp_loss", "best"):
            assert np.array_equal(getattr(got, a), getattr(ref, a)), (name, a)
        got_qs = _play(broken("quicksort"))
        assert np.array_equal(got_qs.exp_loss, qs.exp_loss) and not np.array_equal(got_qs.loss, qs.loss)


def test_eta_mutation_scales_the_learners_rate():
    game = Game(n=6, T=100, family="single")
    a, b = OnlineRank(), OnlineRank(eta=0.3)
    a.reset(game, 1)
    with mutated("eta-0.1"):
        m, mb = make_learner("onlinerank"), make_learner("onlinerank", eta=0.3)
    m.reset(game, 1)
    mb.reset(game, 1)
    b.reset(game, 1)
    assert m.eta_value == 0.1 * a.eta_value and mb.eta_value == 0.1 * 0.3 and b.eta_value == 0.3
    # its own bound is the sharp Theorem 3.1 bound at the rate it plays (theory §3.2)
    assert mb.regret_bound(game) == OnlineRank(eta=0.1 * 0.3).regret_bound(game)
    assert m.state.eta == m.eta_value


def test_small_cells_are_a_valid_config(smoke_cfg):
    small = small_settings(smoke_cfg)  # the one validator: raises ConfigError on a bad cell
    assert (small.seed, small.claims) == (smoke_cfg.seed, smoke_cfg.claims)  # the tier's thresholds
    assert SMALL_CELLS["upper"]["experiments"][0]["learners"] == ["onlinerank-pl", "onlinerank-qs"]
