"""onlinerank.settings: the config validated once and typed; every default from the schema."""

import copy
import dataclasses
import inspect
import re
from pathlib import Path

import pytest
import yaml

from onlinerank.config import ConfigError, load_settings
from onlinerank.settings import SCHEMA_PATH, Settings, as_settings, pipeline_settings

SRC = Path(__file__).resolve().parents[1] / "src" / "onlinerank"
MUTANTS = SRC.parents[1] / "workflow" / "mutants"
SCHEMA = yaml.safe_load(SCHEMA_PATH.read_text())


def bare():
    """A config that names no optional key: every default must come from the schema."""
    return {
        "seed": 3,
        "learners": {"pl": {"name": "onlinerank"}, "opt": {"name": "onlinerank", "eta": "optimal"}},
        "adversaries": {"u": {"name": "uniform"}},
        "upper": {
            "experiments": [
                {"name": "e", "family": "single", "adversaries": ["u"], "learners": ["pl", "opt"]}
                | {"n": [4], "T": [5], "replicates": 2}
            ]
        },
        "runtime": {"learners": ["pl"], "n": [4, 8]},
    }


def test_the_builder_fills_every_default_from_the_schema():
    cfg = bare()
    s = load_settings(cfg)
    stage_schema = SCHEMA["$defs"]["stage"]["properties"]
    runtime_schema = SCHEMA["properties"]["runtime"]["properties"]
    assert s.checkpoints == SCHEMA["properties"]["checkpoints"]["default"] == 12
    assert s.stages["upper"].block_size == stage_schema["block_size"]["default"] == 32
    assert s.stages["upper"].split == tuple(stage_schema["split"]["default"])
    assert s.runtime is not None and s.runtime.fit_min_n == runtime_schema["fit_min_n"]["default"] == 100
    assert s.runtime.repeats == runtime_schema["repeats"]["default"]
    ex = s.stages["upper"].experiments[0]
    assert (ex.k, ex.sample, ex.closed_form) == ((1,), True, True)  # the experiment's defaults
    assert s.claims.alpha == SCHEMA["properties"]["claims"]["properties"]["alpha"]["default"]
    assert (s.results_dir, s.figures_dir, s.strict) == ("results", "results/figures", False)
    # Snakemake's dict is filled in place by the same call
    assert (cfg["checkpoints"], cfg["upper"]["block_size"], cfg["runtime"]["fit_min_n"]) == (12, 32, 100)
    assert set(s.stages) == {"upper"} and s.worst_case is None and s.lowerbound is None


def test_the_settings_are_frozen():
    s = load_settings(bare())
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.checkpoints = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.stages["upper"].block_size = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        s.learners["x"] = s.learners["pl"]  # type: ignore[index]
    with pytest.raises(TypeError):
        s.config["seed"] = 4  # type: ignore[index]
    assert isinstance(s.stages["upper"].experiments[0].n, tuple)
    assert s.learner("opt") == {"name": "onlinerank", "eta": "optimal"}


@pytest.mark.parametrize(
    ("edit", "line"),
    [
        (lambda c: c["upper"].update(block_size=0), "config error at upper.block_size: 0 is less than"),
        (
            lambda c: c["runtime"].update(fit_min=300),
            "config error at runtime.fit_min: unknown key; did you mean 'fit_min_n'?",
        ),
        (lambda c: c["learners"]["pl"].update(eta="fast"), "config error at learners.pl: "),
        (
            lambda c: c["upper"]["experiments"][0].update(learners=["pl", "nobody"]),
            "config error at upper.experiments[0].learners: not defined under top-level 'learners'",
        ),
    ],
)
def test_an_error_names_the_key(edit, line):
    cfg = bare()
    edit(cfg)
    with pytest.raises(ConfigError) as err:
        load_settings(cfg)
    assert str(err.value).startswith(line) and "\n" not in str(err.value), str(err.value)


def test_a_dict_is_typed_once_and_an_unvalidated_one_filled_from_the_schema_on_a_copy():
    cfg = bare()
    cfg["seed"] = 31  # a config of its own: nothing cached yet
    s = as_settings(cfg)
    assert "checkpoints" not in cfg  # the caller's dict is not filled
    assert as_settings(copy.deepcopy(cfg)) is s and as_settings(s) is s
    with pytest.raises(ConfigError, match="config error at chekpoints: unknown key"):
        as_settings(dict(cfg, chekpoints=3))  # the schema's check, not a guess
    built = load_settings(cfg)  # what the Snakefile does: fills the defaults in place
    job = pipeline_settings(copy.deepcopy(cfg))  # a job's copy of the same config
    assert isinstance(job, Settings) and as_settings(cfg) is job and job == built == s
    changed = dict(cfg, checkpoints=cfg["checkpoints"] + 1)
    assert as_settings(changed).checkpoints == cfg["checkpoints"] + 1


