"""What a verdict carries: informative cells and controls, the headroom, Student-t intervals, the
theory section (onlinerank.claims.evidence, .stats); the digests and the change log are tested in
tests/test_claims_changelog.py."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import pytest
import yaml
from scipy import integrate
from scipy.special import gamma

from onlinerank.claims import REGISTRY
from onlinerank.claims.evidence import claim_evidence
from onlinerank.claims.stats import bonferroni_t, bonferroni_z

ROOT = Path(__file__).resolve().parents[1]


def _cell(value, lo, hi, *, control="", label="c", threshold=1.0, direction="<="):
    return {
        "cell": label,
        "value": value,
        "lo": lo,
        "hi": hi,
        "threshold": threshold,
        "direction": direction,
        "control": control,
    }


def test_headroom_is_over_the_informative_cells():
    cells = [
        _cell(0.40, 0.38, 0.42, label="a"),
        _cell(0.49, 0.48, 0.50, label="b"),
        _cell(0.90, 0.89, 0.91, control="uniform adversary", label="ctl"),
    ]
    ev = claim_evidence(cells)
    assert (ev["cells"], ev["informative"], ev["controls"]) == (3, 2, 1)
    h = ev["headroom"]
    assert h["extreme"] == 0.50 and h["attained_by"] == ["b"]
    assert h["factor"] == pytest.approx(2.0)
    assert h["margin"] == pytest.approx(0.5)
    ge = claim_evidence([_cell(3.0, 2.0, 4.0, threshold=0.5, direction=">=", label="x")])
    assert ge["headroom"]["factor"] == pytest.approx(4.0) and ge["headroom"]["extreme"] == 2.0
    only = claim_evidence([_cell(0.9, 0.9, 0.9, control="c")])
    assert only["informative"] == 0 and only["headroom"]["over"].startswith("all cells")


def test_student_t_quantile_by_integrating_the_density():
    """bonferroni_t against the defining integral of Student's t density (independent of
    scipy.stats): P(|t_15| <= q) = 1 - 0.05/232, and the normal z is smaller (too narrow)."""
    m, alpha, df = 232, 0.05, 15
    q, level = bonferroni_t(m, alpha, df)

    def density(x):
        c = gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * gamma(df / 2))
        return c * (1 + x * x / df) ** (-(df + 1) / 2)

    mass = 2 * integrate.quad(density, 0, q, epsabs=1e-13)[0]
    assert mass == pytest.approx(level, abs=1e-9)
    assert q == pytest.approx(4.84, abs=0.01)  # about 4.9, against the normal 3.7
    z, _ = bonferroni_z(m, alpha)
    assert z == pytest.approx(3.7, abs=0.05) and z < q
    assert bonferroni_t(m, alpha, math.inf)[0] == pytest.approx(z)
    with pytest.raises(ValueError, match="degree"):
        bonferroni_t(m, alpha, 0)


def test_controls_in_the_smoke_claims(smoke_doc):
    """Every uniform-adversary cell of Theorem 3.1 is a control, and every QuickSort cell with a
    Plackett–Luce twin is one, bit-identical to it (Lemma 6.1: the same expected loss)."""
    cfg = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    rec = next(c for c in smoke_doc["claims"] if c["id"] == "thm3.1")
    uni = [x for x in rec["cells"] if cfg["adversaries"][x["params"]["adversary"]]["name"] == "uniform"]
    assert uni and all(x["control"].startswith("the uniform adversary") for x in uni)
    qs = [
        x
        for x in rec["cells"]
        if cfg["learners"][x["params"]["learner"]].get("sampler") == "quicksort" and x not in uni
    ]
    assert qs and all("Lemma 6.1 (bit-identical)" in x["control"] for x in qs)
    informative = [x for x in rec["cells"] if not x["control"]]
    assert informative and rec["evidence"]["informative"] == len(informative)
    assert rec["evidence"]["headroom"]["extreme"] == max(x["hi"] for x in informative)


def test_every_tested_claim_links_to_a_theory_section_of_the_docs():
    """Each claim's record names the docs page carrying its theory target, and that page has it."""
    from onlinerank.claims.evidence import theory_link, theory_section

    for c in REGISTRY.values():
        if c.section == "not-tested":
            continue
        link = theory_link(theory_section(c))
        assert link["page"], (c.id, link)
        text = (ROOT / link["page"]).read_text(encoding="utf-8")
        assert f"(theory-{link['section']})=" in text, (c.id, link)


