"""Named random streams (ARCHITECTURE §1.5).

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

__all__ = ["spawn_key", "stream", "replicate_streams", "replicate_keys", "draw_seeds"]


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


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _splitmix64(x: np.ndarray) -> np.ndarray:
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def draw_seeds(keys: np.ndarray, t: int) -> np.ndarray:
    """Per-replicate uint64 seed for round ``t``: a counter-based hash of (key, t).

    No sequential state, so the seed of replicate r at round t does not depend on blocks, chunks
    or on how many rounds were simulated before.
    """
    with np.errstate(over="ignore"):
        return _splitmix64(_splitmix64(keys ^ np.uint64(t)) + np.uint64(t))
