"""The smoke tier's deterministic tables through a real single-node SLURM cluster.

The cluster is built from Debian's packages by tests/slurm_cluster.py (installed with apt-get if
missing, daemons started in the background, stopped by PID at the end).  The test skips only when
the packages cannot be installed (not root, no apt-get, apt-get failing); a cluster that is
installed but does not come up, a hanging run or different tables fail it.

By hand, from the repository root (as root)::

    .venv/bin/pytest -q -s tests/test_slurm.py      # -s prints the measured durations
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import DETERMINISTIC_TABLES, ROOT, copy_repo
from slurm_cluster import ClusterUnavailable, _ephemeral_low, _free_ports, bring_up, tear_down

pytestmark = pytest.mark.workflow
PROFILE = "workflow/profiles/slurm"
#: a part of the smoke tier through SLURM: one simulate job and one closed-form table, each as a
#: group job of the profile; every table of the tier is compared between local runs by
#: tests/test_workflow.py.  One member per group: the plugin polls squeue 1, 12, 33, 64 ... s after
#: submitting, and each member of a group costs ~5 s on this 2-CPU node (srun and a nested
#: Snakemake), so two single-member groups finish before the 12 s poll (the run takes ~17 s) where
#: groups of 2-4 members missed it and waited for the 33 s one (~37 s).  The profile's grouping
#: itself is checked by test_slurm_profile_settings.
SLURM_TABLES = ["sim_lower", "bounds_upper"]
assert set(SLURM_TABLES) <= set(DETERMINISTIC_TABLES)
TARGETS = [f"results-smoke/tables/{t}.csv" for t in SLURM_TABLES]
SLURM_TIMEOUT = 150  # s; measured ~17 s on a 2-CPU node


def run_snakemake(cwd: Path, *args: str, timeout: float, env: dict | None = None) -> tuple[int, str]:
    """Run Snakemake; on timeout stop it with SIGINT (it ignores SIGTERM while SLURM jobs run,
    SLURM-NOTES trap 3) and, if it still does not exit, SIGKILL its process group; then fail."""
    p = subprocess.Popen(
        [sys.executable, "-m", "snakemake", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGINT)
        try:
            out, _ = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
        pytest.fail(
            f"`snakemake {' '.join(args)}` did not finish within {timeout} s; stopped with "
            f"SIGINT (exit {p.returncode}). Last output:\n{out[-5000:]}"
        )
    return p.returncode, out


@pytest.fixture(scope="module")
def cluster():
    t0 = time.monotonic()
    try:
        c = bring_up()
    except ClusterUnavailable as err:
        pytest.skip(f"no SLURM cluster on this machine: {err}")
    print(
        f"\n[slurm] packages installed in {c.installed_seconds:.1f} s (0 = already there), "
        f"daemons up (srun works) in {c.startup_seconds:.1f} s, fixture {time.monotonic() - t0:.1f} s"
    )
    # the profile's partition comes from this variable (default "debug", the test cluster's)
    c.env["ONLINERANK_SLURM_PARTITION"] = "debug"
    yield c
    t1 = time.monotonic()
    tear_down(c)
    print(f"[slurm] torn down in {time.monotonic() - t1:.1f} s")


def test_cluster_ports_lie_below_the_ephemeral_range():
    """slurmd once failed to start with "Address already in use": its port, picked by the kernel
    from the ephemeral range, had been taken meanwhile by an outgoing connection of the parallel
    test suite.  Ports below that range are never handed out that way."""
    ports = _free_ports(50)
    assert len(set(ports)) == 50
    assert all(10000 <= p < _ephemeral_low() for p in ports)


def test_slurm_profile_settings():
    """The settings without which a cluster without slurmdbd hangs (SLURM-NOTES), and grouping."""
    text = (ROOT / PROFILE / "config.yaml").read_text()
    prof = yaml.safe_load(text)
    assert prof["executor"] == "slurm"
    assert prof["slurm-status-command"] == "squeue"
    assert prof["slurm-init-seconds-before-status-checks"] == 1
    assert prof["jobs"] >= 1 and prof["latency-wait"] >= 1
    assert prof["cores"] == 1  # group jobs: members one after another on one CPU
    assert {"slurm_partition", "runtime", "mem_mb"} <= set(prof["default-resources"])
    assert prof["groups"]["simulate"] == "sim" and prof["group-components"]["sim"] > 1
    assert not (ROOT / PROFILE / "profile.yaml").exists()  # one profile file, not both


def test_slurm_profile_dry_run():
    """The profile parses and the plugin is installed (part of the `test` extra)."""
    try:
        import snakemake_executor_plugin_slurm  # noqa: F401
    except ImportError:
        pytest.fail("snakemake-executor-plugin-slurm is missing: pip install -e '.[workflow,test]'")
    rc, out = run_snakemake(
        ROOT,
        *TARGETS,
        "--workflow-profile",
        PROFILE,
        "--configfile",
        "config/smoke.yaml",
        "-n",
        "--forceall",
        timeout=120,
    )
    assert rc == 0, out[-3000:]
    assert "Group job sim" in out and "Group job tables" in out, out[-3000:]


def test_cluster_helper_skips_only_for_install_problems(monkeypatch):
    """Missing packages that cannot be installed mean a skip, with the reason in the message."""
    import slurm_cluster as sc

    monkeypatch.setattr(sc, "_missing", lambda: ["slurmd"])
    monkeypatch.setattr(sc.os, "geteuid", lambda: 1000)
    with pytest.raises(sc.ClusterUnavailable, match="not root"):
        sc.install()
    monkeypatch.setattr(sc.os, "geteuid", lambda: 0)
    monkeypatch.setattr(sc.shutil, "which", lambda prog: None)
    with pytest.raises(sc.ClusterUnavailable, match="no apt-get"):
        sc.install()
    monkeypatch.setattr(sc, "_missing", lambda: [])
    assert sc.install() == 0.0  # nothing to install, nothing run


def test_smoke_tables_identical_on_slurm(cluster, smoke_run, tmp_path):
    """The session's local smoke run (2 cores) against the same targets through SLURM."""
    t1 = time.monotonic()
    remote = copy_repo(tmp_path / "slurm")
    # targets first: --configfile takes several values (SLURM-NOTES trap 5)
    rc, out = run_snakemake(
        remote,
        *TARGETS,
        "--workflow-profile",
        PROFILE,
        "--configfile",
        "config/smoke.yaml",
        timeout=SLURM_TIMEOUT,
        env=cluster.env,
    )
    t_slurm = time.monotonic() - t1
    print(f"[slurm] SLURM run of the {len(TARGETS)} tables: {t_slurm:.1f} s")
    assert rc == 0, out[-6000:] + "\n" + cluster.logs()

    # the jobs really went through SLURM (finished jobs stay listed for MinJobAge = 600 s)
    run_id = next(
        line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("SLURM run ID:")
    )
    jobs = subprocess.run(
        ["squeue", "-h", "-t", "all", "-n", run_id, "-o", "%i %T"],
        env=cluster.env,
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout.split("\n")
    states = [j.split()[1] for j in jobs if j.strip()]
    assert len(states) == 2, (states, out[-3000:])  # the simulate group and the tables group
    assert set(states) == {"COMPLETED"}, states
    assert "localrule aggregate" in out  # short rules stayed on the submitting host

    for rel in TARGETS:
        assert (smoke_run / rel).read_bytes() == (remote / rel).read_bytes(), rel