def test_the_html_reports_first_page_links_each_claim_to_its_theory(smoke_doc):
    """The report's first page (rst) links every claim of the paper to its theory section, a page
    of the docs that exists (the report lies in <results_dir>/, beside docs/)."""
    from onlinerank.claims.console import report_intro

    text = report_intro(smoke_doc)
    root = Path(__file__).resolve().parents[1]
    for c in smoke_doc["claims"]:
        if c["section"] != "paper":
            continue
        t = c["theory"]
        assert t["section"] and t["page"], c["id"]
        assert f"`§{t['section']} <../{t['page']}>`__" in text, c["id"]
        assert (root / t["page"]).is_file(), t["page"]


def test_a_repeated_cell_counts_once_and_names_the_cell_it_repeats():
    """Two cells with the same inputs, value and interval are one piece of evidence (a planted
    duplicate under another label); the same value from other inputs is not a repeat."""
    a = {**_cell(0.40, 0.38, 0.42, label="pl"), "inputs": "aaaaaaaaaaaa"}
    twin = {**a, "cell": "stated"}
    other = {**a, "cell": "other game", "inputs": "bbbbbbbbbbbb"}
    ev = claim_evidence([a, twin, other])
    assert (ev["cells"], ev["informative"], ev["controls"]) == (3, 2, 0)
    assert ev["duplicates"] == [{"cell": "stated", "repeats": "pl"}]
    moved = {**twin, "hi": 0.43}  # a different interval: another piece of evidence
    assert claim_evidence([a, moved])["informative"] == 2
    # cells without explicit inputs: the statistic and the parameters identify them
    p = {**_cell(0.0, 0.0, 0.0, label="n=3"), "statistic": "s", "params": {"n": 3}}
    q = {**p, "cell": "n=3 again"}
    r = {**p, "cell": "n=4", "params": {"n": 4}}
    ev = claim_evidence([p, q, r])
    assert ev["informative"] == 2 and ev["duplicates"] == [{"cell": "n=3 again", "repeats": "n=3"}]


def test_a_claim_with_only_control_cells_is_inconclusive():
    """Controls cannot show a claim's power: every cell a PASSing control gives INCONCLUSIVE with the
    note "no informative cell"; a failing control still FAILs the claim; one informative cell PASSes."""
    from onlinerank.claims.evidence import NO_INFORMATIVE_CELL, claim_verdict

    ctl = [
        {**_cell(0.5, 0.4, 0.6, control="uniform adversary", label=f"c{i}"), "verdict": "PASS"}
        for i in range(3)
    ]
    assert claim_verdict(ctl, claim_evidence(ctl)) == ("INCONCLUSIVE", NO_INFORMATIVE_CELL)
    failing = [*ctl, {**_cell(2.0, 1.5, 2.5, control="uniform adversary", label="f"), "verdict": "FAIL"}]
    assert claim_verdict(failing, claim_evidence(failing)) == ("FAIL", "")
    one = [*ctl, {**_cell(0.5, 0.4, 0.6, label="greedy"), "verdict": "PASS"}]
    assert claim_verdict(one, claim_evidence(one)) == ("PASS", "")


def test_only_controls_through_the_report(smoke_tables, smoke_config, smoke_settings):
    """cor3.2.kchoice on the smoke tables without its greedy cells (every cell then the uniform
    adversary's, a control) is INCONCLUSIVE with the note, in claims.json and claims.md."""
    from onlinerank.claims.report import claims_markdown, evaluate

    tables = copy.deepcopy(smoke_tables)
    cfg = smoke_config
    tables["sim_upper"] = [
        r for r in tables["sim_upper"] if cfg["adversaries"][r["adversary"]]["name"] == "uniform"
    ]
    rec = evaluate(REGISTRY["cor3.2.kchoice"], tables, smoke_settings, 0.05)
    assert rec["cells"] and all(x["verdict"] == "PASS" and x["control"] for x in rec["cells"])
    assert (rec["verdict"], rec["note"], rec["evidence"]["informative"]) == (
        "INCONCLUSIVE",
        "no informative cell",
        0,
    )
    full = evaluate(REGISTRY["cor3.2.kchoice"], smoke_tables, smoke_settings, 0.05)
    assert full["verdict"] == "PASS" and full["evidence"]["informative"] > 0
    md = claims_markdown({"meta": {}, "claims": [rec], "changes": []})
    assert "**INCONCLUSIVE** (no informative cell)" in md


