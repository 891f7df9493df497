"""The exact worst case of any learner whose law is a function of the cumulative scores S.

Implements (docs/theory):

* §1: pairwise loss, offline optimum ``L_T(pi*)`` (:mod:`onlinerank.hindsight`), and the remark
  that adaptive and oblivious worst cases coincide when the learner's law at round t is a
  deterministic function of ``s_1..s_{t-1}``;
* §1.1 / §3.2: the family's M (:func:`onlinerank.feedback.family_M`), Theorem 3.1 and its sharp
  form (:mod:`onlinerank.bounds`), and each baseline's own bound (§3.3);
* §2.5: the regret as a sum of per-round terms plus a final one, which is what the DP maximises;
* §3.4: the dynamic program over canonical score states.

Regret decomposition (theory §1 offline optimum): for every sequence::

    Regret = sum_t [ E ellell(pi_t, s_t) - 1/2 sum_{u<v} |s_t(u) - s_t(v)| ]
             + 1/2 sum_{u<v} |S_T(u) - S_T(v)|,

and when the law of ``pi_t`` is a function of ``S_{t-1}`` the first term of round t depends on
``(S_{t-1}, s_t)`` only.  Hence the value function::

    V_T(S) = -hindsight_loss(S, 0),
    V_t(S) = max_{s in family} [ E_S ellell(pi, s) - 1/2 |s|_pairs + V_{t+1}(S + s) ],

gives the exact worst case ``V_0(0)`` over all sequences (for OnlineRank the bracket is theory
§2.5's tanh term).  ``E_S ellell(pi, s)`` is the learner's *own* ``expected_loss`` after its
``set_scores(S)`` hook (one replicate per state), so no formula of a learner is copied here.

States are reduced modulo translation (``S -> S + c``, every learner here ignores it and the
terms above depend on differences only) and, for learners whose law is symmetric in the items
(``scores_law() == "symmetric"``: OnlineRank with either sampler, FPL, Hedge, PermELearn, the
uniform ranking), modulo relabelling: the canonical state is ``sort(S) - min S``.  Follow the
Leader breaks ties by item id, which relabelling does not preserve, so its states keep their
labels (``S - min S``; ``scores_law() == "labelled"``).  Reachable canonical states are
enumerated forward layer by layer (compiled kernels in :mod:`onlinerank._kernels.worst_case`), then
values are found by backward induction, one batched learner query per (layer, action).

Feedback families are the package's (``feedback.FAMILIES`` minus ``graded``, whose family is
infinite): ``single`` (``s = e_u``), ``kchoice`` (``s = 1_U``, ``|U| = k <= n/2``), ``subset``
(every ``s = 1_U``, including the empty and the full set), ``spearman`` (``s = -sigma``).
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, cast

import numpy as np

from .bounds import eta_paper, theorem31_paper, theorem31_sharp
from .feedback import Feedback, FeedbackBlock, family_M, pair_abs_sum
from .game import Game
from .hindsight import hindsight_loss
from .learners import LEARNERS, Learner, make_learner, paper_algorithm
from .registry import block_hook_applies

if TYPE_CHECKING:
    from .settings import WorstCase

__all__ = [
    "DP_FAMILIES",
    "WorstCaseResult",
    "brute_force_worst_regret",
    "dp_learner",
    "estimate_states",
    "exact_worst_regret",
    "exact_worst_regrets",
    "DPLayers",
    "dp_layers",
    "family_actions",
    "infer_family",
    "learner_bound",
    "make_result",
    "play_regret",
    "reduced_actions",
    "sequence_regret",
    "step_rewards",
    "theorem31_eta",
    "worst_case_rows",
]

#: feedback families with a finite set of feedback vectors (the DP's actions)
DP_FAMILIES = ("single", "kchoice", "subset", "spearman")

#: how the functions here take a learner: a registered name, a spec dict ``{"name": ..., **params}``
#: or a :class:`~onlinerank.learners.base.Learner` instance
LearnerArg: TypeAlias = str | dict | Learner | None

_CHUNK_FLOATS = 1 << 22  # learner state floats per batch of states
_BLOCK = 1 << 17  # states per block of the DP's (states, actions) work arrays


# --------------------------------------------------------------------------------------------
# Games, learners and actions (theory §1)
# --------------------------------------------------------------------------------------------


def family_actions(n: int, family: str, k: int = 1) -> np.ndarray:
    """Every feedback vector of a family as an int array (A, n) (theory §1).

    ``single``: ``e_u``; ``kchoice``: ``1_U`` with ``|U| = k``; ``subset``: every ``1_U``
    (``2^n`` rows, including 0 and 1); ``spearman``: ``-sigma`` for each of the ``n!``
    permutations ``sigma`` of the positions ``1..n``.
    """
    if family not in DP_FAMILIES:
        raise ValueError(f"family must be one of {', '.join(DP_FAMILIES)}, got {family!r}")
    if family == "spearman":
        return -np.array(list(itertools.permutations(range(1, n + 1))), dtype=np.int64).reshape(-1, n)
    sizes = {"single": [1], "kchoice": [k], "subset": range(n + 1)}[family]
    rows = []
    for j in sizes:
        for U in itertools.combinations(range(n), j):
            r = np.zeros(n, dtype=np.int64)
            r[list(U)] = 1
            rows.append(r)
    return np.array(rows, dtype=np.int64).reshape(-1, n)


def reduced_actions(n: int, family: str, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The family modulo translation (theory §3.4): ``(acts, disp)``, ``acts = s - min s``
    (distinct rows, the DP's actions) and ``disp`` the family's own vector of each (for output
    sequences)."""
    full = family_actions(n, family, k)
    shifted = full - full.min(axis=1, keepdims=True)
    _, first = np.unique(shifted, axis=0, return_index=True)
    first = np.sort(first)
    return shifted[first], full[first]


