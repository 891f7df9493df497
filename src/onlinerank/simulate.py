"""The simulation engine: a learner against an adversary for R replicates at once.

Rounds are played in blocks.  An oblivious adversary hands out the feedback of a block of rounds
at once (``Adversary.feedback_block``); an adaptive one is asked round by round (it may read the
learner's distribution, so the learner must have played the previous round).  The learner plays
each block in one call (``Learner.play_block``): per round its exact expected loss of the coming
ranking, optionally one sampled ranking per replicate and its realised loss, then the update.
The base class implements that call as the per-round reference loop; OnlineRank, FTL, FPL and the
uniform ranking replace it for choice feedback by one compiled/vectorised call, bit-identical to
the reference (tested for every block size).  Blocks end at the K log-spaced checkpoints, where
the engine records the cumulative realised loss, cumulative exact expected loss and the hindsight
optimum ``L_t(pi*)`` (closed form, theory §1), so memory is O(R n + R K + one block), never
O(T n).

Randomness: replicate ``r`` of a cell uses the adversary stream ``(*cell, "rep", r, "adversary")``
(shared by every learner: common random numbers) and the learner stream
``(*cell, learner_label, "rep", r, "learner")``, whose seed of round t is the counter-based
``draw_seeds(key_r, t)``.  A block of replicates therefore gives the same numbers as the same
replicates inside any other block, in any order, and the results do not depend on the number of
rounds per block either.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from typing import cast

import numpy as np

from .adversaries import Adversary
from .feedback import Feedback, FeedbackBlock
from .game import Game
from .hindsight import hindsight_loss
from .learners import Learner
from .logweights import LogWeights
from .registry import block_hook_applies
from .results import SimResult
from .seeding import replicate_keys, replicate_streams

__all__ = ["checkpoints", "SimResult", "simulate", "exact_expected_regret", "default_block", "check_block"]

#: elements of the largest per-block array the default block size aims at (8 MB of float64)
_BLOCK_ELEMENTS = 1 << 20


def _memory_limit() -> int:
    """Bytes one block array may take: a quarter of the physical memory (2 GiB if unknown)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return 2 << 30


def _block_width(game: Game) -> int:
    """Entries per replicate-round of a feedback block: chosen items, else the dense n."""
    return cast(int, game.chosen) if game.family in ("single", "kchoice") else game.n


