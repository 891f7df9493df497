"""The commands that the README, ``make help`` and the docs give, read from the pages themselves,
and how tests/test_documented_commands.py runs each one.

What counts as a command (nothing is listed by hand: a new page's command is found by these rules):

* the pages are README.md, config/README.md and docs/**/*.md (not the built site);
* a fenced code block without a language, or with a shell one (sh, bash, shell, console), holds
  commands: in a block with ``$ `` prompts the prompted lines (the others are their output), in a
  block without prompts every line whose first word is a program of :data:`PROGRAMS` or a path
  under ``.venv/bin/`` (the others are listings); a command goes on over its ``\\`` continuation
  lines and the lines of a quoted argument that spans several lines. ``export NAME=value`` lines
  set the environment of the page's later commands;
* inline code whose first word, after an optional ``$ `` prompt and ``.venv/bin/``, is a program of
  :data:`PROGRAMS` and which has at least one argument (``make figures``, ``python -m x``);
  ``onlinerank <subcommand>`` with nothing else names a subcommand and runs as ``... --help``;
* every line of ``make help``: ``make <target>``, or the usage its description gives
  (``make figure NAME=regret_vs_T [CONFIG=...]``), with and without its optional ``[...]`` part;
* a placeholder (``<name>``, ``<your partition>``, ``...`` as a value) is filled with every value
  of its catalog (:data:`CATALOGS`, chosen by the variable or option in front of it); in an
  ``export`` line with the first value. A make variable without a catalog (``make x SEEDS=...``)
  is left out, so that the Makefile's default applies; any other placeholder without a catalog
  fails its test, naming it.

How a command runs (:func:`check`): in a copy of the repository, from its root, with the
virtualenv's programs first on PATH (the copy's ``.venv`` links to this interpreter's) and the copy's
package imported (``PYTHONPATH``):

* ``make ARGS`` runs as ``make -n ARGS`` (the target exists and its variables work; the
  installation counts as up to date), and every command make prints is checked by these rules
  (a recursive make by the commands it prints in turn);
* Snakemake (the copy's ``.venv/bin/snakemake`` is a wrapper, so this holds however it is
  started: from a page, a make recipe or a shell loop) runs as given when it unlocks, lints,
  summarises or dry-runs (a dry run with ``--forceall``: the command's full DAG), and when it runs
  the smoke tier without a profile (the copy holds that tier's results, so this finishes what is
  missing); any other run -- the default or stress tier, a workflow profile such as the SLURM
  one -- is a dry run of its full DAG (``-n --forceall`` appended; an HTML ``--report`` of such a
  tier is left out, it needs the tier's results); it starts on the suite's Snakemake server,
  which has imported Snakemake already (tests/snakemake_server.py: the same command, output and
  exit status as a fresh start, about 1.7 s sooner);
* pytest collects (``--collect-only``): the named tests exist and import, with a recipe's new
  files in place, and a ``-k`` expression selects at least one test (pytest exits with status 5
  otherwise); the suite runs them itself, and tests/test_extension.py runs the recipes' checks on
  their files;
* commands that download or install (pip, pip-compile, ``python -m venv``) do not run: ``make -n``
  has expanded them, and the extras of ``pip install -e '.[...]'`` must be those of pyproject.toml;
* JupyterLab runs until it serves the notebook, then is stopped (``jupyter execute`` runs the
  notebook headless, in the copy holding the smoke tier's results);
* the commands of :data:`QUICKER` (minutes of benchmark timings, a replicate's further seeds) run
  in their quickest form;
* everything else runs as given, and must exit with status 0 (status 77, automake's "skipped",
  ends the test as skipped with the command's reason: the SLURM cluster helper where SLURM cannot
  be installed).

A how-to recipe (docs/howto/*.md) is a sequence: its files are written where it says to create
them (``Create `path`:`` and a fenced block) and its commands run in order, in one copy (a command
it repeats with no file written in between, once); every other page's commands are independent,
each in a copy of its own.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import snakemake_server

ROOT = Path(__file__).resolve().parents[1]

#: programs whose name begins a command (also as ``.venv/bin/<name>`` or after a ``$ `` prompt)
PROGRAMS = frozenset(
    {
        "make",
        "snakemake",
        "python",
        "python3",
        "pip",
        "pytest",
        "onlinerank",
        "ruff",
        "mypy",
        "jupyter",
        "sphinx-build",
        "mkdir",
    }
)
SHELL_LANGUAGES = frozenset({"", "sh", "bash", "shell", "console"})
#: programs that download or install packages: not run (see the module's docstring)
INSTALLERS = frozenset({"pip", "pip3", "pip-compile", "venv", "ensurepip"})

#: Snakemake options that run as given (they neither compute nor write results)
SNAKEMAKE_AS_GIVEN = frozenset({"--unlock", "--lint", "--summary", "--detailed-summary", "--list-rules"})
SNAKEMAKE_DRY = frozenset({"-n", "--dry-run", "--dryrun"})
SMOKE_CONFIG = "config/smoke.yaml"
TIMEOUT = 900  # s, per command

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`\s]*)")
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
CREATE = re.compile(r"[Cc]reate `([^`]+)`:\s*$")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
PLACEHOLDER = re.compile(r"<[a-z][a-z' ]*>|(?<![\w.])(?:\.\.\.|…)(?![\w.])")


def _figure_names() -> list[str]:
    from onlinerank.tiers import figure_names

    return figure_names()


def _tier_configs() -> list[str]:
    return sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "config").glob("*.yaml"))


#: what fills a placeholder, by what stands in front of it: the figures of the catalog, the
#: tiers' config files, the partition of the single-node test cluster (tests/slurm_cluster.py)
CATALOGS = [
    (re.compile(r"\bNAME=$"), _figure_names),
    (re.compile(r"(?:\bCONFIG=|--configfile\s+)$"), _tier_configs),
    (re.compile(r"\bONLINERANK_SLURM_PARTITION=$"), lambda: ["debug"]),
]


@dataclass(frozen=True)
class Command:
    """One command of a page: its text as run (placeholders filled), where it is written, and the
    environment the page's ``export`` lines before it set."""

    text: str
    where: str
    env: tuple[tuple[str, str], ...] = ()
    problem: str = ""  # why it cannot run as written (a placeholder without a catalog)


