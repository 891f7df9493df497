"""Lemma 6.1 and the quantitative remarks of Section 2, checked exactly (enumeration of every
ranking and every feedback vector of tiny games), the sampled Lemma 6.1 check at n = 50, the
finding that the two samplers' full laws differ, and the paper's statements we do not test."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import cast

import numpy as np

from ..feedback import complexity_M, family_M, position_loss
from ..hindsight import hindsight_loss_of_sequence
from ..laws import pair_marginals, plackett_luce_law, quicksort_law, total_variation
from .registry import Context, claim, exact_cell, make_cell, not_tested
from .stats import abs_interval, bonferroni_z

#: weight vectors of the exact Lemma 6.1 check (theory §5.2; reference values G3/G4)
LEMMA_WEIGHTS = ((1, 2, 4), (1, 2, 3, 4), (1, 1, 3, 7, 2), (5, 1, 2, 2, 9))


@claim(
    id="lemma6.1",
    section="paper",
    kind="data",
    paper_ref="Lemma 6.1",
    title="QuickSort and Plackett–Luce both have P(u ≺ v) = w_u/(w_u + w_v)",
    statement="For both randomized sorting procedures, the probability that u precedes v is "
    "w_u/(w_u + w_v), for every pair.",
    statistic="max over pairs of |P(u ≺ v) − w_u/(w_u + w_v)|",
    direction="<=",
    threshold="claims.margins.lemma61",
    test="exact: rational enumeration of both full laws (n ≤ 5); sampled: the pipeline's samplers at "
    "n = 50, simultaneous normal intervals over all pairs (Bonferroni), equivalence margin from the config",
    reads={"lemma61": ("sampler", "n", "samples", "u", "v", "p", "freq")},
    about="QuickSort (Algorithm 2) and Plackett–Luce (Algorithm 3)",
)
def lemma61(ctx: Context) -> list[dict]:
    out = []
    for w in LEMMA_WEIGHTS:
        for name, fn in (("plackett-luce", plackett_luce_law), ("quicksort", quicksort_law)):
            marg = pair_marginals(fn(w))
            dev = max(abs(p - Fraction(w[u], w[u] + w[v])) for (u, v), p in marg.items())
            out.append(
                exact_cell(
                    ctx,
                    f"{name}, exact law, w = {w}",
                    {"sampler": name, "n": len(w), "weights": list(w)},
                    float(dev),
                    method="exact rational enumeration of all n! orders",
                )
            )
    rows = ctx.table("lemma61")
    z, level = bonferroni_z(len(rows), ctx.alpha)
    for name in sorted({r["sampler"] for r in rows}):
        rs = [r for r in rows if r["sampler"] == name]
        lo = hi = val = 0.0
        worst = rs[0]
        for r in rs:
            d = r["freq"] - r["p"]
            se = math.sqrt(r["p"] * (1 - r["p"]) / r["samples"])
            a, b = abs_interval(d - z * se, d + z * se)
            lo, hi = max(lo, a), max(hi, b)
            if abs(d) >= val:
                val, worst = abs(d), r
        out.append(
            make_cell(
                ctx,
                f"{name}, sampled, n={rs[0]['n']}, {len(rs)} random pairs, {rs[0]['samples']} orders",
                {"sampler": name, "n": rs[0]["n"], "pairs": len(rs), "samples": rs[0]["samples"]},
                val,
                lo,
                hi,
                method=f"normal, Bonferroni over {len(rows)} pair tests (two-sided {level:.4g})",
                reps=rs[0]["samples"],
                note=f"largest deviation at pair ({worst['u']}, {worst['v']}): "
                f"{worst['freq']:.4f} vs {worst['p']:.4f}",
            )
        )
    return out


@claim(
    id="beyond.laws_differ",
    section="beyond",
    kind="data",
    paper_ref="Lemma 6.1 (theory §2.4 [V])",
    title="QuickSort's and Plackett–Luce's full laws differ",
    statement="Only the pairwise marginals coincide: for unequal weights the two laws over orders are "
    "different (e.g. w = (1, 2, 4): P(0,1,2) = 7/135 against 1/21; total variation 8/189).",
    statistic="total-variation distance between the QuickSort and Plackett–Luce laws",
    direction=">=",
    threshold=1e-3,
    test="exact rational enumeration of both laws",
)
def laws_differ(ctx: Context) -> list[dict]:
    out = []
    for w in LEMMA_WEIGHTS:
        tv = total_variation(quicksort_law(w), plackett_luce_law(w))
        out.append(
            exact_cell(
                ctx,
                f"w = {w}",
                {"weights": list(w)},
                float(tv),
                method="exact rational enumeration",
                note=f"TV = {tv}",
            )
        )
    return out


# ----------------------------------------------------------------------------------------------
# Section 2: losses, M and the offline problem, by enumeration
# ----------------------------------------------------------------------------------------------


def _family_vectors(family: str, n: int, k: int = 1) -> np.ndarray:
    if family == "spearman":
        return -np.array(list(itertools.permutations(range(1, n + 1))), dtype=np.float64)
    sizes = range(n + 1) if family == "subset" else [k]
    rows = []
    for j in sizes:
        for U in itertools.combinations(range(n), j):
            s = np.zeros(n)
            s[list(U)] = 1.0
            rows.append(s)
    return np.array(rows)


def _pairwise_by_definition(orders: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``ellell(pi, s) = sum_{u != v} [s(v) - s(u)]_+ [u before v]`` straight from (2.2), all orders
    against one ``s``: O(n!·n^2)."""
    n = orders.shape[1]
    pos = np.empty_like(orders)
    np.put_along_axis(pos, orders, np.arange(n)[None, :], axis=1)
    before = pos[:, :, None] < pos[:, None, :]  # [u before v]
    gap = np.maximum(s[None, :] - s[:, None], 0.0)  # [s_v - s_u]_+ at (u, v)
    return (before * gap[None]).sum(axis=(1, 2))


