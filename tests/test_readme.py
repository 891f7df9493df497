"""The README says what is true: its verdict summary is the one generated from figures/claims.json,
and every page it points to exists."""

from __future__ import annotations

import json
import re

from conftest import ROOT

from onlinerank.claims.report import README_BEGIN, README_END, readme_summary

README = (ROOT / "README.md").read_text()


def test_summary_is_generated_from_the_claims_document():
    doc = json.loads((ROOT / "figures" / "claims.json").read_text())
    start, end = README.index(README_BEGIN), README.index(README_END) + len(README_END)
    assert README[start:end] == readme_summary(doc), (
        "regenerate: python -m onlinerank.claims readme --write README.md"
    )


def test_every_link_of_the_readme_resolves_in_the_repository():
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    assert links
    missing = [link for link in links if "://" not in link and not (ROOT / link).exists()]
    assert not missing, missing
