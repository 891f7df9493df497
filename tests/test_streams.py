"""The random streams of the compiled kernels (:mod:`onlinerank._kernels.streams`).

The uniform ranking draws ``np.random.default_rng(seed).permutation(n)``: its per-round path calls
numpy, its compiled block path the copy of numpy's SeedSequence + PCG64 + shuffle that
``streams.py``'s docstring describes.  These tests pin the copy to the installed numpy piece by
piece: a numpy whose stream changed fails here, naming the piece, the seed and the numpy version,
instead of showing up as block and per-round results that differ.
"""

from __future__ import annotations

import re

import numpy as np
from conftest import ROOT

from onlinerank._kernels import streams
from onlinerank.seeding import draw_seeds, mix64

rng = np.random.default_rng(11)
#: 0, the ends of the one- and two-word entropy of SeedSequence, and random 64-bit seeds
SEEDS = [0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1] + [int(x) for x in rng.integers(0, 2**64, 300, np.uint64)]
#: sizes whose bounded draws take every mask width up to 17 bits, and reject (n - 1 not 2^j - 1)
SIZES = [0, 1, 2, 3, 5, 17, 64, 65, 100, 257, 1000, 4097, 65537]


def _diverged(piece: str, seed: int, detail: str = "") -> str:
    return (
        f"the compiled copy of numpy's {piece} (onlinerank/_kernels/streams.py) diverged from the stream "
        f"of numpy {np.__version__} at seed {seed}{detail}: numpy changed its stream, so the uniform "
        "ranking's compiled block path no longer draws the orders of its per-round path "
        "(default_rng(seed).permutation).  Port numpy's change to streams.py (and name this numpy "
        "version in its docstring), or keep numpy at a version the copy was checked against (docstring)."
    )


def test_seed_sequence_words_equal_numpy():
    for seed in SEEDS:
        got = np.array(streams._seed_sequence_state4(np.uint64(seed)), dtype=np.uint64)
        want = np.random.SeedSequence(seed).generate_state(4, np.uint64)
        assert np.array_equal(got, want), _diverged("SeedSequence(seed).generate_state(4, uint64)", seed)


def test_pcg64_state_and_raw_draws_equal_numpy():
    for seed in SEEDS:
        hi, lo, ihi, ilo = streams._pcg64_seeded(np.uint64(seed))
        want = np.random.PCG64(seed).state["state"]
        got = {"state": (int(hi) << 64) | int(lo), "inc": (int(ihi) << 64) | int(ilo)}
        assert got == want, _diverged("PCG64(seed) seeding", seed)
        u = np.uint64  # numba returns Python ints: typed back as uint64, not int64
        draws = []
        for _ in range(8):
            hi, lo = streams._pcg_step(u(hi), u(lo), u(ihi), u(ilo))
            draws.append(streams._pcg_output(u(hi), u(lo)))
        raw = np.random.PCG64(seed).random_raw(8)
        assert np.array_equal(np.array(draws, dtype=np.uint64), raw), _diverged("PCG64 random_raw", seed)


def test_permutation_equals_numpy():
    """Every seed with one size, every size with many seeds (the bounded draws by masked
    rejection on 32-bit halves of the 64-bit draws, Fisher-Yates from the top)."""
    for i, seed in enumerate(SEEDS):
        n = SIZES[i % len(SIZES)]
        out = np.empty(n, dtype=np.int64)
        streams._default_rng_permutation(np.uint64(seed), out)
        want = np.random.default_rng(seed).permutation(n)
        assert np.array_equal(out, want), _diverged("default_rng(seed).permutation(n)", seed, f", n = {n}")


def test_the_docstring_names_the_locked_numpy():
    """The module docstring says which numpy versions the copy was checked against: the lock's
    numpy (the one these tests run under in ``make test``) among them."""
    locked = re.search(r"^numpy==(\S+)", (ROOT / "requirements" / "workflow.txt").read_text(), re.M)
    assert locked is not None
    assert f"numpy {locked.group(1)}" in (streams.__doc__ or ""), (
        f"the lock moved numpy to {locked.group(1)}: run tests/test_streams.py under it and name it in "
        "the docstring of onlinerank/_kernels/streams.py"
    )


def test_compiled_splitmix_and_round_seeds_equal_numpy():
    """The kernels compile seeding.mix64 itself; their round seed equals draw_seeds."""
    z = np.random.default_rng(5).integers(0, 2**64, size=200, dtype=np.uint64)
    want = mix64(z)
    assert all(streams._mix(x) == w for x, w in zip(z, want, strict=True))
    for t in (1, 2, 1000, 2**40 + 3):
        seeds = draw_seeds(z, t)
        assert all(streams._round_seed(x, t) == s for x, s in zip(z, seeds, strict=True))
    # a block of rounds at once (array t) equals the rounds one by one
    ts = np.arange(5, 12, dtype=np.uint64)
    np.testing.assert_array_equal(draw_seeds(z[:, None], ts[None, :])[:, 3], draw_seeds(z, 8))