@dataclass(frozen=True)
class CreateFile:
    """A file a recipe says to create, with its content."""

    path: str
    text: str
    where: str


class CommandFailed(AssertionError):
    """A documented command did not do what it should; the message names its page and line."""


class CannotRunHere(Exception):
    """A command exited with status 77 (automake's "skipped"): it cannot run on this machine,
    e.g. the SLURM cluster helper where the packages cannot be installed; the message says why."""


def pages() -> list[Path]:
    """The pages whose commands are checked."""
    docs = [p for p in sorted((ROOT / "docs").rglob("*.md")) if "_build" not in p.relative_to(ROOT).parts]
    return [ROOT / "README.md", ROOT / "config" / "README.md", *docs]


def is_recipe(page: Path) -> bool:
    """A how-to recipe: its steps are a sequence, taken in order in one copy."""
    return page.parent.name == "howto" and page.name != "index.md"


def _split(text: str) -> list[str]:
    return shlex.split(text.replace("\\\n", " "), comments=True)


def _complete(text: str) -> bool:
    """Whether ``text`` is a whole command: no trailing ``\\`` and every quote closed."""
    if text.rstrip().endswith("\\"):
        return False
    try:
        _split(text)
    except ValueError:
        return False
    return True


def _program_word(words: list[str]) -> str | None:
    """The program a line begins with, if it is one of :data:`PROGRAMS` or under .venv/bin/."""
    if not words:
        return None
    word = words[0]
    if word.startswith(".venv/bin/"):
        return word
    return word if word in PROGRAMS else None


