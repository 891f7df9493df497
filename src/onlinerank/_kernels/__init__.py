"""The compiled (numba) kernels, one module per job.

* :mod:`.onlinerank` -- OnlineRank (theory §2): Plackett–Luce keys, QuickSort (Algorithm 2), the
  cached weights and the histogram of integer scores, the exact expected losses, and the block
  round loop ``play_items`` (simulate's hot loop);
* :mod:`.baselines` -- Follow-the-Leader and the uniform ranking on blocks of choice feedback;
* :mod:`.feedback` -- choice feedback: the cumulative score counts, and the loss of an order as
  the positions of the chosen items (counted, not sorted);
* :mod:`.streams` -- the random streams: the SplitMix64 finaliser and the per-round seeds of
  :mod:`onlinerank.seeding`, and a compiled copy of numpy's ``default_rng(seed).permutation``;
* :mod:`.worst_case` -- the layers of the exact worst-case DP (:mod:`onlinerank.worst_case`);
* :mod:`.adversaries` -- the greedy adaptive adversary's score counts and feedback sets.

They import numba, so their callers import them lazily, on first use (``import onlinerank`` stays
light).  Importing any of them first runs this package's start-up, once per process:
:func:`_load_numba_without_blas_probe`, :func:`_random_function_ids` and :func:`_drop_stale_caches`;
each kernel module ends with :func:`compile_once`, so that processes started together (a run's
first jobs, the test suite's workers) compile a kernel once between them rather than once each.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any


def _load_numba_without_blas_probe() -> None:
    """Start-up: numba's first compile or cache load imports ``numba.np.arraymath``, whose BLAS
    probe imports ``scipy.linalg`` (~0.3 s, a third of a simulate job's numba start-up) only to
    choose how ``np.correlate``/``np.convolve`` are compiled -- which these kernels never use.
    Import it here with the probe answering "no BLAS" (those two then use numba's own loop in
    this process; ``np.dot`` & co. still find BLAS when compiled).  A no-op when scipy.linalg is
    already loaded (the probe is then free) or numba's internals differ."""
    if "scipy.linalg" in sys.modules or "numba.np.arraymath" in sys.modules:
        return
    try:
        import numba.np.linalg as linalg  # lazy: numba's internals, only when the patch applies
    except ImportError:  # pragma: no cover - other numba layout
        return
    probe = getattr(linalg, "ensure_blas", None)
    if probe is None:  # pragma: no cover
        return

    def no_blas() -> None:
        raise ImportError("BLAS probe skipped at start-up by onlinerank._kernels")

    linalg.ensure_blas = no_blas
    try:
        import numba.np.arraymath  # noqa: F401  (lazy: registers the patched functions)
    finally:
        linalg.ensure_blas = probe


class RandomIds:
    """An endless iterator of random 64-bit integers, each from ``os.urandom``: nothing to share
    between processes, forked ones included."""

    def __iter__(self) -> RandomIds:
        return self

    def __next__(self) -> int:
        return int.from_bytes(os.urandom(8), "little")


def _random_function_ids() -> None:
    """Start-up: numba names every function it compiles with a number from a process-wide counter
    (``FunctionIdentity._unique_ids``, 1, 2, 3, ...), and a kernel's cache holds the compiled code of
    the functions it calls under those names.  Two processes that compile two different functions
    of the same qualified name -- the closures numba makes for each kind of sort, or a factory's
    closures -- can give both the same number; a third process that loads the two caches then
    runs one body for both names (numba issues #10486 and #10128): wrong values or a crash.  Both
    showed in clean clones' test runs here, where the test workers and the pipeline's jobs
    compile the kernels side by side, most likely from this clash: ``hist_build``'s sort returning
    nonsense, and the greedy adversary's argsort (``greater_counts``) crashing two processes with
    SIGSEGV.  Random 64-bit numbers instead make two names of different processes equal with
    probability 2^-64 a pair (tests/test_kernels.py).  A no-op where numba's internals differ."""
    try:
        from numba.core.bytecode import FunctionIdentity  # lazy: numba's internals, at start-up
    except ImportError:  # pragma: no cover - other numba layout
        return
    if hasattr(FunctionIdentity, "_unique_ids") and not isinstance(FunctionIdentity._unique_ids, RandomIds):
        FunctionIdentity._unique_ids = RandomIds()  # type: ignore[assignment]  # any iterator of ints


#: the file, next to the compiled caches, that records the digest of the sources they were built from
SOURCES_STAMP = "onlinerank-kernels.sources"


def _sources() -> list[Path]:
    """The sources of every compiled kernel: this package's modules and ``seeding.py`` (whose
    ``mix64`` the streams compile)."""
    here = Path(__file__).resolve().parent
    return sorted(here.glob("*.py")) + [here.parent / "seeding.py"]


def sources_digest(sources: Iterable[Path]) -> str:
    """sha256 of the names and contents of ``sources``."""
    h = hashlib.sha256()
    for p in sources:
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def drop_stale_caches(cache_dir: Path, digest: str) -> bool:
    """Delete the numba caches (``*.nbi``, ``*.nbc``) in ``cache_dir`` unless its stamp records
    ``digest``; then record it.  True if caches were dropped (or none was recorded yet)."""
    stamp = cache_dir / SOURCES_STAMP
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    for f in [*cache_dir.glob("*.nbi"), *cache_dir.glob("*.nbc")]:
        f.unlink(missing_ok=True)
    tmp = cache_dir / f"{SOURCES_STAMP}.{os.getpid()}.tmp"
    tmp.write_text(digest)
    os.replace(tmp, stamp)
    return True


def _drop_stale_caches() -> None:
    """Start-up: numba keys the cache of a compiled function on its own source file only, and a
    cached kernel holds the compiled code of every kernel it calls.  These modules call each other
    (:mod:`.onlinerank` and :mod:`.baselines` call :mod:`.streams` and :mod:`.feedback`), so an
    edit of a callee's file would leave its callers' caches running the old callee.  Their caches
    are therefore valid together only: when the digest of the package's sources differs from the
    one recorded next to the caches, all of them are dropped (numba recompiles; a concurrent
    process that loses a cache file it was about to read recompiles too).  A no-op when numba
    cannot cache here or its internals differ."""
    try:
        from numba.core.caching import FunctionCache  # lazy: numba's internals, only when checked

        cache_dir = Path(FunctionCache(_drop_stale_caches)._cache_path)
        drop_stale_caches(cache_dir, sources_digest(_sources()))
    except Exception:  # pragma: no cover - other numba layout, or a cache directory not writable
        return


#: the file, next to the compiled caches, whose byte locks let one process at a time compile a kernel
COMPILE_LOCK = "onlinerank-kernels.lock"
_LOCK_FD: list[int | None] = []  # the lock file's descriptor, opened once per process (None: no lock)
_HELD: dict[int, int] = {}  # byte -> depth of this process's compiles holding it
_THREADS = threading.RLock()  # POSIX locks belong to the process: its threads take turns here


def _lock_fd() -> int | None:
    if not _LOCK_FD:
        try:
            from numba.core.caching import FunctionCache  # lazy: numba's internals, on the first lock

            cache_dir = Path(FunctionCache(_drop_stale_caches)._cache_path)
            cache_dir.mkdir(parents=True, exist_ok=True)
            _LOCK_FD.append(os.open(cache_dir / COMPILE_LOCK, os.O_RDWR | os.O_CREAT, 0o666))
        except Exception:  # pragma: no cover - other numba layout, or a cache directory not writable
            _LOCK_FD.append(None)
    return _LOCK_FD[0]


def _lock_byte(name: str) -> int:
    """The byte of :data:`COMPILE_LOCK` that kernel ``name`` locks (32 bits of its name's hash)."""
    return int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)


