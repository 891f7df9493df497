"""The change log of the claims' tests and its guard (onlinerank.claims.changelog, .evidence digests,
.code_digest): every claim's digest is the one the log records; the digest moves with a threshold,
a grid, the interval code or a literal level in a builder, and not with a docstring; the log only
grows (an edited recorded digest is caught); an entry's recording commit comes from git and the
commits it names are in the history; a bad entry is refused in one line naming it."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from onlinerank.claims import REGISTRY, build_document
from onlinerank.claims.changelog import (
    LOG_PATH,
    ChangeLogError,
    append_only_violations,
    changes_after_data,
    git_location,
    load_log,
    parse_log,
    recorded_digests,
    recorded_in,
    unrecorded,
    validate_commits,
)
from onlinerank.claims.code_digest import normalised
from onlinerank.claims.evidence import claim_code, claim_digests, registry_digest
from onlinerank.claims.report import claims_markdown, readme_summary

ROOT = Path(__file__).resolve().parents[1]
GUARD = "python -m onlinerank.claims digests --entry"


@pytest.fixture(scope="module")
def default_config() -> dict:
    """The default tier's config as the pipeline sees it (the schema's defaults filled in): the
    config whose digests the change log records."""
    from onlinerank.schema_validation import validate_schema

    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    validate_schema(cfg)
    return cfg


def typed(config: dict):
    """The settings of a config (the digests are of a validated config's settings)."""
    from onlinerank.config import load_settings

    return load_settings(copy.deepcopy(config))


# --- the guard on the repository's own log ------------------------------------------------------


def test_every_claims_digest_is_recorded_in_the_change_log(default_config):
    """A change to a claim's statistic, threshold, direction, grid, replicates, level, or the code
    of its builder and statistics moves its digest; it must come with a new entry of changes.toml
    naming the claim and recording the new digest."""
    pending = unrecorded(claim_digests(typed(default_config)), load_log())
    assert not pending, (
        f"the change log does not record the current test of {', '.join(pending)}: append an entry to "
        f"src/onlinerank/claims/changes.toml saying what changed and why ({GUARD} prints it)"
    )


def test_the_change_log_only_grows():
    """Every committed version of the log (format 2) extends the one before it with its entries
    unchanged, and the working tree's extends HEAD's."""
    if (ROOT / ".git").exists():
        assert git_location(LOG_PATH) is not None, "changes.toml is not tracked with its history"
    assert append_only_violations(LOG_PATH) == []


def test_the_log_is_complete_and_names_real_commits_and_claims():
    """The commits whose changes the log in its first format left out or recorded in part each
    have an entry; every commit an entry names is in the history; the entries that had said 'this
    change' name their commits; every claim with a test has a recorded digest."""
    log = load_log()
    made = {c for e in log.entries for c in e.get("made_in", [])}
    left_out = {
        "5619b4e",
        "40b69f1",
        "5f11e65",
        "148e475",
        "0598a96",
        "bcab1e5",
        "63835cb",
        "ca1b0a9",
        "d93d28d",
    }
    assert left_out <= made
    assert {"8b776c2", "0be5359", "de2d2a7"} <= made
    assert all("this change" not in e.get("made_in", []) for e in log.entries)
    validate_commits(log)
    rec = recorded_digests(log)
    assert {c.id for c in REGISTRY.values() if c.section != "not-tested"} <= set(rec)
    assert changes_after_data(log) == sum(e["kind"] == "test" for e in log.entries) >= 15


def test_the_recording_commit_of_an_entry_comes_from_git():
    """recorded_in gives, for each committed entry, the commit whose version of the file first
    holds it: that version has the entry and its parents' versions do not."""
    log = load_log()
    commits = recorded_in(log)
    if git_location(LOG_PATH) is None:
        assert commits == [None] * len(log.entries)
        return
    loc = git_location(LOG_PATH)
    assert loc is not None
    root, rel = loc
    for entry, commit in zip(log.entries, commits, strict=True):
        if commit is None:
            continue
        here = parse_log(_git(root, "show", f"{commit}:{rel}"), LOG_PATH).entries
        assert entry in here
        parents = _git(root, "rev-list", "--parents", "-n", "1", commit).split()[1:]
        for p in parents:
            text = _git(root, "show", f"{p}:{rel}", check=False)
            before = tomllib_entries(text)
            assert entry not in before, (commit, p)


def tomllib_entries(text: str | None) -> list[dict]:
    import tomllib

    if not text:
        return []
    data = tomllib.loads(text)
    return data.get("change", []) if data.get("format") == 2 else []


def _git(repo: Path, *args: str, check: bool = True) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
    )
    if check:
        assert out.returncode == 0, out.stderr
    return out.stdout