def _learner_spec(learner: LearnerArg, eta: str | float | None) -> tuple[dict | None, Learner | None]:
    if isinstance(learner, Learner):
        if eta is not None:
            raise ValueError("eta: give it to the Learner instance itself, not alongside one")
        return None, learner
    if learner is None:  # the paper's algorithm
        learner = paper_algorithm()
    if isinstance(learner, str):
        spec: dict[str, Any] = {"name": learner}
    elif isinstance(learner, dict) and isinstance(learner.get("name"), str):
        spec = dict(learner)
    else:
        raise ValueError(f"learner must be a name, a spec dict with a 'name' or a Learner, got {learner!r}")
    if eta is not None:
        cls = LEARNERS.get(spec["name"])
        if cls is None or cls.configured_rate({}) is None:
            raise ValueError(
                f"eta: applies to a learner with a learning rate only (learner {spec['name']!r} takes "
                "its own parameters in a spec dict)"
            )
        if "eta" in spec and spec["eta"] != eta:
            raise ValueError(f"eta: given twice ({eta!r} and {spec['eta']!r} in the learner spec)")
        spec["eta"] = eta
    return spec, None


def dp_learner(
    learner: LearnerArg, n: int, T: int, family: str = "single", k: int = 1, eta: str | float | None = None
) -> tuple[Game, Learner, str]:
    """Validate a DP instance and build its learner: ``(game, learner, law)`` (theory §1: the
    DP needs a law at round t that is a deterministic function of ``S_{t-1}``).

    ``learner`` is a registered name, a spec dict ``{"name": ..., **params}`` or a
    :class:`~onlinerank.learners.base.Learner`; ``eta`` (OnlineRank only) is ``"paper"``,
    ``"optimal"`` or a positive float.  Raises a one-line ``ValueError`` naming the argument
    for an unknown family, a bad n/T/k, an unknown learner or parameter, or a learner whose law
    is not a function of S (``scores_law() is None``).
    """
    if family not in DP_FAMILIES:
        raise ValueError(f"family must be one of {', '.join(DP_FAMILIES)}, got {family!r}")
    for name, v in (("n", n), ("T", T), ("k", k)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer):
            raise ValueError(f"{name} must be an integer, got {v!r}")
    if family == "single" and k != 1:
        raise ValueError(f"k must be 1 for single choice, got k={k!r}")
    game = Game(n=int(n), T=int(T), family=family, k=int(k))
    spec, lrn = _learner_spec(learner, eta)
    if lrn is None:
        spec = cast(dict, spec)  # no Learner instance given: a spec
        try:
            lrn = make_learner(spec["name"], **{a: b for a, b in spec.items() if a != "name"})
        except TypeError as e:
            raise ValueError(f"learner: {e}") from None
    lrn.reset(game, 1)
    law = lrn.scores_law()
    if law not in ("symmetric", "labelled"):
        raise ValueError(
            f"learner: {lrn.name!r} {lrn.describe()} has no law that is a function of the cumulative "
            "scores S (scores_law() is None), so the exact DP does not apply"
        )
    return game, lrn, law


