"""State of OnlineRank for R replicates: log-weights ``a = eta * S`` (theory §2.1, §2.5).

:class:`LogWeights` owns the cumulative scores and everything computed from them each round:
the exact expected pairwise loss of the coming ranking (from the pairwise marginals
``expit(a_u - a_v)``, Lemma 6.1 + linearity, theory §2.5) and the two samplers.  Keeping this state
in one place lets the fast paths maintain caches incrementally (one coordinate changes per round
for single choice) while callers only see the maths.

The cache (private): per replicate r a shift ``shift_r`` and weights
``w[r, u] = exp(a[r, u] - shift_r)``, valid while every exponent lies in ``[-600, 64]``.  Then

* ``expit(a_v - a_c) = w_v / (w_v + w_c)`` is one division (no ``exp``) and is exact to float
  rounding, because every weight and every ratio is a normal float;
* a single-choice update changes one coordinate, whose weight is *recomputed* as
  ``exp(eta * S[r, c] - shift_r)`` (no multiplicative drift); a row whose new exponent leaves the
  window is rescaled (``shift_r = max_u a[r, u]``, O(n)), and a row whose range
  ``max a - min a`` exceeds 600 is marked for the log form: its losses use ``expit`` of differences
  of log-weights and its samplers the log-form keys, which cannot over/underflow.

Second cache, for choice feedback (integer scores): per replicate a histogram of the score values
(sorted distinct values and their counts), updated in O(#values) when one item moves from S to
S + 1.  Items with equal scores have equal terms ``expit(a_v - a_c)``, so the single-choice
expected loss costs O(#distinct values) instead of O(n) (see ``_kernels.onlinerank.expected_loss_items``).

The plain-numpy definitions that the compiled kernels reproduce are
:meth:`LogWeights.reference_loss_items` and :meth:`LogWeights.reference_loss_dense`.
"""

from __future__ import annotations

import numpy as np

from .samplers import _kern, _lowbits, _pl_sample, _qs_sample, _seeds, expit, pair_probs

__all__ = ["LogWeights"]

#: dense expected losses with at least this many ordered pairs per call use both cores
_PARALLEL_PAIRS = 1 << 18
#: sampler name -> code of the compiled block kernel
_SAMPLER_CODES: dict[str | None, int] = {"plackett-luce": 0, "quicksort": 1}


