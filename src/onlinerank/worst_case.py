"""Exact expected regret of OnlineRank and its exact worst case over feedback sequences.

Implements THEORY.md:

* §1 (pairwise loss ``ll``, offline optimum ``L_T(pi*)``) and §1.1 (complexity parameter M);
* §2.1 (OnlineRank's pairwise marginals ``P(u before v) = expit(eta (S(u) - S(v)))``);
* §2.5 (exact expected loss from the marginals, and the *regret identity (tanh form)*);
* §3.2 (paper's learning rate, Theorem 3.1 bound and the sharp bound);
* §3.4 (exact worst case by a dynamic program over canonical score states).

Because the expected loss is linear in the pairwise marginals, the expected regret of a fixed
feedback sequence is computed exactly, with no sampling (:func:`sequence_regret`).  Because the
learner's law at round t is a deterministic function of ``S_{t-1}``, the worst case over adaptive
adversaries equals the worst case over sequences, and it is computed exactly by backward induction
(:func:`exact_worst_regret`).

The DP state is the canonical form of the cumulative score vector: sort ``S`` ascending and
subtract ``min S``.  This is valid because

* every feedback family used here is closed under relabelling of the items, and the learner's law
  is equivariant under relabelling;
* both terms of the tanh identity depend on ``S`` only through differences ``S(u) - S(v)`` (and
  the step term on ``s`` only through ``s(v) - s(u)``), so they are invariant under ``S -> S + c``
  and ``s -> s + c``.  The same holds for the learner's law (Bradley-Terry weights ``e^{eta S}``).

Feedback families (THEORY §1):

``"choice"``          exactly ``k`` chosen items, ``s = 1_U`` with ``|U| = k`` (``k = 1``: single
                      choice ``s = e_u``);  ``M = k (n - k)``.
``"choice_at_most"``  ``1 <= |U| <= k`` (THEORY §1's definition of k-choice; the empty set is
                      dropped since it is a zero-cost no-op, it never increases the maximum);
                      ``M = max_{1<=j<=k} j (n - j)``.
``"subsets"``         any binary vector (arbitrary subsets, including empty and full);
                      ``M = floor(n^2 / 4)``.
``"spearman"``        ``s = -sigma`` for every permutation ``sigma`` (positions 1..n);
                      ``M = n^2 (n^2 - 1) / 12``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit

from .bounds import eta_paper
from .feedback import family_M

__all__ = [
    "FAMILIES",
    "WorstCaseResult",
    "brute_force_worst_regret",
    "complexity_M",
    "exact_worst_regret",
    "feedback_family",
    "offline_optimum",
    "paper_eta",
    "sequence_regret",
    "sequence_regret_tanh",
]

FAMILIES = ("choice", "choice_at_most", "subsets", "spearman")

LN2 = math.log(2.0)


# --------------------------------------------------------------------------------------------
# Feedback families and parameters (THEORY §1, §1.1, §3.2)
# --------------------------------------------------------------------------------------------


def _check_family(n: int, family: str, k: int) -> None:
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; expected one of {FAMILIES}")
    if n < 2:
        raise ValueError("need n >= 2 items")
    if family in ("choice", "choice_at_most") and not 1 <= k <= n - 1:
        raise ValueError(f"k-choice needs 1 <= k <= n-1, got k={k}, n={n}")


def feedback_family(n: int, family: str = "choice", k: int = 1) -> np.ndarray:
    """All feedback vectors of a family, as an int array of shape (A, n) (THEORY §1).

    ``"choice"``: ``1_U`` with ``|U| = k``; ``"choice_at_most"``: ``1_U`` with ``1 <= |U| <= k``;
    ``"subsets"``: every binary vector (``2^n`` rows, including 0 and 1); ``"spearman"``:
    ``-sigma`` for each of the ``n!`` permutations ``sigma`` of positions ``1..n``.
    """
    _check_family(n, family, k)
    if family == "spearman":
        perms = np.array(list(itertools.permutations(range(1, n + 1))), dtype=np.int64)
        return -perms
    if family == "subsets":
        sizes = range(0, n + 1)
    elif family == "choice":
        sizes = [k]
    else:  # choice_at_most
        sizes = range(1, k + 1)
    rows = []
    for j in sizes:
        for U in itertools.combinations(range(n), j):
            r = np.zeros(n, dtype=np.int64)
            r[list(U)] = 1
            rows.append(r)
    return np.array(rows, dtype=np.int64)


def complexity_M(n: int, family: str = "choice", k: int = 1) -> float:
    """Exact complexity parameter ``M = max_s sum_{u<v} (s(u)-s(v))^2`` (THEORY §1.1 table).

    single choice ``n-1``; exactly-k choice ``k(n-k)``; at-most-k choice ``max_{j<=k} j(n-j)``
    (``= k(n-k)`` for ``k <= n/2``); subsets ``floor(n^2/4)``; Spearman ``n^2(n^2-1)/12``.
    """
    _check_family(n, family, k)
    if family == "choice_at_most":
        return float(max(j * (n - j) for j in range(1, k + 1)))
    # the other families are those of the simulations, under this module's names
    return family_M({"choice": "kchoice", "subsets": "subset"}.get(family, family), n, k)


def paper_eta(n: int, T: int, M: float) -> float:
    """The paper's learning rate ``eta = n sqrt(ln 2 / (T M))`` (THEORY §3.2), as a float."""
    return float(eta_paper(n, T, M))


