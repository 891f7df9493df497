"""The command line: output, and bad arguments (one-line error, exit status 2, nothing written)."""

import os
import subprocess
import sys

import pytest

from onlinerank.cli import main


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "onlinerank.cli", *args], capture_output=True, text=True, cwd=cwd
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
    assert "789.831" in out  # GOLDEN G2: n sqrt(T M ln2) for n=10, T=1000, M=9
    assert "750.339" in out


@pytest.mark.parametrize(
    "args, needle",
    [
        (["simulate", "--n", "3", "--T", "10", "--family", "kchoice", "--k", "5"], "k must be <= n"),
        (["simulate", "--n", "6", "--T", "10", "--family", "kchoice", "--k", "4"], "k <= n/2"),
        (["simulate", "--n", "3", "--T", "0"], "--T"),
        (["simulate", "--n", "1", "--T", "5"], "n must be"),
        (["simulate", "--n", "3", "--T", "5", "--sampler", "bubble"], "--sampler"),
        (["simulate", "--n", "3", "--T", "5", "--adversary", "nobody"], "--adversary"),
        (["simulate", "--n", "3", "--T", "5", "--eta", "-1"], "--eta"),
        (["simulate", "--n", "x", "--T", "5"], "--n"),
    ],
)
def test_bad_arguments_exit_2_one_line(tmp_path, args, needle):
    before = set(os.listdir(tmp_path))
    p = run(*args, cwd=tmp_path)
    assert p.returncode == 2
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], p.stderr
    assert set(os.listdir(tmp_path)) == before


def test_help_lists_examples():
    p = run("simulate", "--help")
    assert p.returncode == 0 and "--sampler" in p.stdout and "examples" in p.stdout
