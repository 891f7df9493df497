"""Every command that the README, ``make help`` and the docs give runs, because this test runs it.

The commands are read from the pages at collection (tests/doc_commands.py says what counts as a
command and how each one runs: cheap ones as written, on the smoke tier or a recipe's tiny config;
the default and stress tiers' runs and the SLURM profile's as dry runs of their full DAG; ``make``
targets through the commands ``make -n`` prints; pytest by collecting). A how-to recipe is one test
(its steps in order, in one copy); every other command is a test of its own, identical commands
of several pages once, and so are commands written differently that run the same commands
(``make replicate SEEDS=4`` and ``SEEDS=2``: tests/doc_commands.py's ``run_form``), and a
command that another test runs the same way and checks further is left to it (``make docs``:
tests/test_docs.py builds the site so and reads it; ``RUN_BY_ANOTHER_TEST``). A command that
fails fails its test with its page and line.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import doc_commands as dc
import pytest
from conftest import ROOT, copy_repo, share_compiled_kernels


@dataclass(frozen=True)
class Case:
    """What one test takes: a recipe's steps, or one command and every place it is written."""

    name: str
    steps: tuple
    places: tuple[str, ...]

    @property
    def needs_smoke_results(self) -> bool:
        """Whether a command works on the smoke tier (its config, results or make target) or reads a
        tier's results (the notebook, run headless): it runs in a copy holding the shared smoke
        run's results."""
        texts = [s.text for s in self.steps if isinstance(s, dc.Command)]
        return any("smoke" in t or "jupyter execute" in t for t in texts)


def _cases() -> list[Case]:
    cases: list[Case] = []
    independent: dict[tuple, list[str]] = {}  # (text, env) -> places, in the order found
    commands: dict[tuple, dc.Command] = {}
    for page in dc.pages():
        rel = page.relative_to(ROOT).as_posix()
        steps = dc.page_steps(page)
        if dc.is_recipe(page):
            if any(isinstance(s, dc.Command) for s in steps):
                cases.append(Case(rel, tuple(steps), (rel,)))
            continue
        for s in steps:
            if isinstance(s, dc.Command):
                independent.setdefault((s.text, s.env), []).append(s.where)
                commands.setdefault((s.text, s.env), s)
    for c in dc.make_help_commands():
        independent.setdefault((c.text, c.env), []).append(c.where)
        commands.setdefault((c.text, c.env), c)
    # commands written differently that run the same (dc.run_form) run once, as the first written
    same: dict[tuple, list[tuple]] = {}
    for key in independent:
        form = (key,) if commands[key].problem else (dc.run_form(*key), key[1])
        same.setdefault(form, []).append(key)
    elsewhere = {(dc.run_form(cmd), ()): cmd for cmd in dc.RUN_BY_ANOTHER_TEST}
    for form, keys in same.items():
        first = keys[0]
        places = [p if k == first else f"{p} (`{k[0]}`)" for k in keys for p in independent[k]]
        if form in elsewhere:  # another test runs it as check() would, then checks more
            RUN_ELSEWHERE[elsewhere[form]] = tuple(places)
            continue
        text = re.sub(r"\s+", " ", first[0])[:70]
        cases.append(Case(f"{places[0]}: {text}", (commands[first],), tuple(places)))
    return cases


#: a command of dc.RUN_BY_ANOTHER_TEST -> where the pages write it (filled by _cases)
RUN_ELSEWHERE: dict[str, tuple[str, ...]] = {}
CASES = _cases()


def _take(case: Case, repo: Path) -> None:
    cp = dc.prepare(repo)
    try:
        dc.take(list(case.steps), cp)
    except dc.CommandFailed as err:
        before = "\n".join(f"  {c}" for c in cp.ran[:-1]) or "  (none)"
        pytest.fail(
            f"{err}\nalso written at: {', '.join(case.places)}\nrun before it:\n{before}", pytrace=False
        )
    except dc.CannotRunHere as err:
        pytest.skip(str(err))
    finally:
        cp.close()