def learner_bound(lrn: Learner, game: Game) -> float:
    """The learner's own regret bound in the game's units (theory §3.2–§3.3), or NaN when it has
    none: its :meth:`~onlinerank.learners.base.Learner.regret_bound` (OnlineRank: the sharp Theorem 3.1
    bound at its eta; Hedge, FPL, PermELearn with their tuned rates: the cited bounds of
    :func:`onlinerank.bounds.comparison_bound`; FTL and the uniform ranking: none)."""
    bound = lrn.regret_bound(game)
    return math.nan if bound is None else float(bound)


# --------------------------------------------------------------------------------------------
# Size of the DP (safety limit before any work)
# --------------------------------------------------------------------------------------------


def _span(n: int, family: str) -> int:
    return n - 1 if family == "spearman" else 1


@functools.lru_cache(maxsize=4096)  # pure; every validation of a config counts its DP cases again
def estimate_states(
    n: int, T: int, family: str = "single", k: int = 1, labelled: bool = False, stop_above: float = math.inf
) -> float:
    """Number of canonical states of the DP (theory §3.4) over the layers ``t = 0..T`` (an upper
    bound; exact for single choice).  Sorted states of layer t are partitions with at most ``n-1`` positive
    parts, each at most ``t * span``; for single / k-choice their sum is ``k t - n c``
    (``c >= 0``).  Counted with the Gaussian binomial recurrence
    ``G(B, j) = G(B, j-1) + q^j G(B-1, j)`` (``G(B, j)``: partitions into at most j parts, each
    at most B, by their sum); labelled states by compositions.  Stops early (returning the partial
    count) once the count exceeds ``stop_above``."""
    r = n - 1
    span = _span(n, family)
    per_round = {"single": 1, "kchoice": k}.get(family)
    total = 0.0
    if per_round is not None and not labelled:
        G = [np.ones(1) for _ in range(r + 1)]  # B = 0: only the empty partition
        for t in range(T + 1):
            if t > 0:  # B -> B + 1 = t
                new = [G[0]]
                for j in range(1, r + 1):
                    g = np.zeros(t * j + 1)
                    g[: new[j - 1].size] = new[j - 1]
                    g[j : j + G[j].size] += G[j]
                    new.append(g)
                G = new
            m = per_round * t
            total += float(G[r][m % n : m + 1 : n].sum())
            if total > stop_above:
                break
        return total
    for t in range(T + 1):
        B = t * span
        if per_round is not None:  # labelled binary: compositions with a zero, sum = k t - n c
            m = per_round * t
            total += float(
                sum(
                    math.comb(s + n - 1, n - 1) - (math.comb(s - 1, n - 1) if s else 0)
                    for s in range(m % n, m + 1, n)
                )
            )
        elif labelled:
            total += float((B + 1) ** n - B**n)
        else:
            total += float(math.comb(B + n - 1, n - 1))
        if total > stop_above:
            break
    return total


# --------------------------------------------------------------------------------------------
# Rewards from the learner's own expected loss
# --------------------------------------------------------------------------------------------


def _action_feedback(a: np.ndarray, R: int, family: str) -> Feedback:
    n = a.shape[0]
    if family != "spearman":
        U = np.flatnonzero(a)
        if 0 < U.size < n and np.all(a[U] == 1):
            return Feedback(n, items=np.broadcast_to(U, (R, U.size)).copy(), family=family)
    return Feedback(n, values=np.broadcast_to(a.astype(np.float64), (R, n)).copy(), family=family)


