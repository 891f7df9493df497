"""The claims step's files and the end-of-run summary.

:func:`write_claims` evaluates the registry on the tables and writes ``claims.json`` (validated
against its schema), ``claims.md``, ``claims.csv`` and the report's first page (reStructuredText);
:func:`epilogue` prints the verdict summary as the last lines of a run, with the claims whose
verdict changed since the previous run of the same tier.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..io import atomic_write_text, read_table, write_csv
from ..provenance import config_digest, git_commit, versions
from . import report
from .evidence import THEORY_DIR
from .seed_verdicts import load_seed_verdicts

if TYPE_CHECKING:
    from ..settings import Settings

__all__ = ["write_claims", "report_intro", "epilogue"]


def _meta(settings: Settings) -> dict:
    return {
        "config_digest": config_digest(settings.as_config()),
        "commit": git_commit(),
        "versions": {k: str(v) for k, v in versions().items()},
    }


def write_claims(
    table_paths: Mapping[str, str],
    settings: Settings,
    output: Any,
    mutations_path: str | None = None,
    seed_paths: Sequence[str] = (),
) -> dict:
    """Evaluate every claim on the tables at ``table_paths`` (name -> CSV) and write ``output.json``,
    ``output.md``, ``output.csv`` and ``output.intro``; returns the document plus its summary lines
    under ``"summary"`` (not written).  ``mutations_path`` (optional, skipped if absent): the
    mutations table (``workflow/mutants``), rendered as its own section.  ``seed_paths``: the
    verdicts files of further seeds (``make replicate``), counted per claim."""
    tables = {name: read_table(path) for name, path in table_paths.items()}
    mutations = read_table(mutations_path) if mutations_path and Path(mutations_path).exists() else None
    seeds = load_seed_verdicts(seed_paths)
    doc = report.build_document(tables, settings, _meta(settings), mutations, seeds=seeds)
    text = report.document_json(doc)
    report.validate_document(json.loads(text))
    atomic_write_text(output.json, text)
    root = os.path.relpath(THEORY_DIR.parents[1], Path(output.md).resolve().parent)
    atomic_write_text(output.md, report.claims_markdown(doc, root))
    write_csv(output.csv, report.flat_rows(doc))
    atomic_write_text(output.intro, report_intro(doc))
    return {**doc, "summary": report.summary_lines(doc)}


def _rst_table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = [".. list-table::", "   :header-rows: 1", ""]
    for r in [header, *rows]:
        out.append("   * - " + r[0])
        out += [f"     - {c}" for c in r[1:]]
    return out + [""]


def _theory_rst(c: Mapping) -> str:
    """An rst link from the report (``<results_dir>/report.html``, beside the repository's
    ``docs/``) to the claim's theory section in the docs' sources; the bare section without a page."""
    t = c.get("theory") or {}
    if not t.get("section"):
        return ""
    if not t.get("page"):
        return f"§{t['section']}"
    return f"`§{t['section']} <../{t['page']}>`__"


def report_intro(doc: Mapping) -> str:
    """The report's first page, short enough for the first screen: what is verified, the verdict of
    every claim of the paper, the findings in one line, where the cells are."""
    meta = doc["meta"]
    paper = [c for c in doc["claims"] if c["section"] == "paper"]
    beyond = [c for c in doc["claims"] if c["section"] == "beyond"]
    n, f = report.summary_lines(doc)[:2]
    open_findings = [
        f"``{c['id']}`` ({report.FINDING_WORD.get(c['verdict'], c['verdict'])})"
        for c in beyond
        if c["verdict"] != "PASS"
    ]
    lines = [
        "{% raw %}",
        "Verification of Ailon, *Online Ranking* (arXiv 1308.6797): config digest "
        f"``{meta.get('config_digest', '?')}``, commit ``{meta.get('commit', '?')}``"
        + "".join(f", {k} {v}" for k, v in meta.get("versions", {}).items())
        + ".",
        "",
        "Verdicts of the claims of the paper",
        "-----------------------------------",
        "",
        f"**{n}.**",
        "",
    ]
    # two claims per row: the report centres its first page vertically and cuts what does not fit
    # in the screen, so the whole summary must stay short
    half = (len(paper) + 1) // 2
    cells = [[f"``{c['id']}``", f"**{c['verdict']}**", _theory_rst(c)] for c in paper]
    cells += [["", "", ""]] * (2 * half - len(paper))
    lines += _rst_table(
        ["claim", "verdict", "theory", "claim", "verdict", "theory"],
        [cells[i] + cells[i + half] for i in range(half)],
    )
    lines += [
        f"{f} (not verdicts on the paper)" + (": " + ", ".join(open_findings) if open_findings else "") + ".",
        "",
        "PASS / FAIL: the claim's interval lies wholly on its side / the other side of the threshold; "
        "INCONCLUSIVE: it straddles it.  Figures are under *Results*, grouped by the claim they "
        "support; every cell, interval and method is in ``claims.md`` / ``claims.json``.",
        "{% endraw %}",
        "",
    ]
    return "\n".join(lines)


def epilogue(json_path: str, previous_path: str, *, strict: bool) -> None:
    """Print the verdict summary (and the changes since the previous run of this tier), remember
    this run's verdicts; with ``strict`` exit non-zero when a claim of the paper FAILs."""
    path = Path(json_path)
    if not path.exists():
        return
    doc = json.loads(path.read_text())
    prev_path = Path(previous_path)
    previous = json.loads(prev_path.read_text()) if prev_path.exists() else None
    lines = report.summary_lines(doc, previous)
    print("\n".join(["", *lines]), file=sys.stderr, flush=True)
    prev_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, prev_path)
    failed = [c["id"] for c in doc["claims"] if c["section"] == "paper" and c["verdict"] == "FAIL"]
    if strict and failed:
        print(f"strict: claims of the paper FAIL: {', '.join(failed)}", file=sys.stderr, flush=True)
        sys.exit(1)
