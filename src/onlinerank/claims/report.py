"""Evaluate the registry into the claims document (``claims.json``) and render it.

The document is the one source of every verdict: ``claims.md``, the console summary at the end of
a run, the HTML report, the figures' annotations, the tests and the README's summary all read it.
Its JSON schema is ``schema.json`` beside this module.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..figures import claim_figures
from ..schema_validation import jsonschema
from .changelog import LOG_PATH, changes_after_data, load_log, recorded_digests, recorded_in, validate_commits
from .evidence import (
    claim_digest,
    claim_evidence,
    claim_verdict,
    registry_digest,
    theory_link,
    theory_section,
)
from .registry import KINDS, REGISTRY, Claim, Context, stages_of
from .seed_verdicts import attach_seed_verdicts, seed_kind, seeds_legend, seeds_summary, seeds_text

if TYPE_CHECKING:
    from ..settings import Settings

__all__ = [
    "SCHEMA_PATH",
    "LEGEND",
    "CHANGES_LEGEND",
    "record_text",
    "changes_markdown",
    "KIND_LEGEND",
    "KIND_WORD",
    "kind_counts",
    "evaluate",
    "build_document",
    "validate_document",
    "claims_markdown",
    "summary_counts",
    "summary_lines",
    "flat_rows",
    "mutations_markdown",
]

SCHEMA_PATH = Path(__file__).with_name("schema.json")

LEGEND = (
    "**How to read a verdict.** Each claim is tested on cells; a cell's statistic has an interval "
    "(simultaneous over the claim's cells, family-wise error 0.05 unless stated; zero width where the "
    "value is exact). PASS: the whole interval lies on the claim's side of the threshold. FAIL: the "
    "whole interval lies on the other side. INCONCLUSIVE: the interval straddles the threshold. A "
    "claim is FAIL if any cell fails, else INCONCLUSIVE if any cell is undecided, else PASS. "
    "{record} *Findings beyond the paper* use the same "
    "rule on statements of this project (extensions and observations); they are never verdicts on the "
    "paper. NOT RUN: the configured tier has no stage or no cell for the claim."
)

#: a kind of evidence in the summaries' words
KIND_WORD = {"data": "on data", "algebra": "by algebra", "construction": "by construction"}

KIND_LEGEND = (
    "**Kinds of evidence.** Every verdict says what it rests on. *data*: decided on cells simulated "
    "or computed exactly (enumeration, exact formulas, the dynamic program, timings) at the "
    "parameters of the grid. *algebra*: decided by closed forms alone, over the whole domain, with "
    "no data; the Section 4 and 5 comparisons rest on this project's reconstruction of the baseline "
    "bounds (theory §3.3), which the paper does not display, and where the ratio is a constant the "
    "verdict is an identity of those closed forms. *construction*: true of the simulator by design; "
    "the test checks the implementation of the construction the statement is about (its basis says "
    "what), not the paper's argument."
)


CHANGES_TITLE = "Changes to the tests after data"


def record_text(doc: Mapping) -> str:
    """What the claims document's record proves about its tests, for the legend: where they are
    fixed and how many changes were made to them after data (counted from the change log)."""
    log = doc.get("change_log")
    where = (
        "Statistic, threshold, direction, test and grid of every claim, and the code that decides its "
        "verdict, are fixed in the claim registry (`onlinerank.claims`), the config and the package"
    )
    if not log:
        return f'{where}; every change made to them after data is listed under "{CHANGES_TITLE}".'
    n = log["changes_after_data"]
    text = (
        f"{where}; {n} change{'s were' if n != 1 else ' was'} made to them after data, each listed under "
        '"Changes to the tests after data" with the result that preceded it and its reason.'
    )
    if log.get("unrecorded"):
        text += (
            f" In this run {len(log['unrecorded'])} claim(s) were decided by a test that the change log does "
            "not record (listed in that section)."
        )
    return text


def _fmt(x) -> str:
    if isinstance(x, str):
        return x
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    if isinstance(x, float) and math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if isinstance(x, int):
        return str(x)
    return f"{x:.4g}"


def _json_num(x):
    """JSON has no infinities or NaN: ±inf -> "inf"/"-inf", NaN -> None."""
    if isinstance(x, float):
        if math.isnan(x):
            return None
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
    return x


def evaluate(c: Claim, tables: Mapping[str, list[dict]], settings: Settings, alpha: float) -> dict:
    """One claim's record: its registry fields, cells and verdict (``NOT RUN`` when its stages are
    not configured or its grid has no cell; ``NOT TESTED`` for statements without a test)."""
    rec: dict[str, Any] = {
        "id": c.id,
        "section": c.section,
        "kind": c.kind,
        "basis": c.basis,
        "paper_ref": c.paper_ref,
        "title": c.title,
        "statement": c.statement,
        "statistic": c.statistic,
        "direction": c.direction,
        "threshold": c.threshold,
        "test": c.test,
        "about": c.about,
        "figures": claim_figures(c.id),
        "reason": c.reason,
        "digest": claim_digest(c, settings),
        "theory": theory_link(theory_section(c)),
        "cells": [],
    }
    if c.section == "not-tested":
        return {**rec, "verdict": "NOT TESTED"}
    missing = [s for s in c.stages if s not in stages_of(settings)]
    if missing:
        return {**rec, "verdict": "NOT RUN", "reason": f"stage(s) {', '.join(missing)} not in the config"}
    ctx = Context(c, tables, settings, alpha)
    cells = cast(Callable, c.builder)(ctx)  # tested: has a builder
    if not cells:
        return {**rec, "verdict": "NOT RUN", "reason": "the configured grid has no cell for this claim"}
    rec["cells"] = cells
    rec["seeds"] = {"kind": seed_kind(c, settings, ctx.drew, cells)}
    rec["evidence"] = claim_evidence(cells)
    rec["verdict"], rec["note"] = claim_verdict(cells, rec["evidence"])
    return rec


#: claims in the order of the paper: sections, then (within a section) Section 2 remarks, Lemma 6.1,
#: Theorem 3.1, Corollary 3.2, the lower bound, Section 4, Section 5
_ORDER = ("paper", "beyond", "not-tested")
_PREFIX = ("sec2.", "lemma6.1", "thm3.1", "cor3.2", "thm3.3", "sec4.", "sec5.")


def _paper_order(c: Claim) -> tuple:
    rank = next((i for i, p in enumerate(_PREFIX) if c.id.startswith(p)), len(_PREFIX))
    return (_ORDER.index(c.section), rank)


def build_document(
    tables: Mapping[str, list[dict]],
    settings: Settings,
    meta: Mapping,
    mutations: list[dict] | None = None,
    change_log: Path | None = None,
    seeds: Sequence[Mapping] = (),
) -> dict:
    """Every registered claim evaluated on ``tables``; ``meta`` (config digest, commit, versions)
    goes to the header; ``mutations`` (rows of the mutations table, ``workflow/mutants``),
    when given, under the key ``mutations``; the change log (``change_log``, default the package's
    ``changes.toml``) under ``changes`` with the commit that recorded each entry, and what it proves
    about this run under ``change_log``; ``seeds``: the verdicts files of further seeds
    (:func:`onlinerank.claims.seed_verdicts.load_seed_verdicts`), counted per claim.  A malformed
    log, an entry naming an unknown claim or a commit outside the history raises
    :exc:`~onlinerank.claims.changelog.ChangeLogError` before any claim is evaluated."""
    alpha = settings.claims.alpha
    log = load_log(change_log or LOG_PATH)
    validate_commits(log)
    claims = [evaluate(c, tables, settings, alpha) for c in sorted(REGISTRY.values(), key=_paper_order)]
    recorded = recorded_digests(log)
    for rec in claims:
        if rec["section"] != "not-tested":
            rec["recorded_digest"] = recorded[rec["id"]][0] if rec["id"] in recorded else None
    doc: dict[str, Any] = {
        "meta": {**meta, "alpha": alpha, "registry_digest": registry_digest(settings)},
        "claims": claims,
        "changes": [
            {**e, "recorded_in": commit} for e, commit in zip(log.entries, recorded_in(log), strict=True)
        ],
        "change_log": {
            "format": 2,
            "changes_after_data": changes_after_data(log),
            "unrecorded": [
                c["id"]
                for c in claims
                if c["verdict"] != "NOT RUN"
                and "recorded_digest" in c
                and c["recorded_digest"] != c["digest"]
            ],
        },
    }
    if mutations is not None:
        doc["mutations"] = [dict(r) for r in mutations]
    attach_seed_verdicts(doc, seeds, settings.seed)
    return doc


def _clean(obj):
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    return _json_num(obj)


def document_json(doc: Mapping) -> str:
    return json.dumps(_clean(doc), indent=1, ensure_ascii=False, sort_keys=False) + "\n"


def validate_document(doc: Mapping) -> None:
    """Validate a claims document (as loaded from JSON) against ``schema.json``."""
    jsonschema().validate(_clean(doc), json.loads(SCHEMA_PATH.read_text()))


def summary_counts(doc: Mapping, section: str = "paper") -> dict[str, int]:
    """Number of claims of ``section`` per verdict (PASS, FAIL, INCONCLUSIVE, NOT RUN)."""
    out = {"PASS": 0, "FAIL": 0, "INCONCLUSIVE": 0, "NOT RUN": 0}
    for c in doc["claims"]:
        if c["section"] == section and c["verdict"] in out:
            out[c["verdict"]] += 1
    return out


def kind_counts(doc: Mapping, section: str = "paper", verdict: str = "PASS") -> dict[str, int]:
    """Number of claims of ``section`` with ``verdict`` per kind of evidence
    (:data:`~onlinerank.claims.registry.KINDS`; empty for a document made before claims carried
    their kind)."""
    out = dict.fromkeys(KINDS, 0)
    for c in doc["claims"]:
        if c["section"] == section and c["verdict"] == verdict and c.get("kind") in out:
            out[c["kind"]] += 1
    return out if any(out.values()) or any(c.get("kind") for c in doc["claims"]) else {}


def kinds_text(doc: Mapping, section: str = "paper", verdict: str = "PASS") -> str:
    """``" (16 on data, 5 by algebra, 2 by construction)"``: the claims of ``section`` with
    ``verdict`` by kind of evidence, the kinds present only (empty when there is none)."""
    parts = [f"{m} {KIND_WORD[k]}" for k, m in kind_counts(doc, section, verdict).items() if m]
    return f" ({', '.join(parts)})" if parts else ""


def summary_lines(doc: Mapping, previous: Mapping | None = None) -> list[str]:
    """The verdict summary printed at the end of a run; with ``previous`` (the document of the
    previous run of the same tier) it lists the claims whose verdict changed."""
    n = summary_counts(doc)
    f = summary_counts(doc, "beyond")
    lines = [
        f"Claims of the paper: {n['PASS']} PASS{kinds_text(doc)} / {n['FAIL']} FAIL / "
        f"{n['INCONCLUSIVE']} INCONCLUSIVE" + (f" / {n['NOT RUN']} not run" if n["NOT RUN"] else ""),
        f"Findings beyond the paper: {f['PASS']} hold / {f['FAIL']} do not hold / "
        f"{f['INCONCLUSIVE']} undecided" + (f" / {f['NOT RUN']} not run" if f["NOT RUN"] else ""),
    ]
    bad = [
        c["id"] for c in doc["claims"] if c["section"] == "paper" and c["verdict"] in ("FAIL", "INCONCLUSIVE")
    ]
    if bad:
        lines.append("Not PASS: " + ", ".join(bad))
    seeds = seeds_summary(doc)
    if seeds:
        lines.append(seeds)
    if previous is not None:
        old = {c["id"]: c["verdict"] for c in previous.get("claims", [])}
        changed = [
            f"{c['id']} {verdict_word(c['section'], old[c['id']]) if c['id'] in old else 'new'} -> "
            f"{verdict_word(c['section'], c['verdict'])}"
            for c in doc["claims"]
            if old.get(c["id"]) != c["verdict"]
        ]
        lines.append("Changed since the previous run: " + ("; ".join(changed) if changed else "none"))
    return lines


def _nearest_to_failing(cells: list[dict]) -> dict | None:
    """The cell nearest to (or furthest beyond) its threshold."""
    if not cells:
        return None

    def margin(x):
        if x["direction"] == "<=":
            return x["hi"] - x["threshold"]
        return x["threshold"] - x["lo"]

    return max(cells, key=lambda x: margin(x) if math.isfinite(margin(x)) else math.inf)


FINDING_WORD = {"PASS": "holds", "FAIL": "does not hold", "INCONCLUSIVE": "undecided"}


def verdict_word(section: str, verdict: str) -> str:
    """A verdict in its section's words: a claim of the paper PASSes or FAILs, a finding beyond
    the paper holds or does not hold (never reported as a verdict on the paper)."""
    if section == "beyond":
        return FINDING_WORD.get(verdict, verdict.lower())
    return verdict


def informative_text(c: Mapping) -> str:
    """``informative / all`` cells of a claim record (controls apart, repeats counted once; the
    number of repeats in parentheses)."""
    ev = c.get("evidence")
    if not ev:
        return "0 / 0"
    dup = len(ev.get("duplicates", []))
    return f"{ev['informative']} / {ev['cells']}" + (f" ({dup} repeats)" if dup else "")


def kind_text(c: Mapping) -> str:
    """A claim's kind of evidence with its basis (``algebra`` and ``construction``)."""
    if not c.get("kind"):
        return ""
    return f"*{c['kind']}*" + (f" — {c['basis']}" if c.get("basis") else "")


