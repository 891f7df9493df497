"""Named random streams (design §seeding).

Every random stream in the project is ``SeedSequence(root_seed, spawn_key=key(*names))`` where the
names say *what* is simulated (cell, replicate, role), never where or when it runs.  Hence results
are bit-identical whatever the number of cores, the sharding into blocks or the job order.

Replicates are the unit of randomness: replicate ``r`` of a cell always draws from the streams
named ``(*cell, "rep", r, role)``, so a block of replicates computed alone gives the same numbers
as the same replicates computed inside a larger block.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "spawn_key",
    "stream",
    "replicate_streams",
    "replicate_keys",
    "draw_seeds",
    "row_uniforms",
    "mix64",
    "splitmix64",
    "WEYL_INCREMENT",
]


def _name_to_int(name: object) -> int:
    if isinstance(name, bool) or not isinstance(name, (str, int, np.integer, float)):
        raise TypeError(f"stream names must be str, int or float, got {type(name).__name__}")
    text = f"{type(name).__name__ if not isinstance(name, np.integer) else 'int'}:{name}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def spawn_key(*names: object) -> tuple[int, ...]:
    """Map human-readable names to a ``SeedSequence`` spawn key (sha256 of each name)."""
    return tuple(_name_to_int(x) for x in names)


def stream(root_seed: int, *names: object) -> np.random.Generator:
    """The generator named by ``names`` under ``root_seed``."""
    return np.random.default_rng(np.random.SeedSequence(int(root_seed), spawn_key=spawn_key(*names)))


def replicate_streams(
    root_seed: int, names: Iterable[object], reps: Iterable[int], role: str
) -> list[np.random.Generator]:
    """One generator per replicate index: ``stream(root, *names, "rep", r, role)``."""
    names = tuple(names)
    return [stream(root_seed, *names, "rep", int(r), role) for r in reps]


def replicate_keys(root_seed: int, names: Iterable[object], reps: Iterable[int], role: str) -> np.ndarray:
    """One uint64 key per replicate (for counter-based per-round seeds, see ``round_seeds``)."""
    names = tuple(names)
    return np.array(
        [
            np.random.SeedSequence(
                int(root_seed), spawn_key=spawn_key(*names, "rep", int(r), role)
            ).generate_state(1, np.uint64)[0]
            for r in reps
        ],
        dtype=np.uint64,
    )


# --- SplitMix64, the one counter-based generator of the project ------------------------------------
# Constants and the finaliser ``mix64`` are defined here once.  ``mix64`` is plain arithmetic on
# ``np.uint64`` (scalars or arrays), so the numba kernels compile this very function
# (``_kernels.streams._mix = njit(seeding.mix64)``) and this module stays free of numba.
WEYL_INCREMENT = np.uint64(0x9E3779B97F4A7C15)  # SplitMix64's step: 2^64 / the golden ratio, an odd integer
MIX_C1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_C2 = np.uint64(0x94D049BB133111EB)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_TWO_M53 = 1.0 / 9007199254740992.0  # 2**-53


def mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser, a bijection of uint64 (wrapping arithmetic; callers in numpy silence
    the overflow warnings of uint64 scalars with ``np.errstate(over="ignore")``)."""
    z = (z ^ (z >> _S30)) * MIX_C1
    z = (z ^ (z >> _S27)) * MIX_C2
    return z ^ (z >> _S31)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """One SplitMix64 step from state ``x``: ``mix64(x + WEYL_INCREMENT)``."""
    return mix64(x + WEYL_INCREMENT)


def draw_seeds(keys: np.ndarray, t: ArrayLike) -> np.ndarray:
    """Per-replicate uint64 seed for round ``t``: a counter-based hash of (key, t).

    No sequential state, so the seed of replicate r at round t does not depend on blocks, chunks
    or on how many rounds were simulated before.  ``t`` may be an array (broadcast against
    ``keys``), which gives the seeds of a whole block of rounds at once.  The compiled engine
    computes the same function (``_kernels.streams._round_seed``, tested equal).
    """
    t = np.asarray(t, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return splitmix64(splitmix64(keys ^ t) + t)


def row_uniforms(seeds: np.ndarray, m: int) -> np.ndarray:
    """``m`` uniforms in [0, 1) per row, row r a function of ``seeds[r]`` only, shape (R, m).

    Counter-based SplitMix64: the row's state is ``splitmix64(seed)`` and its i-th output is
    ``mix64(state + (i+1) * WEYL_INCREMENT)`` (the SplitMix64 sequence), mapped to 53-bit uniforms.
    Vectorised over rows, and a row never depends on the other rows of the batch.
    """
    s = np.ascontiguousarray(seeds, dtype=np.uint64).reshape(-1)
    with np.errstate(over="ignore"):
        state = splitmix64(s)
        ctr = (np.arange(1, m + 1, dtype=np.uint64) * WEYL_INCREMENT)[None, :]
        z = mix64(state[:, None] + ctr)
    return (z >> _S11).astype(np.float64) * _TWO_M53
