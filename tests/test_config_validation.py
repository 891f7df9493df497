"""Invalid configurations: rejected before any job runs with one line naming the key and the bad
value (checked in-process for every case; through Snakemake for two, which must also write
nothing under results/ or figures/)."""

import copy
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT, copy_repo

from onlinerank.config import ConfigError, load_settings

SMOKE = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
SCHEMA = ROOT / "src" / "onlinerank" / "config.schema.yaml"


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
    "n < 2": (lambda c: exp(c).update(n=[1]), ["upper.experiments[0].n[0]", "1"]),
    "T < 1": (lambda c: exp(c).update(T=[0]), ["upper.experiments[0].T[0]", "0"]),
    "empty T grid": (lambda c: exp(c).update(T=[]), ["upper.experiments[0].T", "[]"]),
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
    "fewer than 5 timing repeats": (
        _set(["runtime", "repeats"], 4),
        ["runtime.repeats", "minimum of 5", "4"],
    ),
    "one timing process": (
        _set(["runtime", "processes"], 1),
        ["runtime.processes", "minimum of 2", "1"],
    ),
    "removed runtime threshold": (
        _set(["runtime", "onlinerank_max_exponent"], 1.5),
        ["runtime.onlinerank_max_exponent", "unknown key"],
    ),
    "unknown figure": (
        _set(["figure"], "regret_vs_t"),
        ["figure", "regret_vs_t", "did you mean 'regret_vs_T'?"],
    ),
    "figure of an absent section": (
        lambda c: (c.pop("runtime"), c.update(figure="runtime")),
        ["figure", "runtime", "reads runtime", "section absent"],
    ),
    "partial draw not supported": (
        lambda c: c["runtime"].update(max_partial_sample_n={"onlinerank-pl": 10}),
        ["runtime.max_partial_sample_n.onlinerank-pl", "sample_first_step"],
    ),
    # a grid whose every point its table skips: a table without rows (or a failing job) later
    "lower-bound curves without a cell": (
        lambda c: c["lowerbound"]["curves"].update(n=[3], k=[2]),
        ["lowerbound.curves", "no cells", "2k > n"],
    ),
    "h_c without a cell": (lambda c: c["lowerbound"]["hc"].update(n=[3], k=2), ["lowerbound.hc", "no cells"]),
    "frequencies with k = n": (
        lambda c: c["lowerbound"]["frequencies"].update(n=3, k=3),
        ["lowerbound.frequencies.k", "1..n-1", "3"],
    ),
    "abg with k > n": (lambda c: c["lowerbound"]["abg"].update(n=3, k=5), ["lowerbound.abg.k", "5"]),
    "comparison k-choice sweep without a cell": (
        _set(["bound_comparison", "k"], [2, 600]),
        ["bound_comparison.k", "no cells", "600"],
    ),
    "comparison sweep in k without a cell": (
        _set(["bound_comparison", "k_sweep"], {"n": 4, "k": [3, 4]}),
        ["bound_comparison.k_sweep", "no cells"],
    ),
}


@pytest.mark.parametrize(
    ("part", "key"), [("tightness", "worst_case.tightness"), ("comparison", "worst_case.comparison")]
)
def test_the_pipeline_refuses_a_worst_case_section_without_a_part(part, key):
    """The package's functions accept a section with one part; the pipeline, which makes all three
    tables of the section, refuses one without points (no figure of a table without rows)."""
    from onlinerank.config import check_pipeline_sections

    cfg = copy.deepcopy(SMOKE)
    cfg["worst_case"].pop(part)
    settings = load_settings(cfg)  # fills the part's empty default
    with pytest.raises(ConfigError) as err:
        check_pipeline_sections(settings)
    msg = str(err.value)
    assert (
        "\n" not in msg
        and msg.startswith(f"config error at {key}: no cells")
        and "leave out the section" in msg
    )
    check_pipeline_sections(load_settings(copy.deepcopy(SMOKE)))


def check(cfg):
    load_settings(cfg)


