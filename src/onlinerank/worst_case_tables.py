"""Pipeline tables of the exact worst cases: the exact worst case of every learner (a sound Section 4
comparison) and how tight Theorem 3.1 is — findings beyond the paper (theory §3.2–§3.4).

Entry points take the typed settings' ``worst_case`` (:class:`onlinerank.settings.WorstCase`, and
the ``learners`` specs) and return tidy rows; the section is checked with the rest of the config
(:func:`onlinerank.config.load_settings`, whose schema fills every default) before any of them
runs.  Section shape::

    worst_case:
      exact: [{family, n, k, T: [...], eta_factor: [...]}]   # OnlineRank table (worst_case_rows)
      family: single                  # feedback family of comparison and tightness
      k: 1                            # items per round (kchoice)
      max_states: 20000000            # cap of every DP (estimated canonical states)
      learners: [onlinerank-pl, hedge, fpl, permelearn, ftl, uniform-ranking]   # labels
      comparison:
        exact:  [{n: 3, T: 100}, ...]          # every learner's exact worst case (DP)
        search: [{n: 6, T: 200}, ...]          # beyond the DP: the common adversaries only
        adversaries: [greedy, cyclic]          # registered adversaries, besides the search
        max_n: {hedge: 6}                      # skip a learner (name or label) above this n
      tightness:
        eta_factor: [0.25, 0.5, 1.0, 2.0]      # multiples of the paper's eta
        exact:  [{n: 3, T: [100, 400]}, ...]   # OnlineRank's exact worst case
        search: [{n: 10, T: [300]}, ...]       # the search adversary beyond the DP
        width: 0                               # beam width here (0: staircase only; default
                                               # search.width)
      search: {width: 300, max_evals: 5000}    # beam width, staircase sequences per start

Rows carry the sequence that attains each value (:func:`encode_sequence`), so anyone can replay
it: ``onlinerank.simulate.exact_expected_regret(decode_sequence(...), eta)`` for OnlineRank, or
:func:`onlinerank.worst_case.sequence_regret` with the learner for any learner
(:func:`replay_row` does it for a row).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .worst_case import (
    WorstCaseResult,
    exact_worst_regret,
    exact_worst_regrets,
    sequence_regret,
    theorem31_eta,
)
from .worst_case_search import (
    STAIRCASE_FAMILIES,
    adversary_regret,
    beam_search,
    search_worst_regret,
    staircase_search,
)

if TYPE_CHECKING:
    from .settings import Spec, WorstCase

__all__ = [
    "comparison_pieces",
    "comparison_rows",
    "decode_sequence",
    "encode_sequence",
    "fraction_of_exact_rows",
    "largest_ratio_rows",
    "replay_row",
    "tightness_pieces",
    "tightness_rows",
]


# --------------------------------------------------------------------------------------------
# Sequences in a table cell
# --------------------------------------------------------------------------------------------


def encode_sequence(seq: np.ndarray, family: str) -> str:
    """A feedback sequence (theory §1 families) as text, one token per round separated by
    spaces: the chosen items joined by ``+`` (binary families; ``-`` for the empty set), or
    Spearman's positions ``sigma(0).sigma(1)...``."""
    seq = np.asarray(seq, dtype=np.int64)
    if family == "spearman":
        return " ".join(".".join(str(int(-x)) for x in row) for row in seq)
    return " ".join("+".join(str(int(u)) for u in np.flatnonzero(row)) or "-" for row in seq)


def decode_sequence(text: str, n: int, family: str) -> np.ndarray:
    """The (T, n) int feedback sequence (theory §1) of :func:`encode_sequence`'s ``text``."""
    rows: list[list[int] | np.ndarray] = []
    for tok in text.split():
        if family == "spearman":
            rows.append([-int(x) for x in tok.split(".")])
        else:
            r = np.zeros(n, dtype=np.int64)
            if tok != "-":
                r[[int(u) for u in tok.split("+")]] = 1
            rows.append(r)
    return np.array(rows, dtype=np.int64).reshape(-1, n)


def replay_row(row: dict, learners: Mapping[str, Spec]) -> float:
    """The exact expected regret (theory §2.5) of a row's sequence, replayed with the row's
    learner (its label in ``learners``, the typed settings' learners; OnlineRank at the row's eta
    for tightness rows)."""
    seq = decode_sequence(str(row["sequence"]), int(row["n"]), row["family"])
    if "learner" in row:
        spec = learners[row["learner"]].as_dict()
        return sequence_regret(seq, learner=spec, family=row["family"], k=int(row["k"]))
    return sequence_regret(seq, eta=float(row["eta"]), family=row["family"], k=int(row["k"]))