# --------------------------------------------------------------------------------------------
# Exact expected regret of an explicit sequence (THEORY §1 offline optimum, §2.1, §2.5)
# --------------------------------------------------------------------------------------------


def offline_optimum(seq: np.ndarray) -> float:
    """Hindsight optimum ``L_T(pi*)`` of the pairwise loss (THEORY §1 "Offline optimum").

    ``L_T(pi*) = 1/2 sum_t sum_{u<v} |s_t(u)-s_t(v)| - 1/2 sum_{u<v} |S_T(u)-S_T(v)|``.
    """
    seq = np.asarray(seq, dtype=float)
    return float(_offline_optimum_batch(seq[None])[0])


def _offline_optimum_batch(seqs: np.ndarray) -> np.ndarray:
    n = seqs.shape[-1]
    iu, iv = np.triu_indices(n, 1)
    per_round = np.abs(seqs[..., iu] - seqs[..., iv]).sum(axis=(-1, -2))
    S = seqs.sum(axis=-2)
    final = np.abs(S[..., iu] - S[..., iv]).sum(axis=-1)
    return 0.5 * per_round - 0.5 * final


def _sequence_regret_batch(seqs: np.ndarray, eta: float) -> np.ndarray:
    """Direct (expit) form of the expected regret for a batch of sequences, shape (B, T, n)."""
    seqs = np.asarray(seqs, dtype=float)
    B, T, n = seqs.shape
    # S_{t-1}: cumulative scores *before* round t.
    S_prev = np.cumsum(seqs, axis=1) - seqs
    # ds[b, t, u, v] = s_t(v) - s_t(u); dS[b, t, u, v] = S_{t-1}(u) - S_{t-1}(v).
    ds = seqs[:, :, None, :] - seqs[:, :, :, None]
    dS = S_prev[:, :, :, None] - S_prev[:, :, None, :]
    P_uv = expit(eta * dS)  # P(u before v), stable for any magnitude
    exp_loss = np.where(ds > 0, ds, 0.0) * P_uv
    alg = exp_loss.sum(axis=(1, 2, 3))
    return alg - _offline_optimum_batch(seqs)