@contextlib.contextmanager
def kernel_lock(name: str) -> Iterator[None]:
    """Hold kernel ``name``'s lock: an exclusive POSIX lock on one byte of :data:`COMPILE_LOCK`
    (chosen by the name's hash), shared by every process using this cache directory (the lock
    also works across the hosts of a shared file system that supports ``fcntl`` locks).  Nested
    holds by this process (a kernel compiling the kernels it calls) take it once.  Where the file
    cannot be locked the block runs unlocked: numba's own behaviour."""
    with _THREADS:
        fd = _lock_fd()
        byte = _lock_byte(name)
        locked = False
        if fd is not None and not _HELD.get(byte):
            try:
                import fcntl  # lazy: POSIX only; without it the block runs unlocked

                fcntl.lockf(fd, fcntl.LOCK_EX, 1, byte)
                locked = True
            except (ImportError, OSError):  # no fcntl, or no locks on this file system
                pass
        _HELD[byte] = _HELD.get(byte, 0) + 1
        try:
            yield
        finally:
            _HELD[byte] -= 1
            if locked and fd is not None:
                fcntl.lockf(fd, fcntl.LOCK_UN, 1, byte)


def compile_once(namespace: dict[str, Any]) -> None:
    """Start-up of a kernel module, its last line (``compile_once(globals())``): every numba
    kernel of ``namespace`` loads or compiles a new signature under its :func:`kernel_lock`.
    Numba compiles a kernel whose cache is missing in every process that calls it, side by side;
    under the lock the first process compiles and writes the cache, the others wait for it and
    load the cache (numba reads the cache index again on each load).  A signature already in
    memory takes no lock."""
    try:
        # lazy: numba's internals, a layout that may differ between numba versions
        from numba.core import sigutils
        from numba.core.registry import CPUDispatcher
    except ImportError:  # pragma: no cover - other numba layout
        return
    for value in list(namespace.values()):
        if not isinstance(value, CPUDispatcher) or "compile" in vars(value):
            continue
        original = value.compile
        name = f"{value.py_func.__module__}.{value.py_func.__qualname__}"

        def compile(sig, original=original, name=name, dispatcher=value):
            args, _ = sigutils.normalize_signature(sig)
            if tuple(args) in dispatcher.overloads:
                return original(sig)
            with kernel_lock(name):
                return original(sig)

        value.compile = compile  # type: ignore[method-assign]  # this instance only


_load_numba_without_blas_probe()
_random_function_ids()
_drop_stale_caches()