@pytest.mark.parametrize("case", sorted(CASES))
def test_invalid_config_is_rejected_in_one_line_naming_the_key(case):
    mutate, needles = CASES[case]
    cfg = copy.deepcopy(SMOKE)
    mutate(cfg)
    with pytest.raises(ConfigError) as err:
        check(cfg)
    msg = str(err.value)
    assert "\n" not in msg and len(msg) < 400, msg
    for needle in needles:
        assert needle in msg, f"{needle!r} not in: {msg}"


def test_every_tier_is_valid():
    for name in ("config.yaml", "smoke.yaml", "stress.yaml"):
        check(yaml.safe_load((ROOT / "config" / name).read_text()))


def test_the_run_option_figure_is_typed_and_left_out_of_the_config_digest():
    """`--config figure=NAME` (make figure) chooses which outputs a run makes, not what they hold:
    the typed settings carry it, the config digest (stamped on every figure) does not."""
    from onlinerank.provenance import config_digest

    plain, one = copy.deepcopy(SMOKE), copy.deepcopy(SMOKE)
    one["figure"] = "lower_hc"
    assert load_settings(one).figure == "lower_hc" and load_settings(plain).figure is None
    assert config_digest(one) == config_digest(plain)
    assert config_digest({**plain, "seed": plain["seed"] + 1}) != config_digest(plain)


def test_only_seed_learners_and_adversaries_are_required():
    cfg = {k: SMOKE[k] for k in ("seed", "learners", "adversaries")}
    check(cfg)
    assert cfg["claims"]["alpha"] == 0.05  # defaults filled in


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return copy_repo(tmp_path_factory.mktemp("cfg") / "repo")


def snapshot(repo):
    return sorted(
        str(p.relative_to(repo))
        for p in repo.rglob("*")
        if p.parts[len(repo.parts)] in ("results", "results-smoke", "figures")
    )


