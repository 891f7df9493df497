"""The change log of the claims' tests: ``changes.toml`` beside this module (design §verdicts).

Every change made to a claim's test after a run had produced results — its statistic, threshold,
direction, grid, replicates, interval method or level, or the code that decides its verdict — is
one entry of the log, oldest first: the claims it concerns, what changed, the result that preceded
it, the reason, and the digest each named claim has after it
(:func:`onlinerank.claims.evidence.claim_digest` under the default tier, ``config/config.yaml``).
The guard, run by ``tests/test_claims_changelog.py``:

* :func:`unrecorded` — the tested claims whose current digest is not the one the newest entry
  recording them holds: a change to a test without its entry;
* :func:`append_only_violations` — in a git checkout, each committed version of the log (since its
  format 2) extends the version before it with its entries unchanged, and the working tree's
  extends HEAD's: an entry is never edited, moved or dropped, so a recorded digest cannot be edited
  to hide a change;
* :func:`recorded_in` — the commit that added each entry, derived from git (never typed);
  :func:`validate_commits` — the commits an entry written after the fact names as having made the
  change (``made_in``) are in the history.

:func:`load_log` refuses a malformed entry, an unknown claim or a malformed commit in one line
naming the entry; the claims report renders the log (``claims.md``, "Changes to the tests after
data") and states how many changes were made after data.
"""

from __future__ import annotations

import functools
import re
import subprocess
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .registry import REGISTRY

__all__ = [
    "LOG_PATH",
    "FORMAT",
    "KINDS",
    "ChangeLog",
    "ChangeLogError",
    "load_log",
    "parse_log",
    "entry_label",
    "changes_after_data",
    "recorded_digests",
    "unrecorded",
    "git_location",
    "committed_versions",
    "append_only_violations",
    "recorded_in",
    "validate_commits",
]

LOG_PATH = Path(__file__).with_name("changes.toml")
#: the format of the log this module reads (the top-level ``format`` key)
FORMAT = 2
#: the kinds of entry, ``test`` (a change to a test after data), ``cells-equal`` (a change of code or
#: wording that moved a digest and left every cell equal) and ``baseline`` (the digests of every
#: claim when the log began to record them, no change)
KINDS = ("test", "cells-equal", "baseline")
_REQUIRED = ("claims", "kind", "change", "reason")
_OPTIONAL = ("before", "made_in", "digests")
_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")
_DIGEST = re.compile(r"^[0-9a-f]{12}$")


class ChangeLogError(ValueError):
    """A malformed change log: one line naming the file and the entry."""


@dataclass(frozen=True)
class ChangeLog:
    """The parsed log: its entries in order, the claim ids renamed since an entry named them
    (old id -> new id) and the ids of claims removed from the registry (id -> what became of it)."""

    path: Path
    entries: list[dict]
    renamed: dict[str, str] = field(default_factory=dict)
    retired: dict[str, str] = field(default_factory=dict)

    def current_id(self, claim_id: str) -> str:
        """The id a claim named by an entry has now (through :attr:`renamed`)."""
        seen = set()
        while claim_id in self.renamed and claim_id not in seen:
            seen.add(claim_id)
            claim_id = self.renamed[claim_id]
        return claim_id


def entry_label(path: Path, i: int, entry: Mapping) -> str:
    """How an error names entry ``i`` (0-based) of the log: its number and what it concerns."""
    claims = entry.get("claims")
    what = ", ".join(claims[:3]) + (" …" if len(claims) > 3 else "") if isinstance(claims, list) else "?"
    return f"{path.name}: change #{i + 1} ({what})"


def _tested_ids() -> set[str]:
    return {c.id for c in REGISTRY.values() if c.section != "not-tested"}


def _known_ids() -> set[str]:
    return set(REGISTRY)


def _check_entry(path: Path, i: int, e: Any, log: ChangeLog, known: set[str]) -> None:
    if not isinstance(e, dict):
        raise ChangeLogError(f"{path.name}: change #{i + 1} is not a table")
    label = entry_label(path, i, e)
    for key in _REQUIRED:
        if key not in e or e[key] in ("", [], None):
            raise ChangeLogError(f"{label} lacks {key!r}")
    extra = sorted(set(e) - set(_REQUIRED) - set(_OPTIONAL))
    if extra:
        raise ChangeLogError(
            f"{label}: unknown field(s) {', '.join(extra)} (fields: {', '.join(_REQUIRED + _OPTIONAL)})"
        )
    for key in ("change", "reason", "before"):
        if key in e and not isinstance(e[key], str):
            raise ChangeLogError(f"{label}: {key} must be text")
    if e["kind"] not in KINDS:
        raise ChangeLogError(f"{label}: kind must be one of {', '.join(KINDS)}, got {e['kind']!r}")
    claims = e["claims"]
    if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
        raise ChangeLogError(f"{label}: claims must be a list of claim ids")
    for c in claims:
        if c != "*" and log.current_id(c) not in known and c not in log.retired:
            raise ChangeLogError(f"{label} names unknown claim {c!r}")
    made_in = e.get("made_in", [])
    if not isinstance(made_in, list) or not all(isinstance(c, str) and _COMMIT.match(c) for c in made_in):
        raise ChangeLogError(f"{label}: made_in must list commits (7 to 40 hex digits), got {made_in!r}")
    digests = e.get("digests", {})
    if not isinstance(digests, dict):
        raise ChangeLogError(f"{label}: digests must be a table {{claim id = digest}}")
    for c, d in digests.items():
        if "*" not in claims and c not in claims:
            raise ChangeLogError(f"{label} records the digest of {c!r}, which it does not name")
        if log.current_id(c) not in known and c not in log.retired:
            raise ChangeLogError(f"{label} records the digest of unknown claim {c!r}")
        if not isinstance(d, str) or not _DIGEST.match(d):
            raise ChangeLogError(f"{label}: the digest of {c!r} must be 12 hex digits, got {d!r}")
    if not made_in and not digests:
        raise ChangeLogError(
            f"{label} records no digest: an entry that comes with its change records the digest of "
            "each claim it names (python -m onlinerank.claims digests --entry prints them); one "
            "written after the fact names the commits that made the change (made_in)"
        )


