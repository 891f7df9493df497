"""Command line: ``onlinerank simulate ...`` (and ``onlinerank bounds ...``).

Bad arguments give a one-line error naming the argument and exit status 2, before any work.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

__all__ = ["main"]

EPILOG = """examples:
  onlinerank simulate --sampler plackett-luce --family single --n 20 --T 10000 --reps 100 --seed 1
  onlinerank simulate --family kchoice --k 3 --n 30 --T 5000 --adversary uniform
  onlinerank bounds --family single --n 20 --T 10000
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def _positive_int(name: str):
    def conv(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {text!r}") from None
        if v < 1:
            raise argparse.ArgumentTypeError(f"{name} must be >= 1, got {v}")
        return v

    return conv


def _eta(text: str):
    if text in ("paper", "optimal"):
        return text
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--eta must be 'paper', 'optimal' or a positive number, got {text!r}"
        ) from None
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"--eta must be positive, got {text!r}")
    return v


def _build_parser() -> argparse.ArgumentParser:
    from .adversaries import ADVERSARIES
    from .feedback import FAMILIES
    from .learners.onlinerank import SAMPLERS

    p = _Parser(
        prog="onlinerank",
        description=(
            "Online ranking (Ailon, arXiv 1308.6797): simulate OnlineRank and compare its exact "
            "expected regret with Theorem 3.1."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def game_args(q):
        q.add_argument(
            "--family",
            default="single",
            choices=[f for f in FAMILIES if f != "graded"],
            help="feedback family (default: single)",
        )
        q.add_argument("--n", type=_positive_int("--n"), required=True, help="number of items")
        q.add_argument("--T", type=_positive_int("--T"), required=True, help="horizon (rounds)")
        q.add_argument(
            "--k",
            type=_positive_int("--k"),
            default=1,
            help="items chosen per round for --family kchoice (k <= n/2)",
        )
        q.add_argument(
            "--eta",
            type=_eta,
            default="paper",
            help="learning rate: paper (default), optimal, or a positive number",
        )

    s = sub.add_parser(
        "simulate",
        help="run OnlineRank against an adversary",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run OnlineRank for --reps replicates; print the mean exact "
        "expected regret +- standard error, the Theorem 3.1 bound and their ratio.",
    )
    s.add_argument(
        "--sampler",
        default="plackett-luce",
        choices=SAMPLERS,
        help="sorting procedure (default: plackett-luce)",
    )
    game_args(s)
    s.add_argument(
        "--adversary",
        default="uniform",
        choices=sorted(ADVERSARIES),
        help="feedback source (default: uniform)",
    )
    s.add_argument("--reps", type=_positive_int("--reps"), default=16, help="replicates")
    s.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    s.add_argument(
        "--no-sample", action="store_true", help="skip sampling rankings (exact expected regret only; faster)"
    )
    s.add_argument("--quiet", action="store_true", help="no progress bar")

    b = sub.add_parser("bounds", help="print the closed-form bounds for a game")
    game_args(b)
    return p


class _Progress:
    """A progress bar on stderr that appears only once a run has taken more than 2 seconds."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.t0 = time.perf_counter()
        self.shown = False

    def __call__(self, t: int, T: int) -> None:
        el = time.perf_counter() - self.t0
        if not self.enabled or (el < 2.0 and t < T) or (t == T and not self.shown):
            return
        self.shown = True
        frac = t / T
        eta = el / frac - el if frac > 0 else float("nan")
        bar = "#" * int(30 * frac)
        sys.stderr.write(f"\r[{bar:<30}] {t}/{T} rounds  {el:6.1f}s elapsed  ~{eta:5.1f}s left")
        if t == T:
            sys.stderr.write("\n")
        sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    from . import bounds
    from .game import Game

    try:
        game = Game(n=args.n, T=args.T, family=args.family, k=args.k if args.family == "kchoice" else 1)
        eta = bounds.resolve_eta(args.eta, game.n, game.T, game.M)
    except ValueError as e:
        parser.exit(2, f"onlinerank {args.command}: error: {e}\n")
    bound = float(bounds.theorem31(game.n, game.T, game.M, eta))
    if args.command == "bounds":
        print(f"n={game.n} T={game.T} family={game.family} k={game.k} M={game.M:g}")
        print(f"eta (paper)               {float(bounds.eta_paper(game.n, game.T, game.M)):.6g}")
        print(f"Theorem 3.1, paper form   {float(bounds.theorem31_paper(game.n, game.T, game.M)):.6g}")
        print(f"Theorem 3.1, sharp at eta {bound:.6g}  (eta={eta:.6g})")
        print(f"Theorem 3.1, optimal eta  {float(bounds.theorem31_optimal(game.n, game.T, game.M)):.6g}")
        return 0

    from .adversaries import make_adversary
    from .learners.onlinerank import OnlineRank
    from .simulate import simulate

    try:
        adversary = make_adversary(args.adversary)
        adversary.check(game)
    except ValueError as e:
        parser.exit(2, f"onlinerank simulate: error: --adversary: {e}\n")
    res = simulate(
        OnlineRank(sampler=args.sampler, eta=eta),
        adversary,
        game,
        args.reps,
        seed=args.seed,
        cell=("cli", args.adversary, game.family, game.n, game.k, game.T),
        K=2,
        sample=not args.no_sample,
        progress=_Progress(not args.quiet),
    )
    reg = res.regret[:, -1]
    mean = float(reg.mean())
    se = float(reg.std(ddof=1) / math.sqrt(reg.size)) if reg.size > 1 else float("nan")
    print(
        f"OnlineRank ({args.sampler}) vs {args.adversary} adversary: family={game.family} "
        f"n={game.n} k={game.k} T={game.T} reps={args.reps} seed={args.seed} eta={eta:.6g}"
    )
    print(f"mean exact expected regret  {mean:.6g} +- {se:.3g} (s.e.)")
    if not args.no_sample:
        real = res.realised_regret[:, -1]
        print(f"mean realised regret        {float(real.mean()):.6g}")
    print(f"Theorem 3.1 bound           {bound:.6g}  (C(n,2) ln2/eta + eta T M/2, M={game.M:g})")
    print(f"ratio regret / bound        {mean / bound:.4f}")
    print(f"time                        {res.meta['seconds']:.2f} s")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