@pytest.mark.parametrize(
    ("case", "line"),
    [
        ("top-level typo", "onlinerank: config error at seeed: unknown key; did you mean 'seed'?"),
        ("k > n", "onlinerank: config error at upper.experiments[kchoice]: k must be <= n"),
    ],
)
def test_the_pipeline_stops_before_any_work_with_one_line(repo, case, line):
    """Through Snakemake: exit status 1, the error is the last line of the output (and the only
    one of the project), nothing written under results/ or figures/."""
    cfg = copy.deepcopy(SMOKE)
    if case == "top-level typo":
        cfg["seeed"] = cfg.pop("seed")
    else:
        exp(cfg, "upper", 1).update(n=[8], k=[9])
    path = repo / f"bad_{case.replace(' ', '_').replace('>', 'gt')}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    before = snapshot(repo)
    p = subprocess.run(
        [sys.executable, "-m", "snakemake", "--configfile", str(path), "--cores", "1"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = (p.stdout + p.stderr).strip().splitlines()
    assert p.returncode == 1, out
    assert out[-1].startswith(line), out
    assert len([x for x in out if x.startswith("onlinerank")]) == 1 and len(out) <= 3, out
    assert snapshot(repo) == before


#: a key given twice: at the top (a second block would replace the first), nested, in a flow mapping
DUPLICATES = {
    "top-level block": ("seed: 1\nupper:\n  block_size: 2\nseed: 2\n", "key 'seed'", 4, 1),
    "nested block": (
        "learners:\n  a:\n    name: ftl\n  b: {name: ftl}\n  a:\n    name: hedge\n",
        "key 'a'",
        5,
        2,
    ),
    "flow mapping": ("adversaries:\n  u: {name: uniform, name: greedy}\n", "key 'name'", 2, 2),
}


@pytest.mark.parametrize("case", sorted(DUPLICATES))
def test_a_key_given_twice_is_refused_with_the_file_and_both_lines(tmp_path, case):
    from onlinerank.config_file import read_config

    text, key, line, first = DUPLICATES[case]
    path = tmp_path / "dup.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        read_config(path)
    msg = str(err.value)
    assert "\n" not in msg and f"{path}, line {line}: {key} given twice" in msg, msg
    assert f"(first at line {first})" in msg, msg
    import yaml as plain

    assert isinstance(plain.safe_load(text), dict)  # what a plain YAML reader does: keeps the last


def test_a_yaml_merge_key_may_still_be_overridden(tmp_path):
    from onlinerank.config_file import read_config

    path = tmp_path / "merge.yaml"
    path.write_text("base: &b {name: onlinerank, eta: paper}\nlearners:\n  x: {<<: *b, eta: optimal}\n")
    assert read_config(path)["learners"]["x"] == {"name": "onlinerank", "eta": "optimal"}


def test_every_tier_reads_without_a_repeated_key():
    from onlinerank.config_file import read_config

    for path in sorted((ROOT / "config").glob("*.yaml")):
        assert read_config(path) == yaml.safe_load(path.read_text()), path


def test_the_pipeline_refuses_a_repeated_block_before_any_work(repo):
    """A second ``adversaries:`` block would replace the first (Snakemake's YAML reader keeps the
    last key): Snakemake stops before any work with one line naming the file and both lines."""
    text = (ROOT / "config" / "smoke.yaml").read_text() + "\nadversaries:\n  uniform: {name: uniform}\n"
    path = repo / "twice.yaml"
    path.write_text(text)
    first = 1 + text.splitlines().index("adversaries:")
    before = snapshot(repo)
    p = subprocess.run(
        [sys.executable, "-m", "snakemake", "--configfile", str(path), "--cores", "1"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = (p.stdout + p.stderr).strip().splitlines()
    assert p.returncode == 1, out
    second = len(text.splitlines()) - 1  # the last block's first line
    want = f"onlinerank: config error in {path}, line {second}: key 'adversaries' given twice"
    assert out[-1].startswith(want) and f"(first at line {first})" in out[-1], out
    assert snapshot(repo) == before


def test_a_config_of_ones_own_writes_its_figures_under_its_own_results_dir(tmp_path):
    """Only the default tier names the tracked figures/: a config without figures_dir (here one
    stage, as the README's "Running one part only" suggests) writes <results_dir>/figures; a
    figures_dir the config names is kept as it is."""
    from onlinerank.config import output_dirs

    res = str(tmp_path / "results-lb")
    own = {k: SMOKE[k] for k in ("seed", "learners", "adversaries", "lowerbound")} | {"results_dir": res}
    path = tmp_path / "lb.yaml"
    path.write_text(yaml.safe_dump(own))
    cfg = yaml.safe_load(path.read_text())
    check(cfg)  # the schema's defaults, as the Snakefile fills them in
    assert cfg["figures_dir"] == str(tmp_path / "results-lb" / "figures")
    assert output_dirs(path) == (res, str(tmp_path / "results-lb" / "figures"))
    bare = {k: SMOKE[k] for k in ("seed", "learners", "adversaries")}
    check(bare)
    assert (bare["results_dir"], bare["figures_dir"]) == ("results", "results/figures")
    named = dict(own, figures_dir="my-figures")
    check(named)
    assert named["figures_dir"] == "my-figures"
    assert output_dirs(ROOT / "config" / "config.yaml") == ("results", "figures")
    assert output_dirs(ROOT / "config" / "smoke.yaml") == ("results-smoke", "results-smoke/figures")
    schema = yaml.safe_load(SCHEMA.read_text())
    assert schema["properties"]["figures_dir"]["default"] == "{results_dir}/figures"


def test_snakemake_puts_the_figures_of_a_one_stage_config_under_its_results_dir(repo):
    """Through Snakemake (its summary of the outputs, nothing run): every output of a
    lowerbound-only config lies under its results directory, none in the repository's figures/."""
    cfg = {k: SMOKE[k] for k in ("seed", "learners", "adversaries", "lowerbound")}
    cfg["results_dir"] = "results-lb"
    (repo / "lb.yaml").write_text(yaml.safe_dump(cfg))
    before = snapshot(repo)
    p = subprocess.run(
        [sys.executable, "-m", "snakemake", "--configfile", "lb.yaml", "--summary"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    outputs = [line.split("\t")[0] for line in p.stdout.splitlines()[1:] if "\t" in line]
    assert "results-lb/figures/lower_hc.png" in outputs and "results-lb/figures/claims.md" in outputs
    assert all(o.startswith("results-lb/") for o in outputs), outputs
    assert snapshot(repo) == before
