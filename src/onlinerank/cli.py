"""Command line: ``onlinerank simulate ...`` (and ``onlinerank bounds ...``).

Every bad value gives one line naming the argument (``onlinerank simulate: error: argument --n:
...``) and exit status 2, before any work: values out of range, an option given twice, a learning
rate whose bound or scores overflow a float, a run whose arrays would not fit in the memory
available (:func:`estimate_memory`) or that would take more than a day even at the engine's best
measured speed (:func:`estimate_seconds`), a feedback log (``--trace``) with a malformed line.
The progress bar goes to a terminal only.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from typing import NoReturn

from . import bounds
from .adversaries import ADVERSARIES, Adversary, make_adversary
from .adversaries.trace import FORMATS as TRACE_FORMATS
from .adversaries.trace import TraceAdversary, read_trace
from .adversaries.uniform import UniformAdversary
from .game import Game
from .learners import LEARNERS, Learner, make_learner, paper_algorithm
from .learners.onlinerank import SAMPLERS
from .simulate import simulate

__all__ = ["main", "estimate_memory", "available_memory", "estimate_seconds"]

EPILOG = """examples:
  onlinerank simulate --sampler plackett-luce --family single --n 20 --T 10000 --reps 100 --seed 1
  onlinerank simulate --family kchoice --k 3 --n 30 --T 5000 --adversary uniform
  onlinerank simulate --learner ftl --n 10 --T 1000 --adversary cyclic
  onlinerank simulate --trace examples/trace-single-n5.txt --n 5
  onlinerank bounds --family single --n 20 --T 10000
"""

#: the largest --n, --T, --k, --reps accepted: integers a float64 holds exactly
INT_MAX = 2**53

# Memory model of one ``simulate`` process (bytes), from its peak resident set size on Python 3.11
# / numpy 2.4 with --T 2 (memory does not grow with T: K = 2 checkpoints):
# * a fixed part: interpreter, numpy, numba, the kernels and, on the first run after installation,
#   their compilation: 160-210 MB with the kernels cached, 210-260 MB compiling them (shared-library
#   pages count in the resident set, more of them right after an installation);
# * per replicate and item: cumulative scores, cached weights, the feedback, the sampled orders
#   and their temporaries: 37-68 bytes per (reps x n) measured over the samplers, families and
#   adversaries (the subset family with the switching adversary the largest);
# * the adversary's own working memory beyond that, which it declares itself
#   (``Adversary.memory_bytes``): e.g. the (n, n) Bradley-Terry temporaries of the adversaries that
#   read the learner's expected positions (``adversaries.base.pair_block_bytes``).
# Each coefficient is rounded up with room to spare; tests/test_cli.py checks the model against
# measured peaks for every registered adversary.
FIXED_BYTES = 512 * 2**20
BYTES_PER_REP_ITEM = 96

# Time model of ``simulate`` (seconds), a lower bound: T x reps x (a + b x n).  Measured on a 2-core
# machine (numpy 2.4, kernels compiled, --no-sample, the uniform adversary, the cheapest case):
# 78-95 ns per replicate-round at n = 2 (R = 1, 16), 135 ns at n = 3 (R = 256), 130 ns at n = 100,
# 405-450 ns at n = 1000 and 2000 ns at n = 10^4 (R = 32, 64); sampling, the other families and
# adaptive adversaries cost more (greedy: 0.3 ms per round at n = 10).  a and b are set below every
# measurement (a at a quarter of the n = 2 cost, b at half the n = 10^4 cost per item), so a run is
# refused only when it certainly takes longer than the limit.
SECONDS_PER_REP_ROUND = 20e-9
SECONDS_PER_REP_ITEM_ROUND = 0.1e-9
#: the longest run the command line starts (the package's simulate() has no limit)
TIME_LIMIT_SECONDS = 24 * 3600

#: families that the command line offers, and what k is for each (``--k`` is kchoice's only)
FAMILY_K = {
    "single": "single choice has k = 1",
    "kchoice": None,
    "subset": "subset feedback chooses any number of items",
    "spearman": "Spearman feedback ranks all n items",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2
        self.exit(2, f"{self.prog}: error: {message}\n")


class _Once(argparse.Action):
    """Store the value of an option that may be given once: argparse would silently keep the last
    of ``--n 20 --n 30``; here the second is an error naming the option and both values."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = getattr(namespace, "_given", None)
        if given is None:
            given = {}
            namespace._given = given
        if self.dest in given:
            parser.error(
                f"argument {'/'.join(self.option_strings)}: given twice ({given[self.dest]} and "
                f"{option_string} {values}); give it once"
            )
        given[self.dest] = f"{option_string} {values}"
        setattr(namespace, self.dest, values)


