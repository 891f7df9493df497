"""The simulation engine: a learner against an adversary for R replicates at once.

Per round (the only Python loop): the adversary's feedback ``s_t`` (it may read the learner's
distribution), the learner's exact expected loss of the coming ranking, one sampled ranking per
replicate and its realised loss, then the update.  At K log-spaced checkpoints it records the
cumulative realised loss, cumulative exact expected loss and the hindsight optimum ``L_t(pi*)``
(closed form, THEORY §1), so memory is O(R n + R K), never O(T n).

Randomness: replicate ``r`` of a cell uses the adversary stream ``(*cell, "rep", r, "adversary")``
(shared by every learner: common random numbers) and the learner stream
``(*cell, learner_label, "rep", r, "learner")``.  A block of replicates therefore gives the same
numbers as the same replicates inside any other block, in any order.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from .adversaries import Adversary
from .feedback import Feedback
from .game import Game
from .hindsight import hindsight_loss
from .learners import Learner
from .logweights import LogWeights
from .results import SimResult
from .seeding import draw_seeds, replicate_keys, replicate_streams

__all__ = ["checkpoints", "SimResult", "simulate", "exact_expected_regret"]


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
    K: int = 20,
    sample: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> SimResult:
    """Play ``game`` for replicates ``rep_start .. rep_start + reps - 1``.

    ``cell`` names the experiment cell in the random streams (e.g. adversary, family, n, k, T);
    ``learner_label`` distinguishes learners (default: ``learner.name`` + its sampler).
    ``sample=False`` skips the sampled rankings (realised loss becomes NaN) when only the exact
    expected regret is wanted.  ``progress(t, T)`` is called about 100 times.
    """
    if reps < 1:
        raise ValueError(f"reps must be >= 1, got {reps}")
    n, T = game.n, game.T
    ids = np.arange(rep_start, rep_start + reps)
    if learner_label is None:
        d = learner.describe()
        learner_label = "-".join(str(d[k]) for k in ("learner", "sampler") if k in d)
    adversary.reset(game, replicate_streams(seed, cell, ids, "adversary"))
    learner.reset(game, reps)
    keys = replicate_keys(seed, (*cell, learner_label), ids, "learner")

    cps = checkpoints(T, K)
    out_loss = np.full((reps, cps.size), np.nan)
    out_exp = np.full((reps, cps.size), np.nan)
    out_best = np.empty((reps, cps.size))
    S = np.zeros((reps, n))
    abs_total = np.zeros(reps)
    loss = np.zeros(reps)
    exp_loss = np.zeros(reps)
    has_exp = True
    metrics_fn = getattr(adversary, "checkpoint_metrics", None)
    extra: dict[str, np.ndarray] = {}
    j = 0
    step = max(1, T // 100)
    t0 = time.perf_counter()
    for t in range(1, T + 1):
        fb: Feedback = adversary.feedback(t, learner)
        el = learner.expected_loss(fb)
        if el is None:
            has_exp = False
        else:
            exp_loss += el
        if sample:
            loss += fb.pairwise_loss(learner.rank(draw_seeds(keys, t)))
        learner.update(fb)
        fb.add_to(S)
        abs_total += fb.pair_abs_sum()
        if t == cps[j]:
            if sample:
                out_loss[:, j] = loss
            if has_exp:
                out_exp[:, j] = exp_loss
            out_best[:, j] = hindsight_loss(S, abs_total)
            if metrics_fn is not None:
                for name, val in metrics_fn(learner).items():
                    extra.setdefault(name, np.full((reps, cps.size), np.nan))[:, j] = val
            j += 1
        if progress is not None and (t % step == 0 or t == T):
            progress(t, T)
    meta = {
        "n": n,
        "T": T,
        "family": game.family,
        "k": game.k,
        "M": game.M,
        "seed": int(seed),
        "cell": [str(c) for c in cell],
        "learner_label": learner_label,
        **{f"learner_{k}": v for k, v in learner.describe().items()},
        **{f"adversary_{k}": v for k, v in adversary.describe().items()},
        "exact_expected_loss": bool(has_exp and learner.exact),
        "sampled": bool(sample),
        "seconds": time.perf_counter() - t0,
    }
    return SimResult(cps, out_loss, out_exp, out_best, ids, meta, extra)


def exact_expected_regret(s: np.ndarray, eta: float) -> float:
    """OnlineRank's exact expected regret (pairwise loss) on an explicit sequence ``s`` (T, n).

    No sampling: ``sum_t E[ellell(pi_t, s_t)] - L_T(pi*)`` with the expectation from the pairwise
    marginals ``expit(eta (S_{t-1}(u) - S_{t-1}(v)))`` (Lemma 6.1, THEORY §2.5) and ``L_T(pi*)``
    in closed form (THEORY §1).  The same for QuickSort and Plackett–Luce.  O(T n^2).
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
