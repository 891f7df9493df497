"""A throw-away single-node SLURM cluster from Debian's packages, for tests/test_slurm.py.

    from slurm_cluster import bring_up, tear_down, ClusterUnavailable
    cluster = bring_up()          # installs the packages if needed, starts the daemons, waits
    env = cluster.env             # os.environ + SLURM_CONF: pass it to sbatch/srun/snakemake
    ...
    tear_down(cluster)            # stops exactly the processes bring_up started

By hand (as root)::

    .venv/bin/python tests/slurm_cluster.py up      # prints `export SLURM_CONF=...` and the PIDs
    .venv/bin/python tests/slurm_cluster.py down    # reads the PIDs back and stops them

``up`` exits with status 77 (automake's "skipped") where the packages cannot be installed, 1 when
the cluster does not come up.

No systemd is needed or used (see design §slurm in docs/design.md): munged (as user munge),
slurmctld -D and slurmd -D are started as background processes whose configuration, state,
spool, logs, munge key and munge socket all live under one scratch directory; the daemons listen
on free ports chosen at start-up, so neither a system munged/slurmctld nor a second test cluster
gets in the way.  Clients find the cluster through ``SLURM_CONF`` (set in ``cluster.env``).

``bring_up`` raises :class:`ClusterUnavailable` only when the packages are missing and cannot be
installed (not root, no apt-get, apt-get failing); a cluster that is installed but does not come
up raises :class:`ClusterError` with the daemons' log tails, so that a test fails loudly rather
than skipping.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

PACKAGES = ["munge", "slurmctld", "slurmd", "slurm-client"]
PROGRAMS = [
    "munged",
    "mungekey",
    "slurmctld",
    "slurmd",
    "srun",
    "sbatch",
    "squeue",
    "scancel",
    "sinfo",
    "scontrol",
]
PARTITION = "debug"
NODE = "localnode"
STATE_FILE = Path(tempfile.gettempdir()) / "onlinerank-slurm-cluster.json"  # for the CLI only


class ClusterUnavailable(RuntimeError):
    """The SLURM packages are not installed and cannot be installed here (tests skip)."""


class ClusterError(RuntimeError):
    """The packages are there but the cluster did not come up (tests fail)."""


@dataclass
class Cluster:
    scratch: Path
    conf: Path
    env: dict
    pids: dict = field(default_factory=dict)  # name -> pid, in start order
    procs: dict = field(default_factory=dict)  # name -> Popen (when started by this process)
    installed_seconds: float = 0.0
    startup_seconds: float = 0.0

    def logs(self, lines: int = 25) -> str:
        out = []
        for p in sorted((self.scratch / "log").glob("*.log")):
            tail = p.read_text(errors="replace").splitlines()[-lines:]
            out.append(f"--- {p} (last {len(tail)} lines)\n" + "\n".join(tail))
        return "\n".join(out)


def _missing() -> list[str]:
    return [p for p in PROGRAMS if shutil.which(p) is None and not Path("/usr/sbin", p).exists()]


def install(timeout: float = 300) -> float:
    """Install the Debian packages if a program is missing; returns the seconds it took."""
    missing = _missing()
    if not missing:
        return 0.0
    why = f"SLURM programs missing ({', '.join(missing)})"
    if os.geteuid() != 0:
        raise ClusterUnavailable(f"{why} and not root: cannot apt-get install {' '.join(PACKAGES)}")
    if shutil.which("apt-get") is None:
        raise ClusterUnavailable(f"{why} and no apt-get on this machine")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", *PACKAGES]
    t0 = time.monotonic()
    errors = []
    for attempt in ("install", "update", "install"):
        left = timeout - (time.monotonic() - t0)
        if left <= 0:
            errors.append("timed out")
            break
        args = cmd if attempt == "install" else ["apt-get", "update"]
        try:
            p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=left)
        except subprocess.TimeoutExpired:
            errors.append(f"`{' '.join(args)}` timed out after {timeout:.0f} s")
            break
        if p.returncode != 0:
            errors.append(
                f"`{' '.join(args)}` exited {p.returncode}: {(p.stderr or p.stdout).strip()[-800:]}"
            )
            if attempt == "update":
                break
        elif attempt == "install" and not _missing():
            return time.monotonic() - t0
    raise ClusterUnavailable(f"{why}; apt-get could not install {' '.join(PACKAGES)}: " + " | ".join(errors))


def _ephemeral_low() -> int:
    """Lowest port the kernel hands out as the local end of outgoing connections."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _free_ports(k: int) -> list[int]:
    """``k`` ports free now, below the ephemeral range.  A port the kernel picked (bind to 0) is an
    ephemeral one: between choosing it and slurmd binding it, any outgoing connection of the
    busy machine (a parallel test suite) could take it as its local port, and slurmd then failed
    with "Address already in use"."""
    rng = random.Random()
    hi = max(_ephemeral_low(), 12000)
    ports: list[int] = []
    while len(ports) < k:
        port = rng.randrange(10000, hi)
        if port in ports:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        ports.append(port)
    return ports


