"""Pinned, recorded versions: the lock files that `make` installs from, their
agreement with pyproject.toml and environment.yml, the Makefile's reinstall on a lock refresh,
and the versions that the manifest and the claims report record."""

import importlib.util
import os
import platform
import re
import shutil
import subprocess
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from onlinerank import provenance

ROOT = Path(__file__).resolve().parents[1]
LOCKS = ROOT / "requirements"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+?)(?:\s|$)")


def parse_lock(path: Path) -> dict[str, tuple[str, list[str]]]:
    """{canonical name: (version, [hashes])} of a pip-compile --generate-hashes file."""
    out, name = {}, None
    for line in path.read_text().splitlines():
        m = PIN.match(line)
        if m:
            name = canonicalize_name(m.group(1))
            out[name] = (m.group(2), [])
        for h in re.findall(r"--hash=(sha256:[0-9a-f]{64})", line):
            out[name][1].append(h)
    return out


TEST = parse_lock(LOCKS / "test.txt")
WORKFLOW = parse_lock(LOCKS / "workflow.txt")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def requirements(*extras: str) -> list[Requirement]:
    reqs = [*PYPROJECT["project"]["dependencies"], *PYPROJECT["build-system"]["requires"]]
    for e in extras:
        reqs += PYPROJECT["project"]["optional-dependencies"][e]
    return [Requirement(r) for r in reqs]


@pytest.mark.parametrize(
    "lock, extras",
    [(WORKFLOW, ("workflow",)), (TEST, ("workflow", "test", "notebook", "cluster"))],
    ids=["workflow.txt", "test.txt"],
)
def test_lock_pins_every_requirement_of_pyproject_within_its_range(lock, extras):
    """A dependency added to pyproject.toml without `make lock` fails here (make installs the lock)."""
    for req in requirements(*extras):
        name = canonicalize_name(req.name)
        assert name in lock, f"{req} is not in the lock: run `make lock`"
        assert req.specifier.contains(lock[name][0], prereleases=True), (str(req), lock[name][0])


def test_every_pin_is_exact_and_hashed():
    for lock in (TEST, WORKFLOW):
        assert len(lock) > 50
        for name, (ver, hashes) in lock.items():
            assert re.fullmatch(r"[0-9][0-9A-Za-z.+!-]*", ver), (name, ver)
            assert hashes, f"{name} has no hash"


def test_workflow_lock_is_the_test_lock_restricted():
    """`make figures` and `make test` install the same version of every package they share."""
    assert set(WORKFLOW) < set(TEST)
    for name, (ver, _) in WORKFLOW.items():
        assert TEST[name][0] == ver, name
    assert "jupyterlab" in TEST and "pytest" in TEST
    assert "jupyterlab" not in WORKFLOW and "pytest" not in WORKFLOW  # make figures stays lean


def test_locks_are_portable():
    """No machine-specific index, mirror or path in a lock file."""
    for path in LOCKS.glob("*.txt"):
        text = path.read_text()
        assert "file://" not in text and "--index-url" not in text and "--find-links" not in text, path
        assert "/opt/" not in text and "/work/" not in text, path
        assert "make lock" in text.split("\n\n")[0], path  # how to refresh it, in its header


