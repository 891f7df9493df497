"""Each claim's link to the theory (claims.md, claims.json, the HTML report) points to the section
that states the claim's law: the linked section's text (from its target to the next one) holds
the formula or statement the claim tests, written out here independently of the registry."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

from onlinerank.claims import REGISTRY
from onlinerank.claims.evidence import theory_section

#: claim id -> a pattern of the law the claim tests, as its theory section writes it
LAW = {
    "thm3.3.lower": r"m\(n,k\)=\\min_\{T\\ge\\lceil h\(n,k\)\\rceil\}",
    "thm3.3.every_algorithm": r"L_T\(\\mathrm\{Alg\}\)=Tk\(n-k\)/2",
    "thm3.3.binomial": r"f\(u\)\\sim\\mathrm\{Bin\}\(T,p\)",
    "thm3.3.lstar": r"L_T\(\\pi\^\*\)=\\tfrac12\\sum_\{x=1\}\^Tm\(x\)\(m\(x\)-1\)",
    "beyond.lower_route": r"The paper's route: \$\\alpha\+\\beta\+\\gamma\$",
    "beyond.lower_exact_formula": r"The exact finite formula",
    "beyond.upper_lower_ratio": r"2\\sqrt\{\\pi\\ln ?2\}",
    "beyond.h_c": r"The numerical \$h_c\(n\)\$",
    "lemma6.1": r"Lemma 6\.1: both procedures have Bradley–Terry marginals",
    "lemma6.1.samplers": r"Lemma 6\.1: both procedures have Bradley–Terry marginals",
    "beyond.laws_differ": r"laws? differ",
    "sec2.losses": r"differ by a function of \$s\$ alone",
    "sec2.M": r"M=\\max_t\\sum_\{\\\{u,v\\\}\}",
    "sec2.offline": r"The best ranking in hindsight",
    "nt.cited_bounds": r"Hedge over all \$n!\$ rankings",
    "sec4.runtime": r"Expected work \$O\(n\\log n\)\$ \(the paper's running-time claim",
    "beyond.runtime.permelearn": r"Sinkhorn",
    "beyond.runtime.speedup": r"running in \$O\(n\\log n\)\$\s+per round; PermELearn needs Sinkhorn",
    "sec4.hedge": r"\\Omega\(\\sqrt\{n\\log n\}\)",
    "sec4.fpl": r"\\Omega\(\\sqrt k\)",
    "sec4.permelearn": r"improves on both by \$\\Omega\(\\sqrt\{\\log n\}\)\$",
    "sec5.fpl": r"n\^\{3\.5\}",
    "sec5.permelearn": r"O\(n\^3\\sqrt\{T\\log n\}\)",
    "sec4.mw_law": r"is neither QuickSort's nor Plackett–Luce's",
    "beyond.cyclic.onlinerank": r"The cyclic adversary",
    "beyond.cyclic.ftl": r"The cyclic adversary",
    "beyond.greedy": r"the adaptive adversaries return explicit sequences whose exact regret",
    "beyond.worst_case_learners": r"exact worst case of every learner whose law is a function of \$S\$",
    "beyond.tightness": r"No exact or searched worst case has\s+exceeded the sharp bound",
    "thm3.1.worst_case": r"Exact worst case over all sequences",
    "sec5.spearman": r"n\^2\\sqrt\{\\frac\{\(n\^2-1\)\\,T\\ln2\}\{12\}\}",
    "sec5.graded": r"the paper remarks that Theorem 3\.1 covers real-valued feedback",
    "thm3.1": r"\\mathbb E\[\\mathrm\{Regret\}\]\\le n\\sqrt\{TM\\ln2\}",
    "cor3.2.single": r"### Corollary 3\.2",
    "cor3.2.kchoice": r"### Corollary 3\.2",
    "cor3.2.subset": r"### Corollary 3\.2",
    "beyond.any_eta": r"holds for every \$\\eta>0\$",
    "beyond.exponent.T": r"\\mathbb E\[\\mathrm\{Regret\}\]\\le n\\sqrt\{TM\\ln2\}",
    "beyond.exponent.n": r"\\mathbb E\[\\mathrm\{Regret\}\]\\le n\\sqrt\{TM\\ln2\}",
    "beyond.exponent.k": r"\\mathbb E\[\\mathrm\{Regret\}\]\\le n\\sqrt\{TM\\ln2\}",
    "beyond.exponent.spearman": r"The Spearman corollary",
}


def theory_sections() -> dict[str, str]:
    """The text of every theory section of the docs, from its target ``(theory-x)=`` to the next."""
    out: dict[str, str] = {}
    for page in sorted((ROOT / "docs" / "theory").glob("*.md")):
        current = None
        for line in page.read_text(encoding="utf-8").splitlines():
            m = re.fullmatch(r"\(theory-([^)]+)\)=", line.strip())
            if m:
                current = m.group(1)
                out[current] = ""
            elif current is not None:
                out[current] += line + "\n"
    return out


TESTED = sorted(c.id for c in REGISTRY.values() if c.section != "not-tested")


def test_the_laws_name_registered_claims_and_cover_the_paper():
    assert set(LAW) <= set(REGISTRY), set(LAW) - set(REGISTRY)
    paper = [c.id for c in REGISTRY.values() if c.section == "paper"]
    assert set(paper) <= set(LAW), set(paper) - set(LAW)


@pytest.mark.parametrize("cid", [cid for cid in TESTED if cid in LAW])
def test_the_claims_link_points_to_the_section_that_states_its_law(cid):
    sections = theory_sections()
    section = theory_section(REGISTRY[cid])
    assert section in sections, (cid, section)
    assert re.search(LAW[cid], sections[section]), (cid, section, sections[section][:300])
