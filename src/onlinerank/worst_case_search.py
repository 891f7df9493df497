"""Search adversaries for the worst case beyond the exact DP's reach (theory §3.4).

Each search runs against any learner whose law is a function of the cumulative scores S (the
DP's hooks, :func:`onlinerank.worst_case.dp_learner`) and returns an explicit feedback sequence,
re-scored by the learner's own exact play (:func:`onlinerank.worst_case.play_regret`), so every
reported value is the exact expected regret of a sequence anyone can replay: a lower bound on
the learner's worst case.

* :func:`staircase_search` — the shape of the DP's argmax sequences, generalised to any n.  At
  every size the DP reaches, its optimal sequences play in *phases* with a shrinking active set:
  in phase m the active items are the m with the largest S (ties: lowest id) and the round's
  chosen items are the k active ones with the smallest S (ties: lowest id), i.e. a round robin
  that keeps the active items tied while the others fall behind.  The phase lengths
  ``(L_n, ..., L_k)``, summing to T, are found by a deterministic local search (move ``step``
  rounds from one phase to another, best move first, halving ``step`` down to 1), every batch
  of candidates played by the learner as replicates.  Single and k-choice feedback.
* :func:`beam_search` — the DP's forward recursion truncated to ``width`` canonical states per
  layer: every successor keeps the best accumulated reward G (exact dominance, as in the DP),
  and the kept states are the best by each of several scores (``G`` plus the regret of stopping
  now, ``1/2 sum |S_u - S_v|``, or plus the potential ``sum_{u<v} tau ln(2 cosh((S_u-S_v)/(2 tau)))``
  of Theorem 3.1's proof, theory §3.1, at ``tau = c / eta_p``).  With ``width`` at least the
  number of reachable states it *is* the DP.  Every family of the DP.
* :func:`adversary_regret` — a registered adaptive adversary (``greedy``, ``cyclic``) run
  through the simulator against the learner, its feedback recorded.
* :func:`search_worst_regret` — the best of the staircase and the beam.

No randomness anywhere: the searches are deterministic functions of their arguments.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import cast

import numpy as np

from .adversaries import ADVERSARIES, Adversary, make_adversary
from .adversaries.base import LearnerView
from .feedback import Feedback, pair_abs_sum
from .game import Game
from .simulate import simulate
from .worst_case import (
    LearnerArg,
    WorstCaseResult,
    _Encoder,
    dp_learner,
    make_result,
    play_regret,
    reduced_actions,
    sequence_of_actions,
    step_rewards,
    theorem31_eta,
)

__all__ = [
    "SEARCH_FAMILIES",
    "STAIRCASE_FAMILIES",
    "adversary_regret",
    "beam_search",
    "search_worst_regret",
    "staircase_search",
    "staircase_sequences",
]

STAIRCASE_FAMILIES = ("single", "kchoice")
SEARCH_FAMILIES = ("single", "kchoice", "subset", "spearman")


# --------------------------------------------------------------------------------------------
# The staircase policy
# --------------------------------------------------------------------------------------------


def staircase_sequences(n: int, lengths: np.ndarray, k: int = 1) -> np.ndarray:
    """Feedback sequences (R, T, n) int8 of the staircase policy (the shape of theory §3.4's
    DP argmax) for phase lengths ``lengths`` (R, n-k+1): ``lengths[r, i]`` rounds with ``n - i``
    active items (module docstring)."""
    L = np.asarray(lengths, dtype=np.int64)
    if L.ndim != 2 or L.shape[1] != n - k + 1 or np.any(L < 0):
        raise ValueError(f"lengths must have shape (R, {n - k + 1}) with entries >= 0, got {L.shape}")
    R, T = L.shape[0], int(L[0].sum())
    if np.any(L.sum(axis=1) != T):
        raise ValueError("lengths: every row must sum to the same horizon T")
    from ._kernels.worst_case import staircase_rows  # lazy: numba loads the kernels where they run

    out = np.zeros((R, T, n), dtype=np.int8)
    staircase_rows(n, k, np.ascontiguousarray(np.cumsum(L, axis=1)), out)
    return out


def _moves(L: np.ndarray, step: int) -> np.ndarray:
    P = L.size
    cands = []
    for i in range(P):
        if L[i] < step:
            continue
        for j in range(P):
            if j != i:
                c = L.copy()
                c[i] -= step
                c[j] += step
                cands.append(c)
    return np.array(cands, dtype=np.int64).reshape(-1, P)


def _split(T: int, weights: np.ndarray) -> np.ndarray:
    """Integer phase lengths summing to T, proportional to ``weights`` (largest remainders)."""
    x = T * np.asarray(weights, dtype=np.float64) / np.sum(weights)
    L = np.floor(x).astype(np.int64)
    L[np.argsort(-(x - L), kind="stable")[: T - int(L.sum())]] += 1
    return L


def _starts(P: int, T: int) -> list[np.ndarray]:
    """Uniform phases; everything in the first phase (the cyclic adversary over all items); and
    phases growing as the active set shrinks (the shape of the DP's argmax at small eta)."""
    first = np.zeros(P, dtype=np.int64)
    first[0] = T
    return [_split(T, np.ones(P)), first, _split(T, np.arange(1, P + 1))]


def _climb(score: Callable[[np.ndarray], np.ndarray], L: np.ndarray, T: int, max_evals: int):
    """Local search from phase lengths ``L``: move to the best neighbour (:func:`_moves` at the
    current step) while it improves, halving the step when none does, until the step is 1 and
    nothing improves or ``max_evals`` sequences are played; returns (value, phases, played)."""
    v = float(score(L[None])[0])
    used = 1
    step = max(1, T // 8)
    while used < max_evals:
        cands = _moves(L, step)
        if cands.size == 0:
            break
        vals = score(cands)
        used += len(cands)
        j = int(np.argmax(vals))
        if vals[j] > v + 1e-12:
            v, L = float(vals[j]), cands[j]
        elif step == 1:
            break
        else:
            step = max(1, step // 2)
    return v, L, used


def staircase_search(
    n: int,
    T: int,
    *,
    learner: LearnerArg = None,
    family: str = "single",
    k: int = 1,
    eta: str | float | None = None,
    max_evals: int,
    batch: int = 256,
) -> WorstCaseResult:
    """Best staircase sequence found by local search over its phase lengths (module docstring;
    a lower bound on the worst case of theory §3.4).

    ``max_evals`` caps the number of sequences played per start (three starts).  Returns a
    :class:`~onlinerank.worst_case.WorstCaseResult` with ``method="staircase"``, the sequence in
    ``argmax_seq``, the phase lengths in ``params["phases"]`` and the sequences played in
    ``n_states``.
    """
    t0 = time.perf_counter()
    if family not in STAIRCASE_FAMILIES:
        raise ValueError(
            f"family must be one of {', '.join(STAIRCASE_FAMILIES)} for the staircase, got {family!r}"
        )
    game, lrn, _ = dp_learner(learner, n, T, family, k, eta)
    kk = game.k if family == "kchoice" else 1
    P = n - kk + 1

    def score(Ls: np.ndarray) -> np.ndarray:
        out = np.empty(len(Ls))
        for lo in range(0, len(Ls), batch):
            out[lo : lo + batch] = play_regret(lrn, game, staircase_sequences(n, Ls[lo : lo + batch], kk))
        return out

    best_v, best_L, evals = -math.inf, None, 0
    for L in _starts(P, T):
        v, L, used = _climb(score, L, T, max_evals)
        evals += used
        if v > best_v:
            best_v, best_L = v, L
    best_L = cast(np.ndarray, best_L)  # set by the first candidate (v > -inf)
    seq = staircase_sequences(n, best_L[None], kk)[0].astype(np.int64)
    value = float(play_regret(lrn, game, seq[None])[0])
    res = make_result(lrn, game, value, n_states=evals, max_layer_states=batch, argmax_seq=seq)
    res.method = "staircase"
    res.params = {**res.params, "phases": [int(x) for x in best_L]}
    res.seconds = time.perf_counter() - t0
    return res


# --------------------------------------------------------------------------------------------
# Beam search over canonical states
# --------------------------------------------------------------------------------------------


def _potential(Y: np.ndarray, tau: float) -> np.ndarray:
    """``sum_{u<v} tau ln(2 cosh(d_uv / (2 tau)))`` (theory §3.1's per-pair potential), stably."""
    n = Y.shape[1]
    iu, iv = np.triu_indices(n, 1)
    d = np.abs(Y[:, iu].astype(np.float64) - Y[:, iv])
    return (0.5 * d + tau * np.log1p(np.exp(-d / tau))).sum(axis=1)


def _best_per_state(Yall: np.ndarray, cand: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Of the successor states ``Yall`` (canonical forms, one row per (state, action) pair) with
    their gains ``cand``, each distinct state once with its best gain: (indices into the pairs,
    states, gains)."""
    n = Yall.shape[1]
    rows = np.ascontiguousarray(Yall).view(np.dtype((np.void, Yall.itemsize * n))).ravel()
    _, group = np.unique(rows, return_inverse=True)
    order = np.lexsort((-cand, group.ravel()))  # by canonical state, best G first
    gs = group.ravel()[order]
    first = np.ones(gs.size, dtype=bool)
    first[1:] = gs[1:] != gs[:-1]
    sel = order[first]
    return sel, Yall[sel], cand[sel]


def _best_path(parents: list[np.ndarray], actions: list[np.ndarray], idx: int) -> list[int]:
    """The actions leading to the final state ``idx``, first round first."""
    path = []
    for t in range(len(actions) - 1, -1, -1):
        path.append(int(actions[t][idx]))
        idx = int(parents[t][idx])
    path.reverse()
    return path


def beam_search(
    n: int,
    T: int,
    *,
    learner: LearnerArg = None,
    family: str = "single",
    k: int = 1,
    eta: str | float | None = None,
    width: int,
    taus: tuple[float, ...] = (0.5, 1.0),
) -> WorstCaseResult:
    """The DP's forward recursion (theory §3.4) kept to ``width`` canonical states per layer,
    ranked with theory §3.1's potential among others (module docstring).

    Kept: the union of the ``width // (1 + len(taus))`` best states by ``G + 1/2 sum |S_u - S_v|``
    and by ``G + potential(tau_c = c / eta_p)`` for each ``c`` in ``taus``.  Returns a
    :class:`~onlinerank.worst_case.WorstCaseResult` with ``method="beam"``, the best final
    sequence (re-scored by the learner's own play) and the states visited in ``n_states``.
    """
    t0 = time.perf_counter()
    if isinstance(width, bool) or not isinstance(width, int) or width < 1:
        raise ValueError(f"width must be a positive integer, got {width!r}")
    game, lrn, law = dp_learner(learner, n, T, family, k, eta)
    labelled = law == "labelled"
    acts, disp = reduced_actions(n, family, game.k)
    A = acts.shape[0]
    enc = _Encoder(n, 0, labelled)  # canonical forms only: states are compared row-wise, no keys
    scale = theorem31_eta(n, T, family, game.k)
    per = max(1, width // (1 + len(taus)))
    X = np.zeros((1, n), dtype=np.int32)
    G = np.zeros(1)
    parents: list[np.ndarray] = []
    actions: list[np.ndarray] = []
    visited = 1
    for _t in range(T):
        cand = (G[:, None] + step_rewards(lrn, X, acts, family)).ravel()
        sel, Y, Gy = _best_per_state(
            enc.successor_states(X, acts, np.arange(cand.size, dtype=np.int64)), cand
        )
        if sel.size > width:
            keep = np.zeros(sel.size, dtype=bool)
            scores = [Gy + 0.5 * pair_abs_sum(Y.astype(np.float64))]
            scores += [Gy + _potential(Y, c / scale) for c in taus]
            for sc in scores:
                keep[np.argsort(-sc, kind="stable")[:per]] = True
            sel, Y, Gy = sel[keep], Y[keep], Gy[keep]
        parents.append((sel // A).astype(np.int64))
        actions.append((sel % A).astype(np.int64))
        X, G = Y, Gy
        visited += sel.size
    final = G + 0.5 * pair_abs_sum(X.astype(np.float64))
    seq = sequence_of_actions(_best_path(parents, actions, int(np.argmax(final))), disp, n, labelled)
    value = float(play_regret(lrn, game, seq[None])[0])
    res = make_result(lrn, game, value, n_states=visited, max_layer_states=width, argmax_seq=seq)
    res.method = "beam"
    res.params = {**res.params, "width": width}
    res.seconds = time.perf_counter() - t0
    return res


# --------------------------------------------------------------------------------------------
# Registered adaptive adversaries, and the combined search
# --------------------------------------------------------------------------------------------


class _Recorder(Adversary):
    """Wraps an adversary for the simulator and records the feedback it plays (one replicate);
    played round by round (``oblivious = False``) so that every round passes through here."""

    oblivious = False

    def __init__(self, adversary) -> None:
        self.adversary = adversary
        # the wrapped adversary's name and families, per instance
        self.name = adversary.name  # type: ignore[misc]
        self.families = adversary.families  # type: ignore[misc]
        self.rows: list[np.ndarray] = []

    def reset(self, game: Game, rngs: list[np.random.Generator]) -> None:
        self.game, self.rngs, self.reps = game, rngs, len(rngs)
        self.adversary.reset(game, rngs)

    def feedback(self, t: int, learner: LearnerView) -> Feedback:
        fb = self.adversary.feedback(t, learner)
        self.rows.append(np.asarray(fb.dense[0]))
        return fb

    def describe(self) -> dict:
        return self.adversary.describe()


def adversary_regret(
    n: int,
    T: int,
    *,
    learner: LearnerArg = None,
    adversary: str | dict | None = None,
    family: str = "single",
    k: int = 1,
    eta: str | float | None = None,
    seed: int = 0,
) -> WorstCaseResult:
    """A registered adversary (name or spec dict; theory §3.4's heuristic adversaries) against
    the learner, one replicate through
    :func:`onlinerank.simulate.simulate` (randomness, if any, from its named streams under
    ``seed``); ``value`` is the learner's exact expected regret and ``argmax_seq`` the feedback
    played (``method`` = the adversary's name).  Default: the adversary playing the role
    ``greedy-regret`` (:data:`onlinerank.adversaries.base.ROLES`)."""
    t0 = time.perf_counter()
    game, lrn, _ = dp_learner(learner, n, T, family, k, eta)
    if adversary is None:
        adversary = next(name for name, cls in ADVERSARIES.items() if cls.has_role("greedy-regret"))
    spec = {"name": adversary} if isinstance(adversary, str) else dict(adversary)
    adv = make_adversary(spec.pop("name"), **spec)
    adv.check(game)
    rec = _Recorder(adv)
    res = simulate(lrn, rec, game, 1, seed=seed, cell=("worst_case", adv.name), K=1, sample=False)
    seq = np.rint(np.array(rec.rows)).astype(np.int64)
    out = make_result(lrn, game, float(res.regret[0, -1]), n_states=0, max_layer_states=0, argmax_seq=seq)
    out.method = adv.name
    out.seconds = time.perf_counter() - t0
    return out


def search_worst_regret(
    n: int,
    T: int,
    *,
    learner: LearnerArg = None,
    family: str = "single",
    k: int = 1,
    eta: str | float | None = None,
    width: int,
    max_evals: int,
) -> WorstCaseResult:
    """The better of :func:`staircase_search` (single and k-choice) and :func:`beam_search`, a
    lower bound on theory §3.4's worst case; ``method`` says which, ``seconds`` is the time of
    both."""
    t0 = time.perf_counter()
    if family not in SEARCH_FAMILIES:
        raise ValueError(f"family must be one of {', '.join(SEARCH_FAMILIES)}, got {family!r}")
    found = [beam_search(n, T, learner=learner, family=family, k=k, eta=eta, width=width)]
    if family in STAIRCASE_FAMILIES:
        found.append(
            staircase_search(n, T, learner=learner, family=family, k=k, eta=eta, max_evals=max_evals)
        )
    best = max(found, key=lambda r: r.value)
    best.seconds = time.perf_counter() - t0
    return best
