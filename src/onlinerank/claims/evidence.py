"""What a verdict carries besides itself: the digest of the test it was decided by, the headroom
of each claim and its control cells.

* :func:`claim_digest` — a digest of everything that decides a claim's verdict: its test
  (statistic, threshold — the resolved number where it is a config key —, direction, test, tables
  read), its grid (the config sections of the stages it reads, the learners and adversaries they
  name), the seed and the family-wise level, and the code of its builder with every function,
  class and constant of the statistics it calls (:func:`onlinerank.claims.code_digest.code_closure`).
  ``claims.json`` carries each claim's; the change log (:mod:`onlinerank.claims.changelog`)
  records the digests of the default tier after every change, and a test fails when a digest moves
  without a new entry.
* :func:`claim_evidence` — informative cells / all cells (controls apart, a cell that repeats
  another counted once) and the headroom: the most extreme interval end of the informative cells
  against the threshold, and the cells that attain it;
* :func:`claim_verdict` — the claim's verdict from its cells: a claim without an informative cell
  cannot PASS.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..settings import setting_value
from .code_digest import code_closure
from .registry import REGISTRY, TABLE_STAGE, Claim, Context, inputs_digest
from .stats import combine_verdicts

if TYPE_CHECKING:
    from ..settings import Settings

__all__ = [
    "THEORY_DIR",
    "claim_test",
    "claim_code",
    "claim_digest",
    "claim_digests",
    "registry_digest",
    "tested_claims",
    "claim_evidence",
    "claim_verdict",
    "NO_INFORMATIVE_CELL",
    "theory_section",
    "theory_link",
]

#: the theory pages of the documentation site, in a source checkout (absent from an installed wheel)
THEORY_DIR = Path(__file__).resolve().parents[3] / "docs" / "theory"

_THEORY_REF = re.compile(r"\btheory §(\d+(?:\.\d+)?[a-e]?)")
#: the theory section of each part of the paper (by claim id prefix, longest first)
_THEORY_BY_PREFIX = (
    ("thm3.3.lower", "4.5"),
    ("thm3.3.binomial", "4.4"),  # each f(u) ~ Bin(T, k/n) is stated with the paper's route
    ("thm3.3", "4.1"),
    ("sec5.spearman", "3.2"),
    ("sec5.graded", "1"),  # the paper's remark that Theorem 3.1 covers real-valued feedback
    ("sec5.", "3.3"),
    ("sec4.runtime", "2.2"),  # QuickSort's expected O(n log n) work, the paper's running-time claim
    ("sec4.", "3.3"),
    ("sec2.M", "1.1"),
    ("sec2.", "1"),
    ("lemma6.1", "2.4"),
    ("thm3.1", "3.2"),
    ("cor3.2", "3.2"),
    ("beyond.exponent", "3.2"),
    ("beyond.runtime", "3.3"),  # OnlineRank's O(n log n) round against PermELearn's Sinkhorn balancing
    ("beyond.", "3.4"),
    ("nt.cited_bounds", "3.3"),
)


def theory_section(c: Claim) -> str:
    """The theory section of claim ``c``: its own ``theory`` field, else the first "theory §x"
    of its paper reference, statement or test, else the section of its part of the paper."""
    if c.theory:
        return c.theory
    for text in (c.paper_ref, c.statement, c.test):
        m = _THEORY_REF.search(text)
        if m:
            return m.group(1)
    return next((sec for prefix, sec in _THEORY_BY_PREFIX if c.id.startswith(prefix)), "")


def theory_link(section: str, theory_dir: Path = THEORY_DIR) -> dict:
    """``{"section", "page", "anchor"}``: the page of the docs (relative to the repository) that
    carries the target ``(theory-<section>)=``, and the anchor of that target in the built site;
    ``page`` is empty when the docs are not beside the package."""
    anchor = "theory-" + re.sub(r"[^a-z0-9]+", "-", section.lower()).strip("-")
    target = f"(theory-{section})="
    page = ""
    if section and theory_dir.is_dir():
        for md in sorted(theory_dir.glob("*.md")):
            if any(line.strip() == target for line in md.read_text(encoding="utf-8").splitlines()):
                page = f"docs/theory/{md.name}"
                break
    return {"section": section, "page": page, "anchor": anchor}


def _threshold_value(c: Claim, settings: Settings) -> float | str | None:
    if isinstance(c.threshold, str):
        try:
            return float(setting_value(settings, c.threshold))
        except (KeyError, TypeError, ValueError):
            return c.threshold
    return c.threshold


def _named_plugins(node: Any, settings: Settings, out: dict[str, set[str]]) -> None:
    """The learner and adversary labels of ``settings`` that a section of the plain config names
    (anywhere in it)."""
    if isinstance(node, str):
        for kind, labels in (("learners", settings.learners), ("adversaries", settings.adversaries)):
            if node in labels:
                out[kind].add(node)
    elif isinstance(node, Mapping):
        for key, value in node.items():
            _named_plugins(key, settings, out)
            _named_plugins(value, settings, out)
    elif isinstance(node, list | tuple):
        for value in node:
            _named_plugins(value, settings, out)


def claim_test(c: Claim, settings: Settings) -> dict:
    """The fields that define claim ``c``'s test under ``settings``: statistic, threshold (its key
    and resolved value), direction, test, tables read, the grid (the plain config of its stages,
    :meth:`~onlinerank.settings.Settings.as_config`), the specs of the learners and adversaries
    the grid names, the checkpoints of the simulation tables, the seed (the streams of the data
    and of the claim's bootstrap) and the family-wise level."""
    config = settings.as_config()
    grid = {s: config.get(s) for s in sorted({*c.stages, *_optional_stages(c)})}
    named: dict[str, set[str]] = {"learners": set(), "adversaries": set()}
    _named_plugins(grid, settings, named)
    return {
        "id": c.id,
        "section": c.section,
        "kind": c.kind,
        "basis": c.basis,
        "statistic": c.statistic,
        "direction": c.direction,
        "threshold_key": c.threshold if isinstance(c.threshold, str) else None,
        "threshold": _threshold_value(c, settings),
        "test": c.test,
        "reads": {t: list(cols) for t, cols in sorted({**c.optional, **c.reads}.items())},
        "grid": grid,
        "plugins": {kind: {x: config[kind][x] for x in sorted(labels)} for kind, labels in named.items()},
        "checkpoints": settings.checkpoints if any(t.startswith("sim_") for t in c.reads) else None,
        "seed": settings.seed,
        "alpha": settings.claims.alpha,
    }


def _optional_stages(c: Claim) -> set[str]:
    return {TABLE_STAGE[t] for t in c.optional}


def _digest(obj: object) -> str:
    blob = json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:12]


