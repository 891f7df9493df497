"""``python -m onlinerank.claims readme [claims.json]``: print the README's verdict summary
generated from a claims document (default ``figures/claims.json``); ``--write README.md`` replaces
the block in place.

``python -m onlinerank.claims digests [--config config/config.yaml]``: each tested claim's digest
under the config (default: the default tier, whose digests the change log records) and whether the
change log records it; ``--entry`` prints, for the claims it does not record, an entry to append to
``src/onlinerank/claims/changes.toml``; exit status 1 when a claim is unrecorded (0 with ``--entry``,
which has printed what to append), a committed entry was edited, or the log is malformed."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from ..schema_validation import ConfigError, validate_schema
from ..settings import typed_settings
from .changelog import LOG_PATH, ChangeLogError, append_only_violations, load_log, unrecorded
from .evidence import claim_digests
from .report import README_BEGIN, README_END, readme_summary


def _readme(p: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    block = readme_summary(json.loads(Path(args.claims or "figures/claims.json").read_text()))
    if not args.write:
        print(block)
        return 0
    path = Path(args.write)
    text = path.read_text()
    if README_BEGIN not in text or README_END not in text:
        p.exit(2, f"{path}: no claims summary block ({README_BEGIN!r} ... {README_END!r})\n")
    head, rest = text.split(README_BEGIN, 1)
    tail = rest.split(README_END, 1)[1]
    path.write_text(head + block + tail)
    return 0


def entry_text(unrecorded: dict[str, tuple[str, str | None]]) -> str:
    """A change-log entry (TOML) naming the claims of ``unrecorded`` with their current digests;
    ``change``, ``before`` and ``reason`` are left for the author to write."""
    ids = ", ".join(json.dumps(c) for c in unrecorded)
    lines = [
        "[[change]]",
        'kind = "test"',
        f"claims = [{ids}]",
        'change = "<what changed in these claims\' tests>"',
        'before = "<the result that preceded the change (verdicts, values), or remove this line>"',
        'reason = "<why>"',
        "[change.digests]",
        *(f'"{c}" = "{d}"' for c, (d, _) in unrecorded.items()),
    ]
    return "\n".join(lines)


def _digests(p: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    path = Path(args.config)
    try:
        config = yaml.safe_load(path.read_text())
        # the schema's check and defaults, then the typed settings: the full validator
        # (onlinerank.config.load_settings) asks the claim registry, so the claims package cannot
        # import it back; the pipeline validates the tier fully before every run
        validate_schema(config)
    except (OSError, yaml.YAMLError, ConfigError) as err:
        p.exit(2, f"{path}: {err}\n")
    settings = typed_settings(config)
    log_path = Path(args.log) if args.log else LOG_PATH
    try:
        log = load_log(log_path)
    except ChangeLogError as err:
        p.exit(1, f"{err}\n")
    digests = claim_digests(settings)
    pending = unrecorded(digests, log)
    for c, d in digests.items():
        state = (
            "recorded" if c not in pending else f"not recorded (the log records {pending[c][1] or 'none'})"
        )
        print(f"{c} {d} {state}")
    problems = append_only_violations(log_path)
    for line in problems:
        print(line, file=sys.stderr)
    if pending and args.entry:
        print("\n# append to " + str(log_path) + ", filling in change, before and reason:\n")
        print(entry_text(pending))
    return 1 if problems or (pending and not args.entry) else 0


def main(argv: list[str] | None = None) -> int:
    """The command line of the claims package: ``readme`` and ``digests`` (see the module)."""
    p = argparse.ArgumentParser(prog="python -m onlinerank.claims", description=__doc__)
    p.add_argument("command", choices=["readme", "digests"])
    p.add_argument("claims", nargs="?", help="readme: the claims document (default figures/claims.json)")
    p.add_argument("--write", metavar="README", help="readme: replace the summary block of this file")
    p.add_argument("--config", default="config/config.yaml", help="digests: the config (default tier)")
    p.add_argument("--log", help="digests: the change log (default: the package's changes.toml)")
    p.add_argument("--entry", action="store_true", help="digests: print an entry for the unrecorded claims")
    args = p.parse_args(argv)
    return _readme(p, args) if args.command == "readme" else _digests(p, args)


if __name__ == "__main__":
    sys.exit(main())
