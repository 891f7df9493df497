"""The Mallows adversary for Spearman feedback (paper §5): noisy copies of a centre ranking.

Mallows model
-------------
For a centre ranking ``c`` and dispersion ``phi`` in (0, 1]

    P(sigma) = phi^{d_K(sigma, c)} / Z(phi),      Z(phi) = prod_{i=1}^{n} (1 - phi^i) / (1 - phi),

where ``d_K`` is the Kendall tau distance (number of discordant pairs).  ``phi = 1`` is the
uniform law on the n! rankings; ``phi -> 0`` concentrates on the centre.

Exact sampler: repeated insertion (RIM, Doignon–Pekeč–Regenwetter 2004)
------------------------------------------------------------------------
Take the items in centre order ``c_1, c_2, ..., c_n`` (``c_1`` the centre's top item) and build a
list by inserting them one at a time.  When item ``c_i`` is inserted, the list holds
``c_1..c_{i-1}`` (in some order) and ``c_i`` is put at ``J_i`` places *from the end* of the list,
``J_i in {0, ..., i-1}`` (``J_i = 0``: at the bottom, after all of them; ``J_i = i - 1``: at the
top), with

    P(J_i = j) = phi^j / (1 + phi + ... + phi^{i-1}),      independently over i.

Item ``c_i`` then lies above exactly ``J_i`` of ``c_1..c_{i-1}`` — the pairs ``(c_m, c_i)``,
``m < i``, it inverts — and later insertions do not change the relative order of earlier items, so
``d_K(sigma, c) = J_1 + ... + J_n``.  The map ``(J_1..J_n) -> sigma`` is a bijection (an inversion
table), hence ``P(sigma) = prod_i phi^{J_i} / sum_{j<i} phi^j = phi^{d_K(sigma, c)} / Z(phi)``,
exactly the Mallows law.  ``J_i`` is a truncated geometric variable drawn by inversion of its CDF
``P(J_i <= j) = (1 - phi^{j+1}) / (1 - phi^i)`` (for ``phi = 1``: uniform on ``0..i-1``).

Feedback: ``s = -sigma`` with ``sigma[u]`` the position (1..n) of item ``u``.

Centres: ``centre="identity"`` (item ``i`` at position ``i + 1``) or ``"random"`` (a uniform
ranking per replicate).  ``switch_every=P`` ("switching centres") redraws each replicate's centre
uniformly before rounds ``P + 1, 2P + 1, ...``: rounds ``(m-1)P + 1 .. mP`` share one centre.  The
current centre orders are exposed as ``self.centres`` (R, n) (``centres[r, i]`` = item at
position ``i + 1``); after ``feedback(t)`` they are the centres of round ``t``.  Use them e.g. to
follow the learner's Spearman correlation with the centre.

Randomness: at ``reset`` each replicate's generator spawns two child generators, one for the
Mallows noise (drawn a chunk of rounds at a time) and one for the centres, so the noise of a
replicate is the same whatever ``centre``/``switch_every`` are and whatever block it runs in.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ..feedback import Feedback, FeedbackBlock
from ..game import Game
from .base import Adversary, ChunkedDraws, LearnerView, expected_positions, pair_block_bytes, register

__all__ = [
    "MallowsAdversary",
    "mallows_sample",
    "mallows_pmf",
    "mallows_Z",
    "kendall_distance",
    "insertion_codes",
    "codes_to_positions",
]


def _check_phi(phi: float) -> float:
    phi = float(phi)
    if not (0.0 < phi <= 1.0):
        raise ValueError(f"phi must lie in (0, 1], got {phi!r}")
    return phi


def mallows_Z(n: int, phi: float) -> float:
    """Normalising constant ``Z = prod_{i=1}^n (1 + phi + ... + phi^{i-1})``."""
    phi = _check_phi(phi)
    return math.prod(sum(phi**j for j in range(i)) for i in range(1, n + 1))


def kendall_distance(sigma: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """Number of pairs ``{u, v}`` ordered differently by two position vectors (..., n)."""
    sigma, tau = np.asarray(sigma), np.asarray(tau)
    ds = np.sign(sigma[..., :, None] - sigma[..., None, :])
    dt = np.sign(tau[..., :, None] - tau[..., None, :])
    return ((ds * dt) < 0).sum(axis=(-2, -1)) // 2


def insertion_codes(rng: np.random.Generator, phi: float, n: int, size: int) -> np.ndarray:
    """``size`` independent inversion tables ``J`` (size, n), ``J[:, i]`` the number of earlier
    centre items that centre item ``i`` is inserted above (``P(J_i = j) ∝ phi^j``, j < i + 1)."""
    phi = _check_phi(phi)
    i = np.arange(1, n + 1, dtype=np.float64)  # the i-th item (1-based) has i slots
    u = rng.random((size, n))
    if phi == 1.0:
        J = np.floor(u * i)
    else:
        # invert P(J <= j) = (1 - phi^{j+1}) / (1 - phi^i):
        #   J = floor(log(1 - U (1 - phi^i)) / log phi)
        tail = -np.expm1(i * math.log(phi))  # 1 - phi^i, accurate for phi near 1
        J = np.floor(np.log1p(-u * tail) / math.log(phi))
    return np.clip(J, 0, i - 1).astype(np.int64)


def codes_to_positions(J: np.ndarray) -> np.ndarray:
    """0-based final positions (size, n) of the centre items 0..n-1 from inversion tables ``J``.

    Inserting centre item ``i`` ``J_i`` places from the end of a list of ``i`` items puts it at
    0-based index ``i - J_i``; every earlier item at that index or below moves down one place.
    """
    J = np.asarray(J, dtype=np.int64)
    size, n = J.shape
    pos = np.empty((size, n), dtype=np.int64)
    for i in range(n):
        r = i - J[:, i]
        head = pos[:, :i]
        head += head >= r[:, None]
        pos[:, i] = r
    return pos


def _positions_about(rel: np.ndarray, centre_order: np.ndarray) -> np.ndarray:
    """sigma (positions 1..n) with ``sigma[centre_order[k]] = rel[k] + 1`` (row-wise)."""
    sigma = np.empty_like(rel)
    np.put_along_axis(sigma, np.broadcast_to(centre_order, rel.shape), rel + 1, axis=-1)
    return sigma


def mallows_sample(
    n: int, phi: float, centre_order: ArrayLike | None, rng: np.random.Generator, size: int | None = None
) -> np.ndarray:
    """Exact Mallows samples by repeated insertion (module docstring).

    ``centre_order[i]`` is the centre's item at position ``i + 1`` (``None``: the identity).
    Returns positions ``sigma`` (``sigma[u]`` in 1..n), shape (n,) if ``size`` is None else
    (size, n).
    """
    centre = np.arange(n) if centre_order is None else np.asarray(centre_order, dtype=np.int64)
    if centre.shape != (n,) or not np.array_equal(np.sort(centre), np.arange(n)):
        raise ValueError("centre_order must be a permutation of 0..n-1")
    m = 1 if size is None else int(size)
    sigma = _positions_about(codes_to_positions(insertion_codes(rng, phi, n, m)), centre)
    return sigma[0] if size is None else sigma


def mallows_pmf(sigma: ArrayLike, centre: ArrayLike, phi: float) -> np.ndarray | float:
    """Mallows probability ``phi^{d_K(sigma, c)} / Z`` of positions ``sigma`` (..., n).

    ``centre`` is the centre as an *order* (``centre[i]`` = item at position i + 1), as in
    :func:`mallows_sample`.
    """
    sigma = np.asarray(sigma)
    n = sigma.shape[-1]
    centre = np.asarray(centre, dtype=np.int64)
    cpos = np.empty(n, dtype=np.int64)
    cpos[centre] = np.arange(1, n + 1)
    d = kendall_distance(sigma, cpos)
    return phi**d / mallows_Z(n, phi)


@register
class MallowsAdversary(Adversary):
    """Mallows(phi) rankings around a (possibly switching) centre; ``s = -sigma``.

    Parameters
    ----------
    phi : dispersion in (0, 1] (default 0.5; 1 = uniform rankings)
    centre : "identity" (default) or "random" (one uniform centre per replicate)
    switch_every : None (fixed centre) or P >= 1: redraw the centre uniformly every P rounds
    """

    name = "mallows"
    oblivious = True
    families = ("spearman",)

    @classmethod
    def memory_bytes(cls, n: int, reps: int) -> int:
        """The (n, n) Bradley-Terry temporaries of the learner's expected positions at the
        checkpoints (:func:`~onlinerank.adversaries.base.pair_block_bytes`, theory §2.5)."""
        return pair_block_bytes(n)

    def __init__(self, phi: float = 0.5, centre: str = "identity", switch_every: int | None = None) -> None:
        self.phi = _check_phi(phi)
        if centre not in ("identity", "random"):
            raise ValueError(f"centre must be 'identity' or 'random', got {centre!r}")
        if switch_every is not None:
            if isinstance(switch_every, bool) or int(switch_every) != switch_every or switch_every < 1:
                raise ValueError(f"switch_every must be None or an integer >= 1, got {switch_every!r}")
            switch_every = int(switch_every)
        self.centre = centre
        self.switch_every = switch_every

    @classmethod
    def example(cls) -> MallowsAdversary:
        """Exercises every code path: random centres switching every 7 rounds."""
        return cls(phi=0.6, centre="random", switch_every=7)

    def reset(self, game: Game, rngs: list[np.random.Generator]) -> None:
        super().reset(game, rngs)
        n = game.n
        children = [g.spawn(2) for g in rngs]
        self._centre_rngs = [c[1] for c in children]
        phi = self.phi
        chunk = max(1, min(1024, (1 << 16) // n))
        self.draws = ChunkedDraws(
            [c[0] for c in children], lambda g, c: codes_to_positions(insertion_codes(g, phi, n, c)), chunk
        )
        if self.centre == "random":
            self.centres = np.stack([g.permutation(n) for g in self._centre_rngs])
        else:
            self.centres = np.tile(np.arange(n), (self.reps, 1))

    def _switch(self, t: int) -> None:
        """New centres before round t when t starts a new period."""
        P = self.switch_every
        if P is not None and t > 1 and (t - 1) % P == 0:
            self.centres = np.stack([g.permutation(self.game.n) for g in self._centre_rngs])

    def feedback(self, t: int, learner: LearnerView) -> Feedback:
        self._switch(t)
        sigma = _positions_about(self.draws.next(), self.centres)
        return Feedback(self.game.n, values=-sigma.astype(np.float64), family="spearman")

    def feedback_block(self, t0: int, B: int) -> FeedbackBlock:
        P = self.switch_every
        parts = []
        t, end = t0, t0 + B
        while t < end:  # runs of rounds sharing one centre
            self._switch(t)
            stop = end if P is None else min(end, ((t - 1) // P + 1) * P + 1)
            parts.append(_positions_about(self.draws.take(stop - t), self.centres))
            t = stop
        sigma = (parts[0] if len(parts) == 1 else np.concatenate(parts)).swapaxes(0, 1)
        return FeedbackBlock(self.game.n, values=-sigma.astype(np.float64), family="spearman")

    def checkpoint_metrics(self, learner: LearnerView) -> dict:
        """Expected Spearman correlation coefficient r_s between the learner's coming ranking and
        the current centre.  For permutations r_s is affine in rho = sum_u pi(u) sigma(u), so its
        expectation needs only the expected positions (exact for learners with exact marginals)."""
        n = self.game.n
        pos = 1.0 + expected_positions(learner, self.reps, n, "the Spearman metric")  # 1..n
        centre_pos = np.empty_like(self.centres)
        np.put_along_axis(centre_pos, self.centres, np.arange(1, n + 1)[None, :], axis=1)
        rho = np.sum(pos * centre_pos, axis=1)
        mean_rho = n * (n + 1) ** 2 / 4.0
        return {"spearman_centre": (rho - mean_rho) / (n * (n * n - 1) / 12.0)}

    def describe(self) -> dict:
        return {
            "adversary": self.name,
            "phi": self.phi,
            "centre": self.centre,
            "switch_every": self.switch_every,
        }