_GAMES = (
    ("single", (2, 3, 4, 5, 6), 1),
    ("kchoice", (4, 5, 6), 2),
    ("subset", (3, 4, 5), 1),
    ("spearman", (3, 4, 5), 1),
)


@claim(
    id="sec2.losses",
    section="paper",
    kind="data",
    paper_ref="Section 2, (2.1)–(2.2); Section 5",
    title="ℓ and ℓℓ differ by a function of s only (identical for single choice; a constant for Spearman)",
    statement="For any s and π, ℓ(π, s) and ℓℓ(π, s) differ by a number that depends on s only; in the "
    "single choice case they are identical; for Spearman feedback s = −σ the difference is a constant "
    "depending on n only.",
    statistic="max over s of the spread over π of ℓ − ℓℓ (single choice: max |ℓ − ℓℓ|; "
    "Spearman: spread over s and π)",
    direction="<=",
    threshold=1e-9,
    test="exact enumeration of every ranking and every feedback vector of the family; ℓℓ from its "
    "definition (2.2)",
)
def losses(ctx: Context) -> list[dict]:
    out = []
    for family, ns, k in _GAMES:
        for n in ns:
            orders = np.array(list(itertools.permutations(range(n))))
            diffs = np.array(
                [
                    position_loss(orders, s) - _pairwise_by_definition(orders, s)
                    for s in _family_vectors(family, n, k)
                ]
            )
            if family == "single":
                v = float(np.abs(diffs).max())
            elif family == "spearman":
                v = float(diffs.max() - diffs.min())
            else:
                v = float((diffs.max(axis=1) - diffs.min(axis=1)).max())
            out.append(
                exact_cell(
                    ctx,
                    f"{family} n={n}" + (f" k={k}" if family == "kchoice" else ""),
                    {"family": family, "n": n, "k": k},
                    v,
                    method=f"exact enumeration ({len(orders)} rankings × every s)",
                    note=f"ℓ − ℓℓ = {diffs.flat[0]:g} for Spearman" if family == "spearman" else "",
                )
            )
    return out


@claim(
    id="sec2.M",
    section="paper",
    kind="data",
    paper_ref="Section 2, (2.3); Section 5",
    title="M: n²/4 in general, n single choice, k(n−k) k-choice, the maximal loss for binary s; "
    "Θ(n⁴) for Spearman",
    statement="M = max_t Σ_{u,v}(s_t(u) − s_t(v))²; for binary s it equals the maximal loss of any "
    "ranking; it can be taken as n²/4 in general, n for single choice, k(n−k) ≤ nk for k-choice; "
    "for Spearman feedback M = Θ(n⁴).",
    statistic="|M by enumeration − closed form|, |max loss of any ranking − M| (binary), and M ≤ the "
    "paper's value (as a difference, ≤ 0)",
    direction="<=",
    threshold=1e-9,
    test="exact enumeration of every feedback vector (and every ranking) of the family",
)
def m_values(ctx: Context) -> list[dict]:
    paper = {"single": lambda n, k: n, "kchoice": lambda n, k: n * k, "subset": lambda n, k: n * n / 4}
    out = []
    for family, ns, k in _GAMES:
        for n in ns:
            S = _family_vectors(family, n, k)
            M_enum = complexity_M(S)
            M_form = cast(float, family_M(family, n, k))  # integer n, k: a float
            cells = [("|M − closed form|", abs(M_enum - M_form))]
            if family != "spearman":
                orders = np.array(list(itertools.permutations(range(n))))
                max_loss = max(float(_pairwise_by_definition(orders, s).max()) for s in S)
                cells += [
                    ("|max loss of a ranking − M|", abs(max_loss - M_enum)),
                    ("M − paper's value", M_enum - paper[family](n, k)),
                ]
            else:
                cells.append(("|M / n⁴ − (1 − 1/n²)/12|", abs(M_enum / n**4 - (1 - 1 / n**2) / 12)))
            for what, v in cells:
                out.append(
                    exact_cell(
                        ctx,
                        f"{family} n={n}" + (f" k={k}" if family == "kchoice" else "") + f": {what}",
                        {"family": family, "n": n, "k": k},
                        v,
                        statistic=what,
                        method="exact enumeration",
                        note=f"M = {M_enum:g}",
                    )
                )
    return out


