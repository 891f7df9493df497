"""onlinerank.settings: the config validated once and typed; every default from the schema."""

import ast
import copy
import dataclasses
import inspect
import re
from pathlib import Path

import pytest
import yaml

from onlinerank.config import ConfigError, load_settings
from onlinerank.settings import SCHEMA_PATH, Settings, setting_value, typed_settings

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
        s.runtime.max_n["pl"] = 4  # type: ignore[index,union-attr]
    assert isinstance(s.stages["upper"].experiments[0].n, tuple)
    assert s.learner("opt") == {"name": "onlinerank", "eta": "optimal"}
    assert not hasattr(s, "config")  # no raw mapping travels beside the typed fields


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


def test_a_job_types_its_validated_config_and_an_unvalidated_one_is_refused():
    """One path: the Snakefile validates (``load_settings``, filling Snakemake's dict in place), a
    job types that dict directly (``job_settings``); a dict never validated is refused, naming
    what is missing, never quietly validated on the side."""
    from types import SimpleNamespace

    from onlinerank.pipeline import job_settings

    cfg = bare()
    with pytest.raises(ValueError, match="not a validated config .*KeyError.*load_settings"):
        typed_settings(copy.deepcopy(cfg))
    built = load_settings(cfg)  # what the Snakefile does: fills the defaults in place
    job = job_settings(SimpleNamespace(config=copy.deepcopy(cfg)))  # a job's copy of that dict
    assert isinstance(job, Settings) and job == built == typed_settings(cfg)
    changed = dict(cfg, checkpoints=cfg["checkpoints"] + 1)
    assert typed_settings(changed).checkpoints == cfg["checkpoints"] + 1
    with pytest.raises(ConfigError, match="config error at chekpoints: unknown key"):
        load_settings(dict(bare(), chekpoints=3))  # the schema's check, not a guess


