"""The adversary contract and registry (design §plugins): the one file a plug-in author reads.

An adversary produces the feedback of every round for R replicates.  Its randomness comes from one
generator per replicate (named streams, ``seeding.py``), so a replicate's feedback does not depend
on which block it is simulated in, and every learner of a cell sees the same feedback (common
random numbers).  Adaptive adversaries may query the learner's *distribution* (its exact expected
loss of candidate feedback, ``log_weights()``, ``pair_probs()``), never its sample.

A new adversary is one module in this folder: subclass :class:`Adversary`, set ``name``,
``oblivious`` and ``families``, decorate the class with ``@register``.  The package imports every
module of the folder, so there is no import line to add.

What an adversary implements
----------------------------
Required: ``name``, ``families``, ``oblivious`` (True unless it reads the learner);
:meth:`Adversary.feedback`; :meth:`Adversary.reset` when it has state (call ``super().reset``).
Optional hooks, declared on :class:`Adversary` with their defaults:

=================================  ===============================  ==================================
hook                               default                          override to
=================================  ===============================  ==================================
``example()``                      ``cls()``                        give the conformance tests an
                                                                    instance exercising every path
``check(game)``                    refuse families not in           refuse other games (before any
                                   ``families``                     work; call ``super().check``)
``M(n)``                           ``None`` (cannot state M)        state M for graded feedback
``checkpoint_metrics(learner)``    ``{}``                           record metrics (R,) at checkpoints
``feedback_block(t0, B)``          one round: ``feedback(t0)``      hand out many rounds at once
                                                                    (oblivious adversaries)
``describe()``                     ``{"adversary": name}``          add parameters to the outputs
``memory_bytes(n, reps)``          ``0`` (its state is within the   declare working memory beyond
                                   engine's per-item arrays)        them (e.g. (n, n) temporaries)
``learner_independent``            ``False``                        declare an i.i.d. sequence that
                                                                    ignores the learner (controls)
``pair_difference_law(game)``      ``None`` (no closed form)        give the exact law of
                                                                    ``s_t(u) - s_t(v)`` of such a
                                                                    sequence: its cells are then
                                                                    computed, not simulated
``roles``                          ``frozenset()``                  declare the parts it plays in the
                                                                    claims (:data:`ROLES`)
``plot_marker``                    ``None`` (not drawn)             mark its worst cases in the
                                                                    worst-case figure
=================================  ===============================  ==================================

``Adversary.implements("hook")`` tells whether a class overrides an optional hook.  What an
adversary knows about itself (its memory, the parts it plays in the claims, its marker in the
figures) lives in its own module: the command line, the claims and the figures ask these hooks
and never match adversary names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, ClassVar, Protocol, cast

import numpy as np

from ..feedback import Feedback, FeedbackBlock
from ..game import Game
from ..registry import Registry, owner

__all__ = [
    "Adversary",
    "ADVERSARIES",
    "register",
    "make_adversary",
    "ChunkedDraws",
    "bradley_terry_positions",
    "expected_positions",
    "LearnerView",
    "ROLES",
    "BYTES_PER_PAIR",
    "pair_block_bytes",
]


class LearnerView(Protocol):
    """What an adversary may read of the learner it plays against (the ``learner`` argument of
    :meth:`Adversary.feedback`): its name and the *distribution* of its coming ranking, never
    its sampled ranking.  Every :class:`~onlinerank.learners.base.Learner` is one (a type, for the
    checker only; oblivious adversaries ignore the argument, and the engine passes ``None`` to
    them in :meth:`Adversary.feedback_block`)."""

    @property
    def name(self) -> str: ...

    def expected_loss(self, fb: Feedback) -> np.ndarray | None: ...

    def log_weights(self) -> np.ndarray | None: ...

    def pair_probs(self) -> np.ndarray | None: ...

    def expected_positions(self) -> np.ndarray | None: ...


ADVERSARIES = Registry("adversary")
#: class decorator adding a adversary to :data:`ADVERSARIES` under ``cls.name``
register = ADVERSARIES.register


def make_adversary(name: str, **params: Any) -> Adversary:
    """Instantiate a registered adversary by name; unknown names list the known ones."""
    return ADVERSARIES.make(name, **params)


_BLOCK = 1 << 22  # elements per (R_chunk, n, n) temporary

#: bytes per element of the (n, n) Bradley-Terry temporaries of :func:`bradley_terry_positions`:
#: 39-47 bytes x n**2 measured (n = 2048, 3200; tests/test_cli.py checks the model against the
#: measured peak of every registered adversary), rounded up with room to spare
BYTES_PER_PAIR = 64

#: the parts an adversary may declare in :attr:`Adversary.roles`, and what a claim that selects it
#: by that role relies on
ROLES = {
    "random-sequence": "the random adversary of the lower bound's proof: i.i.d. uniform choices "
    "that ignore the learner, so every algorithm pays E[L_T] = Tk(n-k)/2 (theory §4.1)",
    "least-favoured-item": "the cyclic 'least-favoured item' sequence: Follow-the-Leader's regret "
    "grows linearly, OnlineRank's like eta T (n-1)/8 (theory §3.4)",
    "greedy-regret": "the adaptive one-step regret-increment heuristic, run against each learner "
    "separately (theory §3.4)",
}


def pair_block_bytes(n: int) -> int:
    """Peak bytes of the (n, n) Bradley-Terry temporaries an adversary reading the learner's
    expected positions forms (:func:`expected_positions`, theory §2.5): blocks of at most
    ``2**22`` elements or one replicate, independent of the replicate count."""
    return BYTES_PER_PAIR * max(n * n, _BLOCK)


def bradley_terry_positions(a: np.ndarray) -> np.ndarray:
    """``E[pi(u) - 1] = sum_{v != u} expit(a_v - a_u)`` (R, n) for the Bradley–Terry marginals
    ``P(v before u) = expit(a_v - a_u)`` of log-weights ``a`` (R, n), which both samplers of
    OnlineRank have (Lemma 6.1, theory §2.5).  O(R n^2), in blocks of replicates."""
    from .._kernels.adversaries import bt_differences, bt_logistic  # lazy: numba where it runs

    a = np.ascontiguousarray(a, dtype=np.float64)
    R, n = a.shape
    out = np.empty((R, n))
    step = max(1, _BLOCK // (n * n))
    for lo in range(0, R, step):
        blk = a[lo : lo + step]
        # expit(d) of d[r, u, v] = a_v - a_u, as samplers.expit computes it: numpy's exp between
        # two compiled elementwise steps (a few calls a round instead of a dozen); the v = u term
        # contributes expit(0) = 1/2
        x = np.empty((blk.shape[0], n, n))
        nonneg = np.empty((blk.shape[0], n, n), dtype=np.bool_)
        bt_differences(blk, x, nonneg)
        p = np.exp(x)
        bt_logistic(p, nonneg)
        out[lo : lo + step] = p.sum(axis=2) - 0.5
    return out


def expected_positions(learner: LearnerView, reps: int, n: int, who: str = "this adversary") -> np.ndarray:
    """Expected ``pi(u) - 1`` (R, n) of every item under the learner's coming ranking: its
    distribution, never its sample.  Learners with log-weights (``log_weights()``: OnlineRank)
    by :func:`bradley_terry_positions`; learners that give them at once (``expected_positions()``,
    bit-identical to the queries below) by that call; any other learner by n queries of its exact expected
    loss of the feedback "item u chosen alone", whose pairwise loss is the number of items ranked
    before u (a ``ValueError`` naming ``who`` if the learner has no exact expected loss)."""
    R = reps
    a = learner.log_weights()
    if a is not None:
        a = np.asarray(a, dtype=np.float64)
        if a.shape == (R, n):
            return bradley_terry_positions(a)
    pos = learner.expected_positions()
    if pos is not None:
        return np.asarray(pos, dtype=np.float64)
    out = np.empty((R, n))
    for u in range(n):
        el = learner.expected_loss(Feedback(n, items=np.full((R, 1), u), family="single"))
        if el is None:
            raise ValueError(
                f"{who} needs a learner with an exact expected loss; {learner.name!r} returned None"
            )
        out[:, u] = el
    return out


class Adversary:
    """Base class of every adversary; see the module docstring for the contract."""

    #: registry key used in configs
    name: ClassVar[str] = ""
    #: True when the feedback never depends on the learner (then it may be handed out in blocks)
    oblivious: ClassVar[bool] = True
    #: feedback families this adversary can produce
    families: ClassVar[tuple[str, ...]] = ()
    #: True when every learner has the same expected regret against it (an i.i.d. sequence that
    #: ignores the learner, theory §4.1): the claims report its cells as controls, apart from the
    #: cells that can tell a good learner from a bad one
    learner_independent: ClassVar[bool] = False
    #: the parts this adversary plays in the claims, names from
    #: :data:`onlinerank.adversaries.base.ROLES` (e.g. the random adversary of the lower bound,
    #: theory §4.1): the claims select adversaries by role, never by name
    #: (:meth:`onlinerank.adversaries.base.Adversary.has_role`)
    roles: ClassVar[frozenset[str]] = frozenset()
    #: the marker of this adversary's worst cases in the figure of every learner's worst case
    #: (theory §3.4; a matplotlib marker), ``None``: not drawn there
    plot_marker: ClassVar[str | None] = None

    # --- required --------------------------------------------------------------------------------
    def reset(self, game: Game, rngs: list[np.random.Generator]) -> None:
        """Start a game; ``rngs[r]`` is replicate r's own generator (subclasses call
        ``super().reset``, which calls :meth:`~onlinerank.adversaries.base.Adversary.check`)."""
        self.check(game)
        self.game = game
        self.rngs = rngs
        self.reps = len(rngs)

    def feedback(self, t: int, learner: LearnerView) -> Feedback:  # pragma: no cover - interface
        """Feedback of round ``t`` (1-based) for all replicates; rounds are asked in order."""
        raise NotImplementedError

    @classmethod
    def implements(cls, hook: str) -> bool:
        """True when this class overrides the optional hook ``hook`` of :class:`Adversary`."""
        if not callable(getattr(Adversary, hook, None)):
            raise ValueError(f"{hook!r} is not a hook of Adversary")
        return owner(cls, hook) is not Adversary

    @classmethod
    def has_role(cls, role: str) -> bool:
        """True when this adversary declares ``role`` in :attr:`roles` (theory §3.4, §4.1: the
        parts of :data:`ROLES`); a ``ValueError`` names an unknown role."""
        if role not in ROLES:
            raise ValueError(f"unknown adversary role {role!r}; known roles: {', '.join(sorted(ROLES))}")
        return role in cls.roles

    # --- optional hooks (defaults) ----------------------------------------------------------------
    @classmethod
    def example(cls) -> Adversary:
        """An instance for the conformance tests (default: the default parameters)."""
        return cls()

    def check(self, game: Game) -> None:
        """Raise ``ValueError`` if this adversary cannot play ``game`` (called before any work)."""
        if game.family not in self.families:
            raise ValueError(
                f"adversary {self.name!r} does not produce {game.family!r} feedback "
                f"(supports: {', '.join(self.families)})"
            )

    def M(self, n: int) -> float | None:
        """The complexity parameter M (2.3) this adversary guarantees for graded feedback at n
        items, or ``None`` when it cannot state one (then it cannot play a graded game)."""
        return None

    @classmethod
    def memory_bytes(cls, n: int, reps: int) -> int:
        """Peak bytes of working memory this adversary needs at ``n`` items and ``reps``
        replicates beyond the engine's arrays of a fixed number of bytes per replicate and item
        (theory §1: the game's sizes), which also cover an adversary whose state is a few
        (reps, n) arrays.  Default 0; an adversary forming (n, n) temporaries declares them
        (:func:`pair_block_bytes`).  The command line refuses a run whose estimate
        (:func:`onlinerank.cli.estimate_memory`) exceeds the available memory."""
        return 0

    def pair_difference_law(self, game: Game) -> Mapping[int, Fraction] | None:
        """The exact law ``{d: P(s_t(u) - s_t(v) = d)}`` of the feedback difference of a pair,
        for an adversary whose rounds are i.i.d., independent of the learner, with exchangeable
        items (the same law for every pair ``u != v``; ``learner_independent`` must be True), in
        ``game``; ``None`` (default) when it has none.  With a law, every learner's expected loss
        and regret at every round are closed forms (theory §4.6, :mod:`onlinerank.iid_regret`):
        the pipeline computes such cells instead of simulating them (unless the experiment says
        ``closed_form: false``)."""
        return None

    def checkpoint_metrics(self, learner: LearnerView) -> dict[str, np.ndarray]:
        """Extra metrics ``name -> (R,)`` recorded at every checkpoint, after the checkpoint
        round's update (default: none)."""
        return {}

    def feedback_block(self, t0: int, B: int) -> FeedbackBlock:
        """The feedback of rounds ``t0, t0 + 1, ...``: at least 1 and at most ``B`` rounds (an
        adversary may stop early, e.g. where the width of its choices changes); the engine asks
        for the rest next.  Oblivious adversaries only (the engine asks adaptive ones round by
        round).  Must equal the per-round :meth:`feedback` exactly, drawn from the same streams
        in the same order, and leave the adversary in the same state; the conformance tests check
        it for every block size.  Default: one round.  The engine uses an override only where it
        is at least as derived as :meth:`feedback` (a subclass overriding ``feedback`` alone is
        asked round by round)."""
        return FeedbackBlock.of(self.feedback(t0, None))  # type: ignore[arg-type]  # oblivious: unread

    def describe(self) -> dict:
        """Parameters that identify this adversary in outputs."""
        return {"adversary": self.name}

    # --- helpers for subclasses -------------------------------------------------------------------
    def _feedback(self, x: np.ndarray) -> Feedback:
        """Feedback from a round's draw: chosen items (R, k), or positions sigma (R, n) for the
        Spearman family (s = -sigma)."""
        if self.game.family == "spearman":
            return Feedback(self.game.n, values=-x.astype(np.float64), family="spearman")
        return Feedback(self.game.n, items=x, family=self.game.family)

    def _feedback_block(self, x: np.ndarray) -> FeedbackBlock:
        """:meth:`_feedback` of a block of draws ``x`` (B, R, w), as a (R, B, w) block."""
        x = x.swapaxes(0, 1)
        if self.game.family == "spearman":
            return FeedbackBlock(self.game.n, values=-x.astype(np.float64), family="spearman")
        return FeedbackBlock(self.game.n, items=x, family=self.game.family)


class ChunkedDraws:
    """Per-replicate random draws made a chunk of rounds at a time (few Python calls per round).

    ``draw(rng, c)`` returns an array whose first axis has length ``c`` (one entry per round);
    ``next()`` returns the stacked entries of the current round, shape ``(R, ...)``.  A replicate's
    values depend only on its own generator, never on the chunk size of others.  The chunk is kept
    replicate-major, ``(R, chunk, ...)``: each replicate's draws are copied in one piece, and a
    block of rounds (:meth:`take`, swapped back to replicate-major by the blocks' consumers) is
    contiguous per replicate.
    """

    def __init__(
        self,
        rngs: list[np.random.Generator],
        draw: Callable[[np.random.Generator, int], np.ndarray],
        chunk: int,
    ) -> None:
        self.rngs, self.draw, self.chunk = rngs, draw, max(1, int(chunk))
        self.buf: np.ndarray | None = None
        self.pos = self.chunk

    def _refill(self) -> None:
        self.buf = np.stack([self.draw(g, self.chunk) for g in self.rngs])
        self.pos = 0

    def next(self) -> np.ndarray:
        if self.pos >= self.chunk:
            self._refill()
        out = cast(np.ndarray, self.buf)[:, self.pos]
        self.pos += 1
        return out

    def take(self, m: int) -> np.ndarray:
        """The entries of the next ``m`` rounds, shape ``(m, R, ...)``: the same values as ``m``
        calls of :meth:`next` (a view of the chunk where the rounds lie in one chunk)."""
        parts = []
        while m > 0:
            if self.pos >= self.chunk:
                self._refill()
            c = min(m, self.chunk - self.pos)
            parts.append(cast(np.ndarray, self.buf)[:, self.pos : self.pos + c])
            self.pos += c
            m -= c
        block = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)
        return block.swapaxes(0, 1)