@claim(
    id="sec2.offline",
    section="paper",
    kind="data",
    paper_ref="Section 2 and Section 4 (our problem is easy offline)",
    title="The best ranking in hindsight sorts the items by cumulative score",
    statement="The minimiser π* of L_T(π) is any ranking that sorts the items by decreasing total "
    "score (frequency for discrete choice): the problem is easy offline.",
    statistic="L_T(sort by S) − min over all n! rankings of L_T(π)",
    direction="<=",
    threshold=1e-9,
    test="exact: brute force over every ranking for random feedback sequences (named random stream)",
)
def offline(ctx: Context) -> list[dict]:
    out = []
    for family, ns, k in _GAMES:
        for n in ns[-2:]:
            orders = np.array(list(itertools.permutations(range(n))))
            S = _family_vectors(family, n, k)
            rng = ctx.rng(family, n)
            worst = 0.0
            for _ in range(5):
                seq = S[rng.integers(len(S), size=int(rng.integers(1, 30)))]
                brute = float(np.min(sum(_pairwise_by_definition(orders, s) for s in seq)))
                worst = max(worst, cast(float, hindsight_loss_of_sequence(seq)) - brute)
            out.append(
                exact_cell(
                    ctx,
                    f"{family} n={n}" + (f" k={k}" if family == "kchoice" else "") + ", 5 random sequences",
                    {"family": family, "n": n, "k": k},
                    worst,
                    method="exact brute force over every ranking",
                )
            )
    return out


# ----------------------------------------------------------------------------------------------
# not tested
# ----------------------------------------------------------------------------------------------

not_tested(
    id="nt.yasutake_hardness",
    paper_ref="Section 4 (related work)",
    title="Rank aggregation under the loss of Yasutake et al. is NP-hard offline",
    statement="Optimizing over the loss of Yasutake et al. summed over t is NP-hard even offline "
    "(Dwork et al. 2001).",
    reason="a cited complexity result about a different loss; nothing to simulate",
)
not_tested(
    id="nt.mw_sampling",
    paper_ref="Section 4 (multiplicative weights)",
    title="It is not clear how to draw efficiently from the MW law for large n",
    statement="It is not clear how to efficiently draw from the MW distribution over rankings for large n.",
    reason="an open question, not a quantitative claim (the project's Hedge enumerates n! ≤ 9! rankings)",
)
not_tested(
    id="nt.cited_bounds",
    paper_ref="Section 4 and Section 5",
    title="The baselines' own guarantees (MW, FPL, PermELearn, Yasutake et al.)",
    statement="MW over n! rankings guarantees O(M√(Tn log n)); FPL (Kalai–Vempala) 2√(DRAT); "
    "PermELearn (Helmbold–Warmuth) √(2L n ln n) + n ln n; Yasutake et al. O(n²√(T ln n)).",
    reason="cited results, not proved in the paper; the project uses their standard forms (theory §3.3) "
    "for the Section 4 comparisons (sec4.*, sec5.*) and compares simulated regrets only as findings",
)
not_tested(
    id="nt.known_horizon",
    paper_ref="Section 1",
    title="The horizon T is known in advance",
    statement="For simplicity we assume T is known in this work.",
    reason="an assumption of the setting (every learner here is tuned with the known T), not a claim",
)
not_tested(
    id="nt.yasutake_easy_instance",
    paper_ref="Section 4 (related work)",
    title="Our problem is not simply an easy instance of Yasutake et al.",
    statement="Although the problem is easy offline (sort by cumulative score), it is not simply an "
    "easy instance of the setting of Yasutake et al.",
    reason="a statement about how two problem classes relate, with no quantity to measure; what can "
    "be measured of it is tested elsewhere: the offline problem is easy (sec2.offline) and the "
    "running time (sec4.runtime)",
)
not_tested(
    id="nt.at_most_k",
    paper_ref="Section 2 (k-choice: the user chooses at most k items)",
    title="Choices of at most k items",
    statement="In the k-choice setting the user may choose at most k items each round.",
    reason="the engine's k-choice feedback has exactly k chosen items; a round with j < k chosen "
    "items has loss range j(n − j) ≤ k(n − k) for k ≤ n/2, so Theorem 3.1 with M = k(n − k) covers "
    "it by the same proof, but no cell simulates a mixture of sizes",
)
not_tested(
    id="nt.subset_sizes_above_half",
    paper_ref="Section 2 and Theorem 3.1 (arbitrary subsets)",
    title="Arbitrary subsets of more than n/2 items",
    statement="Theorem 3.1 holds for feedback s = 1_U with any subset U.",
    reason="sizes |U| ≤ n/2 are simulated (the subset family at |U| = n/2, k-choice at k = 1 … n/2 "
    "and the subset-sizes experiment at n/8 and n/4, all judged by thm3.1); the game refuses k > n/2 "
    "as the paper's k-choice assumes, so sizes above n/2 are not simulated. Their loss range "
    "|U|(n − |U|) is at most n²/4, so Theorem 3.1 with M = n²/4 covers them by the same proof",
)