CONFIGS = sorted((SRC.parents[1] / "config").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_the_plain_form_is_the_validated_config_and_its_digests(path):
    """``Settings.as_config()``, rebuilt from the typed fields, is exactly the mapping the
    validator filled: the digests that key Snakemake's params and the claims' change log hash it
    (every committed tier), and validating it again gives the same settings."""
    from onlinerank.provenance import config_digest

    filled = yaml.safe_load(path.read_text())
    s = load_settings(filled)
    plain = s.as_config()
    assert plain == filled
    assert config_digest(plain) == config_digest(filled)
    assert load_settings(copy.deepcopy(plain)) == s
    assert (
        s.lowerbound is None or s.lowerbound.curves.T.points == filled["lowerbound"]["curves"]["T"]["points"]
    )


def test_the_sections_are_typed_records():
    """The lower-bound and worst-case sections are records down to their points, with every key
    the schema defaults; ``tightness.width`` falls back to ``search.width`` as the schema says."""
    s = load_settings(yaml.safe_load((SRC.parents[1] / "config" / "smoke.yaml").read_text()))
    assert s.lowerbound is not None and s.worst_case is not None
    curves = s.lowerbound.curves
    assert isinstance(curves.n, tuple) and isinstance(curves.T.min, int)
    assert (
        s.lowerbound.hc.k
        == SCHEMA["properties"]["lowerbound"]["properties"]["hc"]["properties"]["k"]["default"]
    )
    wc = s.worst_case
    assert all(isinstance(p.n, int) and isinstance(p.T, int) for p in wc.comparison.exact)
    assert all(isinstance(p.T, tuple) for p in wc.tightness.exact + wc.tightness.search)
    assert wc.exact[0].eta_factor == tuple(wc.exact[0].eta_factor)
    assert wc.tightness_width == (wc.search.width if wc.tightness.width is None else wc.tightness.width)
    cfg = bare() | {"worst_case": {"exact": [{"n": 3, "T": [4]}], "search": {"width": 7}}}
    wide = load_settings(cfg).worst_case
    assert wide is not None and wide.tightness.width is None and wide.tightness_width == 7
    assert (
        "width"
        not in load_settings(bare() | {"worst_case": {"exact": [{"n": 3, "T": [4]}]}}).as_config()[
            "worst_case"
        ]["tightness"]
    )
    cfg["worst_case"]["tightness"] = {"width": 0}
    assert load_settings(cfg).worst_case.tightness_width == 0  # type: ignore[union-attr]


def test_one_resolver_of_dotted_keys():
    s = load_settings(bare())
    assert setting_value(s, "claims.margins.lemma61") == s.claims.margins.lemma61
    assert setting_value(s, "runtime.fit_min_n") == 100
    assert setting_value(s, "upper").block_size == 32  # a stage by name
    assert setting_value(s, "learners.opt").param("eta") == "optimal"
    for missing in ("lowerbound.curves", "claims.margins.nope", "runtime.nope", "nope"):
        with pytest.raises(KeyError, match=missing.replace(".", r"\.")):
            setting_value(s, missing)
    # the other resolvers are gone: the claims resolve their thresholds through this one
    from onlinerank.claims import registry

    assert not hasattr(registry, "config_value")
    text = (SRC / "claims" / "registry.py").read_text() + (SRC / "claims" / "evidence.py").read_text()
    assert text.count("setting_value(") >= 3


def test_reading_settings_does_not_import_the_validator_or_the_engine():
    """The steps that read settings (claims, figures) must not depend on the validator, which
    imports the engine: the module imports nothing of the package at module level."""
    import subprocess
    import sys

    code = (
        "import sys, onlinerank.settings as s; "
        "print(sorted(m for m in sys.modules if m.startswith('onlinerank.') and m != 'onlinerank.settings'))"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]", p.stdout


def test_the_cells_and_the_digest_read_the_typed_settings():
    from onlinerank.cells import cells_of, run_block
    from onlinerank.config import group_digest

    cfg = bare()
    cfg["upper"]["experiments"][0]["closed_form"] = False  # simulated: a job and its digest
    s = load_settings(cfg)  # fills cfg in place, as the Snakefile does
    cells = cells_of(s, "upper")
    assert cells == cells_of(typed_settings(cfg), "upper")  # the validated dict is typed the same way
    assert {c.block_size for c in cells} == {s.stages["upper"].block_size}
    assert len(group_digest(s, cells[0].group)) == 12
    res = run_block(s, cells[0], 0)
    assert res.t[-1] == 5 and len(res.t) <= s.checkpoints


def test_a_value_derived_from_the_settings_is_computed_once_per_settings_object(monkeypatch):
    """The cells of a stage and the digests, which Snakemake asks for once per job while it builds
    the graph, are computed once per settings object (Settings.derived): the same values as
    computed afresh, handed out as copies (a caller that edits its list changes nobody else's),
    and computed again for another settings object (dataclasses.replace: a new seed)."""
    from onlinerank import cells as cells_module
    from onlinerank.config import group_digest, section_digest

    cfg = bare()
    cfg["upper"]["experiments"][0]["closed_form"] = False
    s = dataclasses.replace(load_settings(cfg))  # a new object: the validation asked for the cells
    fresh = cells_module._cells_of(s, "upper")
    calls = []
    real = cells_module._cells_of
    monkeypatch.setattr(cells_module, "_cells_of", lambda *a: calls.append(a) or real(*a))
    first = cells_module.cells_of(s, "upper")
    first.pop()  # the caller's own copy
    group = fresh[0].group
    for _ in range(3):
        assert cells_module.cells_of(s, "upper") == fresh
        assert cells_module.find_group(s, group) == [c for c in fresh if c.group == group]
        assert cells_module.groups_of(s, "upper") == {group: [c for c in fresh if c.group == group]}
    assert len(calls) == 1
    digest, section = group_digest(s, group), section_digest(s, "upper", "seed")
    other = dataclasses.replace(s, seed=s.seed + 1)
    assert cells_module.cells_of(other, "upper") == fresh and len(calls) == 2
    assert group_digest(other, group) != digest and section_digest(other, "upper", "seed") != section
    assert group_digest(s, group) == digest and section_digest(s, "upper", "seed") == section
    assert [f.name for f in dataclasses.fields(s)] == [f.name for f in dataclasses.fields(other)]
    assert s == load_settings(bare() | {"upper": cfg["upper"]})  # the memo is not a field


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
    files = _code_files()
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
        "figures/runtime.py": ["timing = config.runtime", "nmin, learners = timing.fit_min_n,"],
        "worst_case_tables.py": ["fam, k, cap = wc.family, wc.k, wc.max_states"]
        + ["fam, k = wc.family, wc.k", "max_states=wc.max_states"]
        + ["width, evals = wc.search.width, wc.search.max_evals"]
        + ["width, evals = wc.tightness_width, wc.search.max_evals"]
        + ["tight.eta_factor", "for label in wc.learners:"],
        "worst_case.py": ["fam, k = case.family, int(case.k)", "for f in case.eta_factor", "wc.max_states"],
        "../../workflow/mutants/table.py": ['"seed": tier["seed"], "claims": tier["claims"]'],
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


BENCH = SRC.parents[1] / "bench"


def _code_files() -> list[Path]:
    """The package, the mutation tests and the benchmarks: the code a config's values reach."""
    files = sorted(SRC.rglob("*.py")) + sorted(MUTANTS.glob("*.py")) + sorted(BENCH.glob("*.py"))
    assert len(files) > 50 and SRC / "cells.py" in files and MUTANTS / "table.py" in files
    return files


def _schema_defaults(node, found=None) -> dict[str, list]:
    """Every key the schema gives a default, by its last name: the defaults it states."""
    found = {} if found is None else found
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            if isinstance(sub, dict) and "default" in sub:
                found.setdefault(name, []).append(sub["default"])
        for key in ("properties", "$defs"):
            for sub in node.get(key, {}).values():
                _schema_defaults(sub, found)
        for key in ("items", "additionalProperties"):
            _schema_defaults(node.get(key), found)
    return found


#: parameters named for what a config key holds under another name
ALIASES = {"K": "checkpoints"}
#: the game's own arguments: a function of a game defaults to single choice (k = 1), which is the
#: mathematics of the function, not a value of the config
GAME_ARGUMENTS = {"k", "family"}
#: (module, function, parameter) that carry a config key's name but not its meaning, and what they mean
OTHER_MEANING = {
    ("onlinerank.lowerbound", "exact_regret", "exact"): "exact rational arithmetic, not worst_case.exact",
    (
        "onlinerank.lowerbound",
        "expected_best_loss",
        "exact",
    ): "exact rational arithmetic, not worst_case.exact",
}


def _restated_defaults(source: str, module: str) -> list[str]:
    """Keyword defaults of public functions (and fields of public dataclasses) that stand for a
    config key with a schema default: a parameter named after the key (or an alias), other than the
    game's own arguments, whose default is anything but ``None``.  The schema states the default;
    a function reached from the pipeline is handed the config's value, and one called directly
    asks for it (or takes ``None``: not given)."""
    keys = set(_schema_defaults(SCHEMA)) | set(ALIASES)
    keys -= GAME_ARGUMENTS
    hits = []

    def check(owner: str, name: str, default: ast.expr | None, line: int) -> None:
        if default is None or name not in keys or (module, owner, name) in OTHER_MEANING:
            return
        if isinstance(default, ast.Constant) and default.value is None:
            return
        hits.append(f"{module}:{line}: {owner}({name}={ast.unparse(default)})")

    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_"):
            a = node.args
            pos = a.posonlyargs + a.args
            defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
            for arg, d in [*zip(pos, defaults, strict=True), *zip(a.kwonlyargs, a.kw_defaults, strict=True)]:
                check(node.name, arg.arg, d, node.lineno)
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            if any("dataclass" in ast.unparse(d) for d in node.decorator_list):
                for stmt in node.body:
                    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                        value = stmt.value
                        if isinstance(value, ast.Call) and ast.unparse(value.func).endswith("field"):
                            value = next((k.value for k in value.keywords if k.arg == "default"), None)
                        check(node.name, stmt.target.id, value, stmt.lineno)
    return hits


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent) if path.is_relative_to(SRC) else path.relative_to(SRC.parents[1])
    return ".".join(rel.with_suffix("").parts).removesuffix(".__init__").replace("workflow.", "")


