"""What the Makefile asks about a tier before it starts Snakemake: whether a figure name is one of
the pipeline's (``make figure``) and whether a stale Snakemake lock would stop the run
(``make figures``, ``make smoke``, ``make figure``).

A run that is interrupted (Ctrl-C twice, a killed terminal, a lost session) leaves its lock files
in ``.snakemake/locks/``; the next run that touches the same files stops with Snakemake's
``LockException``, which does not say how to go on.  :func:`lock_problem` finds such a lock
before the run and says it in one line naming ``make unlock``.  It does not unlock by itself: a
lock is stale only when no Snakemake process works in the directory, and a process on another
host of a shared file system (a cluster's login nodes) is invisible from here, so removing the
lock is left to the user, who knows.

``python -m onlinerank.tiers check-figure CONFIG NAME`` refuses an unknown figure name and
``python -m onlinerank.tiers check-lock CONFIG`` exits 1 with the line when a lock stands in the way.
"""

from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .config_file import output_dirs, read_config
from .schema_validation import ConfigError

if TYPE_CHECKING:
    from .settings import Settings

__all__ = [
    "figure_names",
    "tier_config",
    "tier_settings",
    "snakemake_locks",
    "snakemake_processes",
    "lock_problem",
    "main",
]

#: the repository (default tier) of this checkout
REPO = Path(__file__).resolve().parents[2]


def figure_names() -> list[str]:
    """The figures the pipeline knows: one module each in :mod:`onlinerank.figures`."""
    # lazy: the lock check runs before every make target; only the figure commands read the catalog
    from .figures import FIGURES

    return sorted(FIGURES)


def tier_config(results: str | os.PathLike) -> dict:
    """The config (as its file says, without the schema's defaults) of the tier that writes the
    results directory ``results``: the file of the repository's ``config/`` whose resolved
    ``results_dir`` it is (a notebook drawing a figure needs the tier's learners).  Raises
    ``FileNotFoundError`` naming the directory when no config file writes it."""
    results = Path(results).resolve()
    repo = results.parent
    for path in sorted((repo / "config").glob("*.yaml")):
        try:
            res = output_dirs(path)[0]
        except (OSError, ValueError):
            continue
        if (repo / res).resolve() == results:
            return read_config(path)
    raise FileNotFoundError(f"no config file in {repo / 'config'} writes {results}")


def tier_settings(results: str | os.PathLike) -> Settings:
    """The settings of the tier that writes the results directory ``results``
    (:func:`tier_config`, validated by :func:`onlinerank.config.load_settings`): what a notebook
    hands to :func:`onlinerank.drawing.draw`."""
    # lazy: the validator loads the engine, which the lock check before every make target must not
    from .config import load_settings

    return load_settings(tier_config(results))


def snakemake_locks(workdir: str | os.PathLike) -> dict[str, list[str]]:
    """The lock files Snakemake left in ``workdir`` (``.snakemake/locks/*.lock``, its default
    file backend), each with the paths it locks (relative to ``workdir`` as Snakemake writes them)."""
    lockdir = Path(workdir) / ".snakemake" / "locks"
    out = {}
    for lock in sorted(lockdir.glob("*.lock")) if lockdir.is_dir() else []:
        try:
            out[lock.name] = [line.strip() for line in lock.read_text().splitlines() if line.strip()]
        except (OSError, UnicodeDecodeError):
            out[lock.name] = []
    return out


def _is_snakemake(argv: list[str]) -> bool:
    """A command line running Snakemake: ``.../snakemake ...``, ``python .../snakemake ...`` or
    ``python -m snakemake ...``."""
    head = argv[:3]
    if any(os.path.basename(a) == "snakemake" for a in head):
        return True
    return any(a == "-m" and b == "snakemake" for a, b in zip(argv, argv[1:], strict=False))


def snakemake_processes(workdir: str | os.PathLike, proc: str | os.PathLike = "/proc") -> list[int] | None:
    """Process ids of the live Snakemake processes whose working directory is ``workdir`` (read
    from ``/proc``), or None where there is no ``/proc`` to read (then nobody can tell)."""
    proc = Path(proc)
    if not (proc / "self").exists():
        return None
    here = os.path.realpath(workdir)
    me = os.getpid()
    pids = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            cwd = os.readlink(entry / "cwd")
        except OSError:  # gone, or another user's process
            continue
        if os.path.realpath(cwd) == here and _is_snakemake([a.decode(errors="replace") for a in argv if a]):
            pids.append(int(entry.name))
    return sorted(pids)


def _under(path: str, dirs: list[str]) -> bool:
    p = os.path.normpath(path)
    return any(p == d or p.startswith(d + os.sep) for d in dirs)


def lock_problem(
    workdir: str | os.PathLike,
    dirs: list[str] | None = None,
    config: str = "config/config.yaml",
    proc: str | os.PathLike = "/proc",
) -> str | None:
    """One line when a Snakemake lock in ``workdir`` would stop a run writing under ``dirs``
    (the tier's results and figures directories; None: any lock), else None.

    A lock with a live Snakemake process working in ``workdir`` is that run's (the line says
    so); a lock without one is stale, left by an interrupted run, and the line names
    ``make unlock CONFIG=<config>``.  Where processes cannot be listed (no ``/proc``) nothing is
    said and Snakemake decides.  Only locks that name a path under ``dirs`` count: Snakemake
    itself refuses a run only when its files overlap the locked ones."""
    locks = snakemake_locks(workdir)
    if dirs is not None:
        norm = [os.path.normpath(d) for d in dirs]
        locks = {name: paths for name, paths in locks.items() if any(_under(p, norm) for p in paths)}
    if not locks:
        return None
    pids = snakemake_processes(workdir, proc)
    if pids is None:
        return None
    where = os.path.join(".snakemake", "locks")
    if pids:
        return (
            f"onlinerank: another Snakemake run (pid {', '.join(map(str, pids))}) works in this "
            f"directory and holds its lock ({where}); wait for it to finish"
        )
    return (
        f"onlinerank: a stale Snakemake lock ({where}: {', '.join(locks)}) from an interrupted run, "
        f"and no Snakemake process works here: run `make unlock CONFIG={config}`, then this again"
    )


def main(argv: list[str] | None = None) -> int:
    """``check-figure CONFIG NAME`` | ``check-lock CONFIG``."""
    args = sys.argv[1:] if argv is None else argv
    usage = "usage: python -m onlinerank.tiers check-figure CONFIG NAME | check-lock CONFIG"
    if not args or args[0] not in ("check-figure", "check-lock"):
        print(usage, file=sys.stderr)
        return 2
    cmd, rest = args[0], args[1:]
    if len(rest) != (1 if cmd == "check-lock" else 2):
        print(usage, file=sys.stderr)
        return 2
    config = rest[0]
    try:
        results, figures = output_dirs(config)
    except FileNotFoundError:
        print(f"onlinerank: CONFIG={config}: no such file", file=sys.stderr)
        return 2
    except (ConfigError, OSError, ValueError) as e:
        print(f"onlinerank: CONFIG={config}: {e}", file=sys.stderr)
        return 2
    if cmd == "check-figure":
        name, names = rest[1], figure_names()
        if name in names:
            return 0
        close = difflib.get_close_matches(name, names, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        print(
            f"onlinerank: NAME={name or '(empty)'}: not a figure of the pipeline; {hint}"
            f"known: {', '.join(names)} (usage: make figure NAME=regret_vs_T CONFIG={config})",
            file=sys.stderr,
        )
        return 2
    line = lock_problem(os.getcwd(), [results, figures], config)
    if line:
        print(line, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