def sequence_regret(seq: np.ndarray, n: int | None = None, eta: float = 1.0) -> float:
    """Exact expected regret of OnlineRank(eta) on an explicit feedback sequence (THEORY §2.5).

    ``seq`` has shape ``(T, n)`` (real feedback allowed).  Returns
    ``sum_t E[ll(pi_t, s_t)] - L_T(pi*)`` with
    ``E[ll(pi_t, s_t)] = sum_{(u,v): s_t(v) > s_t(u)} (s_t(v) - s_t(u)) expit(eta (S_{t-1}(u) -
    S_{t-1}(v)))`` (THEORY §2.1/§2.5) and ``L_T(pi*)`` from THEORY §1.  The value is the same for
    QuickSort and Plackett-Luce (Lemma 6.1, THEORY §2.4).  ``scipy.special.expit`` is used, so
    there is no overflow for any ``|eta S|``.
    """
    seq = np.asarray(seq, dtype=float)
    if seq.ndim != 2:
        raise ValueError("seq must have shape (T, n)")
    if n is not None and seq.shape[1] != n:
        raise ValueError(f"seq has {seq.shape[1]} columns, expected n={n}")
    if not eta > 0:
        raise ValueError("eta must be positive")
    return float(_sequence_regret_batch(seq[None], eta)[0])


def sequence_regret_tanh(seq: np.ndarray, eta: float) -> float:
    """Expected regret via the *regret identity (tanh form)* of THEORY §2.5.

    ``Regret = 1/2 sum_t sum_{u<v} (s_t(v)-s_t(u)) tanh(eta/2 (S_{t-1}(u)-S_{t-1}(v)))
    + 1/2 sum_{u<v} |S_T(u)-S_T(v)|``.  Used to cross-check :func:`sequence_regret`.
    """
    seq = np.asarray(seq, dtype=float)
    n = seq.shape[1]
    iu, iv = np.triu_indices(n, 1)
    S_prev = np.cumsum(seq, axis=0) - seq
    step = 0.5 * np.sum((seq[:, iv] - seq[:, iu]) * np.tanh(0.5 * eta * (S_prev[:, iu] - S_prev[:, iv])))
    S = seq.sum(axis=0)
    return float(step + 0.5 * np.abs(S[iu] - S[iv]).sum())


# --------------------------------------------------------------------------------------------
# Exact worst case by dynamic programming over canonical states (THEORY §2.5 tanh form, §3.4)
# --------------------------------------------------------------------------------------------


@dataclass
class WorstCaseResult:
    """Exact worst-case expected regret of OnlineRank (THEORY §3.4) and the bounds of §3.2.

    ``bound_thm31 = n sqrt(T M ln 2)`` is Theorem 3.1's value (it is a bound only at the paper's
    eta); ``bound_sharp = C(n,2) ln 2 / eta + eta T M / 2`` holds for every eta > 0 (§3.2 [X]).
    ``n_states`` is the number of canonical states over all layers ``t = 0..T``;
    ``argmax_seq`` is a feedback sequence (original labels) attaining ``value``.
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


def _dp_actions(n: int, family: str, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Family actions reduced modulo translation: (shifted >= 0 actions, display actions)."""
    disp = feedback_family(n, family, k)
    shifted = disp - disp.min(axis=1, keepdims=True)
    _, first = np.unique(shifted, axis=0, return_index=True)
    first = np.sort(first)
    return shifted[first], disp[first]


def _canon(X: np.ndarray) -> np.ndarray:
    """Canonical form along the last axis: sort ascending, subtract the minimum."""
    Y = np.sort(X, axis=-1)
    return Y - Y[..., :1]


def _final_value(X: np.ndarray) -> np.ndarray:
    """``1/2 sum_{u<v} |S(u)-S(v)|`` for sorted rows: ``1/2 sum_j S_j (2j - n + 1)``."""
    n = X.shape[-1]
    w = 2.0 * np.arange(n) - (n - 1)
    return 0.5 * (X.astype(float) @ w)


