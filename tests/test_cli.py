"""The command line: output, bad arguments (one line naming the argument, exit status 2, nothing
written, before any work), the memory estimate, and the progress bar (a terminal only, with ETA)."""

import itertools
import math
import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from onlinerank import cli
from onlinerank.cli import main

GiB = 2**30


def run(*args, cwd=None, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "onlinerank.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
    )


def test_simulate_prints_regret_bound_and_ratio(capsys):
    assert main(["simulate", "--n", "8", "--T", "200", "--reps", "5", "--seed", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "mean exact expected regret" in out and "+-" in out
    assert "Theorem 3.1 bound" in out and "ratio regret / bound" in out
    ratio = float(out.split("ratio regret / bound")[1].split()[0])
    assert 0 < ratio < 1


def test_bounds_command(capsys):
    assert main(["bounds", "--n", "10", "--T", "1000"]) == 0
    out = capsys.readouterr().out
    assert "789.831" in out  # reference values G2: n sqrt(T M ln2) for n=10, T=1000, M=9
    assert "750.339" in out


def test_kchoice_uses_the_given_k(capsys):
    assert main(["bounds", "--family", "kchoice", "--k", "3", "--n", "30", "--T", "5000"]) == 0
    assert "k=3 M=81" in capsys.readouterr().out  # M = k (n - k)


#: the sample feedback log of the repository (README, command line)
SAMPLE_TRACE = Path(__file__).resolve().parents[1] / "examples" / "trace-single-n5.txt"
N_RANGE = "--n: must be an integer >= 2"
BAD = [
    # bad command lines as a user types them
    (["--seed", "-1"], "argument --seed: must be an integer >= 0, got -1"),
    (["--n", "0"], f"argument {N_RANGE}, got 0"),
    (["--n", "1"], f"argument {N_RANGE}, got 1"),  # same wording as --n 0
    (["--n", "x"], f"argument {N_RANGE}, got 'x'"),
    (["--n", "1e3"], f"argument {N_RANGE}, got '1e3'"),
    (["--family", "single", "--k", "3"], "argument --k: only used with --family kchoice"),
    (["--family", "subset", "--k", "2"], "argument --k: only used with --family kchoice"),
    (["--family", "kchoice"], "argument --k: --family kchoice needs --k"),
    (["--family", "kchoice", "--k", "5", "--n", "3"], "argument --k: must be an integer from 1 to n/2 = 1"),
    (["--family", "kchoice", "--k", "4", "--n", "6"], "(the paper assumes k <= n/2), got 4"),
    (["--family", "kchoice", "--k", "0"], "argument --k: must be an integer >= 1, got 0"),
    (["--T", "0"], "argument --T: must be an integer >= 1, got 0"),
    (["--T", str(10**20)], "argument --T: must be at most 2**53"),
    (["--reps", "0"], "argument --reps: must be an integer >= 1, got 0"),
    (["--seed", "1.5"], "argument --seed: must be an integer >= 0, got '1.5'"),
    (["--sampler", "bubble"], "argument --sampler: invalid choice"),
    (["--family", "graded"], "argument --family: invalid choice"),
    (["--adversary", "nobody"], "argument --adversary: invalid choice"),
    (["--adversary", "graded"], "argument --adversary: invalid choice"),  # no family of the CLI
    (["--adversary", "trace"], "argument --adversary: invalid choice"),  # needs a log file
    (["--adversary", "mallows"], "argument --adversary: adversary 'mallows' does not produce 'single'"),
    (["--eta", "-1"], "argument --eta: must be 'paper', 'optimal', 'stated' or a positive number, got '-1'"),
    (
        ["--eta", "inf"],
        "argument --eta: must be 'paper', 'optimal', 'stated' or a positive number, got 'inf'",
    ),
    # a rate whose scores or bound overflow a float (was: a traceback; "bound inf", "ratio 0.0000")
    (["--eta", "1e308"], "argument --eta: 1e+308 is too large for n=10, T=10 (M=9)"),
    (["--eta", "1e-320"], "argument --eta: 1e-320 is too small for n=10"),
    # a run that cannot end in a day (was: accepted and silent with --quiet)
    (
        ["--T", "9007199254740992", "--quiet"],
        "argument --T: --T 9007199254740992 with --n 10 and --reps 16 would take at least ",
    ),
    # an option given twice (was: the last one silently kept)
    (["--n=30"], "argument --n: given twice (--n 10 and --n 30); give it once"),
    (["--seed", "1", "--seed", "2"], "argument --seed: given twice (--seed 1 and --seed 2)"),
    (["--eta", "paper", "--eta=0.5"], "argument --eta: given twice (--eta paper and --eta 0.5)"),
    # --trace: the log is the adversary; validated before any work
    (["--trace", "missing.txt"], "argument --trace: trace file 'missing.txt' not found"),
    (["--trace", str(SAMPLE_TRACE), "--adversary", "greedy"], "argument --trace: the log is the adversary"),
    (["--trace", str(SAMPLE_TRACE), "--T", "41"], "argument --T: 41 is more than the 40 rounds of the log"),
    (["--trace", str(SAMPLE_TRACE), "--n", "4"], "line 7: item id 4 out of range 0..3"),
]


@pytest.mark.parametrize("extra, needle", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_arguments_exit_2_one_line_naming_the_argument(tmp_path, extra, needle):
    args = {"--n": "10", "--T": "10"}
    rest = []
    it = iter(extra)
    for a in it:
        if a in args:
            args[a] = next(it)
        else:
            rest.append(a)
    argv = ["simulate", *[x for kv in args.items() for x in kv], *rest]
    before = set(os.listdir(tmp_path))
    p = run(*argv, cwd=tmp_path)
    assert p.returncode == 2, p.stdout + p.stderr
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], p.stderr
    assert lines[0].startswith("onlinerank simulate: error: argument --"), lines[0]
    assert set(os.listdir(tmp_path)) == before


def test_bounds_command_checks_k_the_same_way():
    p = run("bounds", "--n", "10", "--T", "5", "--k", "3")
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert "argument --k: only used with --family kchoice" in p.stderr


@pytest.mark.parametrize("n", ["100000000", "10000000000"])
def test_a_run_that_cannot_fit_in_memory_is_refused_up_front_with_the_estimate(n):
    """`--n 100000000 --T 10` was killed by the OOM killer after 43 s; `--n 10000000000` ended in
    a traceback (numpy's _ArrayMemoryError)."""
    t0 = time.perf_counter()
    p = run("simulate", "--n", n, "--T", "10")
    assert time.perf_counter() - t0 < 20  # refused before any array is allocated
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("onlinerank simulate: error: argument --n/--reps: ")
    need = cli.estimate_memory(int(n), 16)
    assert cli._size(need) in lines[0] and "available" in lines[0]
    assert need > cli.available_memory()


def test_quadratic_adversary_refusal_names_n_only():
    p = run("simulate", "--n", "100000", "--T", "10", "--reps", "1", "--adversary", "greedy")
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert "argument --n: " in p.stderr and "for the greedy adversary's own arrays" in p.stderr


def test_a_run_that_fits_is_not_refused(monkeypatch, capsys):
    # two million items x 16 replicates: about 3 GB estimated; refused only when less is available
    need = cli.estimate_memory(2_000_000, 16)
    assert 2 * GiB < need < 4 * GiB
    monkeypatch.setattr(cli, "available_memory", lambda: need - 1)
    with pytest.raises(SystemExit) as e:
        main(["simulate", "--n", "2000000", "--T", "1", "--reps", "16", "--quiet"])
    assert e.value.code == 2
    assert "lower --n or --reps" in capsys.readouterr().err
    monkeypatch.setattr(cli, "available_memory", lambda: need)
    assert main(["simulate", "--n", "200", "--T", "1", "--reps", "16", "--quiet"]) == 0


def test_available_memory_is_positive_and_at_most_physical():
    phys = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert 0 < cli.available_memory() <= phys


def _peak_growth(argv: list[str]) -> int:
    """Peak RSS growth (bytes) of ``main(argv)`` in this process once its kernels are compiled,
    loaded and their threads started: run it once, reset the peak (``/proc/self/clear_refs``,
    Linux), run it again.  (The fixed part of the estimate, which covers compilation, is checked
    on its own below.)"""
    import gc
    import io
    from contextlib import redirect_stdout

    def status(key: str) -> int:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key + ":"))

    with redirect_stdout(io.StringIO()):
        main(argv)
        gc.collect()
        start = status("VmRSS")
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # VmHWM := VmRSS
        main(argv)
    return status("VmHWM") - start