def claim_code(c: Claim) -> dict[str, str]:
    """The code that decides claim ``c``'s verdict, by qualified name: its builder (without the
    ``@claim`` fields, which :func:`claim_test` covers), what a builder is handed
    (:class:`~onlinerank.claims.registry.Context`), the rules that combine the cells' verdicts and
    count the informative cells, and
    everything of the statistics they call (:func:`~onlinerank.claims.code_digest.code_closure`)."""
    if c.builder is None:
        return {}
    return code_closure(
        [c.builder, Context, combine_verdicts, claim_verdict, claim_evidence], drop_decorators=[c.builder]
    )


def claim_digest(c: Claim, settings: Settings) -> str:
    """12 hex digits over claim ``c``'s test and grid (:func:`claim_test`) and the code that decides
    its verdict (:func:`claim_code`): a change to any of them moves it."""
    return _digest({"test": claim_test(c, settings), "code": claim_code(c)})


def tested_claims() -> list[Claim]:
    """The registered claims that have a test (every section but ``not-tested``), by id."""
    return sorted((c for c in REGISTRY.values() if c.section != "not-tested"), key=lambda c: c.id)


def claim_digests(settings: Settings) -> dict[str, str]:
    """``{claim id: claim_digest}`` of every tested claim under ``settings``."""
    return {c.id: claim_digest(c, settings) for c in tested_claims()}


