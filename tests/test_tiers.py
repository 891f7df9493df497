"""The Makefile's tier targets (onlinerank.tiers): one figure of any tier (`make figure`), and a
stale Snakemake lock found before a run, named with `make unlock` (tested on crafted lock files in a
temporary directory and with a live process standing in for a running Snakemake)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, copy_repo

from onlinerank.tiers import figure_names, lock_problem, main, snakemake_processes

BIN = str(Path(sys.executable).parent)


def make_dry_run(*args: str) -> list[str]:
    """``make -n`` in the repository (nothing runs; the installation counts as up to date)."""
    p = subprocess.run(
        ["make", "-n", "-o", ".venv/.installed-workflow", f"BIN={BIN}", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return p.stdout.splitlines()


def snakemake_line(lines: list[str]) -> list[str]:
    (line,) = [x for x in lines if x.startswith(f"{BIN}/snakemake ")]
    return line.split()


def test_make_figure_names_the_figure_as_the_run_option_of_its_tier():
    """`make figure NAME=x CONFIG=config/smoke.yaml`: the tier's config file, then the run option
    `figure` (after --configfile, which takes every word up to the next option as a config file)."""
    cmd = snakemake_line(make_dry_run("figure", "NAME=x", "CONFIG=config/smoke.yaml"))
    assert cmd[1:] == ["--configfile", "config/smoke.yaml", "--config", "figure=x"]
    cmd = snakemake_line(make_dry_run("figure", "NAME=regret_vs_T"))  # the default tier
    assert cmd[1:] == ["--configfile", "config/config.yaml", "--config", "figure=regret_vs_T"]
    lines = make_dry_run("figure", "NAME=regret_vs_T", "CONFIG=config/smoke.yaml")
    assert any("check-figure config/smoke.yaml" in x for x in lines)
    assert any("check-lock config/smoke.yaml" in x for x in lines)


def test_make_unlock_and_the_lock_check_before_each_run():
    assert snakemake_line(make_dry_run("unlock", "CONFIG=config/smoke.yaml"))[1:] == [
        "--configfile",
        "config/smoke.yaml",
        "--unlock",
    ]
    for target, config in (("smoke", "config/smoke.yaml"), ("figures", "config/config.yaml")):
        assert any(x.endswith(f"-m onlinerank.tiers check-lock {config}") for x in make_dry_run(target))
    readme = (ROOT / "README.md").read_text()
    assert "make figure NAME=regret_vs_T CONFIG=config/smoke.yaml" in readme and "make unlock" in readme


def test_an_unknown_figure_name_is_one_line_with_a_suggestion(capsys):
    assert "regret_vs_T" in figure_names() and len(figure_names()) >= 18
    assert main(["check-figure", str(ROOT / "config" / "smoke.yaml"), "regret_vs_T"]) == 0
    assert main(["check-figure", str(ROOT / "config" / "smoke.yaml"), "regret_v"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "NAME=regret_v" in err and "did you mean 'regret_vs_T'?" in err
    assert main(["check-lock", "no/such.yaml"]) == 2
    assert "CONFIG=no/such.yaml: no such file" in capsys.readouterr().err


def test_make_figure_without_a_name_says_so_in_one_line():
    """``make figure NAME=``: the one line naming the problem and nothing else (no figure path is
    asked for an empty name, so no ``usage:`` line of ``onlinerank.tiers`` comes first)."""
    p = subprocess.run(
        ["make", "-s", "-o", ".venv/.installed-workflow", f"BIN={BIN}", "figure", "NAME="],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert p.returncode != 0 and p.stdout == ""
    ours = [line for line in p.stderr.splitlines() if not line.startswith("make")]
    assert len(ours) == 1 and ours[0].startswith("onlinerank: NAME=(empty): not a figure"), p.stderr


@pytest.mark.slow
def test_snakemake_takes_the_printed_command_line_as_one_figure(tmp_path):
    """The command `make figure` prints, run as a dry run in a copy of the repository: Snakemake
    plans that figure in a job of its own and what it needs (the one table it reads), no other
    figure, table or claim."""
    repo = copy_repo(tmp_path / "repo")
    cmd = snakemake_line(make_dry_run("figure", "NAME=lower_hc", "CONFIG=config/smoke.yaml"))
    p = subprocess.run(
        # --quiet host: the jobs' blocks, which the default profile leaves out, name the outputs
        [sys.executable, "-m", "snakemake", *cmd[1:], "-n", "--quiet", "host"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    out = p.stdout + p.stderr
    assert "results-smoke/figures/lower_hc.png" in out
    assert "regret_vs_T" not in out and "claims.md" not in out
    jobs = out[out.index("Job stats:") :].split("\n\n")[0].splitlines()[3:]
    assert {r.split()[0]: int(r.split()[1]) for r in jobs} == {
        "table": 1,
        "figures_lower_hc": 1,
        "all": 1,
        "total": 3,
    }


def write_lock(workdir: Path, kind: str, paths: list[str]) -> None:
    """A lock file as Snakemake's file backend writes it: one path per line."""
    lockdir = workdir / ".snakemake" / "locks"
    lockdir.mkdir(parents=True, exist_ok=True)
    (lockdir / f"0.{kind}.lock").write_text("\n".join(paths) + "\n")


