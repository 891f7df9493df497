"""``config/README.md``, generated from the config's JSON schema (``config.schema.yaml``): the one
place each key's type, range, default and meaning is stated.  The page's table is the schema's
keys in its order; the text around it says what no single key does and states no default.

``python -m onlinerank.config_doc`` prints the page, ``--write config/README.md`` writes it (``make
config-doc``), and ``--check config/README.md`` exits 1 when the committed page is not the one
the schema gives (a test runs it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .settings import load_schema

__all__ = ["INTRO", "NOTES", "key_rows", "config_readme", "main"]

#: the page's text before the table of keys (its title, where the config is read and checked)
INTRO = """\
# Configuration keys

<!-- Generated from src/onlinerank/config.schema.yaml by `python -m onlinerank.config_doc --write
config/README.md` (make config-doc): edit the schema, not this page. -->

The pipeline reads `config/config.yaml` (default tier) unless `--configfile` names another file
(`config/smoke.yaml`: tiny tier for tests/CI; `config/stress.yaml`: n up to 1e4, T up to 1e6,
meant for a cluster via `--workflow-profile workflow/profiles/slurm` -- its measured cost and
command line are at the top and end of the file). Every key is checked against
`src/onlinerank/config.schema.yaml` (types, ranges, unknown keys, with the schema's defaults
filled in) and then semantically by `onlinerank.config.validate_config`, both by one call,
`onlinerank.config.load_settings`, which returns the config typed (unknown learner/adversary
names, impossible games such as k > n or k > n/2 for k-choice, T < 1, learners that refuse a game
such as Hedge with n > 9, exact worst-case instances above their memory cap, a claim's threshold
key) -- before any job runs. An error is one line naming the key and the bad value; a misspelt key
gets the closest allowed one as a suggestion.

Only `seed`, `learners` and `adversaries` are required. Every other section is a stage: left
out, it is not run and the claims that need it are listed as NOT RUN in the report. A key the
config leaves out takes the default of the table below (the schema's; a learner's or an
adversary's parameters left out of its entry: its constructor's).
"""

#: the page's text after the table of keys (the stages and the other sections)
NOTES = """\
Stages (each `{block_size, split, experiments}`): `upper` (Theorem 3.1, Corollary 3.2), `lower`
(Monte Carlo of the lower-bound construction), `baselines` (Section 4: every learner on common
adversaries), `spearman` (rank aggregation and graded feedback); the other sections (`lowerbound`,
`worst_case`, `lemma61`, `runtime`, `bound_comparison`) are stages made of one table each. A
`<stage>` key above holds for each of the four simulation stages.

Each combination adversary × learner × n × k × T of an experiment is a *cell*; all learners of a
cell see the same feedback (common random numbers). A `trace` adversary takes
`{name: trace, path: my_log.csv, format: items|scores}`; the file is parsed and checked against
the game before any job runs (format rules in `src/onlinerank/adversaries/trace.py`; a sample
log: `examples/trace-single-n5.txt`, single choice, n = 5, 40 rounds).

The thresholds of the claims that are numbers of the paper's statements (e.g. regret / bound ≤ 1,
the constant 1/16 of the explicit lower bound) are in the claim registry (`src/onlinerank/claims/`);
the margins and tolerances of the `claims` section and the timing thresholds of the `runtime`
section are fixed here before any data and never moved to fit a result; any change to them, or to
a grid, after data is an entry of the change log (`src/onlinerank/claims/changes.toml`).