def _adversary_family():
    from onlinerank.adversaries import ADVERSARIES

    for name, cls in sorted(ADVERSARIES.items()):
        fams = [f for f in cli.FAMILY_K if f in cls.families]
        if fams and name != "trace":  # trace replays a log file, which the command line cannot give
            yield name, ("single" if "single" in fams else fams[0])


@pytest.mark.slow
def test_memory_estimate_covers_the_measured_peak_of_every_adversary():
    """The estimate is an upper bound for each registered adversary: at n = 2048 (where an (n, n)
    temporary would dominate) and at a large n (where the (reps, n) state dominates).  A new
    adversary with quadratic memory fails here until its memory_bytes declares it."""
    from onlinerank.adversaries import ADVERSARIES

    runs = []
    for adv, fam in _adversary_family():
        runs.append((adv, fam, 2048, 2))
        # an adversary declaring its own (n, n) memory is measured where that memory dominates
        if not ADVERSARIES[adv].implements("memory_bytes") and fam != "spearman":  # spearman: O(n^2)
            runs.append((adv, fam, 300000, 8))
    runs.append(("switching", "subset", 300000, 8))  # the largest (reps, n) footprint measured
    for adv, fam, n, reps in runs:
        argv = ["simulate", "--n", str(n), "--T", "2", "--reps", str(reps), "--quiet"]
        grew = _peak_growth([*argv, "--family", fam, "--adversary", adv])
        # the variable part of the estimate, plus 32 MB for allocator slack and shared-library
        # pages first touched here (the fixed part's headroom, checked below, covers them)
        budget = cli.estimate_memory(n, reps, adv) - cli.FIXED_BYTES + 32 * 2**20
        assert grew <= budget, (adv, fam, n, reps, grew, budget)