def fill_placeholders(text: str, where: str, first_only: bool = False) -> list[str]:
    """``text`` with each placeholder replaced by every value of its catalog (one text per
    combination); a placeholder without a catalog is an error naming it."""
    m = PLACEHOLDER.search(text)
    if m is None:
        return [text]
    before = text[: m.start()]
    for pattern, values in CATALOGS:
        if pattern.search(before):
            chosen = values()[:1] if first_only else values()
            out: list[str] = []
            for value in chosen:
                out += fill_placeholders(before + value + text[m.end() :], where, first_only)
            return out
    variable = re.search(r"\s[A-Z][A-Z0-9_]*=$", before)
    if variable and re.match(r"(?:\$ )?make\s", text):  # the Makefile's default value, then
        return fill_placeholders(before[: variable.start()] + text[m.end() :], where, first_only)
    raise CommandFailed(f"{where}: placeholder {m.group(0)!r} in `{text}` has no catalog (CATALOGS)")


def _commands(text: str, where: str, env: dict[str, str]) -> list[Command]:
    """The commands ``text`` stands for, its placeholders filled; a placeholder that cannot be
    filled gives a command that fails when it is taken (not an error while tests are collected)."""
    here = tuple(sorted(env.items()))
    try:
        return [Command(t, where, here) for t in fill_placeholders(text, where)]
    except CommandFailed as err:
        return [Command(text, where, here, problem=str(err))]


def _exports(text: str, env: dict[str, str], where: str) -> None:
    """Apply an ``export NAME=value ...`` line to ``env`` (placeholders: the catalog's first value;
    they may hold spaces, so they are filled before the line is split)."""
    for word in _split(fill_placeholders(text, where, first_only=True)[0])[1:]:
        name, _, value = word.partition("=")
        env[name] = value


def _block_steps(body: list[str], rel: str, first: int, env: dict[str, str]) -> list[Command]:
    """The commands of a shell block whose first line is line ``first`` of page ``rel``."""
    prompted = any(line.startswith("$ ") for line in body)
    out: list[Command] = []
    k = 0
    while k < len(body):
        line, start = body[k], k
        k += 1
        if prompted:
            if not line.startswith("$ "):
                continue
            line = line[2:]
        if line.strip().startswith("export "):
            try:
                _exports(line, env, f"{rel}:{first + start}")
            except CommandFailed as err:
                out.append(Command(line, f"{rel}:{first + start}", problem=str(err)))
            continue
        if _program_word(line.split()) is None:
            continue
        text = line
        while not _complete(text) and k < len(body):
            text += "\n" + body[k]
            k += 1
        where = f"{rel}:{first + start}"
        text = re.sub(r"\s+#[^'\"\n]*$", "", text)  # a comment after the command
        out += _commands(text, where, env)
    return out


def _inline_command(span: str) -> str | None:
    """The command an inline code span gives, or None (see the module's docstring)."""
    text = span[2:] if span.startswith("$ ") else span
    words = text.split()
    if len(words) < 2 or words[0].removeprefix(".venv/bin/") not in PROGRAMS:
        return None
    if words[0].removeprefix(".venv/bin/") == "onlinerank" and len(words) == 2 and words[1].isalpha():
        return f"{text} --help"  # the name of a subcommand
    return text


def page_steps(page: Path) -> list[Command | CreateFile]:
    """The steps of a page in their order: the commands, and the files a recipe says to create."""
    rel = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name
    lines = page.read_text(encoding="utf-8").splitlines()
    steps: list[Command | CreateFile] = []
    env: dict[str, str] = {}
    last_prose = ""
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            indent, fence, lang = m.groups()
            body: list[str] = []
            j = i + 1
            closing = re.compile(rf"\s*{re.escape(fence[0])}{{{len(fence)},}}\s*")
            while j < len(lines) and not closing.fullmatch(lines[j]):
                body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j].lstrip())
                j += 1
            created = CREATE.search(last_prose)
            if created:
                steps.append(CreateFile(created.group(1), "\n".join(body) + "\n", f"{rel}:{i + 1}"))
            elif lang.lower() in SHELL_LANGUAGES:
                steps += _block_steps(body, rel, i + 2, env)
            i, last_prose = j + 1, ""
            continue
        for span in INLINE.finditer(lines[i]):
            text = _inline_command(span.group(1))
            if text is not None:
                steps += _commands(text, f"{rel}:{i + 1}", env)
        if lines[i].strip():
            last_prose = lines[i]
        i += 1
    return steps


