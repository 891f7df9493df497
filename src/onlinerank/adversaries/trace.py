"""Replay a feedback log (e.g. your own click log) as the adversary.

Every replicate replays the same log: the trace is deterministic, replicates differ only in the
learner's randomness.  The whole log is read and validated against the game (n, family, k) in
:meth:`TraceAdversary.check` — called by ``reset`` and by the config validation — *before* any
round is simulated.  The first ``T`` rounds are played; a log with fewer than ``T`` rounds is an
error, a longer one is truncated.

File format (UTF-8 text, CSV-like; one round per line)
------------------------------------------------------
* Lines whose first non-blank character is ``#`` are comments and are skipped.
* Every other line is one round.  **Empty (or blank) lines are errors** — anywhere, including at
  the end of the file — so that a lost round never goes unnoticed; use ``#`` to comment lines out.
  A final newline at the end of the file is fine.
* Fields are separated by commas; blanks around fields are ignored; an empty field is an error.
* ``format="items"``: the line lists item ids (integers ``0..n-1``, no repeats):

  - single: exactly one id;  kchoice: exactly ``k`` ids;  subset: between 1 and ``n`` ids;
  - spearman: a full ranking, all ``n`` ids best first (``sigma`` = their positions, ``s = -sigma``);
  - graded: not expressible (use ``scores``).

* ``format="scores"``: the line is the feedback vector ``s_t`` itself, ``n`` finite numbers (NaN and
  infinities are errors):

  - single / kchoice / subset: 0/1 values with exactly one / exactly ``k`` / at least one 1;
  - spearman: ``-sigma`` for a ranking ``sigma``, i.e. a permutation of ``-1, ..., -n``;
  - graded: any finite numbers.

* ``format="auto"`` (default) picks by family, never by content: ``items`` for single, kchoice and
  subset (click logs), ``scores`` for spearman and graded.

Every problem raises :class:`TraceError` (a ``ValueError``) whose message names the file and, for
a bad line, its 1-based line number and what is wrong: item ids that are not integers or out of
range, repeated items, wrong widths, non-numeric or non-finite scores, invalid 0/1 or Spearman
vectors, empty lines or fields, undecodable bytes or NUL bytes (not a text file), a missing or
unreadable file, a log without a round (empty, or comments only) and a log shorter than ``T``.

Instead of ``path`` a log may be given in memory as ``rounds``: a list of text lines (parsed exactly
like a file's lines), a 2-D array of rows (each row written as one comma-separated line and parsed
the same way), or a callable ``game -> rounds`` (used by :meth:`TraceAdversary.example`).
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import re
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from ..feedback import FAMILIES, Feedback, FeedbackBlock
from ..game import Game
from .base import Adversary, LearnerView, register

__all__ = ["TraceAdversary", "TraceError", "read_trace", "parse_trace_lines", "FORMATS"]

FORMATS = ("auto", "items", "scores")
_INT = re.compile(r"[+-]?[0-9]+")
_BINARY = ("single", "kchoice", "subset")


class TraceError(ValueError):
    """A feedback log that cannot be replayed (the message names the file and the line)."""


def default_format(family: str) -> str:
    """The format ``"auto"`` stands for: items for binary families, scores otherwise."""
    return "items" if family in _BINARY else "scores"


def _where(label: str, lineno: int | None = None) -> str:
    return f"trace file {label!r}" + (f", line {lineno}" if lineno is not None else "")


def _read_lines(path: str) -> tuple[list[str], str]:
    """The lines of a text file (strict UTF-8, NUL bytes refused) and the sha256 of its bytes."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise TraceError(f"{_where(path)} not found (looked for {os.path.abspath(path)})") from None
    except IsADirectoryError:
        raise TraceError(f"{_where(path)} is a directory, not a file") from None
    except OSError as e:
        raise TraceError(f"cannot read {_where(path)}: {e.strerror or e}") from None
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise TraceError(f"{_where(path, line)}: NUL byte — this is a binary file, not a text log")
    try:
        text = data.decode("utf-8-sig")  # strict; an optional UTF-8 byte-order mark is dropped
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise TraceError(
            f"{_where(path, line)}: byte 0x{data[e.start]:02x} is not valid UTF-8 "
            f"text (is this a binary file?)"
        ) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last line, it does not start an empty one
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines], hashlib.sha256(data).hexdigest()


