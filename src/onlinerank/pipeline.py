"""Glue between Snakemake and the package: the code each step depends on, and running a script
with its log.

Snakemake sees neither Python imports nor the config.  :func:`code_inputs` lists the package
modules a step really imports (the transitive closure of the ``import`` statements of its script
or modules, found statically), so editing a module reruns exactly the steps that use it, and
adding a plug-in module reruns nothing that does not import it.  :func:`run` executes a step's
body with its log file receiving every message and, on failure, the traceback;
:func:`job_settings` is how a step's script gets its settings.
"""

from __future__ import annotations

import ast
import logging
import os
import sys
import time
import traceback
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from .settings import Settings, typed_settings

__all__ = ["PACKAGE_DIR", "code_inputs", "module_file", "job_settings", "process_age", "run"]

#: the directory of the installed package's sources
PACKAGE_DIR = Path(__file__).resolve().parent


def module_file(module: str, package_dir: Path = PACKAGE_DIR) -> Path | None:
    """The source file of ``onlinerank.<...>`` module ``module`` (dotted) under ``package_dir``,
    or None."""
    parts = module.split(".")
    if parts[0] != "onlinerank":
        return None
    base = Path(package_dir).joinpath(*parts[1:])
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _module_name(path: Path, package_dir: Path) -> str | None:
    try:
        rel = path.resolve().relative_to(package_dir)
    except ValueError:
        return None
    parts = ["onlinerank", *rel.with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _imports(path: Path, package_dir: Path) -> tuple[Path, ...]:
    """Package modules imported anywhere in ``path`` (module level or inside functions)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    me = _module_name(path, package_dir)
    pkg = me if path.name == "__init__.py" else (me.rsplit(".", 1)[0] if me else None)
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if pkg is None:
                    continue
                base = pkg.split(".")
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names = [prefix] + [f"{prefix}.{a.name}" for a in node.names]
        for name in names:
            parts = name.split(".")
            # the module itself and every package on its way (their __init__ runs on import)
            for i in range(1, len(parts) + 1):
                f = module_file(".".join(parts[:i]), package_dir)
                if f is not None:
                    found.append(f)
    return tuple(dict.fromkeys(found))


def code_inputs(*sources: str | Path, root: str | Path | None = None, leaves: tuple = ()) -> list[str]:
    """The files a step's code depends on: the given sources (scripts or package modules) and
    every package module they import, transitively; sorted paths.  The top-level
    ``onlinerank/__init__.py`` (run by every import of a submodule) is included but its own
    imports are not followed: it only re-exports the public API, which no step goes through.
    ``leaves`` are included without following their imports (a dispatching script whose real
    dependency is the module named in ``sources``).

    With ``root`` (the repository), the package's modules are looked up in ``root/src/onlinerank``.
    Paths under the working directory are returned relative to it (Snakemake resolves inputs
    there), so that a moved or copied checkout with its results does not look changed; others are
    absolute.
    """
    root = Path(root).resolve() if root is not None else None
    pkg = (
        root / "src" / "onlinerank"
        if root is not None and (root / "src" / "onlinerank").is_dir()
        else PACKAGE_DIR
    )
    todo = [Path(s).resolve() for s in sources]
    seen: set[Path] = {Path(s).resolve() for s in leaves}
    while todo:
        p = todo.pop()
        if p in seen or p.suffix != ".py":
            continue
        seen.add(p)
        if p != pkg / "__init__.py":  # the package facade: its re-exports are not what steps use
            todo.extend(_imports(p, pkg))

    cwd = Path.cwd().resolve()

    def show(p: Path) -> str:
        return p.relative_to(cwd).as_posix() if p.is_relative_to(cwd) else str(p)

    return sorted(show(p) for p in seen)


def process_age() -> float | None:
    """Seconds since this process started (from Linux's ``/proc``), or None where unknown: the
    start-up a step's log reports."""
    try:
        with open("/proc/self/stat") as f:
            start = int(f.read().rsplit(")", 1)[1].split()[19])  # field 22, starttime in clock ticks
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - start / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def job_settings(snakemake: Any) -> Settings:
    """The settings of a pipeline job: its ``snakemake.config``, which the ``Snakefile`` validated
    and filled (:func:`onlinerank.config.load_settings`) before any job ran, typed directly
    (:func:`onlinerank.settings.typed_settings`, no second validation).  The one way a step's
    script gets its settings."""
    return typed_settings(snakemake.config)


def run(snakemake: Any, body: Callable[[logging.Logger], None]) -> None:
    """Run a step's ``body(log)`` with the rule's log file as the logger's destination; the log's
    first line is the job's start-up (seconds since the process started and its CPU seconds so
    far), its last the step's own time; on an exception the traceback goes to the log file as
    well, then the step fails."""
    log = logging.getLogger("onlinerank")
    log.setLevel(logging.INFO)
    path = snakemake.log[0] if len(snakemake.log) else None
    handler = logging.FileHandler(path, mode="w") if path else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    try:
        age, cpu = process_age(), time.process_time()
        log.info(
            "start-up %s%.2f s CPU (interpreter, Snakemake's script preamble, imports)",
            "" if age is None else f"{age:.2f} s, ",
            cpu,
        )
        t0 = time.perf_counter()
        body(log)
        log.info("step %.2f s, %.2f s CPU", time.perf_counter() - t0, time.process_time() - cpu)
    except BaseException:
        log.error("step failed:\n%s", traceback.format_exc())
        raise
    finally:
        handler.close()
        log.removeHandler(handler)
