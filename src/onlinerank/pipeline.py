"""Glue between Snakemake and the package: the code each step depends on, and running a script
with its log.

Snakemake sees neither Python imports nor the config.  :func:`step_code` lists the code a step
really runs: its script, the modules that define what it uses (the plug-ins of its cells, the
claims it evaluates, its figure's or table's declaration), and every module those import,
transitively (:func:`code_inputs`, a static reading of the ``import`` statements, kept between
processes beside the package's bytecode, ``IMPORTS_CACHE``).  So editing a
module reruns exactly the steps that use it, and adding a plug-in module reruns nothing that does
not use it.  :func:`run` executes a step's body with its log file receiving every message and, on
failure, the traceback; :func:`job_settings` is how a step's script gets its settings.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import hashlib
import json
import logging
import os
import sys
import time
import traceback
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from .settings import Settings, typed_settings

__all__ = ["PACKAGE_DIR", "code_inputs", "module_file", "step_code", "job_settings", "process_age", "run"]

#: the directory of the installed package's sources
PACKAGE_DIR = Path(__file__).resolve().parent
#: the folders of a repository holding its own Python packages: the package's sources and the
#: pipeline's (``workflow/mutants``, the mutation tests)
SOURCE_FOLDERS = ("src", "workflow")


@cache
def _module_path(module: str, roots: tuple[Path, ...]) -> Path | None:
    """The source file of the dotted ``module`` of a package under one of ``roots`` (a folder
    holding packages: its first part is a folder with an ``__init__.py`` there), or None."""
    parts = module.split(".")
    for r in roots:
        if not (r / parts[0] / "__init__.py").is_file():
            continue
        base = r.joinpath(*parts)
        for cand in (base.with_suffix(".py"), base / "__init__.py"):
            if cand.is_file():
                return cand
    return None


def module_file(module: str, package_dir: Path = PACKAGE_DIR) -> Path | None:
    """The source file of ``onlinerank.<...>`` module ``module`` (dotted) under ``package_dir``,
    or None."""
    if module.split(".")[0] != "onlinerank":
        return None
    return _module_path(module, (Path(package_dir).parent,))


def _module_name(path: Path, roots: tuple[Path, ...]) -> str | None:
    for r in roots:
        try:
            rel = path.resolve().relative_to(r)
        except ValueError:
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        return ".".join(parts)
    return None


def _imported_names(text: str, module: str | None, is_package: bool) -> tuple[str, ...]:
    """The dotted names imported anywhere in the source ``text`` of ``module`` (module level or
    inside functions), relative imports made absolute; ``from m import a`` gives ``m`` and
    ``m.a`` (``a`` may be a module).  Import statements are statements, so only statement lists
    are walked, not expressions."""
    pkg = module if is_package else (module.rsplit(".", 1)[0] if module and "." in module else None)
    names: list[str] = []
    body = list(ast.parse(text).body)
    while body:
        node = body.pop()
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if pkg is None:
                    continue
                base = pkg.split(".")
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names += [prefix] + [f"{prefix}.{a.name}" for a in node.names]
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            body += getattr(node, field, None) or []
    return tuple(names)


#: the file of :func:`_imported_names`' results kept between processes, in the package's
#: ``__pycache__`` beside Python's bytecode (and, like it, copied with the sources); an entry is
#: keyed by the hash of the source text and the module's name, so a changed file is read again
IMPORTS_CACHE = Path("__pycache__") / "code-imports.json"
#: cache file -> its entries, as loaded (or filled) in this process
_DISK: dict[Path, dict[str, list[str]]] = {}
#: cache files with entries this process added, not yet written
_DIRTY: set[Path] = set()


def _cache_file(roots: tuple[Path, ...]) -> Path:
    return roots[0] / "onlinerank" / IMPORTS_CACHE


def _cached_names(path: Path, roots: tuple[Path, ...]) -> tuple[str, ...]:
    """:func:`_imported_names` of the file ``path``, from the cache file of ``roots`` when it holds
    the file's present text (parsing every module costs a quarter of a second, paid by every
    Snakemake run otherwise)."""
    data = path.read_bytes()
    me = _module_name(path, roots)
    owner = f"{me or path}:{path.name == '__init__.py'}:"  # one entry per file: its present text
    key = owner + hashlib.sha1(data).hexdigest()
    file = _cache_file(roots)
    if file not in _DISK:
        try:
            loaded = json.loads(file.read_text())
            _DISK[file] = loaded if isinstance(loaded, dict) else {}
        except (OSError, ValueError):
            _DISK[file] = {}
    entries = _DISK[file]
    if key not in entries:
        for stale in [k for k in entries if k.startswith(owner)]:
            del entries[stale]
        entries[key] = list(_imported_names(data.decode(), me, path.name == "__init__.py"))
        _DIRTY.add(file)
    return tuple(entries[key])


def _save_cache() -> None:
    """Write the cache files with new entries (atomically, :func:`onlinerank.io.atomic_write_text`:
    other processes may read them or write them at the same time; a file that cannot be written is
    left as it is)."""
    from .io import atomic_write_text  # lazy: numpy with it, loaded by then in a Snakemake run

    for file in list(_DIRTY):
        _DIRTY.discard(file)
        with contextlib.suppress(OSError):
            file.parent.mkdir(exist_ok=True)
            atomic_write_text(file, json.dumps(_DISK[file], sort_keys=True))


@cache
def _imports(path: Path, roots: tuple[Path, ...]) -> tuple[Path, ...]:
    """Modules of the local packages under ``roots`` imported anywhere in ``path`` (module level
    or inside functions)."""
    found = []
    for name in _cached_names(path, roots):
        parts = name.split(".")
        # the module itself and every package on its way (their __init__ runs on import)
        for i in range(1, len(parts) + 1):
            f = _module_path(".".join(parts[:i]), roots)
            if f is not None:
                found.append(f)
    return tuple(dict.fromkeys(found))


def _roots(root: Path | None) -> tuple[Path, ...]:
    """The folders holding the local packages: the repository's :data:`SOURCE_FOLDERS` under
    ``root`` (when it has the package's sources), else the installed package's parent."""
    if root is not None and (root / "src" / "onlinerank").is_dir():
        return tuple(root / f for f in SOURCE_FOLDERS if (root / f).is_dir())
    return (PACKAGE_DIR.parent,)


def code_inputs(*sources: str | Path, root: str | Path | None = None, leaves: tuple = ()) -> list[str]:
    """The files a step's code depends on: the given sources (scripts or modules) and every module
    of the local packages (``onlinerank``; with ``root``, also those of ``workflow/``, the mutation
    tests) they import, transitively; sorted paths.  The top-level ``onlinerank/__init__.py`` (run
    by every import of a submodule) is included but its own imports are not followed: it only
    re-exports the public API, which no step goes through.  ``leaves`` are included without
    following their imports.

    With ``root`` (the repository), the package's modules are looked up in ``root/src``.  Paths
    under the working directory are returned relative to it (Snakemake resolves inputs there), so
    that a moved or copied checkout with its results does not look changed; others are absolute.
    """
    roots = _roots(Path(root).resolve() if root is not None else None)
    files = _closure(
        tuple(Path(s).resolve() for s in sources), frozenset(Path(s).resolve() for s in leaves), roots
    )
    return list(_shown(files, Path.cwd().resolve()))


@cache
def _closure(sources: tuple[Path, ...], leaves: frozenset[Path], roots: tuple[Path, ...]) -> frozenset[Path]:
    """:func:`code_inputs`' files, once per process for the same arguments (as :func:`_imports`
    reads each file once): a Snakemake run asks for the code inputs of every job, most of them
    alike."""
    facade = roots[0] / "onlinerank" / "__init__.py"
    todo = list(sources)
    seen: set[Path] = set(leaves)
    while todo:
        p = todo.pop()
        if p in seen or p.suffix != ".py":
            continue
        seen.add(p)
        if p != facade:  # the package facade: its re-exports are not what steps use
            todo.extend(_imports(p, roots))
    _save_cache()
    return frozenset(seen)


@cache
def _shown(files: frozenset[Path], cwd: Path) -> tuple[str, ...]:
    """``files`` sorted, as paths relative to ``cwd`` where they lie under it."""
    return tuple(sorted(p.relative_to(cwd).as_posix() if p.is_relative_to(cwd) else str(p) for p in files))


def _defining_module(obj: Any) -> str:
    """The dotted name of the module that defines ``obj`` (a module, class or function)."""
    return obj.__name__ if isinstance(obj, ModuleType) else obj.__module__


def step_code(script: str | Path, *uses: Any, root: str | Path | None = None) -> list[str]:
    """The code inputs of a pipeline step (:func:`code_inputs`): its ``script`` and the modules
    defining what it ``uses`` -- modules, plug-in classes, claim builders, figure and table
    functions, the things a step finds in a registry rather than by an import line -- each looked
    up in the repository under ``root``, with everything they import."""
    roots = _roots(Path(root).resolve() if root is not None else None)
    modules = dict.fromkeys(_defining_module(u) for u in uses)
    files = [f for f in (_module_path(m, roots) for m in modules) if f is not None]
    missing = [m for m in modules if _module_path(m, roots) is None]
    if missing:
        raise ValueError(f"step {script}: no source file for module(s) {', '.join(missing)}")
    return code_inputs(script, *files, root=root)


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
    well, then the step fails.

    The objects the script's imports made (modules, classes, numba's types: most of the heap) are
    frozen out of the cyclic collector first (``gc.freeze()``): neither the step's collections nor
    the full ones of the interpreter's exit walk them again (about 0.12 s of the 0.19 s a simulate
    job's process took to exit, timed outside Snakemake).  Nothing the step makes is frozen: its
    garbage is collected, and its finalizers run, at exit as without the freeze."""
    gc.freeze()
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