def _max_n(max_n: Mapping[str, int], label: str, name: str) -> float:
    """The largest n at which learner ``label`` (registered name ``name``) is compared: its entry
    in ``comparison.max_n`` by label, else by registered name, else no limit."""
    return max_n.get(label, max_n.get(name, math.inf))


# --------------------------------------------------------------------------------------------
# The comparison of learners (Section 4, soundly)
# --------------------------------------------------------------------------------------------


def _row(label: str, r: WorstCaseResult, kind: str) -> dict:
    return {
        "family": r.family,
        "n": r.n,
        "k": r.k,
        "T": r.T,
        "learner": label,
        "learner_name": r.learner,
        "kind": kind,
        "method": r.method,
        "value": r.value,
        "bound_thm31": r.bound_thm31,
        "bound_own": r.bound_own,
        "ratio_thm31": r.ratio_thm31,
        "ratio_own": r.ratio_own,
        "states": r.n_states,
        "sequence": encode_sequence(cast(np.ndarray, r.argmax_seq), r.family),
    }


def comparison_pieces(wc: WorstCase, learners: Mapping[str, Spec]) -> list[str]:
    """The independent jobs of :func:`comparison_rows`: one per learner label of
    ``worst_case.learners``, in table order (theory §3.4: each learner's DP and searches)."""
    return list(wc.learners)


def comparison_rows(
    wc: WorstCase, learners: Mapping[str, Spec], part: str = "all", piece: str | None = None
) -> list[dict]:
    """Every learner's exact worst case at the DP sizes, and every learner against the common
    adversaries (``comparison.adversaries`` plus the search: staircase and beam) at all sizes.

    Columns: family, n, k, T, learner (label), learner_name, kind (``exact``: the DP's worst
    case; ``adversary``: a lower bound on it), method (``exact``, an adversary's name,
    ``staircase``, ``beam``), value, bound_thm31 (Theorem 3.1 for OnlineRank at the paper's eta,
    ``n sqrt(T M ln 2)``), bound_own (the learner's own bound, NaN if none), ratio_thm31,
    ratio_own, states (DP states, or sequences/states visited by a search), sequence.  ``part``:
    ``"exact"`` (the DP rows only), ``"search"`` (the adversary rows only) or ``"all"``;
    ``piece``: one of :func:`comparison_pieces` (that learner's rows only; the pieces in order
    are the whole table).
    ``wc`` and ``learners`` are the typed settings' ``worst_case`` and ``learners``
    (:mod:`onlinerank.settings`: the schema filled every default).
    """

    if part not in ("all", "exact", "search"):
        raise ValueError(f"part must be 'all', 'exact' or 'search', got {part!r}")
    fam, k, cap = wc.family, wc.k, wc.max_states
    comp = wc.comparison
    width, evals = wc.search.width, wc.search.max_evals
    exact_pts = [(int(p.n), int(p.T)) for p in comp.exact]
    search_pts = [(int(p.n), int(p.T)) for p in comp.search]
    if piece is not None and piece not in comparison_pieces(wc, learners):
        raise ValueError(f"piece must be one of {comparison_pieces(wc, learners)}, got {piece!r}")
    rows = []
    for label in wc.learners:
        if piece is not None and label != piece:
            continue
        spec = learners[label].as_dict()
        for n, T in exact_pts + search_pts:
            if n > _max_n(comp.max_n, label, spec["name"]):
                continue
            kw: dict[str, Any] = {"learner": spec, "family": fam, "k": k}
            if part != "search" and (n, T) in exact_pts:
                rows.append(_row(label, exact_worst_regret(n, T, max_states=cap, **kw), "exact"))
            if part == "exact":
                continue
            for adv in comp.adversaries:
                rows.append(_row(label, adversary_regret(n, T, adversary=adv, **kw), "adversary"))
            if fam in STAIRCASE_FAMILIES:
                rows.append(_row(label, staircase_search(n, T, max_evals=evals, **kw), "adversary"))
            rows.append(_row(label, beam_search(n, T, width=width, **kw), "adversary"))
    return rows


def fraction_of_exact_rows(rows: list[dict]) -> list[dict]:
    """For every adversary row of :func:`comparison_rows` at a DP size: the fraction of the
    learner's exact worst case (theory §3.4) it reaches (``value / exact``).  This is what makes the greedy
    adversary's numbers an observation about the adversary, not a comparison of learners (issue
    14: greedy reaches ~0.9 of OnlineRank's worst case but only ~0.3-0.4 of FPL's).  Columns:
    family, n, k, T, learner, method, value, exact, fraction."""
    exact = {(r["n"], r["T"], r["learner"]): r["value"] for r in rows if r["kind"] == "exact"}
    out = []
    for r in rows:
        key = (r["n"], r["T"], r["learner"])
        if r["kind"] == "adversary" and key in exact:
            e = exact[key]
            out.append(
                {
                    **{c: r[c] for c in ("family", "n", "k", "T", "learner", "method", "value")},
                    "exact": e,
                    "fraction": r["value"] / e if e > 0 else math.nan,
                }
            )
    return out