@pytest.mark.slow
def test_fixed_part_of_the_estimate_covers_a_first_run_that_compiles_the_kernels(tmp_path):
    """A run right after installation (empty numba cache: every kernel it uses compiles)."""
    # VmHWM, not ru_maxrss: Linux carries the peak of the process that forked and exec'ed this
    # one (here pytest, hundreds of MB) into ru_maxrss
    code = (
        "import sys; from onlinerank.cli import main; "
        "main(['simulate', '--n', '5', '--T', '3', '--quiet']); "
        "hwm = [x for x in open('/proc/self/status') if x.startswith('VmHWM:')][0]; "
        "print(int(hwm.split()[1]) * 1024, file=sys.stderr)"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert any((tmp_path / "numba-cache").rglob("*.nbc"))  # it did compile
    peak = int(p.stderr.strip().splitlines()[-1])
    # 128 MB to spare: shared-library pages count in the peak as far as the page cache holds them
    assert peak < cli.FIXED_BYTES - 128 * 2**20, peak


# a run of about a second; the bar is shown from the start (no 2 s delay), so a terminal shows it
LONG = ["simulate", "--n", "3000", "--T", "2500", "--reps", "16"]
NO_DELAY = {**os.environ, cli.PROGRESS_DELAY_ENV: "0"}


def test_progress_is_not_written_to_a_redirected_stderr():
    """`onlinerank simulate ... 2> log` wrote 100 carriage-return updates into the log."""
    p = subprocess.run(
        [sys.executable, "-m", "onlinerank.cli", *LONG],
        capture_output=True,
        text=True,
        env=NO_DELAY,
        timeout=120,
    )
    assert p.returncode == 0 and "ratio regret / bound" in p.stdout
    assert p.stderr == ""


def test_progress_on_a_terminal_redraws_one_line_with_an_eta():
    master, slave = pty.openpty()
    cmd = [sys.executable, "-m", "onlinerank.cli", *LONG]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, env=NO_DELAY)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert p.wait(timeout=120) == 0
    assert b"ratio regret / bound" in p.stdout.read()
    tty = b"".join(chunks).decode()
    updates = [u for u in tty.split("\r") if u.strip()]
    assert len(updates) >= 5, tty
    assert all("ETA" in u and "rounds" in u for u in updates), updates[:3]
    assert updates[-1].startswith("[" + "#" * 30 + "] 2500/2500 rounds 100%")
    assert tty.endswith("\n") and tty.count("\n") == 1  # one line, redrawn in place