class LogWeights:
    """Cumulative scores ``S`` (R, n) and learning rate ``eta``; ``a = eta * S``."""

    def __init__(self, eta: float, reps: int, n: int) -> None:
        self._eta = float(eta)
        if not np.isfinite(self._eta):
            raise ValueError("eta must be finite")
        # the kernels' LogWeightArrays: the scores, eta, the cached weights exp(a - shift) (valid
        # where _form == 0), their shifts, each row's form (0: cached weights valid, 1: decide/log)
        self._S = np.zeros((int(reps), int(n)))
        self._weights = np.ones((int(reps), int(n)))
        self._shift = np.zeros(int(reps))
        self._form = np.zeros(int(reps), dtype=np.int8)
        # the kernels' ScoreHistogram of the integer scores: sorted distinct values, their counts,
        # the number of values (-1: none), the most values kept
        self._hist_capacity = max(1, int(n) // 4)
        self._hist_values = np.zeros((int(reps), self._hist_capacity + 1))
        self._hist_counts = np.zeros((int(reps), self._hist_capacity + 1), dtype=np.int64)
        self._hist_counts[:, 0] = int(n)
        self._hist_sizes = np.full(int(reps), 1 if n > 0 else 0, dtype=np.int64)

    def _arrays(self) -> tuple:
        """The state as the kernels take it: a ``LogWeightArrays`` of
        :mod:`onlinerank._kernels.onlinerank`, as a plain tuple in its fields' order."""
        return (self._S, self._eta, self._weights, self._shift, self._form)

    def _histogram(self) -> tuple:
        """The histogram as the kernels take it: a ``ScoreHistogram``, as a plain tuple."""
        return (self._hist_values, self._hist_counts, self._hist_sizes, self._hist_capacity)

    # --- state ---------------------------------------------------------------------------------
    @property
    def eta(self) -> float:
        """Learning rate; assigning it rebuilds the caches."""
        return self._eta

    @eta.setter
    def eta(self, value: float) -> None:
        if not np.isfinite(float(value)):
            raise ValueError("eta must be finite")
        self._eta = float(value)
        self._refresh()

    @property
    def S(self) -> np.ndarray:
        """Cumulative scores (R, n), read-only view; change them with ``add_*`` (or assign a
        whole new array, which rebuilds the caches)."""
        v = self._S.view()
        v.flags.writeable = False
        return v

    @S.setter
    def S(self, value: np.ndarray) -> None:
        value = np.array(value, dtype=np.float64)
        if value.shape != self._S.shape:
            raise ValueError(f"S must have shape {self._S.shape}, got {value.shape}")
        self._S = np.ascontiguousarray(value)
        self._refresh()

    @property
    def a(self) -> np.ndarray:
        """Log-weights ``eta * S``, shape (R, n)."""
        return self.eta * self._S

    def _refresh(self) -> None:
        """Recompute the weight cache of every row from scratch."""
        if not np.all(np.isfinite(self._S)):
            raise ValueError("scores must be finite")
        kernels = _kern()
        kernels.refresh_all(self._arrays())
        kernels.hist_build(self._S, self._histogram())

    # --- updates -------------------------------------------------------------------------------
    def add_items(self, items: np.ndarray) -> None:
        """``S[r, items[r]] += 1`` (binary feedback given by its chosen items, shape (R, k),
        distinct within a row)."""
        items = self._items(items)
        _kern().add_items(self._arrays(), self._histogram(), items)

    def add_dense(self, s: np.ndarray) -> None:
        """``S += s`` for dense feedback (R, n)."""
        s = np.asarray(s, dtype=np.float64)
        if s.shape != self._S.shape:
            raise ValueError(f"s must have shape {self._S.shape}, got {s.shape}")
        self._S += s
        self._refresh()

    def _items(self, items: np.ndarray, ndim: int = 2) -> np.ndarray:
        items = np.ascontiguousarray(items, dtype=np.int64)
        R, n = self._S.shape
        if items.ndim != ndim or items.shape[0] != R:
            want = f"({R}, k)" if ndim == 2 else f"({R}, B, k)"
            raise ValueError(f"items must have shape {want}, got {items.shape}")
        if items.size and (items.min() < 0 or items.max() >= n):
            raise ValueError(f"item ids must lie in 0..{n - 1}")
        if items.shape[-1] > 1:
            srt = np.sort(items, axis=-1)
            if np.any(srt[..., 1:] == srt[..., :-1]):
                raise ValueError("an item is repeated within a row of chosen items")
        return items

    # --- a block of rounds in one compiled call (the engine's hot loop) -------------------------
    def play_items(
        self,
        items: np.ndarray,
        sampler: str | None,
        keys: np.ndarray | None,
        t0: int,
        exp_loss: np.ndarray,
        loss: np.ndarray,
    ) -> None:
        """Rounds ``t0 .. t0 + B - 1`` of choice feedback ``items`` (R, B, k): per round
        ``exp_loss +=`` :meth:`expected_loss_items`, then (if ``keys`` is given) ``loss +=`` the
        pairwise loss of :meth:`sample` with the seeds ``draw_seeds(keys, t)``, then
        :meth:`add_items` -- bit-identical to these per-round calls, in one compiled call.
        ``exp_loss`` and ``loss`` (R,) float64 are updated in place."""
        items = self._items(items, ndim=3)
        R = self._S.shape[0]
        if keys is None:
            keys = np.empty(0, dtype=np.uint64)
        else:
            keys = _seeds(keys, R)
            if sampler not in _SAMPLER_CODES:
                raise ValueError(f"unknown sampler {sampler!r}")
        for a in (exp_loss, loss):
            if a.shape != (R,) or a.dtype != np.float64:
                raise ValueError(f"exp_loss and loss must be float64 arrays of shape ({R},)")
        ok = _kern().play_items(
            self._arrays(),
            self._histogram(),
            items,
            keys,
            int(t0),
            _SAMPLER_CODES.get(sampler, 0),
            _lowbits(self._S.shape[1]),
            exp_loss,
            loss,
        )
        if not ok:
            raise ValueError("scores must be finite")

    # --- exact expected losses (theory §2.5) ---------------------------------------------------
    def expected_loss_items(self, items: np.ndarray) -> np.ndarray:
        """``E[ellell]`` when the chosen items are ``items`` (R, k): sum over chosen c and unchosen
        v of ``P(v before c) = expit(a_v - a_c)``.  Per replicate O(k * #distinct scores) with
        the histogram (integer scores), else O(kn) with one division per term (cached weights) or
        one ``expit`` per term (log form).  Plain-numpy definition: :meth:`reference_loss_items`."""
        items = self._items(items)
        out = np.empty(self._S.shape[0])
        _kern().expected_loss_items(self._arrays(), self._histogram(), items, out)
        return out

    def expected_loss_dense(self, s: np.ndarray) -> np.ndarray:
        """``E[ellell] = sum_{u,v} [s_v - s_u]_+ P(u before v)`` for dense s (R, n). O(n^2).

        Computed over the pairs ``i < j`` of each row sorted by increasing s (so only the
        ``s_v > s_u`` half of the ordered pairs is visited), in parallel.  Plain-numpy definition:
        :meth:`reference_loss_dense`.
        """
        s = np.asarray(s, dtype=np.float64)
        R, n = self._S.shape
        if s.shape != (R, n):
            raise ValueError(f"s must have shape {(R, n)}, got {s.shape}")
        kernels = _kern()
        # each row in increasing s, ties in item order (a stable sort), with its cached weights
        # and log-weights eta * S alongside, in one compiled call
        ss, ws, la = np.empty((R, n)), np.empty((R, n)), np.empty((R, n))
        if not kernels.sort_dense_rows(s, self._weights, self._S, self._eta, ss, ws, la):
            raise ValueError("s must be finite")
        part = np.empty((R, (n + 1) // 2))
        parallel = R * n * n >= _PARALLEL_PAIRS
        kernel = kernels.expected_loss_dense if parallel else kernels.expected_loss_dense_serial
        kernel(ss, ws, la, self._form, part)
        return part.sum(axis=1)

    def reference_loss_items(self, items: np.ndarray) -> np.ndarray:
        """Plain-numpy O(kn) definition of :meth:`expected_loss_items` (log form, for tests)."""
        items = self._items(items)
        a = self.a
        R, n = a.shape
        chosen = np.zeros((R, n), dtype=bool)
        np.put_along_axis(chosen, items, True, axis=1)
        out = np.zeros(R)
        for j in range(items.shape[1]):
            ac = np.take_along_axis(a, items[:, j : j + 1], axis=1)
            out += np.where(chosen, 0.0, expit(a - ac)).sum(axis=1)
        return out

    def reference_loss_dense(self, s: np.ndarray) -> np.ndarray:
        """Plain-numpy O(n^2) definition of :meth:`expected_loss_dense` (log form, for tests)."""
        a = self.a
        s = np.asarray(s, dtype=np.float64)
        gap = np.maximum(s[:, None, :] - s[:, :, None], 0.0)  # [s_v - s_u]_+ at (u, v)
        return np.sum(gap * expit(a[:, :, None] - a[:, None, :]), axis=(1, 2))

    # --- sampling --------------------------------------------------------------------------------
    def sample(self, sampler: str, seeds: np.ndarray) -> np.ndarray:
        """One order per replicate from ``"plackett-luce"`` or ``"quicksort"``; row r uses seeds[r].

        Same laws as :func:`~onlinerank.samplers.plackett_luce_rows` /
        :func:`~onlinerank.samplers.quicksort_rows` of ``self.a`` (and the same per-row seeding),
        but computed from the cached weights, so the orders may differ from theirs at the level of
        float rounding.
        """
        seeds = _seeds(seeds, self._S.shape[0])
        if sampler == "plackett-luce":
            return _pl_sample(self._arrays(), seeds)
        if sampler == "quicksort":
            return _qs_sample(self._arrays(), seeds)
        raise ValueError(f"unknown sampler {sampler!r}")

    def pair_probs(self) -> np.ndarray:
        """Pairwise marginals (R, n, n) of the coming ranking."""
        return pair_probs(self.a)