#: a threshold at or below this only separates a positive value from 0 (an exact infimum c > 0,
#: a law that differs): the factor over it says nothing, the value itself is shown
MEANINGFUL_THRESHOLD = 1e-6


def headroom_text(c: Mapping, *, cells: bool = False) -> str:
    """The headroom of a claim record: the extreme interval end of its informative cells against
    the threshold, the factor, and (``cells``) the cells that attain it."""
    h = (c.get("evidence") or {}).get("headroom")
    if not h:
        return ""
    word = "max" if h["direction"] == "<=" else "min"
    text = f"{word} {_fmt(h['extreme'])} {h['direction']} {_fmt(h['threshold'])}"
    if h["factor"] is not None and h["threshold"] > MEANINGFUL_THRESHOLD:
        text += f" ({h['factor']:.3g}×)"
    if h["over"] != "informative cells":
        text += " [controls only]"
    if cells and h["attained_by"]:
        text += " at " + "; ".join(h["attained_by"][:2]) + (" …" if len(h["attained_by"]) > 2 else "")
    return text


HEADROOM_LEGEND = (
    "**Informative cells and headroom.** A *control* cell cannot depend on the learner under test "
    "(the i.i.d. uniform adversary, against which every learner has the same expected regret; a "
    "QuickSort cell whose exact expected regret equals its Plackett–Luce twin by Lemma 6.1); "
    "controls are shown and counted apart (column *informative / all*). A cell that *repeats* "
    "another — the same inputs (the same law at the same rate in the same game, e.g. OnlineRank at "
    "Corollary 3.2's stated rate where that rate is η_p) with the same value and interval — is "
    "counted once (the number of repeats in parentheses; each is listed with the cell it repeats). "
    "An *informative* cell is one of the distinct cells that are not controls; a claim without one "
    'cannot PASS (INCONCLUSIVE, noted "no informative cell"). The *headroom* is the '
    "largest upper interval end (claims ≤) or smallest lower end (claims ≥) over the informative "
    "cells, against the threshold; the factor is how many times the threshold could shrink (≤) or "
    "grow (≥) with the claim still PASSing."
)