def _mem_total_mb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) // 1024
    return 4096


def _write_conf(scratch: Path) -> Path:
    host = socket.gethostname().split(".")[0]
    ctld_port, slurmd_port = _free_ports(2)
    cpus = os.cpu_count() or 1
    mem = int(0.8 * _mem_total_mb())
    s = scratch
    conf = s / "slurm.conf"
    conf.write_text(f"""\
# written by tests/slurm_cluster.py: one node, no cgroups, no accounting, everything under {s}
ClusterName=onlinerank-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={s}/munge/munge.socket
StateSaveLocation={s}/state
SlurmdSpoolDir={s}/spool
SlurmctldPidFile={s}/run/slurmctld.pid
SlurmdPidFile={s}/run/slurmd.pid
SlurmctldLogFile={s}/log/slurmctld.log
SlurmdLogFile={s}/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
DefMemPerCPU=1024
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MailProg=/bin/true
MpiDefault=none
SlurmdParameters=config_overrides
ReturnToService=2
# > 180 s, the slurm executor plugin's longest poll interval, and longer than a whole test run
# (tests/test_slurm.py counts its finished jobs with squeue afterwards): docs/howto/slurm.md
MinJobAge=3600
NodeName={NODE} NodeHostname={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={mem} State=UNKNOWN
PartitionName={PARTITION} Nodes={NODE} Default=YES MaxTime=INFINITE State=UP
""")
    return conf


def _write_wrappers(scratch: Path, conf: Path) -> Path:
    """Client commands that always talk to this cluster.

    The slurm executor's job step (snakemake-executor-plugin-slurm-jobstep) removes every
    SLURM_* variable, SLURM_CONF included, before it calls `srun` inside a job, so a cluster whose
    slurm.conf is not at the compiled-in default (/etc/slurm/slurm.conf) is not found there.  Rather
    than writing into /etc, the test puts these wrappers first on PATH (jobs inherit PATH).
    """
    bindir = scratch / "bin"
    bindir.mkdir()
    for prog in ("srun", "sbatch", "squeue", "scancel", "sinfo", "scontrol"):
        # the real program, never another cluster's wrapper that happens to be on PATH
        real = next(
            (str(Path(d, prog)) for d in ("/usr/bin", "/usr/local/bin") if Path(d, prog).exists()), None
        ) or shutil.which(prog)
        if real is None:
            continue
        w = bindir / prog
        w.write_text(f'#!/bin/sh\nSLURM_CONF="{conf}" exec "{real}" "$@"\n')
        w.chmod(0o755)
    return bindir


def _start(cluster: Cluster, name: str, cmd: list[str]) -> None:
    log = open(cluster.scratch / "log" / f"{name}.out.log", "wb")
    p = subprocess.Popen(
        cmd,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=cluster.env,
        start_new_session=True,
    )
    log.close()
    cluster.procs[name] = p
    cluster.pids[name] = p.pid


def _check_alive(cluster: Cluster) -> None:
    for name, p in cluster.procs.items():
        if p.poll() is not None:
            raise ClusterError(f"{name} exited with status {p.returncode} during start-up\n" + cluster.logs())


def _wait(cluster: Cluster, what: str, ok, deadline: float) -> None:
    while True:
        _check_alive(cluster)
        if ok():
            return
        if time.monotonic() > deadline:
            raise ClusterError(f"timed out waiting for {what}\n" + cluster.logs())
        time.sleep(0.2)