@pytest.mark.slow
@pytest.mark.workflow
@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES if c.needs_smoke_results])
def test_a_documented_command_on_the_smoke_tier_runs(case, smoke_run, tmp_path):
    """In a copy of the shared smoke run: what the command adds to the tier's results, or nothing."""
    repo = tmp_path / "repo"
    shutil.copytree(smoke_run, repo, symlinks=True)
    share_compiled_kernels(repo)
    _take(case, repo)


@pytest.mark.workflow
@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES if not c.needs_smoke_results])
def test_a_documented_command_runs(case, tmp_path):
    _take(case, copy_repo(tmp_path / "repo"))


PAGE = """# A page

Run `make figures`, not `make` alone; `onlinerank simulate` is a subcommand and
`onlinerank.config.load_settings` a function.

```
$ onlinerank bounds --n 5 --T 10
Theorem 3.1 bound  12.3
$ make help
```

```
Snakefile          entry point
.venv/bin/snakemake -n
```

```python
print("not a command")
```

Create `config/x.yaml`:

```yaml
seed: 1
```

```
export ONLINERANK_SLURM_PARTITION=<your partition>     # default: debug
.venv/bin/python -c "
print(1)
" > out.txt
.venv/bin/snakemake --configfile ... \\
    --unlock
```
"""


def test_what_counts_as_a_command_of_a_page(tmp_path):
    """The rules of tests/doc_commands.py on a page with each kind of block and inline code."""
    page = tmp_path / "page.md"
    page.write_text(PAGE)
    steps = dc.page_steps(page)
    debug = (("ONLINERANK_SLURM_PARTITION", "debug"),)
    tiers = sorted(p.name for p in (ROOT / "config").glob("*.yaml"))
    assert steps == [
        dc.Command("make figures", "page.md:3"),
        dc.Command("onlinerank simulate --help", "page.md:3"),
        dc.Command("onlinerank bounds --n 5 --T 10", "page.md:7"),
        dc.Command("make help", "page.md:9"),
        dc.Command(".venv/bin/snakemake -n", "page.md:14"),
        dc.CreateFile("config/x.yaml", "seed: 1\n", "page.md:23"),
        dc.Command('.venv/bin/python -c "\nprint(1)\n" > out.txt', "page.md:29", debug),
        *(
            dc.Command(f".venv/bin/snakemake --configfile config/{t} \\\n    --unlock", "page.md:32", debug)
            for t in tiers
        ),
    ]


def test_a_placeholder_without_a_catalog_fails_its_test_naming_it(tmp_path):
    """...and only its test (not the collection of all); a make variable without a catalog is
    left to the Makefile's default."""
    page = tmp_path / "page.md"
    page.write_text("Run `onlinerank simulate --n <items>` or `make replicate SEEDS=…`.\n")
    broken, variable = dc.page_steps(page)
    assert variable == dc.Command("make replicate", "page.md:1")
    with pytest.raises(dc.CommandFailed, match=r"page.md:1: placeholder '<items>' in `onlinerank simulate"):
        dc.take([broken], dc.Copy(tmp_path, tmp_path))


def test_make_help_gives_every_target_the_makefile_documents():
    """The targets with a ``##`` description in the Makefile (read here with a regex of its own),
    each as a command; a usage in the description with and without its optional part."""
    documented = re.findall(r"^([a-z-]+):.*## ", (ROOT / "Makefile").read_text(), re.M)
    commands = dc.make_help_commands()
    assert {c.text.split()[1] for c in commands} == set(documented)
    figure = {c.text for c in commands if c.text.startswith("make figure ")}
    assert figure == {"make figure NAME=regret_vs_T", "make figure NAME=regret_vs_T CONFIG=config/smoke.yaml"}


def test_snakemake_runs_on_the_smoke_tier_and_dry_runs_the_full_dag_elsewhere():
    smk = ".venv/bin/snakemake"
    smoke = [smk, "x.png", "--configfile", "config/smoke.yaml"]
    assert dc.snakemake_as_checked(smoke) == smoke
    assert dc.snakemake_as_checked([smk, "x.png"]) == [smk, "x.png", "-n", "--forceall"]
    profile = [smk, "--workflow-profile", "workflow/profiles/slurm", "--configfile", "config/smoke.yaml"]
    assert dc.snakemake_as_checked(profile) == [*profile, "-n", "--forceall"]
    assert dc.snakemake_as_checked([smk, "-n"]) == [smk, "-n", "--forceall"]
    assert dc.snakemake_as_checked([smk, "--unlock"]) == [smk, "--unlock"]
    report = [smk, "--configfile", "config/config.yaml", "--report", "results/report.html"]
    assert dc.snakemake_as_checked(report) == [*report[:3], "-n", "--forceall"]


