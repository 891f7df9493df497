"""What a verdict carries: informative cells and controls, the headroom, Student-t intervals, the
theory section (onlinerank.claims.evidence, .stats); the digests and the change log are tested in
tests/test_claims_changelog.py."""

from __future__ import annotations

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
