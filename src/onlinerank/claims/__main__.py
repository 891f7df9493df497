"""``python -m onlinerank.claims readme [claims.json]``: print the README's verdict summary
generated from a claims document (default ``figures/claims.json``); ``--write README.md`` replaces
the block in place."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .report import README_BEGIN, README_END, readme_summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m onlinerank.claims", description=__doc__)
    p.add_argument("command", choices=["readme"])
    p.add_argument("claims", nargs="?", default="figures/claims.json", help="claims document (JSON)")
    p.add_argument("--write", metavar="README", help="replace the summary block of this file")
    args = p.parse_args(argv)
    block = readme_summary(json.loads(Path(args.claims).read_text()))
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


if __name__ == "__main__":
    sys.exit(main())