def test_no_lock_no_problem(tmp_path):
    assert lock_problem(tmp_path) is None
    (tmp_path / ".snakemake" / "locks").mkdir(parents=True)
    assert lock_problem(tmp_path) is None


def test_a_stale_lock_is_named_with_make_unlock_when_it_overlaps_the_tier(tmp_path):
    write_lock(tmp_path, "output", ["results-smoke/tables/lower_hc.csv", "results-smoke/figures/x.png"])
    write_lock(tmp_path, "input", ["src/onlinerank/io.py"])
    line = lock_problem(tmp_path, ["results-smoke", "results-smoke/figures"], "config/smoke.yaml")
    assert line is not None and "\n" not in line
    assert "stale Snakemake lock" in line and "make unlock CONFIG=config/smoke.yaml" in line
    assert "0.output.lock" in line and "0.input.lock" not in line  # only the lock in its way
    # another tier's run is not stopped by it (Snakemake refuses only overlapping files)
    assert lock_problem(tmp_path, ["results", "figures"], "config/config.yaml") is None
    assert lock_problem(tmp_path) is not None  # any lock, without a tier


def test_a_lock_of_a_live_snakemake_is_that_runs_not_stale(tmp_path):
    """A process whose command line runs `snakemake` in the directory holds the lock; once it has
    ended the same lock is stale.  Elsewhere, or without /proc, nothing is said."""
    if not Path("/proc/self/cwd").exists():
        pytest.skip("no /proc on this system: processes cannot be listed (the check says nothing)")
    write_lock(tmp_path, "output", ["results-x/tables/a.csv"])
    fake = tmp_path / "bin" / "snakemake"  # stands in for .venv/bin/snakemake
    fake.parent.mkdir()
    fake.write_text("import time\ntime.sleep(60)\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = subprocess.Popen([sys.executable, str(fake)], cwd=elsewhere)
    proc = subprocess.Popen([sys.executable, str(fake)], cwd=tmp_path)
    try:
        deadline = time.monotonic() + 10
        while proc.pid not in (snakemake_processes(tmp_path) or []) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert snakemake_processes(tmp_path) == [proc.pid]
        assert snakemake_processes(elsewhere) == [other.pid]
        line = lock_problem(tmp_path, ["results-x"], "x.yaml")
        assert line is not None and f"pid {proc.pid}" in line and "make unlock" not in line
    finally:
        for p in (proc, other):
            p.kill()
            p.wait()
    assert snakemake_processes(tmp_path) == []
    assert "make unlock CONFIG=x.yaml" in (lock_problem(tmp_path, ["results-x"], "x.yaml") or "")
    assert lock_problem(tmp_path, ["results-x"], "x.yaml", proc=tmp_path / "no-proc") is None


def test_check_lock_exits_1_with_the_line(tmp_path, capsys, monkeypatch):
    (tmp_path / "t.yaml").write_text("seed: 1\nresults_dir: res\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check-lock", "t.yaml"]) == 0
    write_lock(tmp_path, "output", [os.path.join("res", "figures", "a.png")])
    assert main(["check-lock", "t.yaml"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "make unlock CONFIG=t.yaml" in err


def test_snakemake_output_is_short_by_default_and_full_with_quiet_host():
    """The default profile leaves out each job's block of inputs and outputs (hundreds of code
    inputs per job: about 1,100 lines for a smoke run, up to about 2,500 characters long; what is
    left, such as Snakemake's list of the rule names, stays under 300 characters a line);
    ``--quiet host`` replaces the setting and shows them (run-part.md)."""
    import yaml

    profile = yaml.safe_load((ROOT / "workflow" / "profiles" / "default" / "config.yaml").read_text())
    assert profile["quiet"] == ["rules", "host"]
    outputs = {}
    for extra in ((), ("--quiet", "host")):
        p = subprocess.run(
            [
                sys.executable,
                "-m",
                "snakemake",
                "--configfile",
                "config/smoke.yaml",
                "-n",
                "--forceall",
                *extra,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert p.returncode == 0, p.stderr[-2000:]
        outputs[extra] = (p.stdout + p.stderr).splitlines()
    short, full = outputs[()], outputs[("--quiet", "host")]
    assert "Job stats:" in short and not any(line.strip().startswith("input:") for line in short)
    assert max(map(len, short)) < 300 and len(short) < 100, (len(short), max(map(len, short)))
    jobs = sum(bool(re.match(r"(local)?rule \w+:", line)) for line in full)
    assert sum(line.strip().startswith("input:") for line in full) >= jobs > 20 and len(full) > 5 * len(short)
