"""Invalid configurations: the pipeline exits non-zero before any job runs, with a message naming
the key and the bad value, and writes nothing under results/ or figures/."""

import copy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.workflow
SMOKE = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())


def exp(cfg, stage="upper", i=0):
    return cfg[stage]["experiments"][i]


def _set(path, value):
    def f(cfg):
        node = cfg
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return f


CASES = {
    "unknown top-level key": (_set(["colour"], "blue"), ["colour"]),
    "seed wrong type": (_set(["seed"], "abc"), ["seed", "abc"]),
    "checkpoints too small": (_set(["checkpoints"], 1), ["checkpoints", "1"]),
    "n < 2": (lambda c: exp(c).update(n=[1]), ["'n'", "1"]),
    "T < 1": (lambda c: exp(c).update(T=[0]), ["'T'", "0"]),
    "empty T grid": (lambda c: exp(c).update(T=[]), ["'T'", "[]"]),
    "negative replicates": (lambda c: exp(c).update(replicates=-4), ["replicates", "-4"]),
    "k > n": (lambda c: exp(c, "upper", 1).update(n=[8], k=[9]), ["k must be <= n", "9"]),
    "k > n/2": (lambda c: exp(c, "upper", 1).update(n=[8], k=[5]), ["k <= n/2", "5"]),
    "eta <= 0": (lambda c: c["learners"]["onlinerank-pl"].update(eta=-1.0), ["learners.onlinerank-pl", "-1"]),
    "eta unknown word": (
        lambda c: c["learners"]["onlinerank-pl"].update(eta="fast"),
        ["learners.onlinerank-pl", "fast"],
    ),
    "unknown sampler": (
        lambda c: c["learners"]["onlinerank-qs"].update(sampler="bubble"),
        ["learners.onlinerank-qs", "bubble"],
    ),
    "unknown learner": (lambda c: c["learners"].update(x={"name": "oracle"}), ["learners.x.name", "oracle"]),
    "unknown adversary": (
        lambda c: c["adversaries"].update(y={"name": "nature"}),
        ["adversaries.y.name", "nature"],
    ),
    "undefined learner label": (
        lambda c: exp(c).update(learners=["onlinerank-pl", "nobody"]),
        ["learners", "nobody"],
    ),
    "undefined adversary label": (lambda c: exp(c).update(adversaries=["ghost"]), ["adversaries", "ghost"]),
    "hedge with n > 9": (lambda c: exp(c, "baselines").update(n=[10]), ["hedge", "10"]),
    "missing trace file": (
        lambda c: (
            c["adversaries"].update(tr={"name": "trace", "path": "no/such/log.csv"}),
            exp(c).update(adversaries=["tr"]),
        ),
        ["no/such/log.csv"],
    ),
    "unknown family": (lambda c: exp(c).update(family="clicks"), ["family", "clicks"]),
    "unknown experiment key": (lambda c: exp(c).update(repeats=3), ["repeats"]),
    "block_size 0": (_set(["upper", "block_size"], 0), ["block_size", "0"]),
    "adversary cannot play family": (lambda c: exp(c).update(adversaries=["mallows"]), ["mallows", "single"]),
    "duplicate experiment name": (lambda c: exp(c, "upper", 1).update(name="single"), ["name", "single"]),
    "no learners": (_set(["learners"], {}), ["learners", "{}"]),
    "lemma61 too few samples": (_set(["lemma61", "samples"], 10), ["samples", "10"]),
    "undefined runtime learner": (
        lambda c: c["runtime"]["learners"].append("turbo"),
        ["runtime.learners", "turbo"],
    ),
    "partial draw not supported": (
        lambda c: c["runtime"].update(max_partial_sample_n={"onlinerank-pl": 10}),
        ["runtime.max_partial_sample_n.onlinerank-pl", "sample_first_step"],
    ),
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    dst = tmp_path_factory.mktemp("cfg") / "repo"
    shutil.copytree(
        ROOT,
        dst,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "results", "results-*", ".snakemake", "__pycache__", ".pytest_cache"
        ),
    )
    return dst


def snapshot(repo):
    return sorted(
        str(p.relative_to(repo))
        for p in repo.rglob("*")
        if p.parts[len(repo.parts)] in ("results", "results-smoke", "figures")
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_invalid_config_fails_before_work(repo, case):
    mutate, needles = CASES[case]
    cfg = copy.deepcopy(SMOKE)
    mutate(cfg)
    path = repo / f"bad_{case.replace(' ', '_').replace('/', '_')}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    before = snapshot(repo)
    p = subprocess.run(
        [sys.executable, "-m", "snakemake", "--configfile", str(path), "--cores", "1"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = p.stdout + p.stderr
    assert p.returncode != 0, out[-2000:]
    for needle in needles:
        assert needle in out, f"{needle!r} not in: {out[-2500:]}"
    assert "rule simulate" not in out and "Execute" not in out, out[-2000:]
    assert snapshot(repo) == before
