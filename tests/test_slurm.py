"""The SLURM profile plans every tier, and runs the whole smoke tier through a real single-node
SLURM cluster with the same tables as a local run.

The cluster is built from Debian's packages by tests/slurm_cluster.py (installed with apt-get if
missing, daemons started in the background, stopped by PID at the end).  The test skips only when
the packages cannot be installed (not root, no apt-get, apt-get failing); a cluster that is
installed but does not come up, a hanging run or different tables fail it.  What each setting of
the profile is for, and what the cluster must provide: docs/howto/slurm.md.

By hand, from the repository root (as root)::

    .venv/bin/pytest -q -s tests/test_slurm.py      # -s prints the measured durations
"""

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, copy_repo
from slurm_cluster import ClusterUnavailable, _ephemeral_low, _free_ports, bring_up, tear_down
from snakemake_server import served_env

pytestmark = pytest.mark.workflow
PROFILE = "workflow/profiles/slurm"
TIERS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "config").glob("*.yaml"))
#: the whole smoke tier through the cluster (7 SLURM jobs: 3 of simulations, 2 of tables, the timing
#: table alone, the mutations; the claims and figures run on the submitting host) takes about as
#: long as the local run on 2 cores on a busy machine: on the 2-CPU test machine, each pair one run
#: after the other, 198 s against 211 s at a load of 6-10, and 338 s against 366 s at a load of
#: 15-21; at idle about twice as long (100 s against 53 s: every member of a group job starts its
#: own Snakemake)
SLURM_TIMEOUT = 1500  # s


def run_snakemake(cwd: Path, *args: str, timeout: float, env: dict | None = None) -> tuple[int, str]:
    """Run Snakemake; on timeout stop it with SIGINT (it ignores SIGTERM while SLURM jobs run:
    docs/howto/slurm.md) and, if it still does not exit, SIGKILL its process group; then fail."""
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


def local_rules() -> set[str]:
    """The rules the Snakefile keeps on the submitting host (its ``localrules:`` block)."""
    block = re.search(r"^localrules:\n((?:    \w+,\n)+)", (ROOT / "Snakefile").read_text(), re.M)
    assert block, "no localrules: block in the Snakefile"
    return set(re.findall(r"(\w+),", block.group(1)))


def local_rule_patterns() -> list[re.Pattern]:
    """The names of the rules marked ``localrule: True`` in workflow/rules/ (a name written as an
    f-string, such as the figure batches' ``f"figures_{batch}"``, as a pattern)."""
    out = []
    for smk in sorted((ROOT / "workflow" / "rules").glob("*.smk")):
        for body in re.split(r"^\s*rule\b", smk.read_text(), flags=re.M)[1:]:
            if "localrule: True" not in body:
                continue
            named = re.search(r"name:\s*f?\"([^\"]+)\"", body) or re.match(r"\s*(\w+):", body)
            assert named, f"{smk}: a localrule without a name"
            out.append(re.compile(re.sub(r"\{[^}]*\}", r"\\w+", named.group(1))))
    return out


def planned_slurm_jobs(dry_run: str) -> tuple[list[Counter], Counter]:
    """The SLURM jobs a dry run with the profile would submit: the group jobs (the rules of each
    group's members) and the jobs submitted alone (by rule)."""
    groups: list[Counter] = []
    alone: Counter = Counter()
    local = local_rules() | {"all"}
    marked = local_rule_patterns()
    for line in dry_run.splitlines():
        if re.match(r"\[.*\] Group job \w+ ", line):
            groups.append(Counter())
        elif m := re.match(r"    rule (\w+):", line):
            groups[-1][m.group(1)] += 1
        elif (m := re.match(r"rule (\w+):", line)) and m.group(1) not in local:
            if not any(p.fullmatch(m.group(1)) for p in marked):
                alone[m.group(1)] += 1
    return groups, alone


def group_names(dry_run: str) -> Counter:
    return Counter(re.findall(r"\] Group job (\w+) ", dry_run))


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
    """The settings without which a cluster without slurmdbd hangs (docs/howto/slurm.md), and
    grouping: simulate jobs by the profile, table jobs by the rule (all but the timing table)."""
    text = (ROOT / PROFILE / "config.yaml").read_text()
    prof = yaml.safe_load(text)
    assert prof["executor"] == "slurm"
    assert prof["slurm-status-command"] == "squeue"
    assert prof["slurm-init-seconds-before-status-checks"] == 1
    assert prof["jobs"] >= 1 and prof["latency-wait"] >= 1
    assert prof["cores"] == 1  # group jobs: members one after another on one CPU
    assert {"slurm_partition", "runtime", "mem_mb"} <= set(prof["default-resources"])
    assert prof["groups"] == {"simulate": "sim", "table_piece": "tables"}
    assert prof["group-components"]["sim"] > 1
    assert prof["group-components"]["tables"] > 1
    assert not (ROOT / PROFILE / "profile.yaml").exists()  # one profile file, not both
    assert "SLURM-" + "NOTES" not in text and not re.search(r"\btrap \d", text)