def test_reading_settings_does_not_import_the_validator_or_the_engine():
    """The steps that read settings (claims, figures) must not depend on the semantic validator,
    which imports the engine: of the package the module imports only the schema's check and the
    config digest, which import nothing of it."""
    import subprocess
    import sys

    code = (
        "import sys, onlinerank.settings as s; "
        "print(sorted(m for m in sys.modules if m.startswith('onlinerank.') and m != 'onlinerank.settings'))"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "['onlinerank.provenance', 'onlinerank.schema_validation']", p.stdout


def test_the_cells_and_the_digest_read_the_typed_settings():
    from onlinerank.cells import cells_of, run_block
    from onlinerank.config import group_digest

    cfg = bare()
    cfg["upper"]["experiments"][0]["closed_form"] = False  # simulated: a job and its digest
    s = load_settings(cfg)  # fills cfg in place, as the Snakefile does
    cells = cells_of(s, "upper")
    assert cells == cells_of(cfg, "upper")  # the validated dict is typed the same way
    assert {c.block_size for c in cells} == {s.stages["upper"].block_size}
    assert group_digest(s, cells[0].group) == group_digest(cfg, cells[0].group)
    res = run_block(s, cells[0], 0)
    assert res.t[-1] == 5 and len(res.t) <= s.checkpoints


def test_a_learner_parameter_left_out_is_the_constructors_default():
    from onlinerank.learners.onlinerank import OnlineRank

    s = load_settings(bare())
    default = inspect.signature(OnlineRank.__init__).parameters["eta"].default
    assert s.learners["pl"].param("eta") == default == "paper"
    assert s.learners["opt"].param("eta") == "optimal"
    with pytest.raises(KeyError):
        s.learners["pl"].param("colour")


def test_the_recorded_rate_is_exactly_the_papers_eta_when_the_learner_ran_at_it(tmp_path):
    """``ran_at_paper_eta`` recomputes η_p with the learner's own function from the row's n, T,
    M, family and k after a round trip through a table file: bit-equal at η_p, not at η*."""
    from onlinerank.bounds import ran_at_paper_eta
    from onlinerank.cells import cells_of, run_block
    from onlinerank.io import read_table, write_csv
    from onlinerank.sim_tables import aggregate

    cfg = bare()
    cfg["upper"]["experiments"][0].update(family="kchoice", n=[7, 10], k=[1, 3], T=[5, 13])
    s = load_settings(cfg)
    rows = [r for c in cells_of(s, "upper") for r in aggregate(c, [run_block(s, c, 0)])]
    write_csv(tmp_path / "sim.csv", rows)
    back = read_table(tmp_path / "sim.csv")
    assert len(back) == len(rows) > 0
    for r in back:
        assert ran_at_paper_eta(r) == (r["learner"] == "pl"), r


_WC = ("properties", "worst_case", "properties")
_RT = ("properties", "runtime", "properties")
#: config keys whose defaults the schema alone states, and the value it states
SCHEMA_DEFAULTS = {
    "checkpoints": (("properties", "checkpoints"), 12),
    "block_size": (("$defs", "stage", "properties", "block_size"), 32),
    "fit_min_n": (_RT + ("fit_min_n",), 100),
    "seconds_per_point": (_RT + ("seconds_per_point",), 0.5),
    "repeats": (_RT + ("repeats",), 5),
    "max_n": (_RT + ("max_n",), {}),
    "worst_case.family": (_WC + ("family",), "single"),
    "worst_case.k": (_WC + ("k",), 1),
    "worst_case.max_states": (_WC + ("max_states",), 20_000_000),
    "worst_case.learners": (_WC + ("learners",), []),
    "worst_case.exact[].eta_factor": (_WC + ("exact", "items", "properties", "eta_factor"), [1.0]),
    "worst_case.comparison": (_WC + ("comparison",), {}),
    "worst_case.comparison.exact": (_WC + ("comparison", "properties", "exact"), []),
    "worst_case.comparison.max_n": (_WC + ("comparison", "properties", "max_n"), {}),
    "worst_case.tightness.eta_factor": (_WC + ("tightness", "properties", "eta_factor"), [1.0]),
    "worst_case.search.width": (_WC + ("search", "properties", "width"), 300),
    "worst_case.search.max_evals": (_WC + ("search", "properties", "max_evals"), 5000),
}
#: keys whose default is stated once (the schema, or a learner's constructor for ``eta`` and
#: ``sampler``)
DEFAULTED = (
    "block_size|checkpoints|fit_min_n|seconds_per_point|repeats|max_n|max_sample_n|max_partial_sample_n"
    "|eta|sampler|seed|family|k|max_states|learners|exact|eta_factor|comparison|adversaries|tightness"
    "|search|width|max_evals"
)
#: a default restated in code: ``.get("block_size", 32)``, ``setting("runtime.fit_min_n", 100)``,
#: ``.get("eta", "paper")``, ``srch.get("width", 300)``
RESTATED = re.compile(rf"""(\.get|\.setting)\(\s*["'](?:[\w.]*\.)?({DEFAULTED})["']\s*,""")


def test_no_default_is_restated_in_the_code():
    for key, (path, value) in SCHEMA_DEFAULTS.items():
        node = SCHEMA
        for part in path:
            node = node[part]
        assert node["default"] == value, key  # the schema states it ...
    from onlinerank.worst_case import MAX_STATES

    assert SCHEMA_DEFAULTS["worst_case.max_states"][1] == MAX_STATES  # the DP's own cap
    for bad in (
        'sec.get("block_size", 32)',
        "ctx.setting('runtime.fit_min_n', 100)",
        'spec.get("eta", "paper")',
        'fam, k = section.get("family", "single"), int(section.get("k", 1))',
        'cap = section.get("max_states", MAX_STATES)',
        'width, evals = int(srch.get("width", 300)), int(srch.get("max_evals", 5000))',
        'factors = [float(f) for f in tight.get("eta_factor", [1.0])]',
        'for label in section.get("learners", []):',
        'comp = section.get("comparison", {})',
        "int(config.get('seed', 0))",
        's.get("sampler", "plackett-luce") == sampler',
        'budget = float(sec.get("seconds_per_point", 0.5))',
    ):
        assert RESTATED.search(bad), bad  # ... the pattern would see a restatement ...
    files = sorted(SRC.rglob("*.py")) + sorted(MUTANTS.glob("*.py"))  # the package, the mutation tests
    assert len(files) > 50 and SRC / "cells.py" in files and MUTANTS / "table.py" in files
    hits = [
        f"{f}:{n}: {line.strip()}"
        for f in files
        for n, line in enumerate(f.read_text().splitlines(), 1)
        if RESTATED.search(line)
    ]
    assert hits == []  # ... and no module does
    # the sites that restated them read the typed field instead
    reads = {
        "cells.py": ["sec.block_size", "settings.checkpoints"],
        "config.py": ['"checkpoints": settings.checkpoints', 'bs = sec["block_size"]'],
        "claims/runtime.py": ["ctx.settings.runtime", "return runtime.fit_min_n"] + ["_fit_min_n(ctx)"] * 2,
        "figures/runtime.py": ["timing = config.runtime", "nmin = timing.fit_min_n"],
        "worst_case_tables.py": ["fam, k, cap = wc.family, wc.k, wc.max_states"] * 2
        + ["width, evals = wc.search_width, wc.max_evals", "width, evals = wc.tightness_width, wc.max_evals"]
        + ['tight["eta_factor"]', "for label in wc.learners:"],
        "worst_case.py": ['fam, k = case["family"], int(case["k"])', 'for f in case["eta_factor"]'],
        "../../workflow/mutants/table.py": ['"seed": settings.seed'],
        "timing.py": ["budget, repeats = sec.seconds_per_point, sec.repeats"],
        "learners/onlinerank.py": ['_param(spec, "sampler")'] * 2 + ['_param(s, "sampler") == sampler'],
        "claims/common.py": ["cls.configured_sampler(", "cls.configured_rate("],
    }
    for name, needles in reads.items():
        text = (SRC / name).read_text()
        for needle in set(needles):
            assert text.count(needle) >= needles.count(needle), (name, needle)
    common = (SRC / "claims" / "common.py").read_text()
    assert '_configured_rate(ctx, label) == "paper"' in common