def test_no_function_restates_a_schema_default():
    """No keyword default of a public function, and no field default of a public dataclass, stands
    for a config key's default: the schema is the one place (a plug-in's parameters: its
    constructor).  Planted lines show the check sees a restatement (the searches' width 1000 and
    max_evals 20 000, the simulation's K = 20 and the cells' split had been such defaults)."""
    for planted in (
        "def search(n, T, *, width: int = 1000, max_evals: int = 20_000): ...",
        "def simulate(learner, game, *, K: int = 20, sample: bool = True): ...",
        "def solve(n, T, max_states: float = MAX_STATES): ...",
        "def out(results_dir='results', figures_dir='{results_dir}/figures'): ...",
        "@dataclass\nclass Cell:\n    split: tuple = ('adversary', 'n', 'k')",
        "@dataclasses.dataclass(frozen=True)\nclass Cell:\n    block_size: int = field(default=32)",
        "def time_it(spec, n, rounds, repeats=5): ...",
    ):
        assert _restated_defaults(planted, "planted"), planted
    for fine in (
        "def bound(n, T, k: int = 1, family: str = 'single'): ...",  # the game's own arguments
        "def search(n, T, *, width: int, max_evals: int, max_states: float | None = None): ...",
        "def _private(width=1000): ...",
    ):
        assert _restated_defaults(fine, "fine") == [], fine
    hits = [h for f in _code_files() for h in _restated_defaults(f.read_text(), _module_name(f))]
    assert hits == []
    # a line planted in a real module: the beam search's width defaulting again
    source = (SRC / "worst_case_search.py").read_text()
    assert source.count("    width: int,\n") == 2
    planted = source.replace("    width: int,\n", "    width: int = 300,\n", 1)
    assert [h.split(": ", 1)[1] for h in _restated_defaults(planted, "onlinerank.worst_case_search")] == [
        "beam_search(width=300)"
    ]
    names = {m for m, _, _ in OTHER_MEANING}
    assert names <= {_module_name(f) for f in _code_files()}  # the exceptions name real modules