# --- what the digest covers -------------------------------------------------------------------


def test_the_digest_moves_with_a_threshold_a_statistic_a_grid_and_the_level(monkeypatch, default_config):
    cfg = default_config
    base = claim_digests(typed(cfg))
    moved = copy.deepcopy(cfg)
    moved["claims"]["exponent_tolerance"] = moved["claims"]["exponent_tolerance"] * 2
    changed = {c for c, d in claim_digests(typed(moved)).items() if d != base[c]}
    assert {"beyond.exponent.T", "beyond.exponent.n"} <= changed and "thm3.1" not in changed
    grid = copy.deepcopy(cfg)
    grid["upper"]["experiments"][0]["T"] = [*grid["upper"]["experiments"][0]["T"], 10**6]
    assert claim_digests(typed(grid))["thm3.1"] != base["thm3.1"]
    reps = copy.deepcopy(cfg)
    reps["upper"]["experiments"][0]["replicates"] += 1
    assert claim_digests(typed(reps))["cor3.2.single"] != base["cor3.2.single"]
    for key, value in (("seed", cfg["seed"] + 1), ("claims", {**cfg["claims"], "alpha": 0.1})):
        other = {**copy.deepcopy(cfg), key: value}
        assert claim_digests(typed(other))["thm3.1"] != base["thm3.1"], key
    spec = copy.deepcopy(cfg)
    spec["learners"]["onlinerank-pl"] = {**spec["learners"]["onlinerank-pl"], "eta": 0.5}
    assert claim_digests(typed(spec))["thm3.1"] != base["thm3.1"]
    assert claim_digests(typed(spec))["sec4.mw_law"] == base["sec4.mw_law"]  # reads no simulated stage
    entry = REGISTRY["thm3.1"]
    monkeypatch.setitem(REGISTRY, "thm3.1", dataclasses.replace(entry, threshold=2.0))
    assert claim_digests(typed(cfg))["thm3.1"] != base["thm3.1"]
    monkeypatch.setitem(REGISTRY, "thm3.1", dataclasses.replace(entry, statistic="something else"))
    assert claim_digests(typed(cfg))["thm3.1"] != base["thm3.1"]
    monkeypatch.setitem(REGISTRY, "thm3.1", entry)
    assert claim_digests(typed(cfg)) == base and registry_digest(typed(cfg)) == registry_digest(
        typed(copy.deepcopy(cfg))
    )


def test_a_planted_threshold_change_is_reported_by_the_guard(monkeypatch, default_config):
    """A threshold moved in the registry, or in the config, without an entry: the guard names the
    claim (and only it)."""
    log = load_log()
    entry = REGISTRY["thm3.1"]
    monkeypatch.setitem(REGISTRY, "thm3.1", dataclasses.replace(entry, threshold=1.5))
    assert set(unrecorded(claim_digests(typed(default_config)), log)) == {"thm3.1"}
    monkeypatch.setitem(REGISTRY, "thm3.1", entry)
    cfg = copy.deepcopy(default_config)
    cfg["claims"]["margins"]["lemma61"] = 0.03
    assert set(unrecorded(claim_digests(typed(cfg)), log)) == {"lemma6.1"}


