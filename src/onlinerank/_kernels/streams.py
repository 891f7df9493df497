"""The random streams of the compiled kernels (their seeds come from :mod:`onlinerank.seeding`).

* SplitMix64: ``_mix`` is :func:`onlinerank.seeding.mix64` itself, compiled, and ``_round_seed``
  is :func:`onlinerank.seeding.draw_seeds` for one key and round (the per-round seed of a
  replicate; tested equal).  The samplers of :mod:`.onlinerank` draw from the counter
  ``mix(state0 + (i + 1) * WEYL_INCREMENT)`` of such a seed.
* numpy's ``np.random.default_rng(seed).permutation(n)``, copied (the uniform ranking's orders,
  :class:`onlinerank.learners.simple.UniformRanking`, in the compiled block path):
  ``SeedSequence(seed)`` -> four uint64 words (:func:`_seed_sequence_state4`) -> ``PCG64``
  (128-bit LCG, XSL-RR output, 32-bit draws buffered from 64-bit ones; :func:`_pcg64_seeded`)
  -> ``Generator.shuffle`` (Fisher-Yates from the top, bounded draws by masked rejection).  The
  same integer arithmetic as numpy's C code.  numpy does not promise to keep this stream across
  versions, so ``tests/test_streams.py`` pins the copy, piece by piece (SeedSequence words, PCG64
  state, raw 64-bit draws, permutations of many seeds and sizes), against the installed numpy
  and names the numpy version if they diverge.  Checked against numpy 2.4.6 (the lock,
  ``requirements/*.txt``) by those tests; numpy 1.26.4 (the oldest ``pyproject.toml`` allows)
  and 2.0.2 give the same SeedSequence words, PCG64 states, raw draws and permutations as 2.4.6
  for the tests' seeds and sizes (compared once, outside the tests).  The branch for bounds above
  ``2**32`` (more than ``2**32`` items) is numpy's too but no test reaches it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..seeding import WEYL_INCREMENT as _WEYL_INCREMENT
from ..seeding import mix64
from . import compile_once

#: SplitMix64 finaliser: the one definition in :mod:`onlinerank.seeding`, compiled here
_mix = njit(cache=True, error_model="numpy")(mix64)


@njit(cache=True, error_model="numpy")
def _round_seed(key, t):
    """``seeding.draw_seeds`` for one key and round ``t`` (same SplitMix64 steps; tested equal)."""
    tt = np.uint64(t)
    return _mix(_mix((key ^ tt) + _WEYL_INCREMENT) + tt + _WEYL_INCREMENT)


# ------------------------------------------------------------------------------------------------
# numpy's ``np.random.default_rng(seed).permutation(n)``, compiled (the uniform ranking's draws)
# ------------------------------------------------------------------------------------------------
_M32 = np.uint64(0xFFFFFFFF)
_SS_INIT_A = np.uint64(0x43B0D7E5)
_SS_MULT_A = np.uint64(0x931E8875)
_SS_INIT_B = np.uint64(0x8B51F9DD)
_SS_MULT_B = np.uint64(0x58F38DED)
_SS_MIX_L = np.uint64(0xCA01F9DD)
_SS_MIX_R = np.uint64(0x4973F715)
_U16 = np.uint64(16)
_U32 = np.uint64(32)
_U63 = np.uint64(63)
_U64 = np.uint64(64)
_U122_HI = np.uint64(122 - 64)
_PCG_MULT_HI = np.uint64(2549297995355413924)
_PCG_MULT_LO = np.uint64(4865540595714422341)


@njit(cache=True, error_model="numpy")
def _mulhi64(a, b):
    """High 64 bits of the 128-bit product of two uint64."""
    a0 = a & _M32
    a1 = a >> _U32
    b0 = b & _M32
    b1 = b >> _U32
    p0 = a0 * b0
    p1 = a0 * b1
    p2 = a1 * b0
    mid = (p0 >> _U32) + (p1 & _M32) + (p2 & _M32)
    return a1 * b1 + (p1 >> _U32) + (p2 >> _U32) + (mid >> _U32)


@njit(cache=True, error_model="numpy")
def _ss_hashmix(value, h):
    """SeedSequence's hashmix on uint32 values held in uint64; returns (value, new hash const)."""
    value = (value ^ h) & _M32
    h = (h * _SS_MULT_A) & _M32
    value = (value * h) & _M32
    return value ^ (value >> _U16), h


@njit(cache=True, error_model="numpy")
def _ss_mix(x, y):
    r = (_SS_MIX_L * x - _SS_MIX_R * y) & _M32
    return r ^ (r >> _U16)


