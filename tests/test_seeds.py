"""Verdicts that do not hinge on one seed (onlinerank.seeds, onlinerank.claims.seed_verdicts):
which claims depend on the seed, the derived configs and targets of the further seeds, the column
"held at s of S seeds" of the claims report, the command's arguments, and `make replicate` run on
a copy of the suite's smoke run with 2 further seeds."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, ignore_for_copy

from onlinerank.claims import REGISTRY, tables_needed
from onlinerank.claims.report import claims_markdown, readme_summary, summary_lines, validate_document
from onlinerank.claims.seed_verdicts import (
    attach_seed_verdicts,
    load_seed_verdicts,
    seed_kind,
    seeded_tables,
    seeds_legend,
    seeds_text,
    verdicts_document,
)
from onlinerank.config import load_settings
from onlinerank.seeds import further_seeds, main, sampled_claims, seed_config, seed_targets

BIN = str(Path(sys.executable).parent)


def smoke_file() -> dict:
    return yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())


def test_the_seeded_tables_are_the_simulations_and_the_sampled_checks():
    assert seeded_tables() == {
        "sim_upper",
        "sim_lower",
        "sim_baselines",
        "sim_spearman",
        "lemma61",
        "lower_frequencies",
    }


def test_a_claims_kind_follows_its_tables_its_stream_and_its_cells(smoke_settings):
    """Sampled: draws from its named stream, or reads a seeded table and has a cell with width;
    wall clock: reads the timings; exact: the rest (a seeded table whose cells are all exact,
    e.g. every replicate equal against a deterministic adversary, included)."""
    wide, exact = [{"lo": 0.1, "hi": 0.2}, {"lo": 0.3, "hi": 0.3}], [{"lo": 0.3, "hi": 0.3}]
    assert seed_kind(REGISTRY["thm3.1"], smoke_settings, False, wide) == "sampled"
    assert seed_kind(REGISTRY["thm3.1"], smoke_settings, False, exact) == "exact"
    assert seed_kind(REGISTRY["thm3.1"], smoke_settings, True, exact) == "sampled"  # drew
    assert seed_kind(REGISTRY["thm3.3.binomial"], smoke_settings, False, wide) == "sampled"
    assert seed_kind(REGISTRY["thm3.1.worst_case"], smoke_settings, False) == "exact"
    assert seed_kind(REGISTRY["thm3.1.worst_case"], smoke_settings, True) == "sampled"  # drew
    assert seed_kind(REGISTRY["sec4.runtime"], smoke_settings, False) == "wall clock"
    assert seed_kind(REGISTRY["sec4.hedge"], smoke_settings, False) == "exact"


def test_further_seeds_write_under_their_own_directory_and_make_only_seeded_tables():
    raw = smoke_file()
    assert further_seeds(1308, 3) == [1309, 1310, 1311]
    derived = seed_config(raw, 1310, "results-smoke")
    assert (derived["seed"], derived["results_dir"], derived["figures_dir"]) == (
        1310,
        "results-smoke/seeds/1310",
        "results-smoke/seeds/1310/figures",
    )
    assert {k: v for k, v in derived.items() if k not in ("seed", "results_dir", "figures_dir")} == {
        k: v for k, v in raw.items() if k not in ("seed", "results_dir", "figures_dir")
    }
    assert raw["seed"] == 1308 and raw["results_dir"] == "results-smoke"  # the file's config untouched
    settings = load_settings(copy.deepcopy(derived))
    targets = seed_targets(settings)
    names = sorted(Path(t).stem for t in targets)
    assert names == sorted(t for t in tables_needed(settings) if t in seeded_tables())
    assert "worst_case" not in names and "runtime" not in names and "lower_curves" not in names
    assert all(t.startswith("results-smoke/seeds/1310/tables/") for t in targets)


def _doc(verdicts: dict[str, str], kinds: dict[str, str], digest: str = "c0ffee") -> dict:
    """A claims document with one cell per claim (paper claims, then a finding)."""
    claims = []
    for cid, v in verdicts.items():
        cell = {
            "cell": "x",
            "params": {},
            "statistic": "s",
            "value": 1.0,
            "lo": 0.5,
            "hi": 1.5,
            "threshold": 2.0,
            "direction": "<=",
            "verdict": v,
            "method": "m",
            "reps": 2,
            "note": "",
            "control": "",
        }
        claims.append(
            {
                "id": cid,
                "section": "beyond" if cid.startswith("beyond") else "paper",
                "kind": "data",
                "paper_ref": "here",
                "title": f"title {cid}",
                "statement": "st",
                "statistic": "s",
                "direction": "<=",
                "threshold": 2.0,
                "test": "t",
                "about": "",
                "figures": [],
                "reason": "",
                "digest": "0123456789ab",
                "cells": [cell],
                "verdict": v,
                "seeds": {"kind": kinds[cid]},
            }
        )
    return {
        "meta": {"config_digest": digest, "commit": "abc", "alpha": 0.05, "registry_digest": "0123456789ab"},
        "claims": claims,
        "changes": [],
        "change_log": {"format": 2, "changes_after_data": 0, "unrecorded": []},
    }


def _seed_file(tmp_path: Path, seed: int, verdicts: dict[str, str], digest="c0ffee", anchor=1308) -> Path:
    records = [
        {"id": cid, "verdict": v, "digest": "0123456789ab", "cells": [{"verdict": v}]}
        for cid, v in verdicts.items()
    ]
    path = tmp_path / str(seed) / "verdicts.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(verdicts_document(seed, anchor, digest, "def", records)))
    return path


def test_held_at_s_of_s_seeds_counts_the_further_seeds_that_agree(tmp_path):
    kinds = {"a.x": "sampled", "b.y": "sampled", "c.z": "exact", "d.w": "wall clock", "beyond.f": "sampled"}
    doc = _doc({"a.x": "PASS", "b.y": "PASS", "c.z": "PASS", "d.w": "PASS", "beyond.f": "FAIL"}, kinds)
    paths = [
        _seed_file(tmp_path, 1309, {"a.x": "PASS", "b.y": "INCONCLUSIVE", "beyond.f": "FAIL"}),
        _seed_file(tmp_path, 1310, {"a.x": "PASS", "b.y": "PASS", "beyond.f": "FAIL"}),
        _seed_file(tmp_path, 1311, {"a.x": "FAIL"}, digest="0ther"),  # another config: left out
    ]
    attach_seed_verdicts(doc, load_seed_verdicts(paths), 1308)
    validate_document(doc)
    by = {c["id"]: c for c in doc["claims"]}
    assert by["a.x"]["seeds"] == {
        "kind": "sampled",
        "held": 2,
        "of": 2,
        "verdicts": {"1309": "PASS", "1310": "PASS"},
    }
    assert seeds_text(by["a.x"]) == "2 of 2"
    assert seeds_text(by["b.y"]) == "1 of 2 (1309: INCONCLUSIVE)"
    assert seeds_text(by["c.z"]) == "exact, seed-free"
    assert seeds_text(by["d.w"]) == "wall clock, seed-free"
    assert seeds_text(by["beyond.f"]) == "2 of 2"  # the finding does not hold at any seed
    meta = doc["meta"]["seeds"]
    assert (meta["anchor"], meta["further"]) == (1308, [1309, 1310])
    assert [x["seed"] for x in meta["ignored"]] == [1311] and "another config" in meta["ignored"][0]["reason"]
    md = claims_markdown(doc)
    assert "| held at s of S seeds |" in md and "| 1 of 2 (1309: INCONCLUSIVE) |" in md
    assert "rerun at the further root seeds 1309, 1310" in md and "Left out: seed 1311" in md
    assert summary_lines(doc)[-1] == (
        "Seeds 1309, 1310: 2 of 3 claims decided on sampled data kept their verdict at every further "
        "seed; not: b.y (1 of 2)"
    )
    readme = readme_summary(doc)
    assert "| headroom | held at s of S seeds | verdict |" in readme
    assert "| 2 of 2 | **PASS** |" in readme and "| 2 of 2 | does not hold |" in readme


def test_without_further_seeds_the_report_has_no_column_and_says_so():
    kinds = {"a.x": "sampled", "c.z": "exact"}
    doc = _doc({"a.x": "PASS", "c.z": "PASS"}, kinds)
    attach_seed_verdicts(doc, [], 1308)
    validate_document(doc)
    assert all("held" not in c["seeds"] for c in doc["claims"])
    md = claims_markdown(doc)
    assert "held at s of S seeds |" not in md.split("## Claims of the paper")[1].split("\n\n")[1]
    assert "Every verdict here comes from one root seed (1308)" in seeds_legend(doc)
    assert "The 1 claims decided on sampled data can be rerun" in seeds_legend(doc)
    assert "held at s of S" not in readme_summary(doc)
    assert not any(line.startswith("Seeds") for line in summary_lines(doc))
    assert sampled_claims(doc) == ["a.x"]


def test_a_malformed_verdicts_file_is_named(tmp_path):
    bad = tmp_path / "verdicts.json"
    bad.write_text('{"seed": 1309}')
    with pytest.raises(ValueError, match=r"verdicts.json: not a seed verdicts file \(KeyError"):
        load_seed_verdicts([bad])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["config/smoke.yaml", "0"], "SEEDS=0: a number of further seeds >= 1"),
        (["config/smoke.yaml", "four"], "SEEDS=four: a number of further seeds >= 1"),
        (["config/nope.yaml", "2"], "CONFIG=config/nope.yaml: no such file"),
    ],
)
def test_bad_arguments_are_one_line_naming_them(args, message, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_make_replicate_passes_the_tier_the_seeds_and_the_profile():
    """`make replicate SEEDS=4` (default tier) and with CONFIG, PROFILE and ARGS, as make -n prints
    the command (the installation counts as up to date)."""

    def line(*args):
        p = subprocess.run(
            ["make", "-n", "-o", ".venv/.installed-workflow", f"BIN={BIN}", "replicate", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        (cmd,) = [x for x in p.stdout.splitlines() if "-m onlinerank.seeds" in x]
        assert any("check-lock" in x for x in p.stdout.splitlines())
        return cmd.split()[1:]

    assert line("SEEDS=4") == ["-m", "onlinerank.seeds", "config/config.yaml", "4"]
    # every `make replicate` line of the usage page and the README, as make -n prints it
    docs = (ROOT / "docs" / "usage.md").read_text() + (ROOT / "README.md").read_text()
    commands = {
        x.split("#")[0].strip().strip("`") for x in docs.splitlines() if x.startswith("make replicate")
    }
    commands |= {"make replicate SEEDS=4"}  # the README's line, inside its sentence
    assert len(commands) >= 4, commands
    for command in sorted(commands):
        words = dict(w.split("=", 1) for w in command.split()[2:])
        want = [words.get("CONFIG", "config/config.yaml"), words["SEEDS"]]
        want += ["--workflow-profile", words["PROFILE"]] if "PROFILE" in words else []
        want += [words["ARGS"]] if "ARGS" in words else []
        assert line(*command.split()[2:]) == ["-m", "onlinerank.seeds", *want], command
    assert line("SEEDS=2", "CONFIG=config/smoke.yaml", "PROFILE=workflow/profiles/slurm", "ARGS=-n") == [
        "-m",
        "onlinerank.seeds",
        "config/smoke.yaml",
        "2",
        "--workflow-profile",
        "workflow/profiles/slurm",
        "-n",
    ]


@pytest.mark.slow
def test_a_dry_run_of_the_default_tier_plans_only_the_seeded_jobs(tmp_path):
    """`make replicate SEEDS=1 ARGS=-n` (its command) on the default tier in a fresh copy: the
    anchor's claims, then seed 1309's simulations, aggregations and its two seeded tables (no
    exact table, claims or figure), then the anchor's whole run, all dry; nothing is evaluated."""
    from conftest import copy_repo

    repo = copy_repo(tmp_path / "repo")
    p = subprocess.run(
        [sys.executable, "-m", "onlinerank.seeds", "config/config.yaml", "1", "-n", "--quiet", "rules"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr[-4000:]
    calls = [x for x in p.stderr.splitlines() if x.startswith("onlinerank.seeds: snakemake ")]
    assert [c.split("--configfile ")[1].split()[0] for c in calls] == [
        "config/config.yaml",
        "results/seeds/1309/config.yaml",
        "config/config.yaml",
    ]
    # each Snakemake call's output starts with its command line
    (seed_plan,) = [
        x for x in p.stdout.split("Command: ")[1:] if "results/seeds/1309/config.yaml" in x.splitlines()[0]
    ]
    assert "This was a dry-run" in seed_plan
    rules = {
        line.split()[0] for line in seed_plan.splitlines()[1:] if line.strip() and line.split()[-1].isdigit()
    }
    assert {"simulate", "aggregate", "table"} <= rules and not rules & {"claims", "figure", "mutations"}
    derived = yaml.safe_load((repo / "results" / "seeds" / "1309" / "config.yaml").read_text())
    assert (derived["seed"], derived["results_dir"]) == (1309, "results/seeds/1309")
    assert not list((repo / "results").rglob("verdicts.json"))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.slow
@pytest.mark.workflow
def test_make_replicate_on_the_smoke_tier_with_two_seeds(smoke_run, tmp_path, monkeypatch):
    """`make replicate SEEDS=2 CONFIG=config/smoke.yaml` (its command) in a copy of the suite's
    smoke run: seeds 1309 and 1310 make only their seeded tables, under results-smoke/seeds/, with
    other numbers than the anchor's; the anchor's tables are untouched; every sampled claim is
    counted at both seeds, every other marked seed-free, in claims.json, claims.md and the README
    summary.

    To keep the test cheap the seeds' replicate blocks are simulated beforehand in this process
    (``run_group_block``, the code of the simulate rule, whose blocks are bit-identical to the
    rule's: tests/test_workflow.py), which spares 2 x 21 simulate jobs' start-up; Snakemake then
    takes them as made, and everything after them runs as `make replicate` runs it."""
    from onlinerank.cells import STAGES, groups_of, run_group_block
    from onlinerank.io import save_results

    repo = tmp_path / "repo"
    shutil.copytree(smoke_run, repo, ignore=ignore_for_copy, symlinks=True)
    shutil.copytree(smoke_run / "results-smoke", repo / "results-smoke")
    shutil.copytree(smoke_run / ".snakemake", repo / ".snakemake", ignore=shutil.ignore_patterns("locks"))
    for seed in (1309, 1310):
        cfg = load_settings(seed_config(smoke_file(), seed, "results-smoke"))
        for stage in STAGES:
            for g, cells in groups_of(cfg, stage).items():
                for b in range(cells[0].blocks):
                    save_results(run_group_block(cfg, g, b), repo / cfg.results_dir / "sim" / g / f"b{b}.npz")
    tables = repo / "results-smoke" / "tables"
    before = {p.name: _sha(p) for p in tables.glob("*.csv")}
    p = subprocess.run(
        [sys.executable, "-m", "onlinerank.seeds", "config/smoke.yaml", "2", "--cores", "2"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert p.returncode == 0, p.stderr[-4000:]
    assert {p.name: _sha(p) for p in tables.glob("*.csv")} == before  # the anchor's tables
    for seed in (1309, 1310):
        res = repo / "results-smoke" / "seeds" / str(seed)
        made = sorted(x.stem for x in (res / "tables").glob("*.csv"))
        assert made == sorted(t for t in tables_needed(load_settings(smoke_file())) if t in seeded_tables())
        assert yaml.safe_load((res / "config.yaml").read_text())["seed"] == seed
        assert not (res / "figures").exists()
        assert _sha(res / "tables" / "sim_upper.csv") != before["sim_upper.csv"]  # another seed
    doc = json.loads((repo / "results-smoke" / "figures" / "claims.json").read_text())
    validate_document(doc)
    assert doc["meta"]["seeds"]["further"] == [1309, 1310] and not doc["meta"]["seeds"]["ignored"]
    kinds = {c["id"]: (c.get("seeds") or {}).get("kind") for c in doc["claims"]}
    for c in doc["claims"]:
        if kinds[c["id"]] == "sampled":
            assert c["seeds"]["of"] == 2 and set(c["seeds"]["verdicts"]) == {"1309", "1310"}, c["id"]
            assert c["seeds"]["held"] == sum(v == c["verdict"] for v in c["seeds"]["verdicts"].values())
    assert kinds["thm3.1"] == kinds["sec2.offline"] == kinds["lemma6.1"] == "sampled"
    assert kinds["thm3.1.worst_case"] == "exact" and kinds["sec4.runtime"] == "wall clock"
    # the greedy adversary is deterministic and the expected losses exact: every cell exact
    assert kinds["beyond.greedy"] == "exact"
    md = (repo / "results-smoke" / "figures" / "claims.md").read_text()
    assert "held at s of S seeds" in md and "exact, seed-free" in md and "wall clock, seed-free" in md
    readme = subprocess.run(
        [sys.executable, "-m", "onlinerank.claims", "readme", "results-smoke/figures/claims.json"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "held at s of S seeds" in readme
    # the verdicts at a seed are the claims of that seed's tables: seed 1309 again, in this process
    from onlinerank.seeds import evaluate_seed

    monkeypatch.chdir(repo)
    cfg = load_settings(yaml.safe_load(Path("results-smoke/seeds/1309/config.yaml").read_text()))
    some = [c for c in sampled_claims(doc) if c in ("thm3.1", "lemma6.1", "thm3.3.binomial")]
    again = evaluate_seed(cfg, "results-smoke", some, doc)
    saved = json.loads(Path("results-smoke/seeds/1309/verdicts.json").read_text())
    assert again["claims"] == [c for c in saved["claims"] if c["id"] in some]