def _check_args(n: int, family: str, k: int, fmt: str) -> str:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"trace: n must be an integer >= 2, got {n!r}")
    if family not in FAMILIES:
        raise ValueError(f"trace: unknown family {family!r}; choose from {', '.join(FAMILIES)}")
    if family == "kchoice" and (
        isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n
    ):
        raise ValueError(f"trace: k must be an integer in 1..n for k-choice, got {k!r}")
    if fmt not in FORMATS:
        raise ValueError(f"trace: format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    fmt = default_format(family) if fmt == "auto" else fmt
    if fmt == "items" and family == "graded":
        raise ValueError("trace: format 'items' cannot express graded feedback; use 'scores'")
    return fmt


def _fields(line: str, bad: Callable[[str], TraceError]) -> list[str]:
    """A non-comment line's comma-separated fields; an empty line or field is refused."""
    if not line:
        raise bad("empty line (empty lines are not allowed; remove it or comment it out with '#')")
    fields = [f.strip() for f in line.split(",")]
    for j, f in enumerate(fields, start=1):
        if not f:
            raise bad(f"empty field {j} (fields are separated by single commas)")
    return fields


def _items_round(
    fields: list[str], n: int, family: str, k: int, bad: Callable[[str], TraceError]
) -> list[int] | np.ndarray:
    """A line of format ``items``: distinct item ids, as many as the family needs; returned as
    sorted ids (single, kchoice), a 0/1 row (subset) or the scores -σ (spearman: ids best first)."""
    ids = []
    for f in fields:
        if not _INT.fullmatch(f):
            raise bad(f"item id {f!r} is not an integer")
        u = int(f)
        if not 0 <= u < n:
            raise bad(f"item id {u} out of range 0..{n - 1}")
        ids.append(u)
    if len(set(ids)) != len(ids):
        dup = next(u for u in ids if ids.count(u) > 1)
        raise bad(f"item id {dup} repeated in one round")
    if family == "single" and len(ids) != 1:
        raise bad(f"single choice needs exactly 1 item id per line, got {len(ids)}")
    if family == "kchoice" and len(ids) != k:
        raise bad(f"k-choice with k={k} needs exactly {k} item ids per line, got {len(ids)}")
    if family == "spearman" and len(ids) != n:
        raise bad(
            f"a Spearman round is a full ranking of all n={n} items (best first), got {len(ids)} item ids"
        )
    if family in ("single", "kchoice"):
        return sorted(ids)
    row = np.zeros(n)
    if family == "subset":
        row[ids] = 1.0
        return row
    row[ids] = np.arange(1, n + 1)  # spearman: ids best first -> sigma[u] = position of u
    return -row


def _scores_round(
    fields: list[str], n: int, family: str, k: int, bad: Callable[[str], TraceError]
) -> list[int] | np.ndarray:
    """A line of format ``scores``: n finite numbers, 0/1 with the family's number of ones for
    single, kchoice and subset, a permutation of -1..-n for spearman; returned as sorted ids
    (single, kchoice) or the row itself."""
    if len(fields) != n:
        raise bad(f"expected n={n} scores, got {len(fields)}")
    vals = np.empty(n)
    for j, f in enumerate(fields):
        try:
            if "_" in f:
                raise ValueError
            x = float(f)
        except ValueError:
            raise bad(f"score {f!r} (field {j + 1}) is not a number") from None
        if not math.isfinite(x):
            raise bad(f"score {f!r} (field {j + 1}) is not finite (NaN and infinite scores are not allowed)")
        vals[j] = x
    if family in _BINARY:
        if not np.all((vals == 0) | (vals == 1)):
            raise bad(f"{family} scores must be 0 or 1")
        ones = int(vals.sum())
        need = {"single": 1, "kchoice": k}.get(family)
        if need is not None and ones != need:
            raise bad(f"{family} scores need exactly {need} ones (chosen items), got {ones}")
        if family == "subset" and ones == 0:
            raise bad("subset scores need at least one 1 (a chosen item)")
        return np.flatnonzero(vals).tolist() if family != "subset" else vals
    if family == "spearman" and not np.array_equal(
        np.sort(vals)[::-1], -np.arange(1, n + 1, dtype=np.float64)
    ):
        raise bad(
            f"Spearman scores must be s = -sigma for a ranking sigma, i.e. a "
            f"permutation of -1, ..., -{n} (a ranking written as item ids, best first, "
            "is format 'items')"
        )
    return vals


def _error_at(label: str, lineno: int, msg: str) -> TraceError:
    return TraceError(f"{_where(label, lineno)}: {msg}")


def parse_trace_lines(
    lines: Sequence[str], n: int, family: str, k: int = 1, format: str = "auto", label: str = "<rounds>"
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Parse and validate the text lines of a log; returns ``(items, dense)``.

    ``items`` (rounds, k) int64 for single / kchoice (``dense`` is None); otherwise ``dense``
    (rounds, n) float64 feedback vectors (``items`` is None).  ``label`` names the source in the
    error messages; line numbers are 1-based positions in ``lines``.
    """
    fmt = _check_args(n, family, k, format)
    parse_round = _items_round if fmt == "items" else _scores_round
    rounds: list = []
    for lineno, raw in enumerate(lines, start=1):
        if not isinstance(raw, str):
            raise TraceError(f"{_where(label, lineno)}: expected a text line, got {type(raw).__name__}")
        line = raw.strip()
        if line.startswith("#"):
            continue
        bad = functools.partial(_error_at, label, lineno)
        rounds.append(parse_round(_fields(line, bad), n, family, k, bad))
    if not rounds:
        raise TraceError(f"{_where(label)} holds no rounds (it is empty or has comment lines only)")
    if family in ("single", "kchoice"):
        return np.array(rounds, dtype=np.int64).reshape(-1, k if family == "kchoice" else 1), None
    return None, np.array(rounds, dtype=np.float64).reshape(-1, n)


def read_trace(path: str | os.PathLike, n: int, family: str, k: int = 1, format: str = "auto") -> np.ndarray:
    """Read and validate a feedback log; returns the feedback vectors ``s`` (rounds, n) float64.

    See the module docstring for the format; every problem raises :class:`TraceError`
    (a ``ValueError``) naming the file and the 1-based line number.
    """
    _check_args(n, family, k, format)
    path = os.fspath(path)
    lines, _ = _read_lines(path)
    items, dense = parse_trace_lines(lines, n, family, k, format, label=path)
    if dense is not None:
        return dense
    items = cast(np.ndarray, items)  # exactly one of the two
    s = np.zeros((items.shape[0], n))
    np.put_along_axis(s, items, 1.0, axis=1)
    return s


def _example_rounds(game: Game) -> list[str]:
    """A small synthetic log valid for ``game`` (the conformance example; no external file)."""
    n, T = game.n, game.T
    lines = ["# synthetic example log written by TraceAdversary.example()"]
    for t in range(T):
        if game.family in _BINARY:
            k = cast(int, game.chosen)  # a binary family
            lines.append(", ".join(str((3 * t + j) % n) for j in range(k)))
        elif game.family == "spearman":
            sigma = (np.arange(n) + t) % n + 1
            lines.append(",".join(str(-int(x)) for x in sigma))
        else:  # graded
            lines.append(",".join(f"{((u * 7 + t) % 5) / 2:g}" for u in range(n)))
    return lines


@register
class TraceAdversary(Adversary):
    """Replays a feedback log; see the module docstring for the file format.

    Parameters
    ----------
    path : path of the log (UTF-8 text)
    format : "auto" (default; items for binary families, scores otherwise), "items" or "scores"
    rounds : instead of ``path``: text lines, a 2-D array of rows, or a callable ``game -> rounds``
    """

    name = "trace"
    oblivious = True
    families = ("single", "kchoice", "subset", "spearman", "graded")

    def __init__(
        self,
        path: str | os.PathLike | None = None,
        format: str = "auto",
        rounds: Sequence | np.ndarray | Callable | None = None,
    ) -> None:
        if (path is None) == (rounds is None):
            raise ValueError("trace: give exactly one of path= (a log file) or rounds= (an in-memory log)")
        if format not in FORMATS:
            raise ValueError(f"trace: format must be one of {', '.join(FORMATS)}, got {format!r}")
        self.path = None if path is None else os.fspath(path)
        self.format = format
        self.rounds = rounds
        self._cache: dict = {}
        self.sha256: str | None = None

    @classmethod
    def example(cls) -> TraceAdversary:
        """Replays a synthetic log generated for the game (exercises the full parser)."""
        return cls(rounds=_example_rounds)

    @property
    def label(self) -> str:
        return self.path if self.path is not None else "<rounds>"

    def _lines(self, game: Game) -> tuple[list[str], str | None]:
        if self.path is not None:
            return _read_lines(self.path)
        # no path: rounds= was given (the constructor checks that exactly one is)
        rounds = cast(Sequence | np.ndarray, self.rounds(game) if callable(self.rounds) else self.rounds)
        if isinstance(rounds, str):
            raise TraceError(
                "trace: rounds= must be a sequence of lines (or rows), not one string; split it into lines"
            )
        if isinstance(rounds, np.ndarray) or (len(rounds) and not isinstance(rounds[0], str)):
            arr = np.asarray(rounds)
            if arr.ndim == 1:
                arr = arr[:, None]
            if arr.ndim != 2:
                raise TraceError(f"trace: rounds= array must be 2-D (rounds, width), got shape {arr.shape}")
            return [",".join(repr(x.item()) for x in row) for row in arr], None
        return list(rounds), None

    def _key(self, game: Game) -> tuple:
        # a callable log may depend on the whole game (e.g. its horizon)
        return (game.n, game.family, game.k, game if callable(self.rounds) else None)

    def check(self, game: Game) -> None:
        """Read and validate the whole log against ``game`` (before any round is played)."""
        super().check(game)
        key = self._key(game)
        if key not in self._cache:
            lines, digest = self._lines(game)
            items, dense = parse_trace_lines(
                lines, game.n, game.family, game.k, self.format, label=self.label
            )
            self._cache = {key: (items, dense, digest)}
        items, dense, digest = self._cache[key]
        rows = (items if items is not None else dense).shape[0]
        if rows < game.T:
            raise TraceError(
                f"{_where(self.label)} has {rows} rounds (non-comment lines) but the game needs T={game.T}"
            )
        self.sha256 = digest

    def reset(self, game: Game, rngs: list[np.random.Generator]) -> None:
        super().reset(game, rngs)  # calls check(game): the whole log is parsed here
        self._items, self._dense, _ = self._cache[self._key(game)]

    def feedback(self, t: int, learner: LearnerView) -> Feedback:
        n, R, fam = self.game.n, self.reps, self.game.family
        if self._items is not None:
            return Feedback(n, items=np.tile(self._items[t - 1], (R, 1)), family=fam)
        row = self._dense[t - 1]
        if fam == "subset":
            return Feedback(n, items=np.tile(np.flatnonzero(row), (R, 1)), family=fam)
        return Feedback(n, values=np.tile(row, (R, 1)), family=fam)

    def feedback_block(self, t0: int, B: int) -> FeedbackBlock:
        """Rounds ``t0 ..`` up to B of them; a subset log stops before the first round whose number
        of chosen items differs from round t0's."""
        n, R, fam = self.game.n, self.reps, self.game.family
        if self._items is not None:
            rows = self._items[t0 - 1 : t0 - 1 + B]
            return FeedbackBlock(n, items=np.broadcast_to(rows, (R, *rows.shape)), family=fam)
        rows = self._dense[t0 - 1 : t0 - 1 + B]
        if fam == "subset":
            width = np.count_nonzero(rows, axis=1)
            m = int(np.argmax(width != width[0])) if np.any(width != width[0]) else rows.shape[0]
            items = np.nonzero(rows[:m])[1].reshape(m, int(width[0]))
            return FeedbackBlock(n, items=np.broadcast_to(items, (R, *items.shape)), family=fam)
        return FeedbackBlock(n, values=np.broadcast_to(rows, (R, *rows.shape)), family=fam)

    def describe(self) -> dict:
        d = {
            "adversary": self.name,
            "format": self.format,
            "path": self.path if self.path is not None else "<rounds>",
        }
        if self.sha256:
            d["sha256"] = self.sha256
        return d