`runtime.onlinerank_max_excess_exponent` is the same in every tier, fixed before any run of the
statistic: the claim `sec4.runtime` tests the exponent in n of (seconds per round)/(n ln n), the
least-squares slope of log(t/(n ln n)) on log n over n ≥ `fit_min_n`. A round that is O(n log n)
has this exponent ≤ 0 as n grows (0 for c·n ln n, negative while a fixed per-call cost still
matters); a quadratic round has 1 − 1/ln n locally, a least-squares slope of about 0.89 over
n = 10³..10⁵ (default tier) and 0.84 over n = 300..1000 (smoke). The threshold lies half-way: a
quadratic round FAILs, an n log n round PASSes even with cache effects that add up to about half a
power of n over the grid. The interval of every timing statistic comes from the spread between
`processes` fresh processes: each process gives the statistic from its own per-n medians, and the
interval is the Student-t interval of their mean with `processes` − 1 degrees of freedom (a
random-effects interval over processes). The repeats of one process share its memory layout,
caches and the machine's state of those seconds; they spread by 0.01–0.03 in an exponent where
whole runs differ by up to 0.2 or more, and an interval made of them alone covers a known exponent
in fewer than half of synthetic tables with such process effects (`tests/test_timing.py`). Four
processes keep the t quantile moderate (3.18 at 95%; 12.7 with two). `concurrent` of them run at
a time, each on a core of its own (the timings' job asks for that many cores, and at least two, so
that no other job runs beside them): two at a time take half the wall time of one after another,
and in the same hour gave statistics within each other's intervals, of the same width.
"""


def _resolve(node: dict, schema: dict) -> dict:
    """``node`` with a ``$ref`` into the schema's ``$defs`` replaced by its target (its own
    description kept)."""
    ref = node.get("$ref")
    if not ref:
        return node
    target = schema["$defs"][ref.rsplit("/", 1)[1]]
    return {**target, **{k: v for k, v in node.items() if k != "$ref"}}


def _bounds(node: dict) -> str:
    parts = []
    if "minimum" in node:
        parts.append(f"≥ {node['minimum']}")
    if "exclusiveMinimum" in node:
        parts.append(f"> {node['exclusiveMinimum']}")
    if "maximum" in node:
        parts.append(f"≤ {node['maximum']}")
    if "exclusiveMaximum" in node:
        parts.append(f"< {node['exclusiveMaximum']}")
    return ", ".join(parts)


def _type(node: dict) -> str:
    """What a key holds, in words: its type and range, the values of an enum, the items of a list."""
    if "enum" in node:
        values = node["enum"]
        plain = all(isinstance(v, str) for v in values)
        return "one of " + ", ".join(v if plain else json.dumps(v) for v in values)
    kind = node.get("type", "")
    if kind == "array":
        items = node.get("items", {})
        return f"list of {_type(items) if items else 'values'}"
    if kind == "object":
        extra = node.get("additionalProperties")
        return f"map: label → {_type(extra)}" if isinstance(extra, dict) else "map"
    word = {"integer": "integer", "number": "number", "string": "string", "boolean": "true or false"}
    return ", ".join(x for x in (word.get(kind, kind), _bounds(node)) if x)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def key_rows(schema: dict | None = None) -> Iterator[tuple[str, str, str, str]]:
    """``(key, what it holds, default, meaning)`` of every key of the schema, in its order: the
    sections, then their keys (``a.b``; the items of a list of records as ``a[].b``, the entries
    of a map by label as ``a.<label>.b``; the keys of the simulation stages as ``<stage>.key``,
    once).  The default is the schema's, ``required`` for
    a required key, empty for an optional key without one."""
    schema = schema or load_schema()
    stage_done = False

    def walk(node: dict, prefix: str) -> Iterator[tuple[str, str, str, str]]:
        nonlocal stage_done
        required = set(node.get("required", ()))
        for name, sub in node.get("properties", {}).items():
            is_stage = sub.get("$ref", "").endswith("/stage")
            sub = _resolve(sub, schema)
            key = f"{prefix}{name}"
            default = (
                json.dumps(sub["default"]) if "default" in sub else ("required" if name in required else "")
            )
            yield key, _type(sub), default, sub.get("description", "")
            if is_stage:  # the four simulation stages share one definition: listed once
                if not stage_done:
                    stage_done = True
                    yield from walk(sub, "<stage>.")
                continue
            yield from walk(sub, f"{key}.")
            items, entries = sub.get("items"), sub.get("additionalProperties")
            if isinstance(items, dict) and items.get("properties"):
                yield from walk(items, f"{key}[].")
            if isinstance(entries, dict) and entries.get("properties"):
                yield from walk(entries, f"{key}.<label>.")

    yield from walk(schema, "")


def config_readme(schema: dict | None = None) -> str:
    """The text of ``config/README.md``: :data:`INTRO`, the table of :func:`key_rows`, :data:`NOTES`."""
    rows = ["| key | holds | default | meaning |", "|---|---|---|---|"]
    for key, kind, default, meaning in key_rows(schema):
        shown = f"`{_cell(default)}`" if default and default != "required" else default
        rows.append(f"| `{key}` | {_cell(kind)} | {shown} | {_cell(meaning)} |")
    return f"{INTRO}\n" + "\n".join(rows) + f"\n\n{NOTES}"


def main(argv: list[str] | None = None) -> int:
    """``python -m onlinerank.config_doc [--write PATH | --check PATH]`` (the module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m onlinerank.config_doc", description=__doc__.split("\n")[0])
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--write", metavar="PATH", help="write the page to PATH")
    group.add_argument("--check", metavar="PATH", help="exit 1 when PATH is not the page the schema gives")
    args = ap.parse_args(argv)
    text: Any = config_readme()
    if args.write:
        Path(args.write).write_text(text)
    elif args.check:
        if Path(args.check).read_text() != text:
            print(
                f"{args.check} is not the page the schema gives: python -m onlinerank.config_doc --write "
                f"{args.check}",
                file=sys.stderr,
            )
            return 1
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
