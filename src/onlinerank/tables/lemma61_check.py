"""The sampled Lemma 6.1 check (table ``lemma61``, theory §2.4): the frequency of ``u before v``
under each sampler of the paper's algorithm next to ``expit(a_u - a_v)``."""

from __future__ import annotations

import numpy as np

from ..samplers import expit
from ..seeding import stream
from ..settings import Settings
from .base import Column, N, table

__all__ = ["lemma61_rows"]


@table(
    "lemma61",
    stage="lemma61",
    description="Lemma 6.1 sampled: the frequency of u before v under each sampler next to "
    "expit(a_u - a_v) (theory §2.4).",
    columns=(
        Column("sampler", "plackett-luce or quicksort"),
        N,
        Column("samples", "orders drawn"),
        Column("u", "first item of the pair"),
        Column("v", "second item of the pair"),
        Column("p", "P(u before v) by Lemma 6.1, expit(a_u - a_v)", "probability"),
        Column("freq", "observed frequency of u before v", "probability"),
    ),
    keys=("lemma61", "seed"),
)
def lemma61_rows(settings: Settings) -> list[dict]:
    """Lemma 6.1 sampled at size ``n`` of the settings' ``lemma61``
    (:class:`onlinerank.settings.Lemma61`): for a random OnlineRank state (log-weights ~
    N(0, 1.5²)), ``samples`` orders from each sampler of the registered OnlineRank
    (:meth:`~onlinerank.learners.onlinerank.OnlineRank.orders`: the simulator's per-row-seeded
    samplers) and the frequency of ``u before v`` on ``pairs`` random pairs, next to
    ``expit(a_u - a_v)``."""
    # lazy: the learners load the engine, which reading the tables' declarations must not
    from ..learners import LEARNERS
    from ..learners.onlinerank import SAMPLERS, OnlineRank

    sec, seed = settings.lemma61, settings.seed
    assert sec is not None  # the table is made only when the config has the section
    onlinerank = LEARNERS[OnlineRank.name]  # a variant substituted for it, in the mutation tests
    n, samples, pairs = sec.n, sec.samples, sec.pairs
    rng = stream(seed, "lemma61", n)
    a = rng.normal(scale=1.5, size=n)
    uv = np.array([rng.choice(n, 2, replace=False) for _ in range(pairs)])
    p = expit(a[uv[:, 0]] - a[uv[:, 1]])
    rows = []
    for name in SAMPLERS:
        seeds = stream(seed, "lemma61", n, name).integers(0, 2**63, size=samples, dtype=np.uint64)
        orders = onlinerank.orders(name, np.broadcast_to(a, (samples, n)).copy(), seeds)
        pos = np.empty_like(orders)
        np.put_along_axis(pos, orders, np.arange(n)[None, :], axis=1)
        freq = (pos[:, uv[:, 0]] < pos[:, uv[:, 1]]).mean(axis=0)
        rows += [
            {
                "sampler": name,
                "n": n,
                "samples": samples,
                "u": int(u),
                "v": int(v),
                "p": float(pp),
                "freq": float(f),
            }
            for (u, v), pp, f in zip(uv, p, freq, strict=True)
        ]
    return rows
