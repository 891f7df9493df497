"""The layout of the compiled kernels (:mod:`onlinerank._kernels`): every kernel a caller looks up is
where it looks, and the package's start-up (no BLAS probe, caches dropped together) holds for every
kernel module."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

import onlinerank._kernels as kernels_package
from onlinerank import samplers
from onlinerank._kernels import drop_stale_caches, sources_digest

PKG = ROOT / "src" / "onlinerank"
KERNELS = "onlinerank._kernels"


def _module_of(path: Path) -> str:
    parts = ["onlinerank", *path.relative_to(PKG).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _kernel_lookups(path: Path) -> list[tuple[str, str]]:
    """``(module, name)`` for every kernel ``path`` looks up: ``from <kernel module> import name``,
    and ``K.name`` where ``K`` is bound to a kernel module (``from ._kernels import m as K``,
    ``K = _kern()``, or ``self.K = K``).  The callers import the kernels inside functions (numba
    start-up), so a kernel that moved fails only when its path runs: this reads them all."""
    tree = ast.parse(path.read_text())
    me = _module_of(path)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    aliases: dict[str, str] = {}
    found: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)] if node.level else []
            module = ".".join(base + [node.module] if node.module else base) if node.level else node.module
            if module is None or not (module == KERNELS or module.startswith(KERNELS + ".")):
                continue
            for a in node.names:
                found.append((module, a.name))
                if module == KERNELS:
                    aliases[a.asname or a.name] = f"{module}.{a.name}"
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            f = node.value.func
            if isinstance(f, ast.Name) and f.id == "_kern":
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        aliases[t.id] = samplers._kern().__name__
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        v = node.value
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "_kern":
            found.append((samplers._kern().__name__, node.attr))
        elif isinstance(v, ast.Name) and v.id in aliases:
            found.append((aliases[v.id], node.attr))
        elif isinstance(v, ast.Attribute) and v.attr in aliases:  # self.K
            found.append((aliases[v.attr], node.attr))
    return found


def test_every_kernel_a_caller_looks_up_is_where_it_looks():
    callers = [p for p in sorted(PKG.rglob("*.py")) if "_kernels" not in p.relative_to(PKG).parts]
    lookups = {(p.relative_to(PKG).as_posix(), m, n) for p in callers for m, n in _kernel_lookups(p)}
    missing = [
        (caller, m, n)
        for caller, m, n in sorted(lookups)
        if not hasattr(importlib.import_module(m), n) and importlib.util.find_spec(f"{m}.{n}") is None
    ]
    assert not missing, missing
    # the scan sees the callers of every job's module
    modules = {m for _, m, _ in lookups}
    for job in ("onlinerank", "baselines", "feedback", "worst_case", "adversaries"):
        assert f"{KERNELS}.{job}" in modules, job
    assert ("samplers.py", f"{KERNELS}.onlinerank", "qs_rows") in lookups
    assert ("logweights.py", f"{KERNELS}.onlinerank", "play_items") in lookups


def test_a_kernel_module_starts_numba_without_the_blas_probe():
    """Importing a kernel module runs the package's start-up (every kernel module is in the
    package): ``numba.np.arraymath`` is loaded with its BLAS probe answering "no BLAS", so a
    compiled call (here loaded from the cache or compiled) does not import scipy.linalg."""
    code = (
        "import sys; import numpy as np; "
        "from onlinerank._kernels.feedback import add_item_counts; "
        "S = np.zeros((1, 3)); add_item_counts(S, np.ones((1, 2, 1), dtype=np.int64)); "
        "print(S[0, 1], 'numba.np.arraymath' in sys.modules, 'scipy.linalg' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["2.0", "True", "False"], out.stderr


def test_the_caches_of_the_kernels_are_dropped_together(tmp_path):
    """numba keys a cache on its own source file, while a cached kernel holds the code of the
    kernels it calls in other files: a change of any kernel source drops every cache."""
    caches = ["onlinerank.play_items-976.py311.nbi", "onlinerank.play_items-976.py311.1.nbc"]
    other = tmp_path / "onlinerank.cpython-311.pyc"

    def populate() -> None:
        for name in caches:
            (tmp_path / name).write_bytes(b"compiled")
        other.write_bytes(b"bytecode")

    populate()
    assert drop_stale_caches(tmp_path, "a")  # no digest recorded yet: dropped
    assert not any((tmp_path / c).exists() for c in caches) and other.exists()
    populate()
    assert not drop_stale_caches(tmp_path, "a")  # same sources: kept
    assert all((tmp_path / c).exists() for c in caches)
    assert drop_stale_caches(tmp_path, "b")  # a source changed: dropped
    assert not any((tmp_path / c).exists() for c in caches) and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([other.name, kernels_package.SOURCES_STAMP])


def test_the_sources_digest_covers_every_kernel_module_and_mix64(tmp_path):
    files = {p.name for p in kernels_package._sources()}
    assert {p.name for p in (PKG / "_kernels").glob("*.py")} | {"seeding.py"} == files
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    before = sources_digest([a, b])
    b.write_text("y = 3\n")
    assert sources_digest([a, b]) != before


_CALL_ADD_ITEM_COUNTS = """
import sys
import numpy as np
from onlinerank._kernels.feedback import add_item_counts
print("ready", flush=True)
S = np.zeros((1, 3)); add_item_counts(S, np.ones((1, 2, 1), dtype=np.int64))
print(S[0, 1], sum(add_item_counts._cache_misses.values()), sum(add_item_counts._cache_hits.values()))
"""


def test_processes_started_together_compile_a_kernel_once(tmp_path):
    """Two processes call a kernel that has no cache yet, both waiting on its lock (held here)
    when it is released: one compiles and writes the cache, the other loads it (numba's counts of
    cache misses and hits); without the lock both would compile."""
    import fcntl
    import shutil
    import time

    from onlinerank._kernels import COMPILE_LOCK, _lock_byte

    shutil.copytree(PKG, tmp_path / "onlinerank", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "onlinerank" / "_kernels" / "__pycache__"
    cache.mkdir()
    env = {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}
    with open(cache / COMPILE_LOCK, "a+") as lock:
        byte = _lock_byte("onlinerank._kernels.feedback.add_item_counts")
        fcntl.lockf(lock, fcntl.LOCK_EX, 1, byte)
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", _CALL_ADD_ITEM_COUNTS], env=env, stdout=subprocess.PIPE, text=True
            )
            for _ in range(2)
        ]
        assert [p.stdout.readline().strip() for p in procs] == ["ready", "ready"]
        time.sleep(0.5)  # both are now in the call, on the lock
        fcntl.lockf(lock, fcntl.LOCK_UN, 1, byte)
        outs = sorted(p.communicate(timeout=300)[0].split() for p in procs)
    assert [p.returncode for p in procs] == [0, 0]
    (value_a, misses_a, hits_a), (value_b, misses_b, hits_b) = outs
    assert value_a == value_b == "2.0"
    assert (misses_a, hits_a) == ("0", "1") and int(misses_b) >= 1, outs  # loaded, compiled


CLOSURES = """\
from numba import njit