def exact_worst_regret(
    n: int,
    T: int,
    k: int = 1,
    eta: float | None = None,
    family: str = "choice",
    return_argmax: bool = True,
) -> WorstCaseResult:
    """Exact maximum of OnlineRank's expected regret over all length-T feedback sequences.

    THEORY §3.4, using the tanh identity of §2.5.  Value function on canonical states
    (sorted, min-subtracted cumulative scores, THEORY §3.4):

    ``V_T(S) = 1/2 sum_{u<v} |S(u)-S(v)|`` and
    ``V_t(S) = max_{s in family} [ 1/2 sum_{u<v} (s(v)-s(u)) tanh(eta/2 (S(u)-S(v)))
    + V_{t+1}(canon(S + s)) ]``; the answer is ``V_0(0)``.

    ``family``: ``"choice"`` (exactly ``k`` items; ``k = 1`` is single choice),
    ``"choice_at_most"`` (``1 <= |U| <= k``), ``"subsets"`` (any binary vector),
    ``"spearman"`` (``s = -sigma``; ``k`` ignored).  ``eta=None`` means the paper's
    ``eta = n sqrt(ln 2 / (T M))`` with the exact ``M`` (§1.1, §3.2).  Reachable canonical states
    are enumerated forward layer by layer, then values are found by backward induction,
    vectorised per layer with numpy.  With ``return_argmax`` a maximising sequence is rebuilt.
    """
    _check_family(n, family, k)
    if T < 0:
        raise ValueError("T must be >= 0")
    M = complexity_M(n, family, k)
    if eta is None:
        if T == 0:
            raise ValueError("the paper's eta needs T >= 1")
        eta = paper_eta(n, T, M)
    eta = float(eta)
    if not eta > 0:
        raise ValueError("eta must be positive")

    acts, disp = _dp_actions(n, family, k)
    span = int(acts.max())
    base = T * span + 1  # canonical entries lie in [0, T*span]
    if (n - 1) * math.log2(max(base, 2)) >= 62:
        raise ValueError("instance too large for the integer state encoding")
    radix = base ** np.arange(n - 2, -1, -1, dtype=np.int64)  # encodes entries 1..n-1

    def encode(Y: np.ndarray) -> np.ndarray:
        return Y[..., 1:] @ radix

    # ---- forward: reachable canonical states per layer ----
    layers: list[np.ndarray] = [np.zeros((1, n), dtype=np.int64)]
    keys: list[np.ndarray] = [encode(layers[0])]
    nxt_idx: list[np.ndarray] = []
    for _t in range(T):
        X = layers[-1]
        Y = _canon(X[:, None, :] + acts[None, :, :])  # (N, A, n)
        kk = encode(Y)  # (N, A)
        uniq, first = np.unique(kk.ravel(), return_index=True)
        layers.append(Y.reshape(-1, n)[first])
        keys.append(uniq)
        nxt_idx.append(np.searchsorted(uniq, kk).astype(np.int32))

    # ---- backward induction (tanh form) ----
    iu, iv = np.triu_indices(n, 1)
    coef = 0.5 * (acts[:, iv] - acts[:, iu]).T.astype(float)  # (P, A)
    V = _final_value(layers[T])
    best: list[np.ndarray] = [np.empty(0, dtype=np.int32)] * T
    for t in range(T - 1, -1, -1):
        X = layers[t].astype(float)
        th = np.tanh(0.5 * eta * (X[:, iu] - X[:, iv]))  # (N, P)
        Q = th @ coef + V[nxt_idx[t]]  # (N, A)
        b = np.argmax(Q, axis=1)
        best[t] = b.astype(np.int32)
        V = Q[np.arange(Q.shape[0]), b]
    value = float(V[0])

    argmax_seq = None
    if return_argmax:
        S = np.zeros(n, dtype=np.int64)
        rows = []
        for t in range(T):
            perm = np.argsort(S, kind="stable")
            key = encode(S[perm] - S[perm[0]])
            r = int(np.searchsorted(keys[t], key))
            assert keys[t][r] == key
            s = np.empty(n, dtype=np.int64)
            s[perm] = disp[best[t][r]]
            rows.append(s)
            S += s
        argmax_seq = np.array(rows, dtype=np.int64).reshape(T, n)

    bound_thm31 = n * math.sqrt(T * M * LN2)
    bound_sharp = math.comb(n, 2) * LN2 / eta + eta * T * M / 2.0
    sizes = [len(L) for L in layers]
    return WorstCaseResult(
        n=n,
        T=T,
        family=family,
        k=k,
        value=value,
        eta=eta,
        M=M,
        bound_thm31=bound_thm31,
        bound_sharp=bound_sharp,
        ratio_thm31=value / bound_thm31 if bound_thm31 > 0 else math.nan,
        ratio_sharp=value / bound_sharp,
        n_states=int(sum(sizes)),
        max_layer_states=int(max(sizes)),
        argmax_seq=argmax_seq,
    )