def _run_ok(cluster: Cluster, cmd: list[str], timeout: float) -> bool:
    try:
        return subprocess.run(cmd, env=cluster.env, capture_output=True, timeout=timeout).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def bring_up(timeout: float = 90, install_timeout: float = 300) -> Cluster:
    """Install (if needed) and start a one-node cluster; wait until `srun -N1 -n1 true` works."""
    installed = install(install_timeout)
    if os.geteuid() != 0:  # installed, but slurmd must run as root to launch jobs
        raise ClusterUnavailable("SLURM is installed but this is not root: cannot start slurmd")
    t0 = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="onlinerank-slurm-"))
    scratch.chmod(0o755)  # munged runs as user munge and must reach its socket and key
    for d in ("state", "spool", "log", "run", "munge"):
        (scratch / d).mkdir()
    conf = _write_conf(scratch)
    bindir = _write_wrappers(scratch, conf)
    env = dict(
        os.environ, SLURM_CONF=str(conf), PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
    )
    for k in list(env):  # a surrounding job's settings would confuse srun/sbatch
        if k.startswith(("SLURM_", "SBATCH_", "SRUN_", "SALLOC_")) and k != "SLURM_CONF":
            del env[k]
    cluster = Cluster(scratch=scratch, conf=conf, env=env, installed_seconds=installed)
    try:
        munge = scratch / "munge"
        key = munge / "munge.key"
        subprocess.run(
            ["mungekey", "--create", f"--keyfile={key}"], check=True, capture_output=True, timeout=30
        )
        shutil.chown(munge, "munge", "munge")
        munge.chmod(0o755)  # munged refuses a socket directory writable by others
        shutil.chown(key, "munge", "munge")
        key.chmod(0o600)
        _start(
            cluster,
            "munged",
            [
                "setpriv",
                "--reuid=munge",
                "--regid=munge",
                "--clear-groups",
                "munged",
                "--foreground",
                f"--socket={munge}/munge.socket",
                f"--key-file={key}",
                f"--pid-file={munge}/munged.pid",
                f"--seed-file={munge}/munged.seed",
                f"--log-file={scratch}/log/munged.log",
            ],
        )
        deadline = time.monotonic() + timeout
        _wait(cluster, "munged's socket", lambda: (munge / "munge.socket").exists(), deadline)
        _start(cluster, "slurmctld", ["slurmctld", "-D", "-i", "-f", str(conf)])
        _wait(
            cluster, "slurmctld (scontrol ping)", lambda: _run_ok(cluster, ["scontrol", "ping"], 5), deadline
        )
        _start(cluster, "slurmd", ["slurmd", "-D", "-N", NODE, "-f", str(conf)])
        _wait(
            cluster,
            "`srun -N1 -n1 true`",
            lambda: _run_ok(cluster, ["srun", "-N1", "-n1", "--mem=10", "true"], 15),
            deadline,
        )
    except BaseException as err:
        logs = cluster.logs()
        tear_down(cluster)
        if isinstance(err, ClusterError):
            raise
        if isinstance(err, subprocess.CalledProcessError):
            raise ClusterError(f"{err.cmd} failed: {err.stderr!r}\n{logs}") from err
        raise
    cluster.startup_seconds = time.monotonic() - t0
    return cluster


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie child of ours counts as gone
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def tear_down(cluster: Cluster, keep_scratch: bool | None = None, timeout: float = 15) -> None:
    """Cancel the cluster's jobs, stop exactly the daemons bring_up started, remove the scratch."""
    if cluster.pids.get("slurmctld") and _pid_alive(cluster.pids["slurmctld"]):
        try:  # jobs still running would outlive slurmd as slurmstepd processes
            ids = subprocess.run(
                ["squeue", "-h", "-o", "%i"], env=cluster.env, capture_output=True, text=True, timeout=10
            ).stdout.split()
            if ids:
                subprocess.run(["scancel", *ids], env=cluster.env, capture_output=True, timeout=10)
                deadline = time.monotonic() + 10
                while (
                    time.monotonic() < deadline
                    and subprocess.run(
                        ["squeue", "-h", "-t", "R,CG", "-o", "%i"],
                        env=cluster.env,
                        capture_output=True,
                        text=True,
                        timeout=10,
                    ).stdout.strip()
                ):
                    time.sleep(0.5)
        except (OSError, subprocess.TimeoutExpired):
            pass
    for name in reversed(list(cluster.pids)):  # slurmd, slurmctld, then munged
        pid = cluster.pids[name]
        proc = cluster.procs.get(name)
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                break
            if proc is None and not _pid_alive(pid):
                break
            time.sleep(0.1)
        else:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            if proc is not None:
                proc.wait(timeout=5)
    cluster.pids.clear()
    cluster.procs.clear()
    if keep_scratch is None:
        keep_scratch = bool(os.environ.get("ONLINERANK_KEEP_SLURM_SCRATCH"))
    if not keep_scratch:
        shutil.rmtree(cluster.scratch, ignore_errors=True)


def _main(argv: list[str]) -> int:
    if argv[:1] == ["up"]:
        try:
            c = bring_up()
        except ClusterUnavailable as err:  # 77: "skipped" (automake), as a test without SLURM
            print(f"{type(err).__name__}: {err}", file=sys.stderr)
            return 77
        except ClusterError as err:
            print(f"{type(err).__name__}: {err}", file=sys.stderr)
            return 1
        STATE_FILE.write_text(json.dumps({"scratch": str(c.scratch), "conf": str(c.conf), "pids": c.pids}))
        print(
            f"# cluster up in {c.startup_seconds:.1f} s (install {c.installed_seconds:.1f} s); "
            f"pids {c.pids}; state in {STATE_FILE}"
        )
        print(f"export SLURM_CONF={c.conf} PATH={c.scratch / 'bin'}:$PATH")
        return 0
    if argv[:1] == ["down"]:
        if not STATE_FILE.exists():
            print(f"no {STATE_FILE}: nothing to stop", file=sys.stderr)
            return 1
        st = json.loads(STATE_FILE.read_text())
        conf = st["conf"]
        c = Cluster(
            scratch=Path(st["scratch"]),
            conf=Path(conf),
            env=dict(os.environ, SLURM_CONF=conf),
            pids=dict(st["pids"]),
        )
        tear_down(c)
        STATE_FILE.unlink()
        print(f"stopped {st['pids']}, removed {st['scratch']}")
        return 0
    print(__doc__.split("By hand")[0].strip() + "\n\nusage: slurm_cluster.py up|down", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
