"""Provenance: git commit, file digests, the versions of Python and of the packages results depend
on, the results manifest (design §data), and where a repository's results are."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

from . import __version__

__all__ = [
    "RUN_OPTIONS",
    "config_digest",
    "git_commit",
    "sha256_file",
    "versions",
    "versions_line",
    "manifest",
    "find_results",
]

#: the packages whose versions can change a number in the results (simulation, statistics,
#: compiled kernels, figures) or which pipeline produced them
PACKAGES = ("numpy", "scipy", "numba", "llvmlite", "matplotlib", "snakemake")


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
    """The SHA-256 hex digest of the file at ``path``."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def versions() -> dict[str, str]:
    """``{"python": "3.11.7", "numpy": "2.4.6", ...}``: the running Python and the installed
    version of each of :data:`PACKAGES` (``"not installed"`` for a missing one)."""
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def versions_line(v: dict[str, str] | None = None) -> str:
    """One line for a report header: ``Python 3.11.7, numpy 2.4.6, scipy 1.17.1, ...``."""
    v = versions() if v is None else v
    return ", ".join(f"{'Python' if k == 'python' else k} {ver}" for k, ver in v.items())


def manifest(paths: list[str], config_digest: str, commit: str, versions_: dict | None = None) -> str:
    """JSON text: sha256 of every output, the config digest, package version, git commit and the
    versions of Python and the packages (:func:`versions`, unless given)."""
    files = {Path(p).as_posix(): sha256_file(p) for p in sorted(paths)}
    return (
        json.dumps(
            {
                "config_digest": config_digest,
                "package_version": __version__,
                "git_commit": commit,
                "versions": versions() if versions_ is None else versions_,
                "files": files,
            },
            indent=2,
            sort_keys=True,
        )
        + "\n"
    )


#: config keys that choose how a run goes, not what it computes: left out of the config digest
RUN_OPTIONS = ("strict", "figure")


def config_digest(config: dict) -> str:
    """Short sha256 of the canonical JSON of the config (provenance).  The run options
    (:data:`RUN_OPTIONS`) are left out: ``strict`` decides the exit status of a run and ``figure``
    which outputs it makes, not what they hold."""
    config = {k: v for k, v in config.items() if k not in RUN_OPTIONS}
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


#: where the pipeline's tiers write (``make figures``, ``make smoke``), in order of preference
RESULT_DIRS = ("results", "results-smoke")
#: the table whose presence marks a finished run of the upper-bound stage
RESULT_MARKER = Path("tables") / "sim_upper.csv"


def _repository(start: Path) -> Path | None:
    """The repository around ``start`` (a folder with ``Snakefile`` and ``config/``), searching
    ``start`` and its parents, then the checkout this package is installed from (editable)."""
    here = Path(__file__).resolve().parents[2]
    for d in (start, *start.parents, here):
        if (d / "Snakefile").is_file() and (d / "config").is_dir():
            return d
    return None


def find_results(start: str | os.PathLike | None = None, env: str = "ONLINERANK_RESULTS") -> Path:
    """The results directory to read, from wherever a notebook or script runs.

    ``$ONLINERANK_RESULTS`` if set (relative to the working directory); else the repository's
    ``results/`` (default tier, ``make figures``) if it holds a finished run, else its
    ``results-smoke/`` (``make smoke``).  The repository is found from ``start`` (default: the
    working directory) upwards, or as the checkout of this package.  Raises
    ``FileNotFoundError`` with one line saying which command makes the results.
    """
    chosen = os.environ.get(env)
    if chosen:
        path = Path(chosen).expanduser().resolve()
        if not (path / RESULT_MARKER).is_file():
            raise FileNotFoundError(
                f"{env}={chosen} has no {RESULT_MARKER.as_posix()}: point it at a results directory "
                f"(results/ or results-smoke/ of the repository) or unset it"
            )
        return path
    start = Path.cwd() if start is None else Path(start)
    repo = _repository(start.resolve())
    if repo is None:
        raise FileNotFoundError(
            f"no onlinerank repository around {start}: run from its checkout, or set {env} to a "
            f"results directory"
        )
    for name in RESULT_DIRS:
        if (repo / name / RESULT_MARKER).is_file():
            return repo / name
    raise FileNotFoundError(
        f"no results in {repo}/results or {repo}/results-smoke yet: run `make smoke` (a few "
        f"minutes) or `make figures` (10-15 minutes on two cores) in {repo}"
    )