def test_environment_yml_has_the_same_pins():
    spec = importlib.util.spec_from_file_location("lock_environment", LOCKS / "environment.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = (ROOT / "environment.yml").read_text()
    assert text == mod.environment_yml(LOCKS / "test.txt"), "environment.yml is stale: run `make lock`"
    pins = dict(re.findall(r"^ {6}- ([A-Za-z0-9._-]+)==(\S+)$", text, re.M))
    assert {canonicalize_name(k): v for k, v in pins.items()} == {k: v for k, (v, _) in TEST.items()}
    assert re.search(r"^  - python=3\.11$", text, re.M)


def test_the_running_environment_is_the_locked_one():
    """`make test` installs test.txt; the versions the results depend on are exactly those."""
    for pkg in ("numpy", "scipy", "numba", "llvmlite", "matplotlib", "snakemake"):
        assert version(pkg) == TEST[pkg][0], f"{pkg} {version(pkg)} is not the locked {TEST[pkg][0]}"


def test_versions_for_the_manifest_and_the_claims_report():
    v = provenance.versions()
    assert list(v)[:1] == ["python"] and v["python"] == platform.python_version()
    for pkg in ("numpy", "numba", "scipy", "snakemake"):
        assert v[pkg] == version(pkg)
    line = provenance.versions_line(v)
    assert line.startswith(f"Python {platform.python_version()}, numpy {version('numpy')}, ")
    assert "\n" not in line and f"snakemake {version('snakemake')}" in line
    assert provenance.versions_line({"python": "3.11.0", "numpy": "not installed"}) == (
        "Python 3.11.0, numpy not installed"
    )


def test_manifest_holds_the_versions(tmp_path):
    import json

    f = tmp_path / "a.csv"
    f.write_text("x\n")
    man = json.loads(provenance.manifest([str(f)], "abc", "deadbeef", {"python": "3.11.7", "numpy": "9"}))
    assert man["versions"] == {"python": "3.11.7", "numpy": "9"}
    assert json.loads(provenance.manifest([str(f)], "abc", "deadbeef"))["versions"] == provenance.versions()


def make_dry_run(repo: Path, target: str) -> str:
    p = subprocess.run(["make", "-n", target], cwd=repo, capture_output=True, text=True, check=True)
    return p.stdout


@pytest.fixture
def fake_installed_repo(tmp_path):
    """The Makefile, pyproject.toml and the locks, with a .venv whose stamps are up to date."""
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, repo)
    shutil.copytree(LOCKS, repo / "requirements")
    (repo / ".venv" / "bin").mkdir(parents=True)
    (repo / ".venv" / "bin" / "python").touch()
    old = 1_000_000_000
    for p in [repo / "Makefile", repo / "pyproject.toml", *(repo / "requirements").iterdir()]:
        os.utime(p, (old, old))
    for stamp in (".installed-test", ".installed-workflow"):
        (repo / ".venv" / stamp).touch()
    return repo


def test_make_installs_from_the_locks_and_reinstalls_after_a_refresh(fake_installed_repo):
    repo = fake_installed_repo
    assert "pip install" not in make_dry_run(repo, "test")
    assert "pip install" not in make_dry_run(repo, "figures")
    os.utime(repo / "requirements" / "test.txt")  # `make lock` rewrote it
    out = make_dry_run(repo, "test")
    assert "pip install --quiet --no-compile --require-hashes -r requirements/test.txt" in out
    # pip is quiet: one line first says what is installed and roughly how long
    assert "onlinerank: installing the pinned packages of requirements/test.txt" in out and "minutes" in out
    assert "pip install --quiet --no-deps --no-build-isolation -e ." in out
    # pip compiles nothing; the installed packages and the project's sources are compiled after it
    assert re.search(r"compileall\.compile_dir\(.* \.venv/lib src$", out, re.M), out
    os.utime(repo / "requirements" / "workflow.txt")
    out = make_dry_run(repo, "figures")
    assert "pip install --quiet --no-compile --require-hashes -r requirements/workflow.txt" in out
    assert re.search(r"compileall\.compile_dir\(.* \.venv/lib src$", out, re.M), out
    assert "requirements/test.txt" not in out  # make figures never installs the test tools


def test_make_lock_refreshes_both_locks_and_environment_yml(fake_installed_repo):
    out = make_dry_run(fake_installed_repo, "lock")
    assert "pip-tools==" in out  # its own, pinned tool
    compile_lines = [line for line in out.splitlines() if "pip-compile" in line]
    assert len(compile_lines) == 2
    assert all("--generate-hashes" in line and "--upgrade" in line for line in compile_lines)
    assert "-o requirements/test.txt" in compile_lines[0]
    assert "-c requirements/test.txt -o requirements/workflow.txt" in compile_lines[1]
    assert "requirements/environment.py requirements/test.txt > environment.yml" in out