# --------------------------------------------------------------------------------------------
# How tight Theorem 3.1 is (OnlineRank)
# --------------------------------------------------------------------------------------------


def tightness_pieces(wc: WorstCase) -> list[str]:
    """The independent jobs of :func:`tightness_rows`: one per point of ``tightness.exact`` and
    ``tightness.search`` (``exact0-n3``: the first exact point, at n = 3), in table order."""
    tight = wc.tightness
    return [
        f"{kind}{i}-n{int(p.n)}"
        for kind, pts in (("exact", tight.exact), ("search", tight.search))
        for i, p in enumerate(pts)
    ]


def _tightness_point(wc: WorstCase, kind: str, n: int, T: int, factors: list[float]) -> list[dict]:
    """:func:`tightness_rows`' rows of one (n, T): the worst case at every η factor, exact (one
    forward pass of the DP for every rate) or searched, against Theorem 3.1's two forms."""
    fam, k = wc.family, wc.k
    width, evals = wc.tightness_width, wc.search.max_evals
    etas = [f * theorem31_eta(n, T, fam, k) for f in factors]
    if kind == "exact":
        found = exact_worst_regrets(n, T, etas, family=fam, k=k, max_states=wc.max_states)
    elif width > 0:
        found = [
            search_worst_regret(n, T, family=fam, k=k, eta=e, width=width, max_evals=evals) for e in etas
        ]
    else:
        found = [staircase_search(n, T, family=fam, k=k, eta=e, max_evals=evals) for e in etas]
    return [
        {
            "family": fam,
            "n": n,
            "k": k,
            "T": T,
            "eta_factor": f,
            "eta": r.eta,
            "M": r.M,
            "kind": kind,
            "method": r.method,
            **r.value_columns(),
            "sequence": encode_sequence(cast(np.ndarray, r.argmax_seq), fam),
        }
        for f, r in zip(factors, found, strict=True)
    ]


def tightness_rows(wc: WorstCase, part: str = "all", piece: str | None = None) -> list[dict]:
    """OnlineRank's worst case over the ``tightness`` grid of (n, T, eta / eta_p): exact (DP)
    where listed under ``exact``, else the best of the staircase and the beam search (a lower
    bound on the worst case; the staircase alone with ``tightness.width: 0``), against Theorem
    3.1 in its sharp form at that eta, ``C(n,2) ln 2 / eta + eta T M / 2``, and its paper form
    ``n sqrt(T M ln 2)``.

    Columns: family, n, k, T, eta_factor, eta, M, kind (``exact`` / ``search``), method
    (``exact``, ``staircase`` or ``beam``), value, bound_thm31, bound_sharp, ratio_thm31,
    ratio_sharp (the tightness), states, sequence.  ``part`` as in :func:`comparison_rows`;
    ``piece``: one of :func:`tightness_pieces` (that point's rows only; the pieces in order are
    the whole table); ``wc`` is the typed settings' ``worst_case``.
    """

    if part not in ("all", "exact", "search"):
        raise ValueError(f"part must be 'all', 'exact' or 'search', got {part!r}")
    tight = wc.tightness
    factors = [float(f) for f in tight.eta_factor]
    if piece is not None and piece not in tightness_pieces(wc):
        raise ValueError(f"piece must be one of {tightness_pieces(wc)}, got {piece!r}")
    rows = []
    for kind, pts in (("exact", tight.exact), ("search", tight.search)):
        if part not in ("all", kind):
            continue
        for i, p in enumerate(pts):
            n = int(p.n)
            if piece is not None and piece != f"{kind}{i}-n{n}":
                continue
            for T in p.T:
                rows += _tightness_point(wc, kind, n, int(T), factors)
    return rows


def largest_ratio_rows(rows: list[dict]) -> list[dict]:
    """Per n, the tightness row with the largest ``ratio_sharp`` (exact or search), with its
    sequence: the largest fraction of Theorem 3.1 (sharp form, theory §3.1) any sequence is known
    to reach."""
    best: dict[int, dict] = {}
    for r in rows:
        if r["n"] not in best or r["ratio_sharp"] > best[r["n"]]["ratio_sharp"]:
            best[r["n"]] = r
    return [best[n] for n in sorted(best)]
