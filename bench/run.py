"""Benchmark of the OnlineRank hot paths against floors measured in the same run.

Run from the repository root::

    .venv/bin/python -m bench            # full table (about two minutes, plus T = 10^6 runs)
    .venv/bin/python -m bench --quick    # fewer repeats, no T = 10^6 runs

Floor: one ``np.argsort`` of n float64 per replicate-round, i.e. ``np.argsort(X, axis=1)`` on an
(R, n) array.  Every measured call is timed right after a call of the floor (floor, A, floor, B,
..., repeated), so that each ratio compares two calls made under the same load from other
processes; the table reports the median time per round, the median of these paired ratios, and,
as a check on noise, the ratio of the minima.  The dense expected loss has its own O(n^2) floor
(one ``np.multiply`` of two n x n arrays per replicate).

Scale-out section (after the start-up timings; ``--no-scale`` skips it, about 20 s): peak RSS of
one simulate block at n = 10000 in fresh subprocesses for two horizons T and two block sizes R
(memory must grow with R n + R K, never with T), and the cost of one small cell run end to end
through ``python -m snakemake`` (one-cell config) against its simulation time.

Engine section: ``simulate(OnlineRank(sampler="plackett-luce", eta="paper"), make_adversary("uniform"),
Game(n, T), reps=32)`` per round, with ``sample=False`` against one ``np.exp`` of an (R, n) float64
array and with ``sample=True`` against one ``np.argsort(X, axis=1)`` of it, at n = 100 and 1000; each
simulate call is paired with a batch of floor calls timed right before it.  The full run also times
T = 10^6 at n = 100 once (absolute seconds).

Targets (issues): at n = 10000, Plackett–Luce <= 1.0x (LogWeights.sample) and <= 0.75x through the
public ``plackett_luce(logw, rng, size=R)``, QuickSort <= 3.0x and <= 2.5x (public ``quicksort``),
exact single-choice expected loss (with its add_items update) >= 1e9 item-rounds/s; at n = 1000 the
dense expected loss >= 1e9 ordered pairs/s; simulate per round <= 1.0x np.exp (sample=False) and
<= 1.5x np.argsort (sample=True).  The script always exits 0; it is a report, not a test.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

from onlinerank import Game, OnlineRank
from onlinerank.adversaries.uniform import UniformAdversary
from onlinerank.logweights import LogWeights
from onlinerank.samplers import plackett_luce, plackett_luce_rows, quicksort, quicksort_rows
from onlinerank.simulate import simulate

R = 64


def _interleaved(fns: dict[str, Callable[[], object]], repeats: int) -> dict[str, np.ndarray]:
    """Times of each function (key "floor" must be present), plus paired ratios.

    Each repeat times, for every other key, the floor immediately followed by that function, so
    each ratio compares two calls made under the same machine load.  Returns the times of every
    key (the floor's from all its calls) and ``ratio:<key>`` arrays of the paired ratios.
    """
    for f in fns.values():  # warm-up (compile / load numba caches, fault in buffers)
        f()
    floor = fns["floor"]
    ts: dict[str, list[float]] = {k: [] for k in fns}
    ratios: dict[str, list[float]] = {k: [] for k in fns if k != "floor"}
    for _ in range(repeats):
        for k, f in fns.items():
            if k == "floor":
                continue
            t0 = time.perf_counter()
            floor()
            t1 = time.perf_counter()
            f()
            t2 = time.perf_counter()
            ts["floor"].append(t1 - t0)
            ts[k].append(t2 - t1)
            ratios[k].append((t2 - t1) / (t1 - t0))
    out = {k: np.array(v) for k, v in ts.items()}
    out.update({f"ratio:{k}": np.array(v) for k, v in ratios.items()})
    return out


def _fmt_t(t: float) -> str:
    if t < 1e-3:
        return f"{t * 1e6:8.1f} us"
    return f"{t * 1e3:8.2f} ms"


class _Seeds:
    """Fresh per-round seeds (uint64) for R replicates."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def __call__(self) -> np.ndarray:
        return self.rng.integers(0, 2**64, size=R, dtype=np.uint64)


def _state(n: int, rng: np.random.Generator) -> LogWeights:
    """A LogWeights in a realistic mid-run state: single-choice rounds at the paper's eta."""
    T = 4 * n
    eta = n * np.sqrt(np.log(2) / (T * (n - 1)))  # eta_paper with M = n - 1
    lw = LogWeights(eta, R, n)
    p = rng.dirichlet(np.ones(n))  # a stochastic adversary with unequal item frequencies
    for items in rng.choice(n, size=(T // 4, R, 1), p=p):
        lw.add_items(items)
    return lw


def _sampler_calls(
    lw: LogWeights, seeds: _Seeds, X: np.ndarray, a: np.ndarray, a0: np.ndarray
) -> dict[str, Callable[[], object]]:
    """The floor and the sampler calls timed against it at one size."""
    return {
        "floor": lambda: np.argsort(X, axis=1),
        "pl": lambda: lw.sample("plackett-luce", seeds()),
        "qs": lambda: lw.sample("quicksort", seeds()),
        "pl_rows": lambda: plackett_luce_rows(a, seeds()),
        "qs_rows": lambda: quicksort_rows(a, seeds()),
        "pl_pub": lambda: plackett_luce(a0, seeds.rng, size=R),
        "qs_pub": lambda: quicksort(a0, seeds.rng, size=R),
    }


def _round_calls(lw, items_stream: np.ndarray, seeds) -> dict:
    """One round's work for the timings: the exact 1-choice expected loss and update (``loss``),
    and with a Plackett-Luce sample between them (``round``); each call takes the next items."""
    it = iter(range(10**9))

    def loss_round():
        items = items_stream[next(it) % items_stream.shape[0]]
        lw.expected_loss_items(items)
        lw.add_items(items)

    def sim_round():
        items = items_stream[next(it) % items_stream.shape[0]]
        lw.expected_loss_items(items)
        lw.sample("plackett-luce", seeds())
        lw.add_items(items)

    return {"loss": loss_round, "round": sim_round}


#: the sampler rows of :func:`bench_sizes`: key, what, target ratio to the floor at n = 10000
SAMPLER_ROWS = [
    ("pl", "Plackett-Luce, LogWeights.sample", 1.0),
    ("qs", "QuickSort, LogWeights.sample", 3.0),
    ("pl_rows", "plackett_luce_rows(a, seeds)", None),
    ("qs_rows", "quicksort_rows(a, seeds)", None),
    ("pl_pub", "plackett_luce(logw, rng, size=R)", 0.75),
    ("qs_pub", "quicksort(logw, rng, size=R)", 2.5),
    ("round", "round: E[loss] + sample PL + add_items", None),
]


def _size_rows(n: int, med: dict, mn: dict) -> list[tuple]:
    """The report rows of one n: the floor, each sampler and round against it, the loss rate;
    targets apply at n = 10000."""
    big = n == 10000
    rows: list[tuple] = [(n, "floor: R x np.argsort(n float64)", med["floor"], 1.0, 1.0, None, None)]
    for key, what, target in SAMPLER_ROWS:
        tgt = target if big else None
        ok = None if tgt is None else med[f"ratio:{key}"] <= tgt
        rows.append(
            (
                n,
                what,
                med[key],
                med[f"ratio:{key}"],
                mn[key] / mn["floor"],
                f"<= {target:g}x" if tgt else "-",
                ok,
            )
        )
    rate = R * n / med["loss"]
    rows.append(
        (
            n,
            "exact 1-choice E[loss] + add_items",
            med["loss"],
            med["ratio:loss"],
            mn["loss"] / mn["floor"],
            (">= 1e9 item-rounds/s" if big else "-") + f"  [{rate:.2e}/s]",
            None if not big else rate >= 1e9,
        )
    )
    return rows


def bench_sizes(sizes: list[int], repeats: int, rng: np.random.Generator) -> list[tuple]:
    """The samplers and a round of OnlineRank at each n, timed interleaved with the floor (one
    np.argsort of R rows of n float64 keys); one report row each."""
    rows: list[tuple] = []
    for n in sizes:
        lw = _state(n, rng)
        seeds = _Seeds(rng)
        X = rng.random((R, n))
        a = lw.a
        a0 = a[0].copy()  # one vector for R orders: the public samplers
        items_stream = rng.integers(0, n, size=(repeats + 2, R, 1))
        fns = {**_sampler_calls(lw, seeds, X, a, a0), **_round_calls(lw, items_stream, seeds)}
        ts = _interleaved(fns, repeats)
        med = {k: float(np.median(v)) for k, v in ts.items()}
        mn = {k: float(np.min(v)) for k, v in ts.items()}
        rows += _size_rows(n, med, mn)
    return rows


ENGINE_REPS = 32  # replicates of the engine rows


def _sim_seconds(n: int, T: int, sample: bool) -> float:
    t0 = time.perf_counter()
    simulate(
        OnlineRank(sampler="plackett-luce", eta="paper"),
        UniformAdversary(),
        Game(n=n, T=T),
        reps=ENGINE_REPS,
        K=20,
        sample=sample,
    )
    return time.perf_counter() - t0


def _floor_seconds(f: Callable[[], object], budget: float) -> float:
    """Mean seconds per call of ``f`` over about ``budget`` seconds (at least 20 calls)."""
    t0 = time.perf_counter()
    f()
    one = max(time.perf_counter() - t0, 1e-7)
    m = int(max(20, budget / one))
    t0 = time.perf_counter()
    for _ in range(m):
        f()
    return (time.perf_counter() - t0) / m


def bench_simulate(
    sizes: list[int], repeats: int, rng: np.random.Generator, horizon: int | None = None
) -> list[tuple]:
    """simulate per round against its floor, each run paired with floor calls right before it
    (``horizon``: the rounds of a timed run; default 50000 at n <= 100, else 5000)."""
    rows: list[tuple] = []
    for n in sizes:
        T = horizon or (50_000 if n <= 100 else 5_000)
        X = rng.random((ENGINE_REPS, n))
        floors = {
            False: ("np.exp((R, n))", lambda X=X: np.exp(X), 1.0),
            True: ("np.argsort((R, n), axis=1)", lambda X=X: np.argsort(X, axis=1), 1.5),
        }
        for sample in (False, True):
            fname, floor, target = floors[sample]
            _sim_seconds(n, 50, sample)  # numba caches, first allocations
            per_round, fl, ratios = [], [], []
            for _ in range(repeats):
                f = _floor_seconds(floor, 0.1)
                t = _sim_seconds(n, T, sample) / T
                per_round.append(t)
                fl.append(f)
                ratios.append(t / f)
            med = float(np.median(per_round))
            ratio = float(np.median(ratios))
            rmin = min(per_round) / min(fl)
            rows.append((n, f"floor: {fname}, R = {ENGINE_REPS}", float(np.median(fl)), 1.0, 1.0, "-", None))
            rows.append(
                (
                    n,
                    f"simulate PL/uniform, sample={sample} (T={T})",
                    med,
                    ratio,
                    rmin,
                    f"<= {target:g}x {fname.split('(')[0]}  [{ENGINE_REPS * n / med:.2e} item-rounds/s]",
                    ratio <= target,
                )
            )
    return rows


def absolute_million() -> None:
    """The issue's absolute goal: T = 10^6 rounds at n = 100, R = 32, in a few seconds."""
    for sample in (False, True):
        _sim_seconds(100, 50, sample)
        print(
            f"simulate OnlineRank PL vs uniform single choice, n = 100, R = {ENGINE_REPS}, T = 10^6, "
            f"sample={sample}: {_sim_seconds(100, 10**6, sample):.1f} s"
        )


def bench_dense(n: int, repeats: int, rng: np.random.Generator) -> list[tuple]:
    lw = LogWeights(0.01, R, n)
    for _ in range(5):  # Spearman feedback s = -sigma
        lw.add_dense(-(np.argsort(rng.random((R, n)), axis=1) + 1.0))
    s = -(np.argsort(rng.random((R, n)), axis=1) + 1.0)
    A = rng.random((n, n))
    B = rng.random((n, n))
    C = np.empty((n, n))

    def floor():
        for _ in range(R):
            np.multiply(A, B, out=C)

    ts = _interleaved({"floor": floor, "dense": lambda: lw.expected_loss_dense(s)}, repeats)
    med = {k: float(np.median(v)) for k, v in ts.items()}
    mn = {k: float(np.min(v)) for k, v in ts.items()}
    pairs = R * n * n
    return [
        (
            n,
            "O(n^2) floor: R x np.multiply(n x n)",
            med["floor"],
            1.0,
            1.0,
            f"-  [{pairs / med['floor']:.2e}/s]",
            None,
        ),
        (
            n,
            "exact dense E[loss] (Spearman s)",
            med["dense"],
            med["ratio:dense"],
            mn["dense"] / mn["floor"],
            f">= 1e9 pairs/s  [{pairs / med['dense']:.2e}/s]",
            pairs / med["dense"] >= 1e9,
        ),
    ]


def bench_permelearn(n: int) -> list[tuple]:
    """Speed target: OnlineRank (Plackett–Luce) per round vs PermELearn at n, one
    replicate each, measured back to back.  A whole Birkhoff draw takes minutes at n = 1000, so
    PermELearn's round is timed as its update plus the first step of the draw (one assignment
    problem, work every draw performs): the ratio is a lower bound on the true one."""
    from onlinerank.timing import per_round_seconds

    pl = per_round_seconds(
        {"name": "onlinerank", "sampler": "plackett-luce"}, n, rounds=300, repeats=3, sample=True
    )
    pe = per_round_seconds({"name": "permelearn"}, n, rounds=5, repeats=3, sample="first-step")
    t_pl = pl["update"] + pl["sample"]
    t_pe = pe["update"] + pe["sample"]
    return [
        (n, "OnlineRank PL round (R=1)", t_pl, 1.0, 1.0, "-", None),
        (
            n,
            "PermELearn update only (R=1)",
            pe["update"],
            pe["update"] / t_pl,
            pe["update"] / t_pl,
            "-",
            None,
        ),
        (
            n,
            "PermELearn update + 1st Birkhoff step (R=1)",
            t_pe,
            t_pe / t_pl,
            t_pe / t_pl,
            ">= 100x OnlineRank (lower bound)",
            t_pe / t_pl >= 100,
        ),
    ]


def _py(code: str, env: dict | None = None) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    return time.perf_counter() - t0


_FIRST_CALL = """
import time, numpy as np
t0 = time.perf_counter()
import onlinerank.logweights as L, onlinerank.samplers as S
t1 = time.perf_counter()
import sys
heavy = [m for m in ("numba", "scipy") if m in sys.modules]
lw = L.LogWeights(0.1, 4, 50); seeds = np.arange(4, dtype=np.uint64)
it = np.zeros((4, 1), dtype=np.int64)
out = {}
calls = [("add_items", lambda: lw.add_items(it)),
         ("expected_loss_items", lambda: lw.expected_loss_items(it)),
         ("sample PL", lambda: lw.sample("plackett-luce", seeds)),
         ("sample QS", lambda: lw.sample("quicksort", seeds)),
         ("expected_loss_dense", lambda: lw.expected_loss_dense(np.ones((4, 50))))]
for name, f in calls[: int(sys.argv[1])]:
    t = time.perf_counter(); f(); out[name] = time.perf_counter() - t
print(" ".join(f"{k}={v:.3f}s" for k, v in out.items()), f"total={sum(out.values()):.2f}s",
      f"(after import: {', '.join(heavy) or 'no numba/scipy'})")
"""

_FIRST_SIM = """
import sys, time
t0 = time.perf_counter()
import onlinerank as o
t1 = time.perf_counter()
o.simulate(o.OnlineRank(), o.make_adversary("uniform"), o.Game(n=10, T=20), 2, K=20, sample=True)
t2 = time.perf_counter()
print(t1 - t0, t2 - t1, "scipy.linalg" in sys.modules)
"""

_WHO_IMPORTS = """
import sys
import onlinerank.samplers, onlinerank.logweights
print(" ".join(f"{m}={'yes' if m in sys.modules else 'no'}" for m in ("numba", "scipy")))
"""


def startup(runs: int = 5, first_calls: int = 5) -> None:
    """Start-up costs: the interpreter, ``import onlinerank``, a simulate job's first cell (each the
    median of ``runs`` fresh processes), what the light modules import, and the first calls of the
    first ``first_calls`` hot kernels into an empty numba cache (compiling) and then a warm one."""
    base = min(_py("pass") for _ in range(max(1, runs - 2)))
    times = [_py("import onlinerank") - base for _ in range(runs)]
    print(
        f"import onlinerank (minus bare interpreter {base:.3f}s): first {times[0]:.3f}s, "
        f"then median {np.median(times[1:] or times):.3f}s"
    )
    sims = []
    for _ in range(runs):
        p = subprocess.run([sys.executable, "-c", _FIRST_SIM], check=True, capture_output=True, text=True)
        imp, sim, linalg = p.stdout.split()
        sims.append((float(imp), float(sim)))
    imp, sim = np.median(np.array(sims), axis=0)
    print(
        f"engine share of a simulate job (fresh process, warm numba cache, median of {runs}): import "
        f"{imp:.2f} s + first simulate {sim:.2f} s (numba import + cache load); scipy.linalg "
        f"loaded: {linalg}"
    )
    print("modules loaded by import onlinerank.samplers, onlinerank.logweights:", end=" ", flush=True)
    subprocess.run([sys.executable, "-c", _WHO_IMPORTS], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=tmp)
        print("first calls, empty numba cache (compile):", end=" ", flush=True)
        subprocess.run([sys.executable, "-c", _FIRST_CALL, str(first_calls)], check=True, env=env)
        print("first calls, warm numba cache (load):    ", end=" ", flush=True)
        subprocess.run([sys.executable, "-c", _FIRST_CALL, str(first_calls)], check=True, env=env)


_MEM_CHILD = """
import json, resource, sys, time
from onlinerank.cells import Cell, run_block
from onlinerank.config import load_settings
def peak_kb():
    # VmHWM: this process image's own peak (ru_maxrss would carry the parent's RSS across
    # fork + exec on Linux)
    try:
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
n, R, T, K = map(int, sys.argv[1:5])
cfg = load_settings({"seed": 1, "checkpoints": K,
       "learners": {"pl": {"name": "onlinerank", "sampler": "plackett-luce", "eta": "paper"}},
       "adversaries": {"u": {"name": "uniform"}}})
def cell(n, T, R):
    return Cell("upper", "mem", "u", "pl", "single", n, 1, T, R, R, sample=True, split=(), closed_form=False)
run_block(cfg, cell(10, 2, 1), 0)  # imports done, numba caches loaded, no large array yet
base = peak_kb()
t0 = time.perf_counter()
run_block(cfg, cell(n, T, R), 0)
dt = time.perf_counter() - t0
peak = peak_kb()
print(json.dumps({"base_kb": base, "peak_kb": peak, "seconds": dt}))
"""


def memory_check(n: int = 10000) -> None:
    """Peak RSS of one simulate block (OnlineRank PL vs uniform single choices) in a fresh
    process per run, at the schema's default number of checkpoints K: it must grow with R n + R K
    and stay flat in T (simulate keeps O(R n + R K))."""
    import json

    from onlinerank.settings import schema_default

    K = schema_default("checkpoints")
    out = {}
    for R_, T in [(4, 1000), (4, 10000), (16, 1000)]:
        p = subprocess.run(
            [sys.executable, "-c", _MEM_CHILD, str(n), str(R_), str(T), str(K)],
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
        )
        out[(R_, T)] = json.loads(p.stdout.strip().splitlines()[-1])
    print(
        f"memory: peak RSS of one simulate block at n = {n}, K = {K} checkpoints (OnlineRank PL "
        f"vs uniform single choices; a fresh process each, baseline = after imports)"
    )
    for (R_, T), r in out.items():
        print(
            f"  R = {R_:3d}  T = {T:6d}: peak {r['peak_kb'] / 1024:7.1f} MB, baseline "
            f"{r['base_kb'] / 1024:7.1f} MB, simulation "
            f"{(r['peak_kb'] - r['base_kb']) / 1024:+6.1f} MB  ({r['seconds']:.1f} s)"
        )
    growth_T = (out[(4, 10000)]["peak_kb"] - out[(4, 1000)]["peak_kb"]) / 1024
    growth_R = (out[(16, 1000)]["peak_kb"] - out[(4, 1000)]["peak_kb"]) / 1024
    history = 9000 * 4 * n * 8 / 2**20  # one float64 n-vector per replicate and extra round
    limit = 0.01 * history
    print(
        f"  T x10 (1e3 -> 1e4, R = 4): {growth_T:+.1f} MB;  R x4 (4 -> 16, T = 1e3): "
        f"{growth_R:+.1f} MB = {growth_R / (12 * n * 8 / 2**20):.1f} x the {12 * n * 8 / 2**20:.1f} MB "
        f"by which one (R, n) float64 array grows"
    )
    print(
        f"  verdict: {'PASS' if growth_T <= limit else 'MISS'} -- flat in T: {growth_T:+.1f} MB "
        f"<= {limit:.0f} MB (1% of the {history:.0f} MB one n-vector per replicate and extra "
        f"round would take)"
    )


def _one_cell_config(root: str) -> dict:
    """The smoke tier's config with its upper stage cut to one small simulate job (n = 100,
    T = 1000, 8 replicates of OnlineRank PL vs the uniform adversary), results in results-bench."""
    import yaml

    with open(os.path.join(root, "config", "smoke.yaml")) as f:
        cfg = yaml.safe_load(f)
    cfg["results_dir"] = "results-bench"
    cfg["figures_dir"] = "results-bench/figures"
    cfg["upper"] = {
        "block_size": 8,
        "experiments": [
            {
                "name": "cell",
                "family": "single",
                "adversaries": ["uniform"],
                "learners": ["onlinerank-pl"],
                "n": [100],
                "T": [1000],
                "replicates": 8,
                "closed_form": False,  # simulated: the job this measures
            }
        ],
    }
    return cfg


def pipeline_cost() -> None:
    """One small cell through `python -m snakemake` (one-cell config, scratch working directory):
    end-to-end wall time against the simulation time the job itself records."""
    import yaml

    from onlinerank.cells import groups_of
    from onlinerank.config import load_settings
    from onlinerank.io import load_results

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cfg = _one_cell_config(root)
    ((group, cells),) = groups_of(load_settings(cfg), "upper").items()
    target = f"results-bench/sim/{group}/b0.npz"
    with tempfile.TemporaryDirectory() as tmp:
        conf = os.path.join(tmp, "one-cell.yaml")
        with open(conf, "w") as f:
            yaml.safe_dump(cfg, f)
        snakefile = os.path.join(root, "Snakefile")
        cmd = [sys.executable, "-m", "snakemake", target, "--snakefile", snakefile, "--directory", tmp]
        cmd += ["--configfile", conf, "--cores", "1", "--quiet", "all"]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=120, cwd=tmp)
        wall = time.perf_counter() - t0
        sim = sum(r.meta["seconds"] for r in load_results(os.path.join(tmp, target)).values())
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "snakemake", "--version"], check=True, capture_output=True, timeout=60
        )
        bare = time.perf_counter() - t0
    c = cells[0]
    print(
        f"pipeline cost of one cell ({c.family}, n = {c.n}, T = {c.T}, R = {c.replicates}, "
        f"{c.learner}) end to end through `python -m snakemake --cores 1`:"
    )
    print(
        f"  wall {wall:.2f} s = simulation {sim:.2f} s + overhead {wall - sim:.2f} s "
        f"(of which Snakemake's own start-up, `--version`: {bare:.2f} s; the rest is config "
        f"validation, the DAG, the job's Python/numba start-up and writing the block)"
    )
    print(
        f"  => locally a simulate job costs ~{wall - sim:.1f} s plus its simulation; through "
        f"SLURM add ~6-7 s per SLURM job and ~3 s per member of a group job "
        f"(tests/test_slurm.py)"
    )


