"""Every reference resolves inside the repository: "theory §x" and "design §name" in code, tests,
configs, the claims report and the docs point to a target of the documentation site, and no
tracked file points to a path outside the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

THEORY_REF = re.compile(r"\btheory §(\d+(?:\.\d+)?[a-e]?)")
DESIGN_REF = re.compile(r"\bdesign §([a-z]+)")
TARGET = re.compile(r"^\((theory|design)-([\w.]+)\)=\s*$", re.M)
#: documents that live outside the repository, and places on this machine outside it
OUTSIDE = re.compile(
    r"\b(?:THEORY|ARCHITECTURE)(?: §|\.md)|\b(?:GOLDEN|PERF-NOTES|SLURM-NOTES)\b|\.\./shared/"
    r"|(?<![\w.])/(?:work|root|home|mnt|srv)/[\w.-]"
)
TEXT_SUFFIXES = {
    ".py",
    ".md",
    ".smk",
    ".yaml",
    ".yml",
    ".toml",
    ".txt",
    ".json",
    ".ipynb",
    ".rst",
    ".cfg",
    "",
}


def tracked_files() -> list[Path]:
    if (ROOT / ".git").exists():
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=True)
        names = out.stdout.splitlines()
    else:  # a source tree without git: every file but the usual generated ones
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()]
    skip = (".venv/", "results", "docs/_build/", ".snakemake/", "tests/test_references.py")
    return [
        ROOT / n
        for n in names
        if not n.startswith(skip) and Path(n).suffix in TEXT_SUFFIXES and (ROOT / n).is_file()
    ]


def doc_targets() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {"theory": set(), "design": set()}
    for page in (ROOT / "docs").rglob("*.md"):
        for kind, name in TARGET.findall(page.read_text(encoding="utf-8")):
            found[kind].add(name)
    return found


def test_every_theory_and_design_reference_has_a_target():
    targets = doc_targets()
    bad = []
    for path in tracked_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in THEORY_REF.finditer(text):
            if m.group(1) not in targets["theory"]:
                bad.append(f"{path.relative_to(ROOT)}: theory §{m.group(1)}")
        for m in DESIGN_REF.finditer(text):
            if m.group(1) not in targets["design"]:
                bad.append(f"{path.relative_to(ROOT)}: design §{m.group(1)}")
    assert not bad, "references without a target in docs/: " + "; ".join(sorted(set(bad))[:20])


def test_no_tracked_file_points_outside_the_repository():
    bad = []
    for path in tracked_files():
        for i, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                bad.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()[:80]}")
    assert not bad, "references outside the repository:\n" + "\n".join(bad[:20])


@pytest.mark.parametrize(
    "line, ok",
    [
        ("see theory §3.3 for the bound", True),
        ("see " + "THEORY" + " §3.3 for the bound", False),
        ("(" + "ARCHITECTURE" + " §1.5)", False),
        ("(design §seeding)", True),
        ("see /home/someone/cluster-notes.md", False),  # a made-up path outside the repository
        ("PATH=/usr/bin:/bin", True),
        ("../shared/THEORY.md", False),
        ("Implements THEORY.md:", False),
        ("(" + "GOLDEN" + " G2)", False),
        ("as " + "PERF-NOTES" + " item 6 asks", False),
        ("(reference values G2, theory §6)", True),
    ],
)
def test_the_outside_pattern(line, ok):
    assert (OUTSIDE.search(line) is None) == ok