@njit(cache=True, error_model="numpy")
def _pcg_step(hi, lo, ihi, ilo):
    """state * MULT + inc modulo 2^128, state and inc as (high, low) uint64 halves."""
    nlo = lo * _PCG_MULT_LO
    nhi = hi * _PCG_MULT_LO + lo * _PCG_MULT_HI + _mulhi64(lo, _PCG_MULT_LO)
    lo2 = nlo + ilo
    return nhi + ihi + np.uint64(lo2 < ilo), lo2


@njit(cache=True, error_model="numpy")
def _pcg_output(hi, lo):
    """XSL-RR: rotate right (high ^ low) by the top 6 bits of the state."""
    x = hi ^ lo
    rot = hi >> _U122_HI
    return (x >> rot) | (x << ((_U64 - rot) & _U63))


@njit(cache=True, error_model="numpy")
def _seed_sequence_state4(seed):
    """``np.random.SeedSequence(int(seed)).generate_state(4, np.uint64)``, as four uint64."""
    # SeedSequence(seed): entropy words (little-endian uint32), pool of 4, mixed
    ent0 = seed & _M32
    ent1 = seed >> _U32
    nent = 2 if ent1 != 0 else 1
    pool = np.empty(4, dtype=np.uint64)
    h = _SS_INIT_A
    for i in range(4):
        v = ent0 if i == 0 else (ent1 if i == 1 and nent == 2 else np.uint64(0))
        pool[i], h = _ss_hashmix(v, h)
    for s in range(4):
        for d in range(4):
            if s != d:
                hv, h = _ss_hashmix(pool[s], h)
                pool[d] = _ss_mix(pool[d], hv)
    # generate_state(4, uint64): 8 uint32 words, pairs little-endian
    hb = _SS_INIT_B
    words = np.empty(8, dtype=np.uint64)
    for i in range(8):
        v = pool[i % 4] ^ hb
        hb = (hb * _SS_MULT_B) & _M32
        v = (v * hb) & _M32
        words[i] = v ^ (v >> _U16)
    s0 = words[0] | (words[1] << _U32)
    s1 = words[2] | (words[3] << _U32)
    s2 = words[4] | (words[5] << _U32)
    s3 = words[6] | (words[7] << _U32)
    return s0, s1, s2, s3


@njit(cache=True, error_model="numpy")
def _pcg64_seeded(seed):
    """The state of ``np.random.PCG64(int(seed))``, as uint64 halves ``(state_hi, state_lo,
    inc_hi, inc_lo)`` (numpy's ``bit_generator.state["state"]``)."""
    s0, s1, s2, s3 = _seed_sequence_state4(seed)
    # PCG64 seeding: state = 0; inc = (initseq << 1) | 1; step; state += initstate; step
    ihi = (s2 << np.uint64(1)) | (s3 >> _U63)
    ilo = (s3 << np.uint64(1)) | np.uint64(1)
    hi, lo = _pcg_step(np.uint64(0), np.uint64(0), ihi, ilo)
    lo2 = lo + s1
    hi = hi + s0 + np.uint64(lo2 < s1)
    hi, lo = _pcg_step(hi, lo2, ihi, ilo)
    return hi, lo, ihi, ilo


@njit(cache=True, error_model="numpy")
def _default_rng_permutation(seed, out):
    """``out[:] = np.random.default_rng(int(seed)).permutation(out.size)``."""
    n = out.shape[0]
    hi, lo, ihi, ilo = _pcg64_seeded(seed)
    # Fisher-Yates from the top; bounded draws by masked rejection on buffered 32-bit outputs
    has32 = False
    buf = np.uint64(0)
    for i in range(n):
        out[i] = i
    for i in range(n - 1, 0, -1):
        mx = np.uint64(i)
        mask = mx
        mask |= mask >> np.uint64(1)
        mask |= mask >> np.uint64(2)
        mask |= mask >> np.uint64(4)
        mask |= mask >> np.uint64(8)
        mask |= mask >> _U16
        mask |= mask >> _U32
        while True:
            if mx <= _M32:
                if has32:
                    has32 = False
                    v = buf
                else:
                    hi, lo = _pcg_step(hi, lo, ihi, ilo)
                    z = _pcg_output(hi, lo)
                    has32 = True
                    buf = z >> _U32
                    v = z & _M32
            else:
                hi, lo = _pcg_step(hi, lo, ihi, ilo)
                v = _pcg_output(hi, lo)
            v &= mask
            if v <= mx:
                break
        j = np.int64(v)
        t = out[i]
        out[i] = out[j]
        out[j] = t


compile_once(globals())
