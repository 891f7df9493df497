"""The compiled (numba) kernels, one module per job.

* :mod:`.onlinerank` -- OnlineRank (theory §2): Plackett–Luce keys, QuickSort (Algorithm 2), the
  cached weights and the histogram of integer scores, the exact expected losses, and the block
  round loop ``play_items`` (simulate's hot loop);
* :mod:`.baselines` -- Follow-the-Leader and the uniform ranking on blocks of choice feedback;
* :mod:`.feedback` -- choice feedback: the cumulative score counts, and the loss of an order as
  the positions of the chosen items (counted, not sorted);
* :mod:`.streams` -- the random streams: the SplitMix64 finaliser and the per-round seeds of
  :mod:`onlinerank.seeding`, and a compiled copy of numpy's ``default_rng(seed).permutation``;
* :mod:`.worst_case` -- the layers of the exact worst-case DP (:mod:`onlinerank.worst_case`).

They import numba, so their callers import them lazily, on first use (``import onlinerank`` stays
light).  Importing any of them first runs this package's start-up, once per process:
:func:`_load_numba_without_blas_probe` and :func:`_drop_stale_caches`.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterable
from pathlib import Path


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


_load_numba_without_blas_probe()
_drop_stale_caches()