def brute_force_worst_regret(
    n: int,
    T: int,
    family: str = "choice",
    k: int = 1,
    eta: float | None = None,
    return_argmax: bool = False,
    chunk: int = 4096,
) -> float | tuple[float, np.ndarray]:
    """Maximum expected regret over ALL feedback sequences by direct enumeration (THEORY §3.4).

    Evaluates :func:`sequence_regret`'s direct (expit) formula on every one of ``A^T`` sequences
    of the (unreduced) family of :func:`feedback_family`; tiny instances only.  ``eta=None``
    means the paper's eta.  Returns the value, or ``(value, sequence)`` with ``return_argmax``.
    """
    _check_family(n, family, k)
    if eta is None:
        eta = paper_eta(n, T, complexity_M(n, family, k))
    acts = feedback_family(n, family, k).astype(float)
    A = acts.shape[0]
    if A**T > 5_000_000:
        raise ValueError(f"{A}^{T} sequences is too many for brute force")
    best_val = -math.inf
    best_seq = np.zeros((T, n))
    it = itertools.product(range(A), repeat=T)
    while True:
        block = list(itertools.islice(it, chunk))
        if not block:
            break
        idx = np.array(block, dtype=np.int64).reshape(len(block), T)
        seqs = acts[idx]  # (B, T, n)
        vals = _sequence_regret_batch(seqs, eta)
        j = int(np.argmax(vals))
        if vals[j] > best_val:
            best_val = float(vals[j])
            best_seq = seqs[j]
    if return_argmax:
        return best_val, best_seq
    return best_val


def worst_case_rows(cases: list[dict]) -> list[dict]:
    """Pipeline table: exact worst case for each ``{family, n, k, T: [...], eta_factor: [...]}``.

    ``eta_factor`` multiplies the paper's eta (default ``[1.0]``); Theorem 3.1's sharp bound holds
    for every eta (THEORY §3.2 [X]), so every row must have ``value <= bound_sharp``.
    """
    rows = []
    for case in cases:
        fam, n, k = case.get("family", "choice"), int(case["n"]), int(case.get("k", 1))
        for T in case["T"]:
            eta_p = paper_eta(n, int(T), complexity_M(n, fam, k))
            for f in case.get("eta_factor", [1.0]):
                r = exact_worst_regret(n, int(T), k=k, eta=eta_p * float(f), family=fam, return_argmax=False)
                rows.append(
                    {
                        "family": fam,
                        "n": n,
                        "k": k,
                        "T": int(T),
                        "eta_factor": float(f),
                        "eta": r.eta,
                        "M": r.M,
                        "value": r.value,
                        "bound_thm31": r.bound_thm31,
                        "bound_sharp": r.bound_sharp,
                        "ratio_thm31": r.ratio_thm31,
                        "ratio_sharp": r.ratio_sharp,
                        "states": r.n_states,
                    }
                )
    return rows