def test_a_misspelt_command_in_a_page_fails_with_its_page_and_line(tmp_path):
    """A copy of the README with a misspelt make target added at its end, and a copy of the how-to
    "Run one stage or one figure" whose first command names a misspelt figure: each fails naming
    the page, the line and the command (the recipe at its first command: it runs in order)."""
    readme = tmp_path / "README.md"
    text = (ROOT / "README.md").read_text()
    readme.write_text(f"{text}\n```\nmake figurs\n```\n")
    line = text.count("\n") + 3
    (planted,) = [s for s in dc.page_steps(readme) if isinstance(s, dc.Command) and "figurs" in s.text]
    recipe = tmp_path / "run-part.md"
    title, rest = (ROOT / "docs/howto/run-part.md").read_text().split("\n", 1)
    recipe.write_text(f"{title}\n\n```\n.venv/bin/snakemake figures/regret_vs_T.pgn\n```\n{rest}")
    cp = dc.prepare(copy_repo(tmp_path / "repo"))
    try:
        with pytest.raises(
            dc.CommandFailed, match=rf"README.md:{line}: `make .*figurs` exited with status 2"
        ) as err:
            dc.check(planted.text, cp, planted.where)
        assert "No rule to make target 'figurs'" in str(err.value)
        with pytest.raises(
            dc.CommandFailed, match=r"run-part.md:4: `.*snakemake figures/regret_vs_T.pgn"
        ) as err:
            dc.take(dc.page_steps(recipe), cp)
        assert "MissingRuleException" in str(err.value) or "No rule to produce" in str(err.value)
        assert len(cp.ran) == 2  # make -n; the recipe's first command (a dry run)
    finally:
        cp.close()


def test_commands_written_differently_that_run_the_same_run_once():
    """``run_form``: what a command runs, read off ``make -n`` and the quick forms without running
    it.  The further seeds' count and a repeated ``-n`` do not change what runs (one further
    seed's dry run); the tier does; a make that fails is its own form (it runs, and fails, as
    written)."""
    seeds4 = dc.run_form("make replicate SEEDS=4")
    assert seeds4 == dc.run_form("make replicate SEEDS=2") == dc.run_form("make replicate SEEDS=4 ARGS=-n")
    assert any(f.endswith("onlinerank.seeds config/config.yaml 1 -n") for f in seeds4), seeds4
    assert seeds4 != dc.run_form("make replicate SEEDS=4 CONFIG=config/smoke.yaml")
    assert dc.run_form("make no-such-target") == ("make no-such-target",)
    cases = {c.name: c for c in CASES}
    (replicate,) = [c for c in cases.values() if any("(`make replicate SEEDS=2`)" in p for p in c.places)]
    assert replicate.steps[0].text == "make replicate SEEDS=4" and len(replicate.places) > 2


def test_a_command_another_test_runs_has_no_test_here_and_that_test_runs_it():
    """``make docs`` (the pages write it in several places) is left to the test named in
    dc.RUN_BY_ANOTHER_TEST, which runs it with dc.check in a copy, as this module would, and then
    reads the built site: no case here runs the same, and the named test exists and runs it."""
    import importlib
    import inspect

    assert set(RUN_ELSEWHERE) == set(dc.RUN_BY_ANOTHER_TEST)  # every entry is written on a page
    assert any(p.startswith("README.md:") for p in RUN_ELSEWHERE[dc.SITE_BUILD]), RUN_ELSEWHERE
    single = {c.steps[0].text for c in CASES if len(c.steps) == 1}
    for command, test in dc.RUN_BY_ANOTHER_TEST.items():
        assert command not in single, command
        path, name = test.split("::")
        source = inspect.getsource(getattr(importlib.import_module(Path(path).stem), name))
        constants = [k for k, v in vars(dc).items() if k.isupper() and v == command]
        assert any(f"dc.check(dc.{k}," in source for k in constants), (test, constants)