def registry_digest(settings: Settings) -> str:
    """12 hex digits over every tested claim's :func:`claim_digest` under ``settings``."""
    return _digest(claim_digests(settings))


def _margin(x: Mapping) -> float:
    """How far cell ``x``'s interval lies inside its claim's side (negative: outside)."""
    return x["threshold"] - x["hi"] if x["direction"] == "<=" else x["lo"] - x["threshold"]


def _identity(x: Mapping) -> tuple:
    """What makes cell ``x`` one piece of evidence: its inputs (:func:`make_cell`), value and interval."""
    inputs = x.get("inputs") or inputs_digest({"statistic": x.get("statistic"), "params": x.get("params")})
    return (inputs, x["value"], x["lo"], x["hi"])


def claim_evidence(cells: list[dict]) -> dict:
    """Cells, informative cells, duplicates and controls, and the headroom of a claim's informative
    cells.

    A cell is *informative* unless it is a control (``control`` non-empty: it cannot depend on the
    learner under test) or repeats an earlier informative cell: the same inputs (the same law at
    the same rate in the same game, :func:`~onlinerank.claims.registry.make_cell`) with the same
    value and interval, such as OnlineRank at ``eta: stated`` where that rate is η_p.  A repeat is
    counted once; ``duplicates`` lists each with the cell it repeats.

    ``extreme`` is the largest upper end (claims ``<=``) or the smallest lower end (``>=``) of
    the informative cells' intervals; ``factor`` how far it is from the threshold as a ratio —
    ``threshold / extreme`` for ``<=`` (a ratio statistic with threshold 1 PASSes as long as the
    bound is at most this many times smaller), ``extreme / threshold`` for ``>=`` — where both
    are positive and finite, else ``None``; ``attained_by`` the labels of the cells at the
    extreme.  With no informative cell the headroom is over every cell (``over`` says which)."""
    first: dict[tuple, str] = {}
    informative: list[dict] = []
    duplicates: list[dict] = []
    for x in cells:
        if x.get("control"):
            continue
        key = _identity(x)
        if key in first:
            duplicates.append({"cell": x["cell"], "repeats": first[key]})
        else:
            first[key] = x["cell"]
            informative.append(x)
    pool = informative or cells
    out: dict = {
        "cells": len(cells),
        "informative": len(informative),
        "duplicates": duplicates,
        "controls": sum(1 for x in cells if x.get("control")),
        "headroom": None,
    }
    if not pool:
        return out
    direction = pool[0]["direction"]
    ends = [x["hi"] if direction == "<=" else x["lo"] for x in pool]
    finite = [e for e in ends if isinstance(e, int | float) and math.isfinite(e)]
    if not finite:
        return out
    extreme = max(finite) if direction == "<=" else min(finite)
    thr = pool[0]["threshold"]
    factor = None
    if thr > 0 and extreme > 0:
        factor = thr / extreme if direction == "<=" else extreme / thr
    out["headroom"] = {
        "over": "informative cells" if informative else "all cells (every cell is a control)",
        "extreme": extreme,
        "threshold": thr,
        "direction": direction,
        "factor": factor,
        "margin": min(_margin(x) for x in pool),
        "attained_by": [x["cell"] for x, e in zip(pool, ends, strict=True) if e == extreme][:5],
    }
    return out


#: the note of a claim whose cells PASS but none of which is informative
NO_INFORMATIVE_CELL = "no informative cell"


def claim_verdict(cells: list[dict], evidence: Mapping) -> tuple[str, str]:
    """A claim's verdict and its note: FAIL if any cell fails, else INCONCLUSIVE if any is
    undecided, else PASS (:func:`~onlinerank.claims.stats.combine_verdicts`) — but a claim none of
    whose cells is informative (:func:`claim_evidence`: all controls or repeats) cannot PASS: it is
    INCONCLUSIVE with the note :data:`NO_INFORMATIVE_CELL`."""
    verdict = combine_verdicts([x["verdict"] for x in cells])
    if verdict == "PASS" and evidence["informative"] == 0:
        return "INCONCLUSIVE", NO_INFORMATIVE_CELL
    return verdict, ""
