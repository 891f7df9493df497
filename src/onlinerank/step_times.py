"""Where a run's time went: the job-seconds of each step, from Snakemake's benchmark files.

Every rule of the pipeline writes ``<results_dir>/benchmarks/<rule>/<job>.tsv`` (its ``benchmark:``
directive): the wall-clock seconds of the job, its process and children included, so a job's
start-up (interpreter, imports, Snakemake's script preamble) is part of it.  At the end of a run
the ``Snakefile`` prints :func:`time_lines` of the jobs that ran in it, before the verdict summary,
with how busy the cores of a local run were.
The files are measurements, not results: no table reads them and the manifest does not hash them.
"""

from __future__ import annotations

import csv
import os
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["BENCHMARK_DIR", "benchmark_path", "read_benchmarks", "time_lines"]

#: the benchmark files' folder under a tier's results directory
BENCHMARK_DIR = "benchmarks"


def benchmark_path(results_dir: str, rule: str, job: str | None = None) -> str:
    """The benchmark file of a job of ``rule`` (``job``: the wildcard part of its path, for a rule
    with several jobs): ``<results_dir>/benchmarks/<rule>/<job>.tsv`` or ``.../<rule>.tsv``."""
    base = f"{results_dir}/{BENCHMARK_DIR}/{rule}"
    return f"{base}/{job}.tsv" if job else f"{base}.tsv"


def read_benchmarks(
    results_dir: str | os.PathLike, since: float | None = None
) -> list[tuple[str, str, float]]:
    """``(rule, job, seconds)`` of every benchmark file under ``results_dir`` (written at or after
    the time ``since``, seconds since the epoch, when given: the jobs of one run), longest first.
    A file that cannot be read (a job being written) is left out."""
    root = Path(results_dir) / BENCHMARK_DIR
    out = []
    for path in sorted(root.rglob("*.tsv")) if root.is_dir() else []:
        try:
            if since is not None and path.stat().st_mtime < since:
                continue
            with path.open(newline="") as f:
                seconds = float(next(csv.DictReader(f, delimiter="\t"))["s"])
        except (OSError, StopIteration, KeyError, ValueError):
            continue
        rel = path.relative_to(root).with_suffix("").parts
        out.append((rel[0], "/".join(rel[1:]), seconds))
    return sorted(out, key=lambda r: (-r[2], r[0], r[1]))


def time_lines(
    records: Iterable[tuple[str, str, float]],
    longest: int = 5,
    *,
    wall: float | None = None,
    cores: int | None = None,
    threads: Mapping[tuple[str, str], int] | None = None,
) -> list[str]:
    """Two lines: the job-seconds of each rule (most first, with its number of jobs) and the
    ``longest`` jobs; no line when no job ran.  Given the run's ``wall`` seconds and the ``cores``
    it ran on, a third line: how busy the cores were, the jobs' core-seconds (each job's seconds
    times the cores it held: ``threads[(rule, job)]``, 1 where absent, at most ``cores``) over
    ``wall x cores``; the jobs that held more than one core are named."""
    records = list(records)
    if not records:
        return []
    by_rule: dict[str, list[float]] = defaultdict(list)
    for rule, _, s in records:
        by_rule[rule].append(s)
    total = sum(s for _, _, s in records)
    steps = ", ".join(
        f"{rule} {sum(v):.0f} s" + (f" ({len(v)} jobs)" if len(v) > 1 else "")
        for rule, v in sorted(by_rule.items(), key=lambda kv: (-sum(kv[1]), kv[0]))
    )

    def name(rule: str, job: str) -> str:
        return f"{rule} {job}" if job else rule

    top = ", ".join(f"{name(rule, job)} {s:.1f} s" for rule, job, s in records[:longest])
    jobs = f"{len(records)} job{'s' if len(records) > 1 else ''}"
    lines = [
        f"Time by step: {jobs}, {total:.0f} job-seconds: {steps}",
        f"Longest job{'s' if len(records) > 1 else ''}: {top}",
    ]
    if wall and cores:
        held = {
            (rule, job): min(max(int((threads or {}).get((rule, job), 1)), 1), cores)
            for rule, job, _ in records
        }
        core_seconds = sum(s * held[(rule, job)] for rule, job, s in records)
        wide = [
            f"{name(rule, job)} on {held[(rule, job)]}" for rule, job, _ in records if held[(rule, job)] > 1
        ]
        minutes, seconds = divmod(round(wall), 60)
        lines.append(
            f"Cores busy: {core_seconds / (wall * cores):.0%} of {minutes}:{seconds:02d} of wall on {cores} "
            f"core{'s' if cores > 1 else ''} ({core_seconds:.0f} core-seconds"
            + (f"; {', '.join(wide)} cores" if wide else "")
            + ")"
        )
    return lines
