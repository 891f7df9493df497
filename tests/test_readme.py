"""The README says what is true: its verdict summary is the one generated from the committed
figures/claims.json, and every page it points to exists."""

from __future__ import annotations

import json
import re
import subprocess

from conftest import ROOT

from onlinerank.claims.report import README_BEGIN, README_END, readme_summary

README = (ROOT / "README.md").read_text()


def committed_claims_document() -> dict:
    """figures/claims.json as committed (HEAD), the report the README summarises; the working copy
    where there is no git history.  ``make figures`` rewrites the working copy from the user's own
    run, without the column of further seeds that ``make replicate`` adds, so that the README's two
    commands run in their order (figures, then tests) would otherwise fail this test."""
    out = subprocess.run(
        ["git", "show", "HEAD:figures/claims.json"], cwd=ROOT, capture_output=True, text=True
    )
    return json.loads(out.stdout if out.returncode == 0 else (ROOT / "figures" / "claims.json").read_text())


def test_summary_is_generated_from_the_claims_document():
    doc = committed_claims_document()
    start, end = README.index(README_BEGIN), README.index(README_END) + len(README_END)
    assert README[start:end] == readme_summary(doc), (
        "regenerate: python -m onlinerank.claims readme --write README.md"
    )


def test_every_link_of_the_readme_resolves_in_the_repository():
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    assert links
    missing = [link for link in links if "://" not in link and not (ROOT / link).exists()]
    assert not missing, missing