def make_help_commands() -> list[Command]:
    """The commands ``make help`` lists (see the module's docstring)."""
    out = subprocess.run(
        ["make", "--no-print-directory", "help"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    commands: list[Command] = []
    for line in out.splitlines():
        m = re.match(r"\s*make (\S+)\s*(.*)", line)
        if m is None:
            continue
        target, description = m.groups()
        usage = re.search(rf"make {re.escape(target)}((?: (?:\[[^\]]*\]|[A-Z_]+=\S*))*)", description)
        args = usage.group(1).rstrip(")") if usage else ""
        variants = dict.fromkeys([re.sub(r" \[[^\]]*\]", "", args), re.sub(r"\[([^\]]*)\]", r"\1", args)])
        where = f"make help: {target}"
        for v in variants:
            commands += _commands(f"make {target}{v}", where, {})
    return commands


# --- running ------------------------------------------------------------------------------------


#: programs (``python -m`` modules) that run for minutes -> their quickest form (given the command's
#: words and where the program's arguments begin)
QUICKER = {
    # every section at toy sizes but those that time start-up, scale-out and the worst-case DP:
    # tests/test_bench.py runs each section (`--tiny`) and checks what it prints
    "bench": lambda words, start: [*words, *"--tiny --no-startup --no-scale --no-worst-case".split()],
    # the estimate's plan (its jobs, no timing): tests/test_bench.py checks the timed estimate
    "bench.estimate": lambda words, start: [*words, "--plan"],
    # every further seed reruns the tier's sampled experiments: the dry run of each Snakemake call,
    # with one further seed (the plans of the others differ only by their seed); tests/test_seeds.py
    # runs `make replicate` on the smoke tier for real
    "onlinerank.seeds": lambda words, start: [
        *words[: start + 1],
        "1",
        *words[start + 2 :],
        *(["-n"] if "-n" not in words[start + 2 :] else []),
    ],
}

#: the command that builds the documentation site
SITE_BUILD = "make docs"

#: commands that another test runs exactly as this module runs them (in a copy, by :func:`check`)
#: and then checks further -> that test; tests/test_documented_commands.py makes no test of its own
#: for a command that runs the same (:func:`run_form`), so that the site is built once, not twice
RUN_BY_ANOTHER_TEST = {SITE_BUILD: "tests/test_docs.py::test_the_site_builds_with_warnings_as_errors"}


@dataclass
class Copy:
    """A copy of the repository in which commands run, its temporary directory, and the commands
    run in it so far."""

    repo: Path
    tmp: Path
    ran: list[str] = field(default_factory=list)

    def env(self, extra: tuple[tuple[str, str], ...] = ()) -> dict[str, str]:
        """The environment of a command: the virtualenv first on PATH, the copy's package (and the
        start-up hook that serves the Snakemake a command starts itself, tests/snakemake_hook), a
        temporary directory of its own (``TMPDIR``)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "MAKE", "MFLAGS"))}
        env["PATH"] = f"{self.repo / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', os.defpath)}"
        env["PYTHONPATH"] = os.pathsep.join([str(self.repo / "src"), str(snakemake_server.HOOK)])
        env["TMPDIR"] = str(self.tmp)
        env["JUPYTER_RUNTIME_DIR"] = str(self.tmp / "jupyter-runtime")
        env.update(extra)
        return env

    def close(self) -> None:
        """Stop what a command left running (a SLURM test cluster whose ``down`` never ran: its
        state file is in this temporary directory) and remove the temporary directory."""
        from slurm_cluster import STATE_FILE

        if (self.tmp / STATE_FILE.name).exists():
            subprocess.run(
                [sys.executable, "tests/slurm_cluster.py", "down"],
                cwd=self.repo,
                env=self.env(),
                capture_output=True,
                timeout=120,
            )
        shutil.rmtree(self.tmp, ignore_errors=True)


def prepare(repo: Path) -> Copy:
    """Make the copy ``repo`` ready: a ``.venv`` that is this interpreter's environment (each of
    its entries a link, but the installation stamps, which are the copy's own and newer than the
    lock files, and ``bin/snakemake``, a wrapper that applies :func:`snakemake_as_checked` to
    whatever runs it: a page, a make recipe, a shell loop), mypy's cache, so that ``make lint`` is
    incremental, and a temporary directory that every user can traverse (the SLURM test cluster's
    munged, which runs as user munge, keeps its socket there)."""
    tmp = Path(tempfile.mkdtemp(prefix="onlinerank-docs-", dir="/tmp" if Path("/tmp").is_dir() else None))
    tmp.chmod(0o755)
    venv, real = repo / ".venv", Path(sys.prefix)
    venv.mkdir(exist_ok=True)
    for entry in real.iterdir():
        if (
            entry.name not in ("bin", ".installed-workflow", ".installed-test")
            and not (venv / entry.name).exists()
        ):
            (venv / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    (venv / "bin").mkdir(exist_ok=True)
    for entry in (real / "bin").iterdir():
        if entry.name != "snakemake" and not (venv / "bin" / entry.name).exists():
            (venv / "bin" / entry.name).symlink_to(entry)
    wrapper, this = venv / "bin" / "snakemake", Path(__file__).resolve()
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{this}" "{real / "bin" / "snakemake"}" "$@"\n')
    wrapper.chmod(0o755)
    for stamp in (".installed-workflow", ".installed-test"):
        (venv / stamp).touch()
    snakemake_server.ensure_server()  # the wrapper's Snakemake starts on it (its module docstring)
    if (ROOT / ".mypy_cache").is_dir() and not (repo / ".mypy_cache").exists():
        shutil.copytree(ROOT / ".mypy_cache", repo / ".mypy_cache")
    return Copy(repo, tmp)


def program(words: list[str]) -> tuple[str, int]:
    """The program a command runs (the module of ``python -m``), and where its arguments begin."""
    i = 0
    while i < len(words) - 1 and ASSIGNMENT.match(words[i]):
        i += 1
    name = Path(words[i]).name
    if re.fullmatch(r"python[\d.]*", name) and words[i + 1 : i + 2] == ["-m"] and len(words) > i + 2:
        return words[i + 2], i + 3
    return name, i + 1


def _run(
    cmd: str | list[str], cp: Copy, where: str, env: tuple = (), timeout: float = TIMEOUT
) -> subprocess.CompletedProcess:
    """Run ``cmd`` (a shell command line, or an argument vector) in the copy; exit status 0 or
    :class:`CommandFailed`."""
    shown = cmd if isinstance(cmd, str) else shlex.join(cmd)
    cp.ran.append(shown)
    try:
        p = subprocess.run(
            ["sh", "-c", cmd] if isinstance(cmd, str) else cmd,
            cwd=cp.repo,
            env=cp.env(env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as err:
        raise CommandFailed(f"{where}: `{shown}` did not finish within {timeout} s") from err
    if p.returncode == 77:
        raise CannotRunHere(
            f"{where}: `{shown}` cannot run on this machine: {(p.stderr or p.stdout).strip()}"
        )
    if p.returncode != 0:
        raise CommandFailed(
            f"{where}: `{shown}` exited with status {p.returncode}\n"
            f"--- stdout (end)\n{p.stdout[-3000:]}\n--- stderr (end)\n{p.stderr[-3000:]}"
        )
    return p


def snakemake_as_checked(argv: list[str]) -> list[str]:
    """The Snakemake command that checks ``argv`` (see the module's docstring)."""
    args = set(argv)
    if args & SNAKEMAKE_AS_GIVEN:
        return argv
    if args & SNAKEMAKE_DRY:
        return [*argv, "--forceall"]
    configs = argv[argv.index("--configfile") + 1 :] if "--configfile" in argv else []
    profile = any(a.startswith("--workflow-profile") for a in argv)
    if configs[:1] == [SMOKE_CONFIG] and not profile:
        return argv
    if "--report" in argv:  # the report of a tier needs its results: the dry run of its DAG
        i = argv.index("--report")
        argv = argv[:i] + argv[i + 2 :]
    return [*argv, "-n", "--forceall"]


def _check_install(words: list[str], where: str) -> None:
    """An install command is not run; the extras it names must be the project's."""
    extras = {e for w in words if (m := re.fullmatch(r"\.\[([\w,-]+)\]", w)) for e in m.group(1).split(",")}
    declared = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    if extras - declared:
        raise CommandFailed(
            f"{where}: extras {sorted(extras - declared)} are not in pyproject.toml ({sorted(declared)})"
        )


SERVING = re.compile(r"http://127\.0\.0\.1:(\d+)/lab(?:\?token=(\w+))?")


def _check_server(text: str, cp: Copy, where: str, env: tuple, timeout: float = 180) -> None:
    """Start JupyterLab (no browser, a free port), wait until it serves, ask it for the notebooks
    the command names, stop it by its process id."""
    import json
    import urllib.request

    # a free port of 127.0.0.1 only: with "localhost", IPv4 and IPv6 could get different ports
    text += " --no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port=0"
    cp.ran.append(text)
    p = subprocess.Popen(
        ["sh", "-c", f"exec {text}"],
        cwd=cp.repo,
        env=cp.env(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    out: list[str] = []
    deadline = time.monotonic() + timeout
    try:
        assert p.stdout is not None
        for line in p.stdout:
            out.append(line)
            m = SERVING.search(line)
            if m:
                port, token = m.groups()
                for nb in (w for w in _split(text) if w.endswith(".ipynb")):
                    req = urllib.request.Request(
                        f"http://127.0.0.1:{port}/api/contents/{nb}?content=0",
                        headers={"Authorization": f"token {token}"} if token else {},
                    )
                    for _ in range(60):  # the URL may be printed just before the server listens
                        try:
                            with urllib.request.urlopen(req, timeout=60) as r:
                                served = json.load(r).get("type")
                            break
                        except OSError as err:
                            served = f"{err}; the server said:\n{''.join(out)[-3000:]}"
                            time.sleep(0.5)
                    if served != "notebook":
                        raise CommandFailed(f"{where}: `{text}` does not serve {nb} as a notebook: {served}")
                return
            if time.monotonic() > deadline:
                break
        raise CommandFailed(f"{where}: `{text}` did not serve within {timeout} s:\n{''.join(out)[-3000:]}")
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        if p.stdout is not None:
            p.stdout.close()


def _make_dry(words: list[str], start: int) -> list[str]:
    """``make -n`` with a make command's arguments (the installation stamps count as up to date)."""
    stamps = ["-o", ".venv/.installed-workflow", "-o", ".venv/.installed-test"]
    return ["make", "--no-print-directory", "-n", *stamps, *words[start:]]


def _make_printed(printed: str) -> list[str]:
    """The commands ``make -n`` printed that run (a recursive make prints its own commands under
    ``-n``: they count, not the make line itself)."""
    lines: list[str] = []
    for line in printed.splitlines():
        if lines and lines[-1].endswith("\\"):
            lines[-1] += "\n" + line
        elif line.strip() and not re.match(r"make(\[\d+\])?: ", line):
            lines.append(line)
    return [line for line in lines if program(_split(line))[0] != "make"]


def _check_make(words: list[str], start: int, cp: Copy, where: str, env: tuple) -> None:
    """``make -n`` with the command's arguments, then every command it prints."""
    for line in _make_printed(_run(_make_dry(words, start), cp, where, env).stdout):
        check(line, cp, f"{where} (`{shlex.join(words)}` runs `{line.strip()[:200]}`)", env)


def run_form(text: str, env: tuple = ()) -> tuple[str, ...]:
    """What :func:`check` runs for the command ``text``, without running it: the commands a make
    command prints under ``make -n`` (made here, in the checkout), each as it runs (the quick form
    of :data:`QUICKER`), as normalised argument lists.  Two commands written differently that run
    the same (``make replicate SEEDS=4`` and ``make replicate SEEDS=2``: the dry run of one further
    seed each) have the same form and are run once; a command whose form cannot be told (a make
    that fails here, a shell syntax error) is its own form, so that it runs and fails as written."""
    try:
        words = _split(text)
    except ValueError:
        return (text,)
    if not words:
        return ()
    prog, start = program(words)
    if prog == "make":
        p = subprocess.run(
            _make_dry(words, start), cwd=ROOT, env={**os.environ, **dict(env)}, capture_output=True, text=True
        )
        if p.returncode != 0:
            return (text,)
        return tuple(form for line in _make_printed(p.stdout) for form in run_form(line, env))
    if prog in QUICKER:
        return (shlex.join(QUICKER[prog](words, start)),)
    return (shlex.join(words),)


def check(text: str, cp: Copy, where: str, env: tuple = ()) -> None:
    """Run the command ``text`` in the copy as the rules of the module's docstring say; a failure
    raises :class:`CommandFailed` naming ``where``."""
    try:
        words = _split(text)
    except ValueError as err:
        raise CommandFailed(f"{where}: `{text}` is not a complete shell command ({err})") from err
    if not words:
        return
    prog, start = program(words)
    if prog == "make":
        _check_make(words, start, cp, where, env)
    elif prog in INSTALLERS:
        _check_install(words, where)
    elif prog == "snakemake" and words[start - 2 : start] == ["-m", "snakemake"]:
        _run([".venv/bin/snakemake", *words[start:]], cp, where, env)  # the wrapper, as below
    elif prog == "pytest":
        _run(f"{text} --collect-only -q", cp, where, env)
    elif prog == "jupyter" and words[start : start + 1] != ["execute"]:
        _check_server(text, cp, where, env)
    elif prog in QUICKER:
        _run(shlex.join(QUICKER[prog](words, start)), cp, where, env)
    else:
        _run(text, cp, where, env)


def take(steps: list[Command | CreateFile], cp: Copy) -> None:
    """Take a page's steps in order in the copy: write its files, run its commands (a command the
    page repeats with no file written in between runs once)."""
    done: set[tuple[str, tuple]] = set()
    for step in steps:
        if isinstance(step, CreateFile):
            path = cp.repo / step.path
            if path.exists():
                raise CommandFailed(f"{step.where}: the recipe would overwrite {step.path}")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(step.text)
            done.clear()
        elif step.problem:
            raise CommandFailed(step.problem)
        elif (step.text, step.env) not in done:
            check(step.text, cp, step.where, step.env)
            done.add((step.text, step.env))


def main(argv: list[str]) -> None:
    """The copy's ``.venv/bin/snakemake`` (see :func:`prepare`): ``argv`` is the real program and
    the arguments it was given; it runs as :func:`snakemake_as_checked` says, on the suite's
    Snakemake server if one answers (tests/snakemake_server.py), as the real program would start
    (its ``sys.argv[0]``, its directory first on ``sys.path``), else as the real program."""
    real, *args = argv
    checked = snakemake_as_checked([real, *args])[1:]
    code = snakemake_server.run(checked, argv0=real, path0=str(Path(real).parent))
    if code is None:
        os.execv(real, [real, *checked])
    sys.exit(code)


if __name__ == "__main__":
    main(sys.argv[1:])