class _FakeTTY:
    def __init__(self, tty=True):
        self.text, self.tty = "", tty

    def isatty(self):
        return self.tty

    def write(self, s):
        self.text += s

    def flush(self):
        pass


def test_progress_eta_is_the_remaining_time_at_the_current_rate():
    now = [0.0]
    bar = cli.Progress(_FakeTTY(), clock=lambda: now[0])
    now[0] = 1.0
    bar(10, 100)  # before the 2 s delay: nothing
    assert bar.stream.text == ""
    now[0] = 30.0
    bar(25, 100)  # a quarter in 30 s: 90 s left
    assert bar.stream.text.endswith("25/100 rounds  25%  elapsed 00:30  ETA 01:30")
    now[0] = 4000.0
    bar(50, 100)
    assert bar.stream.text.endswith("ETA 1:06:40")
    off = cli.Progress(_FakeTTY(tty=False), clock=lambda: now[0])
    now[0] = 9000.0
    off(50, 100)
    off(100, 100)
    assert off.stream.text == ""


def test_help_lists_examples():
    p = run("simulate", "--help")
    assert p.returncode == 0 and "--sampler" in p.stdout and "examples" in p.stdout


def test_the_time_estimate_is_the_stated_lower_bound_and_a_day_is_the_limit(capsys):
    """T x reps x (a + b n) with the constants set below the engine's measured speed: refused just
    above one day of estimate, started just below (here with --T 1: the check runs first)."""
    a, b = cli.SECONDS_PER_REP_ROUND, cli.SECONDS_PER_REP_ITEM_ROUND
    assert cli.estimate_seconds(10, 2**53, 16) == pytest.approx(2**53 * 16 * (a + 10 * b))
    assert cli.TIME_LIMIT_SECONDS == 86400
    day_T = int(86400 / (16 * (a + 10 * b)))  # the T of one day's estimate at n = 10, 16 replicates
    with pytest.raises(SystemExit) as e:
        main(["simulate", "--n", "10", "--T", str(day_T + 10**6), "--quiet"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "would take at least 1 day" in err and "limit of 1 day;" in err
    assert cli._duration(59) == "59 s" and cli._duration(3 * 3600) == "3 hours"


def _trace_rows(path: Path, n: int) -> np.ndarray:
    """The sample log's feedback vectors, read here independently of the package's reader."""
    ids = [int(line) for line in path.read_text().splitlines() if not line.lstrip().startswith("#")]
    return np.eye(n)[ids]


def _plackett_luce_regret(seq: np.ndarray, eta: float) -> float:
    """OnlineRank's exact expected regret by enumerating the Plackett-Luce law of every round
    (theory §2.3), minus the best fixed ranking's loss found by enumeration (theory §1)."""
    T, n = seq.shape
    orders = [list(o) for o in itertools.permutations(range(n))]

    def loss(order, s):  # pairwise loss: sum over u placed before v of [s(v) - s(u)]_+
        return sum(max(s[order[j]] - s[order[i]], 0.0) for i in range(n) for j in range(i + 1, n))

    S = np.zeros(n)
    alg = 0.0
    for s in seq:
        a = eta * S
        for o in orders:
            w = np.exp(a[o] - a.max())
            p = np.prod(w / np.cumsum(w[::-1])[::-1])
            alg += p * loss(o, s)
        S += s
    return alg - min(sum(loss(o, s) for s in seq) for o in orders)


def test_trace_replay_gives_the_exact_regret_of_the_sequence(capsys):
    """`onlinerank simulate --trace examples/trace-single-n5.txt --n 5` replays the sample log: its
    exact expected regret is the pipeline's trace adversary's and an independent enumeration's."""
    from onlinerank import Game, OnlineRank, bounds, simulate
    from onlinerank.adversaries.trace import TraceAdversary

    assert main(["simulate", "--trace", str(SAMPLE_TRACE), "--n", "5", "--reps", "3", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "vs trace " in out and "T=40" in out
    printed = float(out.split("mean exact expected regret")[1].split()[0])
    assert out.split("mean exact expected regret")[1].split()[2] == "0"  # s.e.: the log is fixed
    game = Game(n=5, T=40)
    pipeline = simulate(
        OnlineRank(eta="paper"), TraceAdversary(path=SAMPLE_TRACE), game, 3, seed=0, K=20, sample=True
    )
    assert np.all(pipeline.regret[:, -1] == pipeline.regret[0, -1])
    assert printed == pytest.approx(float(pipeline.regret[0, -1]), rel=1e-5)  # printed to 6 digits
    eta = float(bounds.eta_paper(5, 40, 4))
    assert eta == pytest.approx(5 * math.sqrt(math.log(2) / (40 * 4)), rel=1e-15)
    exact = _plackett_luce_regret(_trace_rows(SAMPLE_TRACE, 5), eta)
    assert float(pipeline.regret[0, -1]) == pytest.approx(exact, abs=1e-9)
    assert printed == pytest.approx(exact, rel=1e-5)


def _ftl_regret(seq: np.ndarray) -> float:
    """Follow-the-Leader's regret on a fixed sequence, by hand: each round the items sorted by
    cumulative score (ties to the lower id) lose the pairwise loss of theory §1; the best fixed
    ranking is found by enumeration."""
    T, n = seq.shape
    orders = [list(o) for o in itertools.permutations(range(n))]

    def loss(order, s):
        return sum(max(s[order[j]] - s[order[i]], 0.0) for i in range(n) for j in range(i + 1, n))

    S = np.zeros(n)
    alg = 0.0
    for s in seq:
        alg += loss(sorted(range(n), key=lambda u: (-S[u], u)), s)
        S += s
    return alg - min(sum(loss(o, s) for s in seq) for o in orders)


def test_another_learner_plays_from_the_command_line(capsys):
    """``--learner ftl`` replays the sample log: its exact regret is the hand computation's, and
    the bound line says that FTL states none."""
    argv = [
        "simulate",
        "--learner",
        "ftl",
        "--trace",
        str(SAMPLE_TRACE),
        "--n",
        "5",
        "--reps",
        "2",
        "--quiet",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("ftl vs trace ") and "eta=" not in out.splitlines()[0]
    printed = float(out.split("mean exact expected regret")[1].split()[0])
    assert printed == pytest.approx(_ftl_regret(_trace_rows(SAMPLE_TRACE, 5)), rel=1e-5)
    report = out.split("\n", 1)[1]  # the lines after the header (which names the trace's path)
    assert "regret bound                none stated by ftl" in report and "ratio" not in report
    assert main(["simulate", "--learner", "hedge", "--n", "4", "--T", "50", "--reps", "2", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "(hedge's own, theory §3.3)" in out and "ratio regret / bound" in out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--learner", "ftl", "--eta", "0.1"], "argument --eta: only used with --learner onlinerank"),
        (
            ["--learner", "ftl", "--sampler", "quicksort"],
            "argument --sampler: only used with --learner onlinerank",
        ),
        (["--learner", "hedge", "--n", "12"], "argument --learner: hedge enumerates n! rankings"),
        (["--learner", "oracle"], "argument --learner: invalid choice: 'oracle'"),
    ],
)
def test_a_learner_that_cannot_run_is_one_error(capsys, argv, words):
    base = {"--n": "6", "--T": "5"}
    for i in range(0, len(argv), 2):
        base.pop(argv[i], None)
    with pytest.raises(SystemExit) as e:
        main(["simulate", *argv, *[x for kv in base.items() for x in kv], "--quiet"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1 and words in err, err


def test_a_plugin_learner_is_a_choice_of_the_command_line(monkeypatch, capsys):
    from onlinerank.learners import LEARNERS
    from onlinerank.learners.simple import FollowTheLeader

    class Mine(FollowTheLeader):
        name = "mine"

    monkeypatch.setitem(LEARNERS, "mine", Mine)
    assert main(["simulate", "--learner", "mine", "--n", "4", "--T", "20", "--reps", "2", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("mine vs uniform adversary: family=single n=4")


def test_an_empty_trace_is_one_error_naming_the_file(tmp_path, capsys):
    """A log without a round names the file (not ``--T``: the game's horizon would be 0)."""
    log = tmp_path / "clicks.txt"
    for text in ("", "# nothing logged yet\n"):
        log.write_text(text)
        with pytest.raises(SystemExit) as e:
            main(["simulate", "--trace", str(log), "--n", "5"])
        assert e.value.code == 2
        err = capsys.readouterr().err.strip()
        assert err == (
            f"onlinerank simulate: error: argument --trace: trace file {str(log)!r} holds no rounds "
            "(it is empty or has comment lines only)"
        )


def test_the_help_says_what_a_spearman_line_of_the_default_format_is(capsys, tmp_path):
    """The help says what a Spearman line is in each format (scores -sigma by default, the ranking
    best first with --trace-format items), and each reads as the help says."""
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "scores -sigma (a permutation of -1..-n) for spearman" in text
    assert "items (item ids; spearman: the ranking, best first)" in text
    ranking, scores = tmp_path / "ranking.txt", tmp_path / "scores.txt"
    ranking.write_text("2,0,1,3\n" * 6)
    scores.write_text("-2,-3,-1,-4\n" * 6)  # the same rounds as -sigma
    argv = ["simulate", "--family", "spearman", "--n", "4", "--reps", "2", "--quiet", "--no-sample"]
    assert main([*argv, "--trace", str(scores)]) == 0
    by_scores = capsys.readouterr().out.splitlines()[1]
    assert main([*argv, "--trace", str(ranking), "--trace-format", "items"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == by_scores  # the same exact regret
    with pytest.raises(SystemExit):
        main([*argv, "--trace", str(ranking)])
    assert "line 1: Spearman scores" in capsys.readouterr().err


def test_a_malformed_trace_line_is_one_error_with_its_line_number(tmp_path):
    log = tmp_path / "clicks.txt"
    log.write_text("# a log\n0\n1\n4, 2\n3\n")
    p = run("simulate", "--trace", str(log), "--n", "5", cwd=tmp_path)
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("onlinerank simulate: error: argument --trace: trace file ")
    assert "line 4: single choice needs exactly 1 item id per line, got 2" in lines[0]
    log.write_text("0\n\n1\n")
    p = run("simulate", "--trace", str(log), "--n", "5", cwd=tmp_path)
    assert p.returncode == 2 and "line 2: empty line" in p.stderr and p.stderr.count("\n") == 1


def test_a_learners_own_arrays_count_in_the_memory_estimate(monkeypatch, capsys):
    """PermELearn holds (reps, n, n) matrices: ``--learner permelearn`` adds what it declares, and
    a run that would not fit is one line naming the learner's part, before any work."""
    from onlinerank.learners import LEARNERS

    n, reps = 3000, 4
    extra = cli.estimate_memory(n, reps, "uniform", "permelearn") - cli.estimate_memory(n, reps)
    assert extra == LEARNERS["permelearn"].memory_bytes(n, reps) == 4 * 8 * reps * n * n
    assert cli.estimate_memory(n, reps, "uniform", "ftl") == cli.estimate_memory(n, reps)
    monkeypatch.setattr(cli, "available_memory", lambda: cli.estimate_memory(n, reps) + extra - 1)
    with pytest.raises(SystemExit) as e:
        main(["simulate", "--learner", "permelearn", "--n", str(n), "--T", "1", "--reps", str(reps)])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1, err
    assert "argument --n/--reps:" in err and "for the permelearn learner's own arrays" in err, err