CHANGES_LEGEND = (
    "Every change made to a claim's test after a run had produced results — statistic, threshold, "
    "direction, grid, replicates, interval method or level, or the code that decides a verdict — "
    "oldest first (source: `src/onlinerank/claims/changes.toml`). *Made in*: the commits that made the "
    "change, for an entry written after the fact; *recorded in*: the commit that added the entry, from "
    "git. Each entry records the digest every claim it names has after it (the claim's test, grid, "
    "seed, level and the code of its builder and statistics, under the default tier `config/config.yaml`); "
    "a test fails when a claim's digest is not the one the newest entry recording it holds, and when a "
    "committed entry is edited: the log only grows. *Cells equal*: a change of code or wording that "
    "moved a digest and left every cell equal; *baseline*: the digests when the log began to record them."
)

_KIND_WORD = {"test": "test changed", "cells-equal": "cells equal", "baseline": "baseline"}


def changes_markdown(doc: Mapping) -> list[str]:
    """The section "Changes to the tests after data" (the change log, ``changes.toml``): the count,
    the claims of this run whose test the log does not record, and every entry."""
    log = doc.get("change_log") or {}
    lines = ["## Changes to the tests after data", "", CHANGES_LEGEND, ""]
    if log:
        n = log["changes_after_data"]
        lines += [
            f"Changes to the tests after data: {n}. Registry digest of this run: "
            f"`{doc['meta'].get('registry_digest', '?')}`.",
            "",
        ]
        unrec = {c["id"]: c for c in doc["claims"] if c["id"] in set(log.get("unrecorded", []))}
        if unrec:
            lines += [
                f"Decided by a test the change log does not record ({len(unrec)}): "
                + "; ".join(
                    f"`{i}` (digest `{c['digest']}`, recorded `{c.get('recorded_digest') or 'none'}`)"
                    for i, c in unrec.items()
                )
                + ". The log records the default tier's tests: under another config a claim's grid, and "
                "so its digest, differs; on the default tier this is a change without its entry.",
                "",
            ]
    lines += [
        "| # | made in | recorded in | claims | kind | change | before | reason |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, e in enumerate(doc.get("changes", []), 1):
        ids = "every claim" if e["claims"] == ["*"] else ", ".join(f"`{c}`" for c in e["claims"])
        made = ", ".join(e.get("made_in", [])) or "—"
        kind = _KIND_WORD.get(e.get("kind", "test"), e.get("kind", ""))
        if e.get("digests"):
            kind += f" ({len(e['digests'])} digests)"
        cells = (e["change"], e.get("before") or "—", e["reason"])
        change, before, reason = (x.replace("|", "\\|") for x in cells)  # a '|' would end the cell
        lines.append(
            f"| {i} | {made} | {e.get('recorded_in') or 'not committed'} | {ids} | {kind} | {change} | "
            f"{before} | {reason} |"
        )
    return [*lines, ""]


def theory_markdown(c: Mapping, root: str = "..") -> str:
    """A Markdown link from the claims report to the claim's theory section (``root``: the
    repository as seen from the report's folder)."""
    t = c.get("theory") or {}
    if not t.get("section"):
        return ""
    label = f"theory §{t['section']}"
    return f"[{label}]({root}/{t['page']}#{t['anchor']})" if t.get("page") else label


def _header_markdown(doc: Mapping) -> list[str]:
    """The report's title, what generated it, and the legends of its columns."""
    meta = doc["meta"]
    versions = ", ".join(f"{k} {v}" for k, v in meta.get("versions", {}).items())
    return [
        "# Claims of Ailon (arXiv 1308.6797), checked",
        "",
        f"Generated by the pipeline: config digest `{meta.get('config_digest', '?')}`, commit "
        f"`{meta.get('commit', '?')}`" + (f"; {versions}" if versions else "") + ".",
        "",
        LEGEND.format(record=record_text(doc)),
        "",
        KIND_LEGEND,
        "",
        HEADROOM_LEGEND,
        "",
        seeds_legend(doc),
        "",
    ]


SECTION_TITLES = {
    "paper": "Claims of the paper",
    "beyond": "Findings beyond the paper",
    "not-tested": "Not tested",
}


def _summary_row(c: Mapping, section: str, seeded: bool) -> str:
    """One claim's row of its section's summary table."""
    cells = c["cells"]
    k = {v: sum(x["verdict"] == v for x in cells) for v in ("PASS", "FAIL", "INCONCLUSIVE")}
    w = _nearest_to_failing(cells)
    worst = (
        f"{w['cell']}: {_fmt(w['value'])}; [{_fmt(w['lo'])}, {_fmt(w['hi'])}] {w['direction']} "
        f"{_fmt(w['threshold'])}"
        if w
        else c.get("reason", "")
    )
    verdict = c["verdict"] if section == "paper" else FINDING_WORD.get(c["verdict"], c["verdict"])
    verdict = f"**{verdict}**" + (f" ({c['note']})" if c.get("note") else "")
    return (
        f"| `{c['id']}` | {c['paper_ref']} | {c['title']} | {c.get('kind', '')} | "
        f"{informative_text(c)} | {k['PASS']} / {k['FAIL']} / "
        f"{k['INCONCLUSIVE']} | {verdict} | "
        + (f"{seeds_text(c)} | " if seeded else "")
        + f"{headroom_text(c)} | {worst} |"
    )


def _section_markdown(doc: Mapping, section: str) -> list[str]:
    """One section's summary table: the paper's claims, the findings beyond it, or what is not
    tested (with the reason); the column "held at s of S seeds" once further seeds were run."""
    cs = [c for c in doc["claims"] if c["section"] == section]
    lines = [f"## {SECTION_TITLES[section]}", ""]
    if section == "not-tested":
        lines += ["| id | where in the paper | statement | why not tested |", "|---|---|---|---|"]
        lines += [f"| `{c['id']}` | {c['paper_ref']} | {c['statement']} | {c['reason']} |" for c in cs]
        return [*lines, ""]
    seeded = bool((doc["meta"].get("seeds") or {}).get("further"))
    head = "verdict" if section == "paper" else "finding"
    lines += [
        f"| id | where | claim | kind | informative / all cells | PASS / FAIL / INC. | {head} | "
        + ("held at s of S seeds | " if seeded else "")
        + "headroom | worst cell (value; interval vs threshold) |",
        "|---|---|---|---|---|---|---|---|---|" + ("---|" if seeded else ""),
    ]
    lines += [_summary_row(c, section, seeded) for c in cs]
    if section == "paper" and kind_counts(doc):
        lines += ["", f"{summary_lines(doc)[0]}."]
    return [*lines, ""]


def _digest_text(c: Mapping) -> str:
    """The claim's test digest, and the digest the change log records when they differ."""
    if not c.get("digest"):
        return ""
    if "recorded_digest" in c and c["recorded_digest"] != c.get("digest"):
        return (
            f" Test digest `{c['digest']}` (the change log records `{c.get('recorded_digest') or 'none'}`)."
        )
    return f" Test digest `{c['digest']}`."


def _cells_markdown(c: Mapping) -> list[str]:
    """A claim's informative-cell count, its repeats, and the table of every cell."""
    ev = c.get("evidence") or {}
    repeats = ev.get("duplicates", [])
    lines = [
        f"Informative cells: {informative_text(c)}"
        + (f" ({ev['controls']} controls, marked)" if ev.get("controls") else "")
        + (f"; headroom: {headroom_text(c, cells=True)}" if ev.get("headroom") else "")
        + (f"; verdict {c['verdict']}: {c['note']}" if c.get("note") else "")
        + ".",
        "",
    ]
    if repeats:
        lines += [
            "Repeats, counted once: "
            + "; ".join(f"{d['cell']} repeats {d['repeats']}" for d in repeats)
            + ".",
            "",
        ]
    lines += [
        "| cell | value | interval | threshold | verdict | method | note |",
        "|---|---|---|---|---|---|---|",
    ]
    repeated = {d["cell"]: d["repeats"] for d in repeats}
    for x in c["cells"]:
        ctl = f" *(control: {x['control']})*" if x.get("control") else ""
        if x["cell"] in repeated:
            ctl += f" *(repeats {repeated[x['cell']]})*"
        lines.append(
            f"| {x['cell']}{ctl} | {_fmt(x['value'])} | [{_fmt(x['lo'])}, {_fmt(x['hi'])}] | "
            f"{x['direction']} {_fmt(x['threshold'])} | {x['verdict']} | {x['method']} | {x['note']} |"
        )
    return [*lines, ""]


def _claim_markdown(c: Mapping, root: str) -> list[str]:
    """One claim in full: statement, theory link, statistic and test, evidence, every cell."""
    lines = [
        f"### `{c['id']}` — {c['title']} ({c['verdict']})",
        "",
        f"*{c['paper_ref']}.* {c['statement']}"
        + (f" Theory: {theory_markdown(c, root)}." if c.get("theory", {}).get("section") else ""),
        "",
        f"Statistic: {c['statistic']}; claim: statistic {c['direction']} {_fmt(c['threshold'])}. "
        f"Test: {c['test']}."
        + (f" About: {c['about']}." if c["about"] else "")
        + (f" Figures: {', '.join(f + '.png' for f in c['figures'])}." if c["figures"] else "")
        + _digest_text(c),
        "",
    ]
    if c.get("kind"):
        lines += [f"Evidence: {kind_text(c)}.", ""]
    if not c["cells"]:
        return [*lines, f"Not run: {c['reason']}.", ""]
    return lines + _cells_markdown(c)


def claims_markdown(doc: Mapping, root: str = "..") -> str:
    """The claims report: header, legend, one summary table per section, then every cell;
    ``root`` is the repository as seen from the report's folder (for the links to the theory)."""
    lines = _header_markdown(doc)
    for section in ("paper", "beyond", "not-tested"):
        lines += _section_markdown(doc, section)
    lines += mutations_markdown(doc.get("mutations"))
    lines += changes_markdown(doc)
    lines += ["## Every claim and cell", ""]
    for c in doc["claims"]:
        if c["section"] != "not-tested":
            lines += _claim_markdown(c, root)
    return "\n".join(lines)


def flat_rows(doc: Mapping) -> list[dict]:
    """One row per cell (``results/claims.csv``)."""
    rows = []
    for c in doc["claims"]:
        for x in c["cells"]:
            rows.append(
                {
                    "id": c["id"],
                    "section": c["section"],
                    "claim_verdict": c["verdict"],
                    "cell": x["cell"],
                    "statistic": x["statistic"],
                    "value": x["value"],
                    "lo": x["lo"],
                    "hi": x["hi"],
                    "direction": x["direction"],
                    "threshold": x["threshold"],
                    "verdict": x["verdict"],
                    "method": x["method"],
                    "reps": x["reps"],
                    "params": json.dumps(x["params"], sort_keys=True, ensure_ascii=False),
                    "note": x["note"],
                    "control": x.get("control", ""),
                }
            )
    return rows


README_BEGIN = (
    "<!-- claims summary: generated from figures/claims.json by `python -m onlinerank.claims readme` -->"
)
README_END = "<!-- end of the claims summary -->"


def _readme_headroom(c: Mapping) -> str:
    """The headroom factor only (a run-dependent number: rounded to two digits, so the README
    summary changes only when a verdict or a headroom moves visibly)."""
    h = (c.get("evidence") or {}).get("headroom")
    if not h:
        return "—"
    if h["threshold"] <= MEANINGFUL_THRESHOLD and h["direction"] == ">=":
        return f"min {h['extreme']:.2g}"
    if h["factor"] is None:
        return "—"
    return f"{h['factor']:.2g}×"


def _readme_record(doc: Mapping) -> list[str]:
    """The README's sentence on the change log (none for a document without one)."""
    log = doc.get("change_log")
    if not log:
        return []
    n = log["changes_after_data"]
    return [
        f"Each claim's statistic, threshold, direction, grid and deciding code are fixed in the claim "
        f"registry and the config; {n} change{'s were' if n != 1 else ' was'} made to them after data, each "
        'listed with the result before it and its reason under "Changes to the tests after data" in '
        "[figures/claims.md](figures/claims.md).",
        "",
    ]


def _readme_paper_table(doc: Mapping, kinds: bool, seeded: bool) -> list[str]:
    """The README's table of the paper's claims: one row per claim, its verdict last."""
    col, sep = (" held at s of S seeds |", "---|") if seeded else ("", "")
    lines = [
        "| id | where in the paper | claim | " + ("kind | " if kinds else "") + "informative / all cells | "
        f"headroom |{col} verdict |",
        "|---|---|---|---|---|" + ("---|" if kinds else "") + f"{sep}---|",
    ]
    for c in doc["claims"]:
        if c["section"] == "paper":
            note = f" ({c['note']})" if c.get("note") else ""
            lines.append(
                f"| `{c['id']}` | {c['paper_ref']} | {c['title']} | "
                + (f"{c.get('kind', '')} | " if kinds else "")
                + f"{informative_text(c)} | {_readme_headroom(c)} |"
                + (f" {seeds_text(c)} |" if seeded else "")
                + f" **{c['verdict']}**{note} |"
            )
    return lines


def _readme_kinds_legend(doc: Mapping) -> list[str]:
    """What the README's kinds of evidence mean, naming the claims that are identities."""
    identities = [
        f"`{c['id']}`"
        for c in doc["claims"]
        if c["section"] == "paper"
        and c.get("kind") == "algebra"
        and c.get("basis", "").startswith("an identity")
    ]
    return [
        "",
        "Kind of evidence: *data*, decided on simulated or exactly computed cells; *algebra*, by closed "
        "forms alone (the Section 4 and 5 comparisons, on this project's reconstruction of the baseline "
        "bounds"
        + (f"; {', '.join(identities)} an identity of them" if identities else "")
        + "); *construction*, true of the simulator by design (the test checks the simulator, not the "
        "paper). Informative cells: the distinct cells that are not controls (repeats counted once). "
        "Each claim's basis is in `figures/claims.md`.",
    ]


def _readme_findings(doc: Mapping, kinds: bool, seeded: bool) -> list[str]:
    """The README's findings beyond the paper: their counts and one row per finding."""
    f = summary_counts(doc, "beyond")
    col, sep = (" held at s of S seeds |", "---|") if seeded else ("", "")
    lines = [
        "",
        f"**Findings beyond the paper** (this project's extensions and observations, each with its own "
        f"test; not verdicts on the paper): {f['PASS']} hold, {f['FAIL']} do not hold, "
        f"{f['INCONCLUSIVE']} undecided.",
        "",
        "| id | finding | " + ("kind | " if kinds else "") + f"cells |{col} result |",
        "|---|---|---|" + ("---|" if kinds else "") + f"{sep}---|",
    ]
    for c in doc["claims"]:
        if c["section"] == "beyond":
            word = FINDING_WORD.get(c["verdict"], c["verdict"])
            kind = f"{c.get('kind', '')} | " if kinds else ""
            lines.append(
                f"| `{c['id']}` | {c['title']} | {kind}{len(c['cells'])} |"
                + (f" {seeds_text(c)} |" if seeded else "")
                + f" {word} |"
            )
    return lines


def readme_summary(doc: Mapping) -> str:
    """The README's summary of the verdicts (between :data:`README_BEGIN` and :data:`README_END`):
    one line per claim, no run-dependent numbers, so it changes only when a verdict does."""
    n = summary_counts(doc)
    kinds = bool(kind_counts(doc))  # a document made before claims carried their kind: no column
    seeded = bool((doc["meta"].get("seeds") or {}).get("further"))
    lines = [
        README_BEGIN,
        "",
        f"**Claims of the paper: {n['PASS']} PASS{kinds_text(doc)}, {n['FAIL']} FAIL, "
        f"{n['INCONCLUSIVE']} INCONCLUSIVE**"
        + (f", {n['NOT RUN']} not run" if n["NOT RUN"] else "")
        + f" (config digest `{doc['meta'].get('config_digest', '?')}`).",
        "",
        *_readme_record(doc),
        *_readme_paper_table(doc, kinds, seeded),
    ]
    if kinds:
        lines += _readme_kinds_legend(doc)
    lines += _readme_findings(doc, kinds, seeded)
    nt = [c for c in doc["claims"] if c["section"] == "not-tested"]
    lines += [
        "",
        "**Not tested** (with the reason in claims.md): "
        + "; ".join(f"`{c['id']}` ({c['title']})" for c in nt)
        + ".",
        "",
        README_END,
    ]
    return "\n".join(lines)


MUTATIONS_LEGEND = (
    "Each mutation is a deliberate defect of the learner or of a sampler: a broken OnlineRank "
    "(`workflow/mutants`) played in its place on a fixed set of small cells (`mutants.table.SMALL_CELLS`: "
    "a few cells of each stage, this tier's seed and thresholds). Every claim those cells decide is "
    "evaluated by the registry's builders on the same cells and seeds, unmutated and mutated. A claim "
    "that goes from PASS to FAIL has power against the defect; one that stays PASS does not depend on "
    "it (e.g. the exact expected regret does not depend on the sampler). Cells: failing / all, of the "
    "mutated run; worst: its cell furthest beyond (or nearest to) the threshold, with the same cell's "
    "unmutated value in parentheses."
)


def mutations_markdown(rows: list[dict] | None) -> list[str]:
    """The section "Mutations: claims that flip" of claims.md from the mutations table (no lines
    without it): per mutation the claims whose verdict changes and those that stay, then every row."""
    if not rows:
        return []

    def worst(r: dict) -> str:
        return f"{_fmt(r['worst_value'])} ({_fmt(r['worst_value_unmutated'])})"

    lines = ["## Mutations: claims that flip", "", MUTATIONS_LEGEND, ""]
    lines += ["| mutation | defect | claims that flip | claims that stay |", "|---|---|---|---|"]
    for name in dict.fromkeys(r["mutation"] for r in rows):
        rs = [r for r in rows if r["mutation"] == name]
        flips = "; ".join(
            f"`{r['claim']}` {r['verdict_unmutated']} → {r['verdict_mutated']} "
            f"({r['cells_failing']}/{r['cells']} cells failing, worst {worst(r)})"
            for r in rs
            if r["flipped"]
        )
        stay = ", ".join(f"`{r['claim']}` {r['verdict_mutated']}" for r in rs if not r["flipped"])
        lines.append(f"| `{name}` | {rs[0]['defect']} | {flips or 'none'} | {stay or 'none'} |")
    missed = [
        f"`{r['mutation']}`: `{r['claim']}`" for r in rows if r["targeted"] and r["verdict_mutated"] != "FAIL"
    ]
    lines += [
        "",
        f"Claims a mutation is aimed at that do not FAIL under it: {'; '.join(missed) or 'none'}.",
        "",
        "| mutation | claim | aimed at | unmutated | mutated | failing | worst cell | worst | threshold |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        aimed = "yes" if r["targeted"] else ""
        lines.append(
            f"| `{r['mutation']}` | `{r['claim']}` | {aimed} | {r['verdict_unmutated']} | "
            f"**{r['verdict_mutated']}** | {r['cells_failing']}/{r['cells']} | {r['worst_cell']} | "
            f"{worst(r)} | {r['direction']} {_fmt(r['threshold'])} |"
        )
    return [*lines, ""]