def _int_arg(lo: int, hi: int | None = INT_MAX):
    """An argparse type: an integer in [lo, hi]; argparse prefixes "argument --name: "."""

    def conv(text: str) -> int:
        try:
            v = int(text.strip(), 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer >= {lo}, got {text!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be an integer >= {lo}, got {v}")
        if hi is not None and v > hi:
            raise argparse.ArgumentTypeError(f"must be at most 2**53 = {hi}, got {v}")
        return v

    return conv


def _eta(text: str):
    if text in ("paper", "optimal", "stated"):
        return text
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(
            f"must be 'paper', 'optimal', 'stated' or a positive number, got {text!r}"
        )
    return v


def _buildable(cls: type) -> bool:
    """Whether the command line can build the adversary class ``cls`` with no parameter (the trace
    adversary, for one, needs a log: ``--trace FILE``)."""
    try:
        cls()
    except (TypeError, ValueError):
        return False
    return True


def _add_game_args(q: argparse.ArgumentParser, T_help: str = "horizon (rounds, >= 1)") -> None:
    """The game's options, shared by ``simulate`` and ``bounds``: family, n, T, k and η."""
    q.add_argument(
        "--family",
        action=_Once,
        default="single",
        choices=list(FAMILY_K),
        help="feedback family (default: single)",
    )
    q.add_argument("--n", action=_Once, type=_int_arg(2), required=True, help="number of items (>= 2)")
    q.add_argument("--T", action=_Once, type=_int_arg(1), default=None, help=T_help)
    q.add_argument(
        "--k",
        action=_Once,
        type=_int_arg(1),
        default=None,
        help="items chosen per round, required with --family kchoice and only there (1 <= k <= n/2)",
    )
    q.add_argument(
        "--eta",
        action=_Once,
        type=_eta,
        default="paper",
        help="learning rate: paper (default), optimal, or a positive number",
    )


def _add_player_args(s: argparse.ArgumentParser) -> None:
    """``simulate``'s learner and its sorting procedure."""
    s.add_argument(
        "--learner",
        action=_Once,
        default=paper_algorithm(),
        choices=sorted(LEARNERS),
        help=f"registered learner, with its default parameters (default: {paper_algorithm()}; "
        "--sampler and --eta are OnlineRank's)",
    )
    s.add_argument(
        "--sampler",
        action=_Once,
        default="plackett-luce",
        choices=SAMPLERS,
        help="OnlineRank's sorting procedure (default: plackett-luce)",
    )


def _add_feedback_args(s: argparse.ArgumentParser) -> None:
    """``simulate``'s feedback source: a registered adversary or a replayed log."""
    # the adversaries the command line can build: a family it offers, no required parameter
    # (the trace adversary replays a log file: --trace FILE)
    usable = sorted(
        name for name, cls in ADVERSARIES.items() if set(cls.families) & set(FAMILY_K) and _buildable(cls)
    )
    s.add_argument(
        "--adversary",
        action=_Once,
        default=None,
        choices=usable,
        help=f"feedback source (default: {UniformAdversary.name})",
    )
    s.add_argument(
        "--trace",
        action=_Once,
        metavar="FILE",
        default=None,
        help="replay a feedback log as the adversary: one round per line, fields separated by commas, "
        "'#' comments; with the default --trace-format a line is the chosen item ids for single, "
        "kchoice and subset, and the scores -sigma (a permutation of -1..-n) for spearman; e.g. "
        "examples/trace-single-n5.txt (format: onlinerank.adversaries.trace)",
    )
    s.add_argument(
        "--trace-format",
        action=_Once,
        default="auto",
        choices=TRACE_FORMATS,
        help="how a line of the log reads: items (item ids; spearman: the ranking, best first), "
        "scores (the feedback vector, n numbers; spearman: -sigma), or auto (default): items for "
        "single, kchoice and subset, scores for spearman",
    )


def _add_run_args(s: argparse.ArgumentParser) -> None:
    """``simulate``'s replicates, seed, sampling and progress options."""
    s.add_argument("--reps", action=_Once, type=_int_arg(1), default=16, help="replicates (default 16)")
    s.add_argument(
        "--seed",
        action=_Once,
        type=_int_arg(0, None),
        default=0,
        help="root seed, an integer >= 0 (default 0)",
    )
    s.add_argument(
        "--no-sample", action="store_true", help="skip sampling rankings (exact expected regret only; faster)"
    )
    s.add_argument("--quiet", action="store_true", help="no progress bar (it is drawn on a terminal only)")


def _build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The command line: ``onlinerank simulate`` and ``onlinerank bounds``, and each subparser."""
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
    s = sub.add_parser(
        "simulate",
        help="run OnlineRank (or another registered learner) against an adversary",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run OnlineRank (or --learner) for --reps replicates; print the mean exact\n"
        "expected regret +- standard error, the Theorem 3.1 bound (or the learner's own bound)\n"
        "and their ratio.  A run whose arrays would not fit in the available memory, or that\n"
        "would take more than a day, is refused up front with the estimate.",
    )
    _add_player_args(s)
    _add_game_args(s, "horizon (rounds, >= 1); with --trace at most the log's rounds (default: all of them)")
    _add_feedback_args(s)
    _add_run_args(s)
    b = sub.add_parser("bounds", help="print the closed-form bounds for a game")
    _add_game_args(b)
    return p, {"simulate": s, "bounds": b}


def _check_k(args, parser: argparse.ArgumentParser) -> int:
    """``--k`` belongs to ``--family kchoice`` alone, where it is required (1 <= k <= n/2)."""
    if args.family != "kchoice":
        if args.k is not None:
            parser.error(
                f"argument --k: only used with --family kchoice ({FAMILY_K[args.family]}); "
                f"drop --k or add --family kchoice"
            )
        return 1
    half = args.n // 2
    if args.k is None:
        parser.error(f"argument --k: --family kchoice needs --k, an integer from 1 to n/2 = {half}")
    if args.k > half:
        parser.error(
            f"argument --k: must be an integer from 1 to n/2 = {half} for --family kchoice "
            f"(the paper assumes k <= n/2), got {args.k}"
        )
    return args.k


def _runs_paper_algorithm(args) -> bool:
    """Whether ``--learner`` is the paper's algorithm (its class declares ``paper_algorithm``)."""
    return LEARNERS[args.learner].paper_algorithm


def _check_learner(args, parser: argparse.ArgumentParser) -> None:
    """``--sampler`` and ``--eta`` are OnlineRank's parameters: given with another ``--learner``
    they would be ignored, so they are an error naming the option."""
    if _runs_paper_algorithm(args):
        return
    given = getattr(args, "_given", {})
    for dest, option in (("sampler", "--sampler"), ("eta", "--eta")):
        if dest in given:
            parser.error(
                f"argument {option}: only used with --learner {paper_algorithm()} (--learner "
                f"{args.learner} runs with its default parameters); drop it"
            )


def _adversary_bytes(n: int, reps: int, adversary: str) -> int:
    """The working memory the registered adversary ``adversary`` declares (0 for other names)."""
    cls = ADVERSARIES.get(adversary)
    return 0 if cls is None else int(cls.memory_bytes(n, reps))


def _learner_bytes(n: int, reps: int, learner: str) -> int:
    """The working memory the registered learner ``learner`` declares (0 for other names)."""
    cls = LEARNERS.get(learner)
    return 0 if cls is None else int(cls.memory_bytes(n, reps))


def estimate_memory(n: int, reps: int, adversary: str | None = None, learner: str | None = None) -> int:
    """Conservative peak memory (bytes) of ``onlinerank simulate`` for ``n`` items and ``reps``
    replicates of ``learner`` (default the paper's algorithm) against ``adversary`` (default the
    command line's, the uniform one) (theory §1: the game's sizes; the model and its measurements
    are above the constants): a fixed part, a part per replicate and item, and the working memory
    the adversary and the learner declare (their ``memory_bytes``)."""
    adversary = UniformAdversary.name if adversary is None else adversary
    learner = paper_algorithm() if learner is None else learner
    own = _adversary_bytes(n, reps, adversary) + _learner_bytes(n, reps, learner)
    return FIXED_BYTES + BYTES_PER_REP_ITEM * reps * n + own


def available_memory() -> int:
    """Bytes this process may still allocate: MemAvailable of /proc/meminfo, capped by a cgroup
    limit if there is one (else physical memory)."""
    avail = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    if avail is None:
        try:
            avail = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
            avail = 2**62
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        with open("/sys/fs/cgroup/memory.current") as f:
            current = int(f.read().strip())
        if limit != "max":
            avail = min(avail, int(limit) - current)
    except (OSError, ValueError):
        pass
    return max(avail, 0)


def _size(b: float) -> str:
    for unit in ("bytes", "kB", "MB", "GB", "TB", "PB"):
        if b < 1000 or unit == "PB":
            return f"{b:.0f} {unit}" if unit == "bytes" else f"{b:.3g} {unit}"
        b /= 1000
    raise AssertionError  # pragma: no cover


def _check_memory(args, parser: argparse.ArgumentParser) -> None:
    learner = getattr(args, "learner", None) or paper_algorithm()
    need = estimate_memory(args.n, args.reps, args.adversary, learner)
    have = available_memory()
    if need > have:
        own = _adversary_bytes(args.n, args.reps, args.adversary)
        mine = _learner_bytes(args.n, args.reps, learner)
        # memory the adversary declares independent of the replicates: only a smaller n helps
        only_n = own > 0 and own == _adversary_bytes(args.n, 1, args.adversary) and not mine
        name = "--n" if only_n else "--n/--reps"
        parser.error(
            f"argument {name}: --n {args.n} with --reps {args.reps} needs about {_size(need)} of "
            f"memory (estimate: {_size(FIXED_BYTES)} + {BYTES_PER_REP_ITEM} bytes x reps x n"
            + (f" + {_size(own)} for the {args.adversary} adversary's own arrays" if own else "")
            + (f" + {_size(mine)} for the {learner} learner's own arrays" if mine else "")
            + f"), more than the {_size(have)} available; lower --n"
            + ("" if only_n else " or --reps")
        )


def estimate_seconds(n: int, T: int, reps: int) -> float:
    """A lower bound of the seconds ``onlinerank simulate`` takes: ``T x reps x (a + b x n)`` with
    the constants above, set below the engine's best measured speed."""
    return float(T) * reps * (SECONDS_PER_REP_ROUND + SECONDS_PER_REP_ITEM_ROUND * n)


def _duration(seconds: float) -> str:
    for unit, length in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= length:
            value = f"{seconds / length:.3g}"
            return f"{value} {unit[:-1] if value == '1' else unit}"
    return f"{seconds:.3g} s"


def _check_time(args, parser: argparse.ArgumentParser) -> None:
    need = estimate_seconds(args.n, args.T, args.reps)
    if need > TIME_LIMIT_SECONDS:
        parser.error(
            f"argument --T: --T {args.T} with --n {args.n} and --reps {args.reps} would take at least "
            f"{_duration(need)} (estimate: T x reps x ({SECONDS_PER_REP_ROUND * 1e9:g} ns + "
            f"{SECONDS_PER_REP_ITEM_ROUND * 1e9:g} ns x n), the engine's best measured speed), more "
            f"than the command line's limit of {_duration(TIME_LIMIT_SECONDS)}; lower --T, --n or "
            "--reps (or call onlinerank.simulate from Python)"
        )


#: the largest float: a learning rate must keep Theorem 3.1's bound and the scores eta*S below it
FLOAT_MAX = sys.float_info.max


def _check_eta(eta: float, game, parser: argparse.ArgumentParser) -> None:
    """A numeric ``--eta`` for which the scores ``eta S`` and both terms of Theorem 3.1's bound
    C(n,2) ln2/eta + eta T M/2 are finite floats: C(n,2) ln2/FLOAT_MAX <= eta <= FLOAT_MAX/(T M)."""
    lo = math.comb(game.n, 2) * math.log(2) / FLOAT_MAX
    hi = FLOAT_MAX / (float(game.T) * game.M)
    if eta > hi:
        parser.error(
            f"argument --eta: {eta!r} is too large for n={game.n}, T={game.T} (M={game.M:g}): "
            f"eta T M, the scale of the scores eta S and of Theorem 3.1's bound, overflows a float; "
            f"choose eta <= {hi:.3g}"
        )
    if eta < lo:
        parser.error(
            f"argument --eta: {eta!r} is too small for n={game.n}: C(n,2) ln2/eta, the first term "
            f"of Theorem 3.1's bound, overflows a float; choose eta >= {lo:.3g}"
        )


def _clock(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "--:--"
    s = round(seconds)
    h, m = divmod(s, 3600)
    m, s = divmod(m, 60)
    return f"{h:d}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


#: seconds before the progress bar appears (a short run shows none); the environment can change it
PROGRESS_DELAY_ENV = "ONLINERANK_PROGRESS_DELAY"


class Progress:
    """A progress bar with an ETA, redrawn in place on ``stream`` (stderr) when that is a terminal
    and the run has taken more than ``delay`` seconds; never written to a file or a pipe."""

    def __init__(self, stream=None, *, delay: float = 2.0, clock=time.perf_counter) -> None:
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty())
        self.delay = delay
        self.clock = clock
        self.t0 = clock()
        self.shown = False

    def __call__(self, t: int, T: int) -> None:
        if not self.enabled:
            return
        el = self.clock() - self.t0
        if (t < T and el < self.delay) or (t == T and not self.shown):
            return
        self.shown = True
        frac = t / T
        left = el / frac - el if frac > 0 else float("nan")
        bar = "#" * int(30 * frac)
        line = f"[{bar:<30}] {t}/{T} rounds {100 * frac:3.0f}%  elapsed {_clock(el)}  ETA {_clock(left)}"
        self.stream.write("\r" + line + ("\n" if t == T else ""))
        self.stream.flush()


def _trace_rounds(args, k: int, parser: argparse.ArgumentParser) -> int:
    """Read and validate the whole ``--trace`` log (as the pipeline's trace adversary does); its
    number of rounds.  A malformed line is one error naming the file and the line number."""
    if args.adversary is not None:
        parser.error("argument --trace: the log is the adversary; drop --adversary")
    try:
        return int(read_trace(args.trace, args.n, args.family, k, args.trace_format).shape[0])
    except ValueError as e:  # an empty log too: TraceError names the file
        parser.error(f"argument --trace: {e}")
    raise AssertionError  # pragma: no cover - parser.error exits


def _game_from_args(args, cmd: argparse.ArgumentParser) -> Game:
    """The game the options describe; with ``--trace`` the horizon defaults to the log's rounds and
    may not exceed them (the adversary becomes the trace)."""
    k = _check_k(args, cmd)
    if args.command == "simulate":
        _check_learner(args, cmd)
    trace = getattr(args, "trace", None)
    if trace is not None:
        rounds = _trace_rounds(args, k, cmd)
        args.adversary = TraceAdversary.name
        if args.T is None:
            args.T = rounds
        elif args.T > rounds:
            cmd.error(f"argument --T: {args.T} is more than the {rounds} rounds of the log {trace!r}")
    elif args.T is None:
        cmd.error("the following arguments are required: --T")
    if args.command == "simulate" and args.adversary is None:
        args.adversary = UniformAdversary.name
    try:
        game = Game(n=args.n, T=args.T, family=args.family, k=k)
    except ValueError as e:  # pragma: no cover - the checks above come first
        cmd.error(str(e))
    if not isinstance(args.eta, str):
        _check_eta(args.eta, game, cmd)
    return game


def _print_bounds(game: Game, eta: float, bound: float) -> None:
    """``onlinerank bounds``: η_p and Theorem 3.1's bound in its three forms (theory §3)."""
    print(f"n={game.n} T={game.T} family={game.family} k={game.k} M={game.M:g}")
    print(f"eta (paper)               {float(bounds.eta_paper(game.n, game.T, game.M)):.6g}")
    print(f"Theorem 3.1, paper form   {float(bounds.theorem31_paper(game.n, game.T, game.M)):.6g}")
    print(f"Theorem 3.1, sharp at eta {bound:.6g}  (eta={eta:.6g})")
    print(f"Theorem 3.1, optimal eta  {float(bounds.theorem31_optimal(game.n, game.T, game.M)):.6g}")


def _players_from_args(
    args, game: Game, eta: float, cmd: argparse.ArgumentParser
) -> tuple[Learner, Adversary]:
    """The learner and the adversary the options name, each checked against the game; a refusal
    is reported against the option that named it."""
    trace = getattr(args, "trace", None)
    try:
        if trace is not None:
            adversary = make_adversary(TraceAdversary.name, path=trace, format=args.trace_format)
        else:
            adversary = make_adversary(args.adversary)
        adversary.check(game)
    except ValueError as e:
        cmd.error(f"argument {'--trace' if trace is not None else '--adversary'}: {e}")
    learner: Learner
    try:
        if _runs_paper_algorithm(args):
            learner = make_learner(args.learner, sampler=args.sampler, eta=eta)
        else:
            learner = make_learner(args.learner)
        learner.check(game)
    except (TypeError, ValueError) as e:
        cmd.error(f"argument --learner: {e}")
    return learner, adversary


def _print_run(args, game: Game, eta: float, bound: float, learner: Learner, res) -> None:
    """``onlinerank simulate``'s report: mean exact expected regret ± s.e., realised regret, the
    bound (Theorem 3.1 for OnlineRank, the learner's own otherwise) and the ratio."""
    reg = res.regret[:, -1]
    mean = float(reg.mean())
    se = float(reg.std(ddof=1) / math.sqrt(reg.size)) if reg.size > 1 else float("nan")
    source = (
        f"trace {args.trace}" if getattr(args, "trace", None) is not None else f"{args.adversary} adversary"
    )
    game_text = f"family={game.family} n={game.n} k={game.k} T={game.T} reps={args.reps} seed={args.seed}"
    if _runs_paper_algorithm(args):
        print(f"OnlineRank ({args.sampler}) vs {source}: {game_text} eta={eta:.6g}")
    else:
        print(f"{args.learner} vs {source}: {game_text}")
    if math.isfinite(mean):
        print(f"mean exact expected regret  {mean:.6g} +- {se:.3g} (s.e.)")
    else:  # a learner without an exact expected loss (Learner.exact is False)
        print("mean exact expected regret  none (the learner has no exact expected loss)")
    if not args.no_sample:
        real = res.realised_regret[:, -1]
        print(f"mean realised regret        {float(real.mean()):.6g}")
    own = bound if _runs_paper_algorithm(args) else learner.regret_bound(game)
    if _runs_paper_algorithm(args):
        print(f"Theorem 3.1 bound           {bound:.6g}  (C(n,2) ln2/eta + eta T M/2, M={game.M:g})")
    elif own is None:
        print(f"regret bound                none stated by {args.learner}")
    else:
        print(f"regret bound                {own:.6g}  ({args.learner}'s own, theory §3.3)")
    if own is not None:
        print(f"ratio regret / bound        {mean / own:.4f}")
    print(f"time                        {res.meta['seconds']:.2f} s")


def main(argv: list[str] | None = None) -> int:
    """The ``onlinerank`` command: parse ``argv``, run the sub-command, return the exit status."""
    parser, commands = _build_parser()
    args = parser.parse_args(argv)
    cmd = commands[args.command]
    game = _game_from_args(args, cmd)
    eta = bounds.resolve_eta(args.eta, game.n, game.T, game.M, game.family, game.k)
    bound = float(bounds.theorem31(game.n, game.T, game.M, eta))
    if args.command == "bounds":
        _print_bounds(game, eta, bound)
        return 0
    learner, adversary = _players_from_args(args, game, eta, cmd)
    _check_memory(args, cmd)
    _check_time(args, cmd)
    res = simulate(
        learner,
        adversary,
        game,
        args.reps,
        seed=args.seed,
        cell=("cli", args.adversary, game.family, game.n, game.k, game.T),
        K=2,
        sample=not args.no_sample,
        progress=None if args.quiet else Progress(delay=float(os.environ.get(PROGRESS_DELAY_ENV, 2.0))),
    )
    _print_run(args, game, eta, bound, learner, res)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