def test_the_code_closure_follows_the_statistics_a_builder_calls():
    """thm3.1's builder reaches the interval code and the bound it divides by; the algorithms it
    tests and the config's loading are named, not followed."""
    code = claim_code(REGISTRY["thm3.1"])
    for name in (
        "onlinerank.claims.upper.thm31",
        "onlinerank.claims.common.ratio_cells",
        "onlinerank.claims.stats.bonferroni_t",
        "onlinerank.claims.stats.interval_verdict",
        "onlinerank.claims.stats.combine_verdicts",
        "onlinerank.claims.registry.make_cell",
        "onlinerank.claims.registry.Context",
        "onlinerank.bounds.theorem31_paper",
    ):
        assert name in code, name
    assert not any(
        k.startswith(("onlinerank.settings", "onlinerank.learners", "onlinerank.claims.lower")) for k in code
    )
    assert "onlinerank.claims.registry.REGISTRY" not in code
    # a constant a builder reads is kept by value (lower.py's grid of the L* identity)
    lstar = claim_code(REGISTRY["thm3.3.lstar"])
    assert (
        lstar["onlinerank.claims.lower.LSTAR_GRID"]
        == "tuple[tuple[3, 7], tuple[4, 8], tuple[5, 6], tuple[6, 4]]"
    )


def test_layout_docstrings_and_annotations_do_not_move_the_digest_but_a_literal_does():
    base = normalised('def f(x):\n    """Doc."""\n    return x * 0.05\n')
    assert normalised("def f(x: float) -> float:\n    # a comment\n    return (x *\n        0.05)\n") == base
    assert normalised('def f(x):\n    """Another doc."""\n    return x * 0.9\n') != base
    assert normalised("def f(x):\n    return x / 0.05\n") != base


def test_closures_and_constants_of_a_factory_builder_are_covered():
    """cor3.2.* share one builder factory: each claim's code holds its own scale (a lambda in the
    closure), so the three digests differ and a change to one lambda moves only its claim."""
    codes = {f: claim_code(REGISTRY[f"cor3.2.{f}"]) for f in ("single", "kchoice", "subset")}
    lambdas = {
        f: [k for k in code if k.startswith("onlinerank.claims.upper.<lambda>")] for f, code in codes.items()
    }
    assert all(len(v) == 1 for v in lambdas.values())
    assert len({v[0] for v in lambdas.values()}) == 3
    text = {f: codes[f][v[0]] for f, v in lambdas.items()}
    assert "'1.5'" in text["single"] and "'1.5'" in text["kchoice"] and "'1.5'" not in text["subset"]


def _copy_src(dst: Path) -> Path:
    shutil.copytree(ROOT / "src", dst / "src", ignore=shutil.ignore_patterns(".pytest_cache"))
    return dst / "src"