def step_rewards(lrn: Learner, X: np.ndarray, acts: np.ndarray, family: str) -> np.ndarray:
    """``E_S ellell(pi, s) - 1/2 sum_{u<v} |s(u) - s(v)|`` for every state ``S = X[i]`` and action
    ``s = acts[a]``, shape (N, A): the per-round term of the regret decomposition (module
    docstring; theory §2.5).  The learner is put in the states by its ``set_scores`` hook and
    queried with its own ``expected_loss``, in batches of states."""
    N, A = X.shape[0], acts.shape[0]
    out = np.empty((N, A))
    half = 0.5 * pair_abs_sum(acts.astype(np.float64))
    chunk = max(1, min(N, _CHUNK_FLOATS // max(1, lrn.state_floats())))
    for lo in range(0, N, chunk):
        Xc = np.asarray(X[lo : lo + chunk], dtype=np.float64)
        R = Xc.shape[0]
        lrn.set_scores(Xc)
        for a in range(A):
            el = lrn.expected_loss(_action_feedback(acts[a], R, family))
            if el is None:
                raise ValueError(f"learner: {lrn.name!r} has no exact expected loss")
            out[lo : lo + R, a] = el - half[a]
    return out


# --------------------------------------------------------------------------------------------
# The exact DP (theory §3.4)
# --------------------------------------------------------------------------------------------


@dataclass
class WorstCaseResult:
    """Exact worst-case expected regret of a learner (theory §3.4) and the bounds of §3.2–§3.3.

    ``bound_thm31 = n sqrt(T M ln 2)`` is Theorem 3.1's value (a bound for OnlineRank at the
    paper's eta); ``bound_sharp = C(n,2) ln 2 / eta + eta T M / 2`` holds for OnlineRank at every
    eta > 0 (§3.2 [X]; NaN for other learners); ``bound_own`` is the learner's own bound
    (:func:`learner_bound`).  ``n_states`` counts canonical states over all layers
    ``t = 0..T``; ``argmax_seq`` (T, n) is a feedback sequence (original labels) attaining
    ``value``.
    """

    n: int
    T: int
    family: str
    k: int
    value: float
    eta: float
    M: float
    bound_thm31: float
    bound_sharp: float
    ratio_thm31: float
    ratio_sharp: float
    n_states: int
    max_layer_states: int
    argmax_seq: np.ndarray | None = field(default=None, repr=False)
    learner: str = ""
    params: dict = field(default_factory=dict)
    bound_own: float = math.nan
    ratio_own: float = math.nan
    seconds: float = math.nan
    method: str = "exact"

    def value_columns(self) -> dict[str, float | int]:
        """The table columns of the worst case against Theorem 3.1's two forms: value, the bounds,
        their ratios and the states visited (the worst-case and tightness tables)."""
        return {
            "value": self.value,
            "bound_thm31": self.bound_thm31,
            "bound_sharp": self.bound_sharp,
            "ratio_thm31": self.ratio_thm31,
            "ratio_sharp": self.ratio_sharp,
            "states": self.n_states,
        }


def make_result(lrn: Learner, game: Game, value: float, **extra: Any) -> WorstCaseResult:
    """A :class:`WorstCaseResult` with the bounds of theory §3.2–§3.3 filled in (shared with the
    search adversaries)."""
    n, T, M = game.n, game.T, game.M
    # the rate and the sharp bound of Theorem 3.1 are the paper's algorithm's (theory §3.2)
    eta = float(lrn.eta_value) if lrn.paper_algorithm else math.nan  # type: ignore[attr-defined]
    b31 = float(theorem31_paper(n, T, M))
    sharp = float(theorem31_sharp(n, T, M, eta)) if lrn.paper_algorithm else math.nan
    own = learner_bound(lrn, game)
    return WorstCaseResult(
        n=n,
        T=T,
        family=game.family,
        k=game.k,
        value=float(value),
        eta=eta,
        M=float(M),
        bound_thm31=b31,
        bound_sharp=sharp,
        ratio_thm31=value / b31,
        ratio_sharp=value / sharp,
        learner=lrn.name,
        params=lrn.describe(),
        bound_own=own,
        ratio_own=value / own,
        **extra,
    )


class _Encoder:
    """int64 keys of canonical states (see :mod:`onlinerank._kernels.worst_case`)."""

    def __init__(self, n: int, B: int, labelled: bool) -> None:
        from ._kernels import worst_case as kernels  # lazy: numba loads (compiles) the DP's kernels

        self.labelled = labelled
        if labelled:
            self.base = B + 1
            self.binom = np.zeros((1, 1), dtype=np.int64)
        else:
            self.base = 0
            self.binom = kernels.binomial_table(B + n - 1, n)
        self.kernels = kernels

    def successor_keys(self, X: np.ndarray, acts: np.ndarray) -> np.ndarray:
        return self.kernels.successor_keys(X, acts, self.labelled, self.binom, self.base)

    def successor_states(self, X: np.ndarray, acts: np.ndarray, flat: np.ndarray) -> np.ndarray:
        out = np.empty((flat.size, X.shape[1]), dtype=X.dtype)
        self.kernels.successor_states(X, acts, flat, self.labelled, out)
        return out


def _check_size(n: int, T: int, family: str, k: int, labelled: bool, max_states: float | None) -> float:
    """The estimated canonical states of a DP instance; ``ValueError`` when its keys overflow or
    the estimate exceeds ``max_states`` (``None``: no cap).  The canonical states over all layers
    each keep n bytes (2n for T >= 256) plus 6 bytes of argmax path, two layers keep 8 bytes of
    values and keys each, and the work arrays are bounded by blocks of states: ``2e7`` states peak
    at ~0.6 GB (measured at n = 10, T = 83; the config's ``worst_case.max_states``)."""
    B = T * _span(n, family)
    limit = (B + 1) ** n if labelled else math.comb(B + n - 1, n - 1)
    if limit >= 2**62:
        raise ValueError(f"T={T}: too large for the int64 state keys at n={n} ({family})")
    cap = math.inf if max_states is None else max_states
    est = estimate_states(n, T, family, k, labelled, stop_above=cap)
    if est > cap:
        raise ValueError(
            f"T={T}: n={n} ({family}{', labelled' if labelled else ''}) needs about {est:.3g} canonical "
            f"states, above the cap max_states={max_states:.3g}"
        )
    return est


@dataclass
class DPLayers:
    """The forward pass of theory §3.4's DP: the reachable canonical states of every layer
    ``t = 0..T`` (small ints, in key order) and, when they fit in :data:`_SUCC_ENTRIES`, the index
    in layer t+1 of every successor ``(state, action)`` of layer t.  It depends on the game and on
    whether the learner's law keeps labels, not on the learner: one forward pass serves every
    learner (and every learning rate) of a game."""

    n: int
    T: int
    family: str
    k: int
    labelled: bool
    acts: np.ndarray
    disp: np.ndarray
    layers: list[np.ndarray]
    succ: list[np.ndarray] | None


#: largest number of (state, action) successor indices :func:`dp_layers` keeps (int32, 128 MB);
#: above it the backward pass recomputes them layer by layer
_SUCC_ENTRIES = 1 << 25


def _encoder(n: int, T: int, acts: np.ndarray, labelled: bool) -> _Encoder:
    return _Encoder(n, T * int(acts.max()), labelled)


def dp_layers(n: int, T: int, family: str = "single", k: int = 1, labelled: bool = False) -> DPLayers:
    """The reachable canonical states of every layer of theory §3.4's DP (:class:`DPLayers`),
    enumerated forward in blocks of states by the compiled kernels; the caller has checked the
    game and its size (:func:`exact_worst_regret`)."""
    acts, disp = reduced_actions(n, family, k)
    enc = _encoder(n, T, acts, labelled)
    B = T * int(acts.max())
    dtype = np.uint8 if B < 2**8 else np.int16 if B < 2**15 else np.int32
    states = estimate_states(n, T, family, k, labelled, stop_above=_SUCC_ENTRIES)
    keep = states * acts.shape[0] <= _SUCC_ENTRIES
    # Work arrays are (states, actions): layers are processed in blocks of _BLOCK states.
    layers = [np.zeros((1, n), dtype=dtype)]
    succ: list[np.ndarray] = []
    for _t in range(T):
        X = layers[-1]
        keys, flat, full = [], [], []
        for lo in range(0, X.shape[0], _BLOCK):
            kb = enc.successor_keys(X[lo : lo + _BLOCK], acts)
            if keep:
                full.append(kb)
            u, f = np.unique(kb.ravel(), return_index=True)
            keys.append(u)
            flat.append(f + lo * acts.shape[0])
        ukeys, first = np.unique(np.concatenate(keys), return_index=True)
        layers.append(enc.successor_states(X, acts, np.concatenate(flat)[first].astype(np.int64)))
        if keep:
            succ.append(np.searchsorted(ukeys, np.concatenate(full)).astype(np.int32))
    return DPLayers(n, T, family, k, labelled, acts, disp, layers, succ if keep else None)


def sequence_of_actions(path: list[int], disp: np.ndarray, n: int, labelled: bool) -> np.ndarray:
    """The feedback sequence (T, n), original labels, of a path of reduced actions (rows of
    ``disp``): canonical label j is the item at position j of the stable sort of the cumulative
    scores so far, or the item itself for a labelled law (theory §3.4)."""
    S = np.zeros(n, dtype=np.int64)
    seq = np.empty((len(path), n), dtype=np.int64)
    for t, a in enumerate(path):
        perm = np.arange(n) if labelled else np.argsort(S, kind="stable")
        seq[t, perm] = disp[a]
        S += seq[t]
    return seq


def _argmax_sequence(L: DPLayers, best: list[np.ndarray], succ: list[np.ndarray]) -> np.ndarray:
    """The worst sequence (T, n) from the start state along the kept (action, successor) path."""
    path, r = [], 0
    for t in range(L.T):
        path.append(int(best[t][r]))
        r = int(succ[t][r])
    return sequence_of_actions(path, L.disp, L.n, L.labelled)


def _solve(lrn: Learner, game: Game, L: DPLayers, return_argmax: bool, t0: float) -> WorstCaseResult:
    """Backward induction of theory §3.4's DP over the layers ``L`` for learner ``lrn``; the
    argmax path is kept as (action, successor index) per state."""
    n, T, family, acts, layers = L.n, L.T, L.family, L.acts, L.layers
    enc = _encoder(n, T, acts, L.labelled)
    XT = layers[T]
    blocks = range(0, XT.shape[0], _BLOCK)
    V = np.concatenate([-hindsight_loss(XT[lo : lo + _BLOCK].astype(np.float64), 0.0) for lo in blocks])
    zero = np.zeros((1, n), dtype=np.int64)
    keys_next = enc.successor_keys(layers[T], zero)[:, 0] if L.succ is None else None
    best: list[np.ndarray] = [np.empty(0, dtype=np.int16)] * T
    succ: list[np.ndarray] = [np.empty(0, dtype=np.int32)] * T
    for t in range(T - 1, -1, -1):
        X = layers[t]
        N = X.shape[0]
        Vt = np.empty(N)
        if return_argmax:
            best[t] = np.empty(N, dtype=np.int16)
            succ[t] = np.empty(N, dtype=np.int32)
        for lo in range(0, N, _BLOCK):
            Xb = X[lo : lo + _BLOCK]
            if L.succ is not None:
                nxt = L.succ[t][lo : lo + _BLOCK]
            else:  # sorted: layers are in key order
                nxt = np.searchsorted(cast(np.ndarray, keys_next), enc.successor_keys(Xb, acts))
            Q = step_rewards(lrn, Xb, acts, family) + V[nxt]
            b = np.argmax(Q, axis=1)
            rows = np.arange(Q.shape[0])
            Vt[lo : lo + Q.shape[0]] = Q[rows, b]
            if return_argmax:
                best[t][lo : lo + Q.shape[0]] = b
                succ[t][lo : lo + Q.shape[0]] = nxt[rows, b]
        V = Vt
        if L.succ is None:
            keys_next = enc.successor_keys(X, zero)[:, 0]
    value = float(V[0])

    argmax_seq = _argmax_sequence(L, best, succ) if return_argmax else None
    sizes = [len(x) for x in layers]
    return make_result(
        lrn,
        game,
        value,
        n_states=int(sum(sizes)),
        max_layer_states=int(max(sizes)),
        argmax_seq=argmax_seq,
        seconds=time.perf_counter() - t0,
    )


def exact_worst_regret(
    n: int,
    T: int,
    *,
    learner: LearnerArg = None,
    family: str = "single",
    k: int = 1,
    eta: str | float | None = None,
    return_argmax: bool = True,
    max_states: float | None = None,
) -> WorstCaseResult:
    """Exact maximum of a learner's expected regret over all length-T feedback sequences.

    theory §3.4 (dynamic program over canonical states, module docstring), §2.5 (per-round
    terms), §1 (hindsight optimum), §3.2–§3.3 (bounds in the result).  ``learner``: a name, a
    spec dict (``{"name": "fpl", "scale": 2.0}``) or a Learner whose ``scores_law()`` is not
    None; ``eta`` (OnlineRank only; default its own, the paper's rate with the family's exact M).
    ``family`` in :data:`DP_FAMILIES`; ``k`` for ``kchoice``.  Raises a one-line ``ValueError``
    naming the argument, before any work, for bad input or an instance whose estimated number of
    states (:func:`estimate_states`) exceeds ``max_states`` (``None``: no cap; the pipeline passes
    the config's ``worst_case.max_states``).
    """
    return exact_worst_regrets(
        n,
        T,
        [eta],
        learner=learner,
        family=family,
        k=k,
        return_argmax=return_argmax,
        max_states=max_states,
    )[0]


def exact_worst_regrets(
    n: int,
    T: int,
    etas: Sequence[str | float | None],
    *,
    learner: LearnerArg = None,
    family: str = "single",
    k: int = 1,
    return_argmax: bool = True,
    max_states: float | None = None,
) -> list[WorstCaseResult]:
    """:func:`exact_worst_regret` of one learner at each rate of ``etas`` (theory §3.4), the
    states of the DP enumerated once for all of them (:func:`dp_layers`): the same results as
    separate calls, bit for bit.  Every instance is checked before any work."""
    t0 = time.perf_counter()
    runs = [dp_learner(learner, n, T, family, k, eta) for eta in etas]
    laws = {law for _, _, law in runs}
    if len(laws) != 1:  # pragma: no cover - the rate does not change a learner's law
        raise ValueError(f"learner: the rates {etas!r} give laws {sorted(laws)}, one forward pass needs one")
    game = runs[0][0]
    labelled = laws.pop() == "labelled"
    _check_size(game.n, game.T, family, game.k, labelled, max_states)
    L = dp_layers(game.n, game.T, family, game.k, labelled)
    out = []
    for i, (g, lrn, _) in enumerate(runs):
        out.append(_solve(lrn, g, L, return_argmax, t0 if i == 0 else time.perf_counter()))
    return out


# --------------------------------------------------------------------------------------------
# Replay of explicit sequences and brute force (independent of the DP's state reduction)
# --------------------------------------------------------------------------------------------


def infer_family(seq: np.ndarray) -> tuple[str, int]:
    """``(family, k)`` of an integer feedback sequence (T, n) (theory §1 families): ``single``,
    ``kchoice`` (constant ``|U| = k <= n/2``), ``subset`` (other 0/1 rows), ``spearman``
    (rows ``-sigma``)."""
    seq = np.asarray(seq)
    n = seq.shape[1]
    if np.all((seq == 0) | (seq == 1)):
        sizes = seq.sum(axis=1)
        if np.all(sizes == 1):
            return "single", 1
        if np.all(sizes == sizes[0]) and 2 <= 2 * sizes[0] <= n:
            return "kchoice", int(sizes[0])
        return "subset", 1
    if np.array_equal(np.sort(-seq, axis=1), np.broadcast_to(np.arange(1, n + 1), seq.shape)):
        return "spearman", 1
    raise ValueError("seq: not a sequence of single, k-choice, subset or Spearman feedback")


def _round_blocks(seqs: np.ndarray, family: str, items: bool) -> list[FeedbackBlock]:
    """``seqs`` (R, T, n) as consecutive blocks of rounds of one form each: rounds whose rows are
    all ``1_U`` with one ``|U|`` in ``1..n-1`` (when ``items``) as their chosen items, sorted, in
    blocks of one width; the others as dense values (theory §1's families)."""
    R, T, n = seqs.shape
    width = np.zeros(T, dtype=np.int64)  # chosen items per round, 0: dense
    if items and family != "spearman" and bool(np.all((seqs == 0) | (seqs == 1))):
        size = seqs.sum(axis=2)
        same = np.all(size == size[:1], axis=0)
        width = np.where(same & (size[0] > 0) & (size[0] < n), size[0], 0)
    blocks = []
    lo = 0
    while lo < T:
        hi = lo + 1
        while hi < T and width[hi] == width[lo]:
            hi += 1
        part = seqs[:, lo:hi, :]
        k = int(width[lo])
        if k:  # the chosen items of each row, increasing (nonzero's order)
            chosen = np.nonzero(part)[2].reshape(R, hi - lo, k)
            blocks.append(FeedbackBlock(n, items=chosen, family=family))
        else:
            blocks.append(FeedbackBlock(n, values=part.astype(np.float64), family=family))
        lo = hi
    return blocks


def play_regret(lrn: Learner, game: Game, seqs: np.ndarray, items: bool = True) -> np.ndarray:
    """Exact expected regret of every sequence ``seqs[r]`` (R, T, n) against the learner, played
    forward with its own ``expected_loss`` and ``update`` (R replicates) and the hindsight optimum
    of theory §1.  With ``items`` (default), rounds whose rows are all ``1_U`` with one ``|U|`` in
    ``1..n-1`` are passed as chosen items (the learners' fast paths), otherwise as dense values.
    Rounds of one form are played as one block, through the learner's ``play_block`` where the
    engine would use it (its compiled loop, bit-identical to the per-round calls)."""
    seqs = np.asarray(seqs)
    R, T, n = seqs.shape
    lrn.reset(game, R)
    total = np.zeros(R)
    abs_total = np.zeros(R)
    unused = np.zeros(R)
    S = np.zeros((R, n))
    if block_hook_applies(type(lrn), "play_block", ("expected_loss", "rank", "_rank", "update")):
        play = lrn.play_block
    else:
        play = functools.partial(Learner.play_block, lrn)
    t0 = 1
    for block in _round_blocks(seqs, game.family, items):
        if not play(block, None, t0, total, unused):
            raise ValueError(f"learner: {lrn.name!r} has no exact expected loss")
        block.add_pair_abs_sum(abs_total)
        block.add_to(S)
        t0 += block.rounds
    return total - hindsight_loss(S, abs_total)


def sequence_regret(
    seq: np.ndarray,
    n: int | None = None,
    eta: str | float | None = None,
    *,
    learner: LearnerArg = None,
    family: str | None = None,
    k: int | None = None,
) -> float:
    """A learner's exact expected regret on an explicit sequence ``seq`` (T, n) (theory §1, §2.5).

    The learner (default OnlineRank; ``eta`` as in :func:`exact_worst_regret`) plays the
    sequence with its own exact ``expected_loss`` and ``update``; its game has ``T = len(seq)``
    and the family inferred from ``seq`` unless given (it tunes the learners' default rates).
    """
    seq = np.asarray(seq)
    if seq.ndim != 2:
        raise ValueError(f"seq must have shape (T, n), got {seq.shape}")
    if n is not None and seq.shape[1] != n:
        raise ValueError(f"seq has {seq.shape[1]} columns, expected n={n}")
    if family is None:
        family, k0 = infer_family(seq)
        k = k0 if k is None else k
    game, lrn, _ = dp_learner(learner, seq.shape[1], seq.shape[0], family, 1 if k is None else k, eta)
    return float(play_regret(lrn, game, seq[None])[0])


def brute_force_worst_regret(
    n: int,
    T: int,
    *,
    learner: LearnerArg = None,
    family: str = "single",
    k: int = 1,
    eta: str | float | None = None,
    return_argmax: bool = False,
    limit: int = 500_000,
    chunk: int = 4096,
) -> float | tuple[float, np.ndarray]:
    """Maximum expected regret over ALL ``A^T`` sequences of the (unreduced) family, each played
    by the learner forward with its own ``expected_loss`` and ``update`` (theory §3.4 cross-check;
    no state reduction, no ``set_scores``).  Tiny instances only (``A^T <= limit``)."""
    game, lrn, _ = dp_learner(learner, n, T, family, k, eta)
    acts = family_actions(n, family, game.k).astype(np.float64)
    A = acts.shape[0]
    if A**T > limit:
        raise ValueError(f"T={T}: {A}^{T} sequences is too many for brute force (limit {limit})")
    best_val, best_seq = -math.inf, None
    it = itertools.product(range(A), repeat=T)
    while True:
        block = list(itertools.islice(it, chunk))
        if not block:
            break
        seqs = acts[np.array(block, dtype=np.int64).reshape(len(block), T)]
        vals = play_regret(lrn, game, seqs, items=False)
        j = int(np.argmax(vals))
        if vals[j] > best_val:
            best_val, best_seq = float(vals[j]), seqs[j].astype(np.int64)
    return (best_val, cast(np.ndarray, best_seq)) if return_argmax else best_val


# --------------------------------------------------------------------------------------------
# The pipeline's OnlineRank table (figure worst_case.png, claims)
# --------------------------------------------------------------------------------------------


def worst_case_rows(wc: WorstCase) -> list[dict]:
    """Pipeline table of OnlineRank's exact worst cases (theory §3.4): for each case
    ``{family, n, k, T: [...], eta_factor: [...]}`` (``eta_factor`` multiplies the paper's eta).
    ``wc`` is the typed settings' ``worst_case`` (:class:`onlinerank.settings.WorstCase`): its
    ``exact`` cases, and the cap ``max_states`` of every DP.  Columns: family, n, k, T,
    eta_factor, eta, M, value, bound_thm31, bound_sharp, ratio_thm31, ratio_sharp, states.
    """
    rows = []
    for case in wc.exact:
        fam, k = case.family, int(case.k)
        n = int(case.n)
        for T in case.T:
            eta_p = float(theorem31_eta(n, int(T), fam, k))
            factors = [float(f) for f in case.eta_factor]
            found = exact_worst_regrets(
                n,
                int(T),
                [eta_p * f for f in factors],
                family=fam,
                k=k,
                max_states=wc.max_states,
                return_argmax=False,
            )
            for f, r in zip(factors, found, strict=True):
                rows.append(
                    {
                        "family": fam,
                        "n": n,
                        "k": k,
                        "T": int(T),
                        "eta_factor": float(f),
                        "eta": r.eta,
                        "M": r.M,
                        **r.value_columns(),
                    }
                )
    return rows


def theorem31_eta(n: int, T: int, family: str, k: int = 1) -> float:
    """The paper's rate ``eta_p = n sqrt(ln 2 / (T M))`` with the family's exact M (theory §3.2)."""

    return float(eta_paper(n, T, family_M(family, n, k)))