@pytest.mark.parametrize("tier", TIERS)
def test_the_profile_plans_the_full_dag_of_every_tier(tier):
    """A dry run of the tier's every job with the profile: Snakemake accepts every group job (the
    members of a group must ask for the same string resources, such as slurm_extra), the table
    jobs go as groups of at most 7 without the timing table, which goes alone, and the rules of
    the Snakefile's localrules are never submitted."""
    try:
        import snakemake_executor_plugin_slurm  # noqa: F401
    except ImportError:
        pytest.fail("snakemake-executor-plugin-slurm is missing: pip install -e '.[workflow,test]'")
    rc, out = run_snakemake(
        ROOT, "--workflow-profile", PROFILE, "--configfile", tier, "-n", "--forceall", timeout=300
    )
    assert rc == 0, out[-3000:]
    groups, alone = planned_slurm_jobs(out)
    assert set(group_names(out)) == {"sim", "tables"}, group_names(out)
    prof = yaml.safe_load((ROOT / PROFILE / "config.yaml").read_text())
    for members in groups:
        assert set(members) == {"simulate"} or set(members) <= {"table", "table_piece"}, members
        # a table and its pieces are one connected component of the group
        limit = prof["group-components"]["sim" if "simulate" in members else "tables"]
        assert members["simulate"] + members["table"] <= limit, members
    tables = sum(g.get("table", 0) for g in groups)
    from onlinerank.tables import TABLE_STAGE

    config = yaml.safe_load((ROOT / tier).read_text())
    assert tables + alone["table"] == sum(
        1 for t in TABLE_STAGE if not t.startswith("sim_") and TABLE_STAGE[t] in config
    )
    assert alone["table"] == ("runtime" in config)
    assert "wildcards: table=runtime" not in "".join(re.findall(r"Group job tables.*?(?=\n\[|\Z)", out, re.S))
    assert set(alone) <= {"table", "mutations"}, alone  # every simulate job is in a group


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


@pytest.mark.slow
def test_the_whole_smoke_tier_through_slurm_gives_the_local_tables(cluster, smoke_run, tmp_path):
    """Every job of the smoke tier in a fresh copy through the profile: the SLURM jobs the dry run
    plans all complete, the local rules stay on the submitting host, and every table is
    byte-identical to the session's local run (2 cores), but the wall-clock timings.  Every
    Snakemake start, the nested one in each SLURM job and member of a group job too, comes from the
    suite's server (``served_env``: about 45 starts, 1.7 s of imports each; 142 -> 97-107 s alone),
    and so does every job's Python script of one thread (about 0.45 s of imports each; -> 52 s)."""
    remote = copy_repo(tmp_path / "slurm")
    smoke = ("--workflow-profile", PROFILE, "--configfile", "config/smoke.yaml")
    # every Snakemake start, the nested ones inside the SLURM jobs too, from the suite's server
    env = served_env(cluster.env)
    rc, plan = run_snakemake(remote, *smoke, "-n", timeout=300, env=env)
    assert rc == 0, plan[-3000:]
    groups, alone = planned_slurm_jobs(plan)
    t1 = time.monotonic()
    rc, out = run_snakemake(remote, *smoke, timeout=SLURM_TIMEOUT, env=env)
    t_slurm = time.monotonic() - t1
    shared = smoke_run.parent  # the local run's start (its pgid file) and end (its rc file)
    t_local = (shared / "rc").stat().st_mtime - (shared / "pgid").stat().st_mtime
    print(
        f"[slurm] the smoke tier through SLURM ({len(groups)} group jobs, {sum(alone.values())} "
        f"single jobs): {t_slurm:.0f} s; the session's local run (2 cores, run alongside other "
        f"tests): {t_local:.0f} s"
    )
    assert rc == 0, out[-6000:] + "\n" + cluster.logs()

    # the jobs really went through SLURM (finished jobs stay listed for MinJobAge)
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
    assert len(states) == len(groups) + sum(alone.values()), (states, groups, alone)
    assert set(states) == {"COMPLETED"}, states
    assert "localrule aggregate" in out and "localrule claims" in out  # kept on the submitting host

    local = sorted(p.name for p in (smoke_run / "results-smoke" / "tables").glob("*.csv"))
    assert sorted(p.name for p in (remote / "results-smoke" / "tables").glob("*.csv")) == local
    for name in local:
        if name != "runtime.csv":  # wall-clock seconds
            rel = f"results-smoke/tables/{name}"
            assert (smoke_run / rel).read_bytes() == (remote / rel).read_bytes(), rel
    assert (remote / "results-smoke" / "figures" / "claims.json").stat().st_size > 0