def make(c):
    @njit
    def helper(n):  # recursive: the caller calls it, LLVM cannot inline it away
        return c if n <= 0 else c + helper(n - 1)

    return helper


h1 = make(1.0)
h2 = make(2.0)


@njit(cache=True)
def f1(n):
    return h1(n)


@njit(cache=True)
def f2(n):
    return h2(n)
"""


def test_caches_written_by_two_processes_call_their_own_closures(tmp_path):
    """Two processes each compile one cached kernel calling a closure of the same qualified name
    (``make.<locals>.helper``, adding 1.0 or 2.0 per level); a third loads both caches and calls
    both.  With numba's counter each process numbers its helper alike and the third process runs
    one body for both (f2(10) gave 11.0, f1's value, in either order); with the random numbers of
    ``onlinerank._kernels`` (imported first, as every kernel module imports it) each kernel keeps
    its own: 11.0 and 22.0 by the recursion's arithmetic."""
    (tmp_path / "closures.py").write_text(CLOSURES)

    def run(code: str) -> list[float]:
        out = subprocess.run(
            [sys.executable, "-c", f"import onlinerank._kernels, closures\n{code}"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        return [float(x) for x in out.stdout.split()]

    assert run("print(closures.f1(10))") == [11.0]  # each compiled and cached in its own process
    assert run("print(closures.f2(10))") == [22.0]
    assert run("print(closures.f1(10), closures.f2(10))") == [11.0, 22.0]  # both loaded from caches
    assert run("print(closures.f2(10), closures.f1(10))") == [22.0, 11.0]
    assert len(list((tmp_path / "__pycache__").glob("closures.f*.nbc"))) == 2


def test_numba_numbers_the_functions_it_compiles_at_random_once_a_kernel_module_is_imported():
    """After ``import onlinerank._kernels`` numba's function numbers are random 64-bit integers,
    different in each process: two processes' first numbers differ, and neither is numba's 1, 2, ...
    (a collision has probability 2^-64)."""
    code = (
        "import onlinerank._kernels\n"
        "from numba.core.bytecode import FunctionIdentity as F\n"
        "print(next(F._unique_ids), next(F._unique_ids))"
    )
    cmd = [sys.executable, "-c", code]
    ids = [subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split() for _ in range(2)]
    flat = [int(x) for pair in ids for x in pair]
    assert len(set(flat)) == 4 and all(0 <= x < 2**64 for x in flat) and min(flat) > 10**6, ids