def test_the_config_page_is_generated_from_the_schema(tmp_path):
    """``config/README.md`` is the page the schema gives (``make config-doc``): every key with its
    type, range, default and meaning from the schema; the text around the table states no default.
    A default changed in the schema makes the committed page stale, and the check says so."""
    import json

    from onlinerank.config_doc import INTRO, NOTES, config_readme, key_rows, main

    page = SRC.parents[1] / "config" / "README.md"
    assert page.read_text() == config_readme()
    assert main(["--check", str(page)]) == 0
    rows = {key: default for key, _, default, _ in key_rows()}
    for key, (path, value) in SCHEMA_DEFAULTS.items():
        parts: list[str] = []
        for p in path:  # the schema's path as the page names the key
            if p == "items":
                parts[-1] += "[]"
            elif p not in ("properties", "$defs"):
                parts.append("<stage>" if p == "stage" else p)
        assert rows[".".join(parts)] == json.dumps(value), key
    assert rows["seed"] == "required" and rows["worst_case.tightness.width"] == ""  # no default: falls back
    assert not re.search(r"\bdefaults?\W+(is |of )?[\d`\[{\"]", INTRO + NOTES)  # no default restated
    changed = copy.deepcopy(SCHEMA)
    changed["properties"]["checkpoints"]["default"] = 13
    stale = tmp_path / "README.md"
    stale.write_text(config_readme(changed))
    assert "| `checkpoints` | integer, ≥ 2, ≤ 200 | `13` |" in stale.read_text()
    assert main(["--check", str(stale)]) == 1