def default_block(game: Game, reps: int) -> int:
    """Rounds per block when ``simulate(block=None)``: about 1e6 feedback entries per block."""
    return max(1, min(game.T, _BLOCK_ELEMENTS // (reps * _block_width(game))))


def check_block(block: int | np.integer, game: Game, reps: int) -> int:
    """``block`` (rounds per block) as an int, or a ``ValueError`` naming it: at least 1, and a
    dense ``(R, block, n)`` float64 block must fit in a quarter of the physical memory."""
    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
        raise ValueError(f"block must be an integer >= 1 (rounds per block), got block={block!r}")
    need = int(block) * reps * game.n * 8
    limit = _memory_limit()
    if need > limit:
        raise ValueError(
            f"block={block} rounds of (R={reps}, n={game.n}) float64 feedback need {need / 2**30:.1f} GiB, "
            f"more than {limit / 2**30:.1f} GiB (a quarter of the memory); use block <= "
            f"{max(1, limit // (reps * game.n * 8))}"
        )
    return int(block)


def checkpoints(T: int, K: int) -> np.ndarray:
    """Up to K distinct, roughly log-spaced rounds in 1..T, always including T."""
    if T < 1 or K < 1:
        raise ValueError(f"need T >= 1 and K >= 1, got T={T}, K={K}")
    t = np.unique(np.round(np.geomspace(1, T, num=K)).astype(np.int64))
    return t if t[-1] == T else np.append(t, T)


def simulate(
    learner: Learner,
    adversary: Adversary,
    game: Game,
    reps: int = 1,
    *,
    seed: int = 0,
    cell: tuple = (),
    rep_start: int = 0,
    learner_label: str | None = None,
    K: int,
    sample: bool,
    progress: Callable[[int, int], None] | None = None,
    block: int | None = None,
) -> SimResult:
    """Play ``game`` for replicates ``rep_start .. rep_start + reps - 1``.

    ``cell`` names the experiment cell in the random streams (e.g. adversary, family, n, k, T);
    ``learner_label`` distinguishes learners (default: ``learner.name`` + its sampler).  ``K``:
    the number of log-spaced checkpoints (:func:`checkpoints`; the config's ``checkpoints``).
    ``sample=False`` skips the sampled rankings (realised loss becomes NaN) when only the exact
    expected regret is wanted (the config's experiment key ``sample``).  ``progress(t, T)`` is
    called about 100 times.  ``block`` is the number of rounds handed out per block (default
    :func:`default_block`; it never changes the results, only speed and memory).
    """
    reps = _checked_replicates(learner, adversary, reps, rep_start)
    cps = checkpoints(game.T, K)
    block = default_block(game, reps) if block is None else check_block(block, game, reps)
    learner.check(game)
    adversary.check(game)
    ids = np.arange(rep_start, rep_start + reps)
    if learner_label is None:
        d = learner.describe()
        learner_label = "-".join(str(d[k]) for k in ("learner", "sampler") if k in d)
    adversary.reset(game, replicate_streams(seed, cell, ids, "adversary"))
    learner.reset(game, reps)
    keys = replicate_keys(seed, (*cell, learner_label), ids, "learner")
    round_keys = keys if sample else None
    t0 = time.perf_counter()
    out_loss, out_exp, out_best, extra, has_exp = _play_rounds(
        learner, adversary, game, cps, block, round_keys, sample, progress, reps
    )
    meta = _result_meta(game, learner, adversary, seed, cell, learner_label)
    meta |= {
        "exact_expected_loss": bool(has_exp and learner.exact),
        "sampled": bool(sample),
        "seconds": time.perf_counter() - t0,
    }
    return SimResult(cps, out_loss, out_exp, out_best, ids, meta, extra)


def _play_rounds(
    learner: Learner,
    adversary: Adversary,
    game: Game,
    cps: np.ndarray,
    block: int,
    round_keys,
    sample: bool,
    progress: Callable[[int, int], None] | None,
    reps: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray], bool]:
    """:func:`simulate`'s round loop over reset plug-ins: blocks of rounds up to each checkpoint,
    where the realised and expected losses, the best fixed ranking's loss and the adversary's
    own metrics are recorded.  Returns those (replicates × checkpoints) and whether every round
    had an exact expected loss."""
    n, T = game.n, game.T
    blocks, play = _block_methods(learner, adversary)
    out_loss = np.full((reps, cps.size), np.nan)
    out_exp = np.full((reps, cps.size), np.nan)
    out_best = np.empty((reps, cps.size))
    S = np.zeros((reps, n))
    abs_total = np.zeros(reps)
    loss = np.zeros(reps)
    exp_loss = np.zeros(reps)
    has_exp = True
    extra: dict[str, np.ndarray] = {}
    j = 0
    step = max(1, T // 100)
    t = 1
    while t <= T:
        # rounds t .. last: up to the next checkpoint (and progress report), at most `block`
        last = min(int(cps[j]), t + block - 1)
        if progress is not None:  # every multiple of `step` ends a block
            last = min(last, -(-t // step) * step)
        fbb = _feedback_block(adversary, learner, blocks, t, last, reps, n)
        if not play(fbb, round_keys, t, exp_loss, loss):
            has_exp = False
        fbb.add_to(S)
        fbb.add_pair_abs_sum(abs_total)
        t += fbb.rounds
        if t - 1 == cps[j]:
            if sample:
                out_loss[:, j] = loss
            if has_exp:
                out_exp[:, j] = exp_loss
            out_best[:, j] = hindsight_loss(S, abs_total)
            for name, val in adversary.checkpoint_metrics(learner).items():
                extra.setdefault(name, np.full((reps, cps.size), np.nan))[:, j] = val
            j += 1
        if progress is not None and ((t - 1) % step == 0 or t - 1 == T):
            progress(t - 1, T)
    return out_loss, out_exp, out_best, extra, has_exp


def _checked_replicates(learner: Learner, adversary: Adversary, reps: int, rep_start: int) -> int:
    """:func:`simulate`'s argument checks: plug-in types and the replicate range; ``reps`` as int."""
    if not isinstance(learner, Learner):
        raise TypeError(f"learner must be an onlinerank Learner, got {type(learner).__name__}")
    if not isinstance(adversary, Adversary):
        raise TypeError(f"adversary must be an onlinerank Adversary, got {type(adversary).__name__}")
    if isinstance(reps, bool) or not isinstance(reps, (int, np.integer)) or reps < 1:
        raise ValueError(f"reps must be an integer >= 1, got {reps!r}")
    if isinstance(rep_start, bool) or not isinstance(rep_start, (int, np.integer)) or rep_start < 0:
        raise ValueError(f"rep_start must be an integer >= 0, got {rep_start!r}")
    return int(reps)


def _block_methods(learner: Learner, adversary: Adversary) -> tuple[bool, Callable]:
    """Whether the adversary hands out blocks of rounds, and the learner's block player.  A
    subclass overriding a per-round method of a class with a block method (e.g. to record the
    rounds) is played round by round: the block method would bypass its override."""
    blocks = adversary.oblivious and block_hook_applies(type(adversary), "feedback_block", ("feedback",))
    if block_hook_applies(type(learner), "play_block", ("expected_loss", "rank", "_rank", "update")):
        return blocks, learner.play_block
    return blocks, functools.partial(Learner.play_block, learner)


def _feedback_block(
    adversary: Adversary, learner: Learner, blocks: bool, t: int, last: int, reps: int, n: int
) -> FeedbackBlock:
    """The feedback of rounds ``t ..`` (at most ``last``): a block from an oblivious adversary, one
    round otherwise; a block of the wrong shape is refused with what was asked and returned."""
    fbb = (
        adversary.feedback_block(t, last - t + 1)
        if blocks
        else FeedbackBlock.of(adversary.feedback(t, learner))
    )
    B = fbb.rounds
    if not 1 <= B <= last - t + 1 or fbb.reps != reps or fbb.n != n:
        raise RuntimeError(
            f"adversary {adversary.name!r} returned a block of {B} rounds x {fbb.reps} replicates "
            f"(n={fbb.n}) for rounds {t}..{last} of {reps} replicates (n={n})"
        )
    return fbb


def _result_meta(
    game: Game, learner: Learner, adversary: Adversary, seed: int, cell: tuple, label: str
) -> dict:
    """What a :class:`SimResult` records of its game, plug-ins and streams."""
    return {
        "n": game.n,
        "T": game.T,
        "family": game.family,
        "k": game.k,
        "M": game.M,
        "seed": int(seed),
        "cell": [str(c) for c in cell],
        "learner_label": label,
        **{f"learner_{k}": v for k, v in learner.describe().items()},
        **{f"adversary_{k}": v for k, v in adversary.describe().items()},
    }


def exact_expected_regret(s: np.ndarray, eta: float) -> float:
    """OnlineRank's exact expected regret (pairwise loss) on an explicit sequence ``s`` (T, n).

    No sampling: ``sum_t E[ellell(pi_t, s_t)] - L_T(pi*)`` with the expectation from the pairwise
    marginals ``expit(eta (S_{t-1}(u) - S_{t-1}(v)))`` (Lemma 6.1, theory §2.5) and ``L_T(pi*)``
    in closed form (theory §1).  The same for QuickSort and Plackett–Luce.  O(T n^2).
    """
    s = np.asarray(s, dtype=np.float64)
    if s.ndim != 2:
        raise ValueError(f"s must have shape (T, n), got {s.shape}")
    if not (float(eta) > 0):
        raise ValueError(f"eta must be positive, got {eta!r}")
    T, n = s.shape
    state = LogWeights(float(eta), 1, n)
    total = 0.0
    abs_total = 0.0
    for t in range(T):
        row = s[t : t + 1]
        total += float(state.expected_loss_dense(row)[0])
        abs_total += float(Feedback(n, values=row).pair_abs_sum()[0])
        state.add_dense(row)
    return total - float(hindsight_loss(state.S[0], abs_total))