def test_the_stated_rate_at_even_n_repeats_the_paper_rate_in_the_smoke_claims(smoke_doc, smoke_config):
    """Subsets at even n: Corollary 3.2's stated M = n²/4 is the exact M, so onlinerank-stated runs
    at η_p and its cells repeat onlinerank-pl's bit for bit: counted once, each named with its twin."""
    rec = next(c for c in smoke_doc["claims"] if c["id"] == "cor3.2.subset")
    dup = rec["evidence"]["duplicates"]
    assert dup and all("onlinerank-stated" in d["cell"] and "onlinerank-pl" in d["repeats"] for d in dup)
    by = {x["cell"]: x for x in rec["cells"]}
    for d in dup:
        a, b = by[d["cell"]], by[d["repeats"]]
        assert (a["value"], a["lo"], a["hi"], a["inputs"]) == (b["value"], b["lo"], b["hi"], b["inputs"])
    distinct = {(x["inputs"], x["value"], x["lo"], x["hi"]) for x in rec["cells"] if not x["control"]}
    assert rec["evidence"]["informative"] == len(distinct)
    kchoice = next(c for c in smoke_doc["claims"] if c["id"] == "cor3.2.kchoice")
    assert not kchoice["evidence"]["duplicates"]  # k-choice: the stated M = kn is not k(n - k)


def test_every_tested_claim_declares_its_kind_of_evidence():
    """The kind is a field of the registration, one of data / algebra / construction, with a basis
    for the last two; a statement that is not tested has none; registration refuses a missing or
    unknown kind and an algebra claim without a basis."""
    from onlinerank.claims.registry import KINDS, claim

    for c in REGISTRY.values():
        if c.section == "not-tested":
            assert c.kind == "", c.id
        else:
            assert c.kind in KINDS, c.id
            assert c.kind == "data" or c.basis, c.id
    algebra = {c.id for c in REGISTRY.values() if c.kind == "algebra"}
    assert algebra == {"sec4.hedge", "sec4.fpl", "sec4.permelearn", "sec5.fpl", "sec5.permelearn"}
    assert all("this project's reconstruction of the baseline bounds" in REGISTRY[i].basis for i in algebra)
    assert REGISTRY["sec4.fpl"].basis.startswith("an identity")
    assert {c.id for c in REGISTRY.values() if c.kind == "construction"} == {
        "thm3.3.every_algorithm",
        "thm3.3.binomial",
    }
    fields = dict(
        section="paper", paper_ref="-", title="-", statement="-", direction="<=", threshold=1.0, test="-"
    )
    with pytest.raises(ValueError, match="x.nokind: kind must be one of data, algebra, construction"):
        claim(id="x.nokind", **fields)(lambda ctx: [])
    with pytest.raises(ValueError, match="x.nobasis: kind 'algebra' needs a basis"):
        claim(id="x.nobasis", kind="algebra", **fields)(lambda ctx: [])
    assert "x.nokind" not in REGISTRY and "x.nobasis" not in REGISTRY


def test_the_summaries_count_verdicts_by_kind_as_the_document_has_them(smoke_doc):
    """The end-of-run summary, claims.md and the README summary count the PASSes of the paper by
    kind exactly as claims.json lists them; each claim's kind is in its row."""
    from collections import Counter

    from onlinerank.claims.report import KIND_WORD, claims_markdown, readme_summary, summary_lines

    paper = [c for c in smoke_doc["claims"] if c["section"] == "paper"]
    counts = Counter(c["kind"] for c in paper if c["verdict"] == "PASS")
    assert set(counts) <= set(KIND_WORD) and counts["data"] > 0
    expect = ", ".join(f"{counts[k]} {w}" for k, w in KIND_WORD.items() if counts[k])
    passes = sum(counts.values())
    assert summary_lines(smoke_doc)[0].startswith(f"Claims of the paper: {passes} PASS ({expect}) / ")
    assert f"**Claims of the paper: {passes} PASS ({expect}), " in readme_summary(smoke_doc)
    md = claims_markdown(smoke_doc)
    assert f"Claims of the paper: {passes} PASS ({expect})" in md
    for c in paper:
        assert f"| `{c['id']}` | {c['paper_ref']} | {c['title']} | {c['kind']} |" in md, c["id"]