def _digests_in(src: Path) -> subprocess.CompletedProcess:
    """The digests command run on the package in ``src`` against the repository's config and log."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "onlinerank.claims",
            "digests",
            "--config",
            str(ROOT / "config" / "config.yaml"),
            "--log",
            str(LOG_PATH),
        ],
        cwd=src.parent,
        env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def _not_recorded(out: str) -> set[str]:
    return {line.split()[0] for line in out.splitlines() if "not recorded" in line}


def test_planted_changes_to_the_interval_code_are_reported(tmp_path):
    """In a copy of the package: unchanged, every digest is recorded; the Bonferroni level of the
    ratio cells moved from ctx.alpha to 0.9 in code, or the quantile of stats.bonferroni_t changed,
    each make the guard name the claims that use them (and exit 1)."""
    src = _copy_src(tmp_path)
    same = _digests_in(src)
    assert same.returncode == 0 and not _not_recorded(same.stdout), same.stdout + same.stderr
    common = src / "onlinerank" / "claims" / "common.py"
    text = common.read_text()
    planted = text.replace("bonferroni_t(len(rows), ctx.alpha,", "bonferroni_t(len(rows), 0.9,")
    assert planted != text
    common.write_text(planted)
    level = _digests_in(src)
    assert level.returncode == 1
    assert {"thm3.1", "cor3.2.single", "sec5.spearman"} <= _not_recorded(level.stdout)
    assert "sec4.hedge" not in _not_recorded(level.stdout)  # its builder does not use ratio cells
    common.write_text(text)
    stats = src / "onlinerank" / "claims" / "stats.py"
    text = stats.read_text()
    planted = text.replace(
        "student_t.ppf(1.0 - (1.0 - level) / 2.0, df)", "student_t.ppf(1.0 - (1.0 - level), df)"
    )
    assert planted != text
    stats.write_text(planted)
    quantile = _digests_in(src)
    assert quantile.returncode == 1
    assert {"thm3.1", "thm3.3.every_algorithm", "lemma6.1.samplers"} <= _not_recorded(quantile.stdout)


# --- the log only grows ------------------------------------------------------------------------


def _repo_with_log(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "claims").mkdir(parents=True)
    shutil.copy(LOG_PATH, repo / "claims" / "changes.toml")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "log")
    return repo / "claims" / "changes.toml"


def test_an_edited_recorded_digest_is_caught(tmp_path, monkeypatch, default_config):
    """A threshold changed and the newest recorded digest edited to match it (no new entry): the
    digest check passes, the append-only check names the entry and the claim, in the working tree
    and once committed; appending an entry instead passes both."""
    path = _repo_with_log(tmp_path)
    repo = path.parents[1]
    assert append_only_violations(path) == []
    text = path.read_text()
    old = recorded_digests(load_log(path))["thm3.1"][0]
    entry = REGISTRY["thm3.1"]
    monkeypatch.setitem(REGISTRY, "thm3.1", dataclasses.replace(entry, threshold=1.5))
    digests = claim_digests(typed(default_config))
    new = digests["thm3.1"]
    assert set(unrecorded(digests, load_log(path))) == {"thm3.1"}
    head, tail = text.rsplit(f'"thm3.1" = "{old}"', 1)  # the newest entry recording it
    path.write_text(f'{head}"thm3.1" = "{new}"{tail}')
    assert unrecorded(digests, load_log(path)) == {}  # the digest check alone is walked around
    entries = load_log(path).entries
    n = max(i for i, e in enumerate(entries, 1) if "thm3.1" in (e.get("digests") or {}))
    problems = append_only_violations(path)
    assert len(problems) == 1 and problems[0].startswith(f"changes.toml: change #{n} (")
    assert "the recorded digest of thm3.1 changed in the working tree" in problems[0]
    _git(repo, "commit", "-q", "-am", "edit a recorded digest")
    problems = append_only_violations(path)
    assert len(problems) == 1 and "the recorded digest of thm3.1 changed by commit" in problems[0]
    _git(repo, "reset", "-q", "--hard", "HEAD~1")
    appended = text + '\n[[change]]\nkind = "test"\nclaims = ["thm3.1"]\nchange = "x"\nreason = "y"\n'
    path.write_text(appended + f'[change.digests]\n"thm3.1" = "{new}"\n')
    assert append_only_violations(path) == [] and unrecorded(digests, load_log(path)) == {}
    _git(repo, "commit", "-q", "-am", "append")
    assert append_only_violations(path) == []
    assert recorded_in(load_log(path))[-1] == _git(repo, "rev-parse", "HEAD").strip()[:10]
    # a dropped entry is caught too
    log_text = path.read_text()
    first = log_text.index("[[change]]")
    second = log_text.index("[[change]]", first + 1)
    path.write_text(log_text[:first] + log_text[second:])
    assert any(
        p.startswith("changes.toml: change #1 (") and ": edited" in p for p in append_only_violations(path)
    )


# --- bad input -------------------------------------------------------------------------------------


_ENTRY = '[[change]]\nkind = "test"\nclaims = [{claims}]\nchange = "x"\nreason = "y"\nmade_in = [{made}]\n'


def _log(tmp_path: Path, claims: str = '"thm3.1"', made: str = '"bcab1e5"') -> Path:
    path = tmp_path / "changes.toml"
    path.write_text("format = 2\n\n" + _ENTRY.format(claims=claims, made=made))
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[[change]]\nkind = "test"\nclaims = ["thm3.1"]\nchange = "x"\nmade_in = ["bcab1e5"]\n',
            "lacks 'reason'",
        ),
        (_ENTRY.format(claims='"thm9.9"', made='"bcab1e5"'), "names unknown claim 'thm9.9'"),
        (_ENTRY.format(claims='"thm3.1"', made='"this change"'), "made_in must list commits"),
        (
            _ENTRY.format(claims='"thm3.1"', made='"bcab1e5"').replace('"test"', '"tweak"'),
            "kind must be one of",
        ),
        ('[[change]]\nkind = "test"\nclaims = ["thm3.1"]\nchange = "x"\nreason = "y"\n', "records no digest"),
        (
            '[[change]]\nkind = "test"\nclaims = ["thm3.1"]\nchange = "x"\nreason = "y"\n'
            '[change.digests]\n"lemma6.1" = "0123456789ab"\n',
            "records the digest of 'lemma6.1', which it does not name",
        ),
        (
            '[[change]]\nkind = "test"\nclaims = ["thm3.1"]\nchange = "x"\nreason = "y"\n'
            '[change.digests]\n"thm3.1" = "abc"\n',
            "must be 12 hex digits",
        ),
        (
            _ENTRY.format(claims='"thm3.1"', made='"bcab1e5"') + 'commit = "bcab1e5"\n',
            "unknown field(s) commit",
        ),
    ],
)
def test_a_malformed_entry_is_refused_in_one_line_naming_it(tmp_path, text, message):
    path = tmp_path / "changes.toml"
    path.write_text("format = 2\n\n" + text)
    with pytest.raises(ChangeLogError) as err:
        load_log(path)
    assert message in str(err.value) and "\n" not in str(err.value)
    assert str(err.value).startswith("changes.toml: change #1")


def test_a_log_in_the_old_format_is_refused(tmp_path):
    path = tmp_path / "changes.toml"
    path.write_text('[[change]]\ncommit = "abc1234"\nclaims = ["thm3.1"]\nchange = "x"\nreason = "y"\n')
    with pytest.raises(ChangeLogError, match="format must be 2"):
        load_log(path)


def test_a_renamed_claim_resolves_and_an_unknown_rename_is_refused(tmp_path):
    path = tmp_path / "changes.toml"
    path.write_text(
        'format = 2\n[renamed]\n"thm3.3.route" = "beyond.lower_route"\n\n'
        + _ENTRY.format(claims='"thm3.3.route"', made='"bcab1e5"')
    )
    assert load_log(path).current_id("thm3.3.route") == "beyond.lower_route"
    path.write_text('format = 2\n[renamed]\n"a.b" = "c.d"\n')
    with pytest.raises(ChangeLogError, match="renamed 'a.b' to unknown claim 'c.d'"):
        load_log(path)


def _minimal_config():
    """A config with no stage: every claim that reads a table is NOT RUN, the others evaluate."""
    cfg = {"seed": 1, "learners": {"pl": {"name": "onlinerank"}}, "adversaries": {"u": {"name": "uniform"}}}
    return typed(cfg)


def test_rendering_refuses_an_unknown_claim_and_a_commit_outside_the_history(tmp_path):
    """build_document (the claims step) refuses the log before evaluating any claim: an unknown
    claim anywhere, a commit that is not in the history where the log is tracked by git."""
    with pytest.raises(ChangeLogError, match=r"change #1 \(thm9\.9\) names unknown claim 'thm9\.9'"):
        build_document(
            {},
            _minimal_config(),
            {"config_digest": "x", "commit": "y"},
            change_log=_log(tmp_path, '"thm9.9"'),
        )
    repo = tmp_path / "repo"
    repo.mkdir()
    path = _log(repo, made='"deadbeef00"')
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "log")
    with pytest.raises(
        ChangeLogError, match=r"change #1 \(thm3\.1\) names commit deadbeef00, which is not in the history"
    ):
        build_document({}, _minimal_config(), {"config_digest": "x", "commit": "y"}, change_log=path)


def test_the_digests_command_refuses_a_bad_log_in_one_line(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "onlinerank.claims", "digests", "--log", str(_log(tmp_path, '"thm9.9"'))],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert (
        out.returncode == 1
        and out.stderr.strip() == "changes.toml: change #1 (thm9.9) names unknown claim 'thm9.9'"
    )


def test_the_digests_command_prints_an_entry_for_an_unrecorded_claim(tmp_path):
    """With a log that records nothing since its baseline but thm3.1's old digest, the command
    lists thm3.1 as not recorded (exit status 1) and with ``--entry`` prints an entry (exit status
    0), which appended makes the log record it."""
    log = load_log()
    text = LOG_PATH.read_text()
    current = recorded_digests(log)["thm3.1"][0]
    path = tmp_path / "changes.toml"
    path.write_text(text.replace(f'"thm3.1" = "{current}"', f'"thm3.1" = "{"f" * 12}"'))
    check, out = (
        subprocess.run(
            [sys.executable, "-m", "onlinerank.claims", "digests", *entry, "--log", str(path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        for entry in ([], ["--entry"])
    )
    # a check without --entry fails on the unrecorded claim; with it, the entry is printed
    assert (check.returncode, out.returncode) == (1, 0), out.stderr
    assert f"thm3.1 {current} not recorded (the log records {'f' * 12})" in out.stdout
    entry = out.stdout.split("reason:\n\n", 1)[1]
    assert f'"thm3.1" = "{current}"' in entry
    path.write_text(path.read_text() + "\n" + entry.replace("<", "").replace(">", ""))
    assert "thm3.1" not in unrecorded({"thm3.1": current}, load_log(path))


# --- the report ------------------------------------------------------------------------------------


def test_the_report_states_the_count_from_the_log(tmp_path):
    """claims.md's legend and section and the README summary state the number of changes after
    data counted from the log (here a log of two test changes and one cells-equal entry)."""
    path = tmp_path / "changes.toml"
    entries = [
        _ENTRY.format(claims='"thm3.1"', made='"bcab1e5"'),
        _ENTRY.format(claims='"sec2.M"', made='"bcab1e5"'),
        _ENTRY.format(claims='"*"', made='"bcab1e5"').replace('"test"', '"cells-equal"'),
    ]
    path.write_text("format = 2\n\n" + "\n".join(entries))
    doc = build_document({}, _minimal_config(), {"config_digest": "x", "commit": "y"}, change_log=path)
    assert doc["change_log"]["changes_after_data"] == 2 and len(doc["changes"]) == 3
    assert doc["changes"][0]["recorded_in"] is None  # not tracked by git
    md = claims_markdown(doc)
    assert "2 changes were made to them after data, each listed under" in md
    assert "Changes to the tests after data: 2." in md
    assert "| 3 | bcab1e5 | not committed | every claim | cells equal |" in md
    assert "2 changes were made to them after data" in readme_summary(doc)
    # no entry records a digest: every claim that ran (the ones reading no stage) was decided by a
    # test the log does not record, and the report says so
    ran = [c["id"] for c in doc["claims"] if c["verdict"] not in ("NOT RUN", "NOT TESTED")]
    assert ran and doc["change_log"]["unrecorded"] == ran
    assert f"Decided by a test the change log does not record ({len(ran)})" in md


def test_the_smoke_report_carries_the_change_log(smoke_doc, smoke_run):
    """The smoke run's document carries every entry of the log and the count of test changes; its
    claims.md says it in its legend (the smoke tier's grids differ from the default tier's, so its
    claims reading a stage are listed as decided by tests the log does not record)."""
    log = load_log()
    assert len(smoke_doc["changes"]) == len(log.entries)
    assert smoke_doc["change_log"]["changes_after_data"] == changes_after_data(log)
    md = (smoke_run / "results-smoke" / "figures" / "claims.md").read_text()
    n = changes_after_data(log)
    assert f"{n} changes were made to them after data" in md
    assert re.search(r"\| \d+ \| 8b776c2 \| ", md)
    unrec = set(smoke_doc["change_log"]["unrecorded"])
    assert "thm3.1" in unrec  # the smoke tier's upper grid is not the default tier's
    by = {c["id"]: c for c in smoke_doc["claims"]}
    assert all(by[c]["digest"] != by[c]["recorded_digest"] for c in unrec)
    assert json.dumps(smoke_doc["changes"][-1]["digests"], sort_keys=True) == json.dumps(
        log.entries[-1]["digests"], sort_keys=True
    )