def scale_out() -> None:
    print("-- scale-out checks --")
    memory_check()
    pipeline_cost()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--sizes", type=int, nargs="*", default=[100, 1000, 10000])
    ap.add_argument("--no-startup", action="store_true", help="skip import / compile timings")
    ap.add_argument(
        "--no-scale", action="store_true", help="skip the memory and per-cell pipeline-cost checks"
    )
    # --- exact worst-case DP: bench/worst_case.py ---
    ap.add_argument("--no-worst-case", action="store_true", help="skip the worst-case DP reach")
    ap.add_argument(
        "--worst-case-confirm", action="store_true", help="also run every predicted DP reach (~30 min)"
    )
    ap.add_argument(
        "--tiny",
        action="store_true",
        help="every section at toy sizes, one repeat (seconds: checks that it runs, measures nothing)",
    )
    args = ap.parse_args(argv)
    if args.tiny:
        return tiny(startup_=not args.no_startup, scale=not args.no_scale, worst_case=not args.no_worst_case)
    repeats = 7 if args.quick else 21
    rng = np.random.default_rng(20240611)
    print(
        f"R = {R} replicates; load average before: {os.getloadavg()[0]:.2f} "
        f"(the machine has {os.cpu_count()} cores; other processes distort timings)"
    )
    rows = bench_sizes(args.sizes, repeats, rng)
    rows += bench_simulate([100, 1000], 3 if args.quick else 5, rng)
    rows += bench_dense(1000, max(5, repeats // 2), rng)
    rows += bench_permelearn(1000)
    head = f"{'n':>6}  {'what':<46} {'median/round':>13} {'ratio':>7} {'(min)':>6}  {'target':<48} verdict"
    print(head)
    print("-" * len(head))
    for n, what, t, ratio, rmin, target, ok in rows:
        verdict = "" if ok is None else ("PASS" if ok else "MISS")
        print(
            f"{n:>6}  {what:<46} {_fmt_t(t):>13} {ratio:>6.2f}x {rmin:>5.2f}x  {target or '-':<48} {verdict}"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if not args.quick:
        absolute_million()
    if not args.no_startup:
        try:
            startup()
        except (OSError, subprocess.CalledProcessError) as e:  # a report, never a failure
            print(f"start-up timings failed: {e}")
    if not args.no_scale:
        try:
            scale_out()
        except (OSError, subprocess.SubprocessError, ValueError, KeyError) as e:
            print(f"scale-out checks failed: {e}")
    if not args.no_worst_case:  # --- exact worst-case DP ---
        from bench.worst_case import bench_worst_case

        bench_worst_case(args.worst_case_confirm)
    return 0


def tiny(startup_: bool = True, scale: bool = True, worst_case: bool = True) -> int:
    """Every section of the benchmark at toy sizes (``--tiny``): the tests run it to check that
    each entry point works; the numbers mean nothing.  ``--no-startup``, ``--no-scale`` and
    ``--no-worst-case`` skip their sections here too (the start-up section times one process of
    each kind and compiles one kernel into an empty cache)."""
    from bench.worst_case import bench_worst_case

    rng = np.random.default_rng(1)
    rows = bench_sizes([64], 2, rng)
    rows += bench_simulate([32], 1, rng, horizon=200)
    rows += bench_dense(32, 2, rng)
    rows += bench_permelearn(8)
    for n, what, t, ratio, _rmin, _target, _ok in rows:
        print(f"{n:>6}  {what:<46} {_fmt_t(t):>13} {ratio:>6.2f}x")
    if startup_:
        startup(runs=1, first_calls=1)  # one process each, one kernel compiled: ~9 -> ~3 s
    if worst_case:
        bench_worst_case(tiny=True)
    if scale:
        pipeline_cost()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