def parse_log(text: str, path: Path = LOG_PATH, known: set[str] | None = None) -> ChangeLog:
    """The log in ``text`` (the content of ``path``), validated: see :func:`load_log`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ChangeLogError(f"{path.name}: not TOML: {err}") from None
    if data.get("format") != FORMAT:
        raise ChangeLogError(f"{path.name}: format must be {FORMAT}, got {data.get('format')!r}")
    extra = sorted(set(data) - {"format", "renamed", "retired", "change"})
    if extra:
        raise ChangeLogError(f"{path.name}: unknown top-level key(s) {', '.join(extra)}")
    log = ChangeLog(
        path=path,
        entries=list(data.get("change", [])),
        renamed=dict(data.get("renamed", {})),
        retired=dict(data.get("retired", {})),
    )
    known = _known_ids() if known is None else known
    for old, new in log.renamed.items():
        if log.current_id(new) not in known and new not in log.retired:
            raise ChangeLogError(f"{path.name}: renamed {old!r} to unknown claim {new!r}")
    for i, e in enumerate(log.entries):
        _check_entry(path, i, e, log, known)
    return log


def load_log(path: Path = LOG_PATH) -> ChangeLog:
    """The change log at ``path``, validated against the claim registry; raises
    :exc:`ChangeLogError` (one line naming the entry) for a missing or unknown field, a kind that is
    not one of :data:`KINDS`, an unknown claim, a malformed commit or digest, or an entry that
    neither records digests nor names the commits that made its change."""
    return parse_log(path.read_text(encoding="utf-8"), path)


def changes_after_data(log: ChangeLog) -> int:
    """The number of entries that changed a test after data (kind ``test``)."""
    return sum(e["kind"] == "test" for e in log.entries)


def recorded_digests(log: ChangeLog) -> dict[str, tuple[str, int]]:
    """``{claim id (current): (digest, entry index)}`` from the newest entry recording each claim."""
    out: dict[str, tuple[str, int]] = {}
    for i, e in enumerate(log.entries):
        for c, d in e.get("digests", {}).items():
            out[log.current_id(c)] = (d, i)
    return out


def unrecorded(digests: Mapping[str, str], log: ChangeLog) -> dict[str, tuple[str, str | None]]:
    """``{claim id: (current digest, recorded digest or None)}`` for every claim of ``digests``
    (:func:`onlinerank.claims.evidence.claim_digests`) whose digest is not the one the log records."""
    rec = recorded_digests(log)
    return {
        c: (d, rec[c][0] if c in rec else None) for c, d in digests.items() if rec.get(c, (None,))[0] != d
    }


# --------------------------------------------------------------------------------------------
# the history of the log (git)
# --------------------------------------------------------------------------------------------


def _git(repo: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def git_location(path: Path = LOG_PATH) -> tuple[Path, str] | None:
    """``(repository root, path relative to it)`` when ``path`` is tracked by git with its history
    (not a shallow clone); ``None`` otherwise (an installed package, a copy, no git)."""
    path = Path(path).resolve()
    top = _git(path.parent, "rev-parse", "--show-toplevel")
    if top is None:
        return None
    root = Path(top.strip())
    rel = path.relative_to(root).as_posix()
    if _git(root, "ls-files", "--error-unmatch", rel) is None:
        return None
    if (_git(root, "rev-parse", "--is-shallow-repository") or "").strip() == "true":
        return None
    return root, rel


def _entries_of(text: str | None) -> list[dict] | None:
    """The entries of one version of the log, or ``None`` for a version in an older format."""
    if text is None:
        return None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    return list(data.get("change", [])) if data.get("format") == FORMAT else None


@functools.cache
def _versions(root: Path, rel: str, head: str) -> tuple[tuple[str, tuple[str, ...], tuple], ...]:
    listing = _git(
        root, "rev-list", "--topo-order", "--reverse", "--full-history", "--parents", head, "--", rel
    )
    out = []
    for line in (listing or "").splitlines():
        commit, *parents = line.split()
        entries = _entries_of(_git(root, "show", f"{commit}:{rel}"))
        if entries is not None:
            out.append((commit, tuple(parents), tuple(_freeze(e) for e in entries)))
    return tuple(out)


def _freeze(obj: Any) -> Any:
    if isinstance(obj, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in obj.items()))
    if isinstance(obj, list):
        return tuple(_freeze(v) for v in obj)
    return obj


def committed_versions(path: Path = LOG_PATH) -> list[tuple[str, tuple[str, ...], tuple]]:
    """``(commit, parents, entries)`` of every committed version of the log in format 2, parents
    before children (``parents``: the nearest ancestors that changed the file); empty without git
    history.  Entries are frozen (nested tuples) so that versions compare exactly."""
    loc = git_location(path)
    if loc is None:
        return []
    head = (_git(loc[0], "rev-parse", "HEAD") or "").strip()
    return list(_versions(loc[0], loc[1], head)) if head else []


def _thawed_label(path: Path, i: int, frozen: tuple) -> str:
    entry = {k: list(v) if isinstance(v, tuple) and k == "claims" else v for k, v in frozen}
    return entry_label(path, i, entry)


def _what_changed(old: tuple, new: tuple, i: int) -> str:
    """What differs between entry ``i`` of two versions: its fields, and the claims whose recorded
    digest changed (or ``dropped`` when the newer version has no entry ``i``)."""
    if i >= len(new):
        return "dropped"
    a, b = dict(old[i]), dict(new[i])
    fields = sorted(k for k in {*a, *b} if a.get(k) != b.get(k))
    da, db = dict(a.get("digests", ())), dict(b.get("digests", ()))
    claims = sorted(c for c in {*da, *db} if da.get(c) != db.get(c))
    text = "edited (" + ", ".join(fields) + ")"
    return text + (f"; the recorded digest of {', '.join(claims)} changed" if claims else "")


def _first_difference(old: tuple, new: tuple) -> int:
    return next(
        (j for j, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new))
    )


def _is_subsequence(short: tuple, long: tuple) -> bool:
    it = iter(long)
    return all(any(x == y for y in it) for x in short)


def append_only_violations(path: Path = LOG_PATH) -> list[str]:
    """What breaks the rule that the log only grows: a committed version (format 2) that edits,
    moves or drops an entry of its parent's version (a merge keeps every entry of each parent, in
    order), or a working tree whose entries do not extend HEAD's.  Empty without git history."""
    loc = git_location(path)
    if loc is None:
        return []
    versions = committed_versions(path)
    by_commit = {c: entries for c, _, entries in versions}
    problems = []
    name = Path(path)
    for commit, parents, entries in versions:
        olds = [(p, by_commit[p]) for p in parents if p in by_commit]
        for p, old in olds:
            if (entries[: len(old)] == old) if len(olds) == 1 else _is_subsequence(old, entries):
                continue
            i = _first_difference(old, entries)
            problems.append(
                f"{_thawed_label(name, i, old[i])}: {_what_changed(old, entries, i)} by commit {commit[:10]} "
                f"(it was in {p[:10]}); the log only grows: add a new entry instead"
            )
    head = _entries_of(_git(loc[0], "show", f"HEAD:{loc[1]}"))
    work = _entries_of(Path(path).read_text(encoding="utf-8"))
    if head is not None and work is not None:
        old, new = tuple(_freeze(e) for e in head), tuple(_freeze(e) for e in work)
        if new[: len(old)] != old:
            i = _first_difference(old, new)
            problems.append(
                f"{_thawed_label(name, i, old[i])}: {_what_changed(old, new, i)} in the working tree (it "
                "is in HEAD); the log only grows: add a new entry instead"
            )
    return problems


def recorded_in(log: ChangeLog) -> list[str | None]:
    """For each entry of ``log``, the commit (10 hex digits) whose version of the file first holds
    it; ``None`` for an entry not committed yet, or without git history."""
    versions = committed_versions(log.path)
    out: list[str | None] = []
    for e in log.entries:
        frozen = _freeze(e)
        out.append(next((c[:10] for c, _, entries in versions if frozen in entries), None))
    return out


def validate_commits(log: ChangeLog) -> None:
    """Every commit an entry names in ``made_in`` is a commit of the history of HEAD; raises
    :exc:`ChangeLogError` naming the entry.  Nothing to check without git history."""
    loc = git_location(log.path)
    if loc is None:
        return
    for i, e in enumerate(log.entries):
        for c in e.get("made_in", []):
            full = _git(loc[0], "rev-parse", "--verify", "--quiet", f"{c}^{{commit}}")
            if full is None or _git(loc[0], "merge-base", "--is-ancestor", full.strip(), "HEAD") is None:
                raise ChangeLogError(
                    f"{entry_label(log.path, i, e)} names commit {c}, which is not in the history of HEAD"
                )
