"""onlinerank.provenance (read-only checks of config_digest, git_commit, sha256_file, manifest):
each against an independent computation (hashlib, git itself)."""

import hashlib
import json
import subprocess

import pytest

from onlinerank import __version__
from onlinerank.provenance import config_digest, git_commit, manifest, sha256_file


def test_config_digest_is_the_sha256_of_the_canonical_json():
    cfg = {"seed": 3, "learners": {"b": {"name": "ftl"}, "a": {"name": "onlinerank", "eta": 0.5}}}
    canonical = '{"learners":{"a":{"eta":0.5,"name":"onlinerank"},"b":{"name":"ftl"}},"seed":3}'
    assert config_digest(cfg) == hashlib.sha256(canonical.encode()).hexdigest()[:12]


def test_config_digest_ignores_key_order_and_strict_but_not_values():
    a = {"seed": 1, "upper": {"n": [4, 8], "T": [10]}}
    b = {"upper": {"T": [10], "n": [4, 8]}, "seed": 1}
    assert config_digest(a) == config_digest(b)
    assert config_digest({**a, "strict": True}) == config_digest(a)  # the exit status, not results
    assert config_digest({**a, "seed": 2}) != config_digest(a)
    assert config_digest({"seed": 1, "upper": {"n": [8, 4], "T": [10]}}) != config_digest(
        a
    )  # order of a list


def test_sha256_file_matches_hashlib_across_chunks(tmp_path):
    data = bytes(range(256)) * 5000 + b"tail"  # > 1 MiB: several chunks
    path = tmp_path / "blob.bin"
    path.write_bytes(data)
    assert sha256_file(path) == hashlib.sha256(data).hexdigest()
    (tmp_path / "empty").write_bytes(b"")
    assert sha256_file(tmp_path / "empty") == hashlib.sha256(b"").hexdigest()


def git(cwd, *args):
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "figures").mkdir()
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "figures" / "fig.txt").write_text("old\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "first")
    return tmp_path


def test_git_commit_is_the_short_head_and_marks_a_dirty_tree(repo):
    head = git(repo, "rev-parse", "--short=10", "HEAD")
    assert git_commit(repo) == head
    (repo / "figures" / "fig.txt").write_text("regenerated\n")  # the pipeline's own outputs
    (repo / "untracked.py").write_text("")  # untracked files do not count
    assert git_commit(repo) == head
    (repo / "code.py").write_text("x = 2\n")
    assert git_commit(repo) == head + "+dirty"


def test_git_commit_outside_a_repository_is_unknown(tmp_path):
    assert git_commit(tmp_path) == "unknown"


def test_manifest_lists_the_sha256_of_every_file_with_the_provenance(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "t.csv").write_text("n\n1\n")
    (tmp_path / "a.png").write_bytes(b"\x89PNG")
    text = manifest(["b/t.csv", "a.png"], "abc123", "deadbeef+dirty")
    doc = json.loads(text)
    assert text.endswith("\n")
    assert doc["files"] == {
        "a.png": hashlib.sha256(b"\x89PNG").hexdigest(),
        "b/t.csv": hashlib.sha256(b"n\n1\n").hexdigest(),
    }
    assert list(doc["files"]) == ["a.png", "b/t.csv"]
    assert doc["config_digest"] == "abc123"
    assert doc["git_commit"] == "deadbeef+dirty"
    assert doc["package_version"] == __version__
    assert manifest(["a.png", "b/t.csv"], "abc123", "deadbeef+dirty") == text  # order-independent
