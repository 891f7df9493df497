"""Provenance: git commit, file digests and the results manifest (ARCHITECTURE §4)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

__all__ = ["config_digest", "git_commit", "sha256_file", "manifest"]


def git_commit(cwd: str | os.PathLike | None = None) -> str:
    """Short commit of the working tree (``+dirty`` if tracked files other than the pipeline's
    own outputs in ``figures/`` have changes), or ``unknown``."""
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short=10", "HEAD"], cwd=cwd, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)figures"],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def manifest(paths: list[str], config_digest: str, commit: str) -> str:
    """JSON text: sha256 of every output, the config digest, package version and git commit."""
    from . import __version__

    files = {Path(p).as_posix(): sha256_file(p) for p in sorted(paths)}
    return (
        json.dumps(
            {
                "config_digest": config_digest,
                "package_version": __version__,
                "git_commit": commit,
                "files": files,
            },
            indent=2,
            sort_keys=True,
        )
        + "\n"
    )


def config_digest(config: dict) -> str:
    """Short sha256 of the canonical JSON of the config (provenance).  ``strict`` is left out: it
    decides the exit status of a run, not its results."""
    config = {k: v for k, v in config.items() if k != "strict"}
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]
