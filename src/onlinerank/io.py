"""Files between pipeline steps (design §data): atomic writes, replicate blocks (``.npz``, no
pickles), tidy CSV tables and JSON.

Every output is written to a temporary file in its directory and renamed, so an interrupted
step never leaves a half-written file under its final name.  The file gets the permissions of an
ordinary new file (0666 less the umask: 0644 under umask 022), not the 0600 of a temporary file,
so that collaborators sharing a results directory can read it.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .results import SimResult

__all__ = [
    "atomic_path",
    "current_umask",
    "atomic_write_text",
    "write_csv",
    "concat_csv",
    "read_table",
    "read_figure_table",
    "write_json",
    "save_results",
    "load_results",
]


def current_umask() -> int:
    """The process's umask, read from ``/proc/self/status`` where there is one (without changing
    it), else set and restored at once."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """Yield a temporary path in the directory of ``path``; on success it is renamed to ``path``,
    on any error (or interrupt) it is removed.  The one atomic-write primitive of the project.
    The file's mode is that of an ordinary new file, ``0o666 & ~umask`` (``mkstemp`` alone would
    leave 0600 whatever the umask)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # The temporary name ends in ``.part`` so that no glob for finished outputs (``*.npz``, ``*.csv``)
    # matches a file left behind by a SIGKILL (which runs no cleanup); writers that infer a format
    # from the suffix must pass it explicitly (``save_figure`` does).
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        os.fchmod(fd, 0o666 & ~current_umask())
    finally:
        os.close(fd)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write text atomically."""
    with atomic_path(path) as tmp, open(tmp, "w", newline="") as f:
        f.write(text)


def _fmt(x) -> str:
    if isinstance(x, float | np.floating):
        return repr(float(x)) if math.isfinite(x) else ("nan" if math.isnan(x) else repr(float(x)))
    return str(x)


def write_csv(path: str | os.PathLike, rows: list[dict]) -> None:
    """Tidy CSV with deterministic formatting (floats by ``repr``), written atomically."""
    buf = io.StringIO()
    if rows:
        w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: _fmt(v) for k, v in r.items()})
    atomic_write_text(path, buf.getvalue())


def concat_csv(paths: list[str | os.PathLike]) -> str:
    """The text of the tidy CSV whose rows are those of the files ``paths`` in order (the pieces
    of a table, each written by :func:`write_csv`): one header, the bodies as written, so the
    result is byte for byte what :func:`write_csv` writes for all the rows.  A file without rows
    (empty) adds none; files with different headers are refused (``ValueError`` naming one)."""
    header = None
    bodies = []
    for p in paths:
        text = Path(p).read_text()
        if not text:
            continue
        head, _, body = text.partition("\n")
        if header is None:
            header = head
        elif head != header:
            raise ValueError(f"{p}: its columns differ from those of the first piece")
        bodies.append(body)
    return "" if header is None else header + "\n" + "".join(bodies)


def read_table(path: str | os.PathLike) -> list[dict]:
    """Read a tidy CSV; numeric-looking fields become ints or floats, True/False booleans."""

    def conv(v: str):
        try:
            return int(v)
        except ValueError:
            try:
                return float(v)
            except ValueError:
                return {"True": True, "False": False}.get(v, v)

    with open(path, newline="") as f:
        return [{k: conv(v) for k, v in row.items()} for row in csv.DictReader(f)]


def read_figure_table(path: str | os.PathLike) -> list[dict]:
    """The rows of one table of a figure: a tidy CSV (:func:`read_table`), or the claims of a
    claims document (``.json``: its ``claims``)."""
    if str(path).endswith(".json"):
        return list(json.loads(Path(path).read_text())["claims"])
    return read_table(path)


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """JSON (indented, keys in insertion order), written atomically."""
    atomic_write_text(path, obj if isinstance(obj, str) else json.dumps(obj, indent=1) + "\n")


def save_results(results: dict[str, SimResult], path: str | os.PathLike) -> None:
    """Write the blocks of several cells to one ``.npz`` atomically (no pickles).  Arrays are
    stored as ``{cell key}|{name}`` (keys such as ``adversary|learner|n10|k1|T100``, without
    ``|`` at either end)."""
    arrays: dict[str, Any] = {}  # name -> array (np.savez's keyword arguments)
    for key, res in sorted(results.items()):
        p = f"{key}|"
        arrays.update(
            {
                p + "t": res.t,
                p + "loss": res.loss,
                p + "exp_loss": res.exp_loss,
                p + "best": res.best,
                p + "reps": res.reps,
                p + "meta": np.array(json.dumps(res.meta, sort_keys=True)),
            }
        )
        arrays.update({f"{p}extra_{k}": v for k, v in sorted(res.extra.items())})
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        np.savez(f, **arrays)


def load_results(path: str | os.PathLike) -> dict[str, SimResult]:
    """Read a file written by :func:`save_results`.  Every array is read with
    ``allow_pickle=False`` (an object array raises ``ValueError``), and an array that belongs to
    no cell is an error: a malformed file is refused, not partly read."""
    out = {}
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    keys = sorted(k[: -len("|meta")] for k in arrays if k.endswith("|meta"))
    used: set[str] = set()
    for key in keys:
        p = f"{key}|"
        names = [k for k in arrays if k.startswith(p) and "|" not in k[len(p) :]]
        used.update(names)
        extra = {k[len(p) + 6 :]: arrays[k] for k in names if k.startswith(p + "extra_")}
        try:
            out[key] = SimResult(
                arrays[p + "t"],
                arrays[p + "loss"],
                arrays[p + "exp_loss"],
                arrays[p + "best"],
                arrays[p + "reps"],
                json.loads(str(arrays[p + "meta"])),
                extra,
            )
        except KeyError as e:
            raise ValueError(f"{path}: cell {key!r} lacks the array {e.args[0]!r}") from None
    stray = sorted(set(arrays) - used)
    if stray:
        raise ValueError(f"{path}: arrays {stray[:3]} belong to no cell (not a results file)")
    return out
