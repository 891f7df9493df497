"""Plug-ins are asked, never named: no code branches on the registered name of a learner, an
adversary, a claim, a figure, a table, a cited baseline bound or a mutation outside the module
that declares it.

What a branch on a name is, as this test reads the code (the files of the package, the workflow
and the benchmarks; not the tests, the docs or the config files, which name plug-ins by design):

* a comparison with the name (``x == "hedge"``, ``x != "hedge"``, ``x in ("hedge", "fpl")``);
* a ``match`` case on it;
* a literal collection of names that a loop walks (``for m in ("hedge", "fpl")``);
* a parameter whose default is a name;
* for the names of learners, adversaries and cited bounds also a dictionary keyed by them (a
  lookup table is a switch) and a name handed to a call (``make_adversary("uniform")``): a
  plug-in is asked through its class (its hooks and class attributes), never picked by name.

A declaration names what it reads (``@claim(reads={...})``, ``@figure(tables=..., claims=...)``,
``@mutation(targets=...)``): those keywords are references, not branches.  The few literals that
are another word spelled like a name are listed in :data:`ALLOWED`, each with its reason.  A
planted branch of each form is found (the test of the test).
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT

from onlinerank.adversaries import ADVERSARIES
from onlinerank.cited_bounds import CITED_BOUNDS
from onlinerank.claims import REGISTRY
from onlinerank.figures import FIGURES
from onlinerank.learners import LEARNERS
from onlinerank.tables import TABLES

sys.path.insert(0, str(ROOT / "workflow"))
from mutants.learners import MUTATIONS  # noqa: E402

#: the code that must not branch on a name: the package, the workflow, the benchmarks
SCANNED = ("src/onlinerank", "workflow", "bench")
#: keywords of a declaration whose values name what it reads or aims at (references)
DECLARATION_KEYWORDS = {"reads", "optional", "tables", "claims", "targets"}
#: calls that declare the name given as their first argument (the declaring module may name it)
DECLARING_CALLS = {"figure", "table", "TableSpec", "CitedBound", "mutation", "Claim"}
#: (file, name) -> why that literal in that file is not a branch on the plug-in
ALLOWED: dict[tuple[str, str], str] = {
    ("src/onlinerank/pipeline.py", "onlinerank"): "the package's name: its folder and its logger",
    ("src/onlinerank/cli.py", "onlinerank"): "the command's name (argparse prog)",
    ("src/onlinerank/adversaries/graded.py", "uniform"): "the graded adversary's relevance mode, a value "
    "of its own parameter",
    ("src/onlinerank/claims/code_digest.py", "onlinerank"): "the package's name: the modules whose code "
    "the claim digests follow",
    ("src/onlinerank/cli.py", "trace"): "the --trace option's attribute on argparse's namespace",
    ("bench/estimate.py", "mutations"): "the pipeline's rule of that name, whose jobs the estimate costs",
}
#: names that are first another word of the project, everywhere: a literal cannot tell them apart
AMBIGUOUS = {
    "graded": "a feedback family (theory §1), after which the graded adversary is named",
}


def _kinds() -> dict[str, dict[str, set[str]]]:
    """Every registered name -> its kind -> the modules (repository paths) that declare it."""
    out: dict[str, dict[str, set[str]]] = {}

    def add(name: str, kind: str, module: str | None) -> None:
        mods = out.setdefault(name, {}).setdefault(kind, set())
        if module is not None:
            mods.add(_path_of(module))

    for kind, reg in (("learner", LEARNERS), ("adversary", ADVERSARIES)):
        for name, cls in reg.items():
            add(name, kind, cls.__module__)
    for cid, c in REGISTRY.items():
        add(cid, "claim", c.builder.__module__ if c.builder else None)
    for name, spec in FIGURES.items():
        add(name, "figure", spec.draw.__module__ if spec.draw else None)
    for name, spec in TABLES.items():
        add(name, "table", spec.build.__module__ if spec.build else None)
    for name in CITED_BOUNDS:
        add(name, "cited bound", "onlinerank.cited_bounds")
    for name, m in MUTATIONS.items():
        add(name, "mutation", m.learner.__module__)
    return out


def _path_of(module: str) -> str:
    if module.startswith("onlinerank"):
        base = ROOT / "src" / Path(*module.split("."))
    else:
        base = ROOT / "workflow" / Path(*module.split("."))
    path = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
    return path.relative_to(ROOT).as_posix()


#: the kinds whose names are asked of a class, never handed around: dict keys and call arguments
#: naming them are switches too
PLUGIN_KINDS = {"learner", "adversary", "cited bound"}


def _strings(node: ast.AST, depth: int = 2) -> Iterator[ast.Constant]:
    """String constants of a literal: a constant, or a tuple/list/set of them, nested ``depth - 1``
    levels (the pairs of ``[("hedge", "subset")]``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
    elif depth and isinstance(node, ast.Tuple | ast.List | ast.Set):
        for e in node.elts:
            yield from _strings(e, depth - 1)


def branches(tree: ast.AST, plugin_names: set[str]) -> Iterator[tuple[int, str, str]]:
    """``(line, literal, form)`` of every string literal of ``tree`` in a branching position (the
    module docstring); ``plugin_names``: the names whose dict keys and call arguments count too."""
    declared: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in DECLARATION_KEYWORDS:
            declared |= {id(n) for n in ast.walk(node.value)}
        if isinstance(node, ast.Call):
            fn = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if fn in DECLARING_CALLS and node.args:
                declared |= {id(n) for n in ast.walk(node.args[0])}
            if fn == "register" and node.args:  # a registry's register(Decl("name", ...))
                declared |= {id(n) for n in ast.walk(node.args[0])}
    for node in ast.walk(tree):
        found: list[tuple[ast.AST, str]] = []
        if isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators, strict=True):
                if isinstance(op, ast.Eq | ast.NotEq):
                    found += [(c, "comparison") for c in _strings(node.left)]
                    found += [(c, "comparison") for c in _strings(right)]
                elif isinstance(op, ast.In | ast.NotIn) and isinstance(right, ast.Tuple | ast.List | ast.Set):
                    found += [(c, "comparison") for c in _strings(right)]
        elif isinstance(node, ast.match_case):
            found += [(c, "match case") for p in ast.walk(node.pattern) for c in _strings(p)]
        elif isinstance(node, ast.For | ast.comprehension):
            # a flat literal collection walked by a loop (not a table of rows of several fields)
            if not isinstance(node.iter, ast.Constant):
                found += [(c, "loop over names") for c in _strings(node.iter, depth=1)]
        elif isinstance(node, ast.arguments):
            found += [(c, "default") for d in [*node.defaults, *node.kw_defaults] if d for c in _strings(d)]
        elif isinstance(node, ast.Dict):
            found += [(c, "dict key") for k in node.keys if k is not None for c in _strings(k)]
        elif isinstance(node, ast.Call):
            found += [(c, "call argument") for a in node.args for c in _strings(a)]
            found += [(c, "call argument") for kw in node.keywords for c in _strings(kw.value)]
        for const, form in found:
            if id(const) in declared:
                continue
            if form in ("dict key", "call argument") and const.value not in plugin_names:
                continue
            yield const.lineno, const.value, form


#: a comparison with a quoted word in a rule file (not Python: read line by line)
SMK_COMPARISON = re.compile(r"""(?:==|!=)\s*["']([^"']+)["']|["']([^"']+)["']\s*(?:==|!=)""")


def findings(root: Path = ROOT, names: dict[str, dict[str, set[str]]] | None = None) -> list[str]:
    """Every branch on a registered name outside its declaring modules, as ``path:line: ...``."""
    names = _kinds() if names is None else names
    plugin_names = {n for n, kinds in names.items() if set(kinds) & PLUGIN_KINDS}
    out = []
    files = sorted(p for d in SCANNED for p in (root / d).rglob("*.py"))
    files += sorted((root / "workflow").rglob("*.smk")) + [root / "Snakefile"]
    for path in files:
        rel = path.relative_to(root).as_posix()
        text = path.read_text()
        if path.suffix == ".py":
            hits = branches(ast.parse(text), plugin_names)
        else:
            hits = (
                (i, m.group(1) or m.group(2), "comparison")
                for i, line in enumerate(text.splitlines(), 1)
                for m in SMK_COMPARISON.finditer(line)
            )
        for line, literal, form in hits:
            kinds = names.get(literal)
            if not kinds or literal in AMBIGUOUS or (rel, literal) in ALLOWED:
                continue
            if any(rel in mods for mods in kinds.values()):
                continue  # the module that declares the name may use it
            out.append(f"{rel}:{line}: {form} on the {'/'.join(sorted(kinds))} name {literal!r}")
    return out


def test_no_code_branches_on_a_registered_name_outside_its_module():
    assert findings() == []


def test_every_allowed_literal_is_still_there():
    """An allow-list entry whose literal is gone is removed (the list stays the list of reasons)."""
    for rel, literal in ALLOWED:
        assert repr(literal)[1:-1] in (ROOT / rel).read_text(), (rel, literal)


PLANTED = {
    "comparison": 'def f(spec):\n    return spec.name == "hedge"\n',
    "membership": 'def f(name):\n    return name in ("fpl", "permelearn")\n',
    "loop": 'def f():\n    return [m for m in ("hedge", "fpl")]\n',
    "default": 'def f(learner="onlinerank"):\n    return learner\n',
    "dict key": 'STYLE = {"ftl": "grey"}\n',
    "call": 'def f(make):\n    return make("cyclic")\n',
    "match": 'def f(name):\n    match name:\n        case "mallows":\n            return 1\n',
    "table": 'def f(wc):\n    return wc.table == "runtime"\n',
    "claim": 'def f(c):\n    return c.id != "thm3.1"\n',
    "figure": 'def f(name):\n    return name in ["exponents"]\n',
}


@pytest.fixture
def repo(tmp_path):
    """An empty repository of the scanned folders."""
    for d in (*SCANNED, "workflow/rules"):
        (tmp_path / d).mkdir(parents=True, exist_ok=True)
    (tmp_path / "Snakefile").write_text("")
    return tmp_path


@pytest.mark.parametrize("form", list(PLANTED))
def test_a_planted_branch_is_found(repo, form):
    (repo / "src" / "onlinerank" / "planted.py").write_text(PLANTED[form])
    found = findings(repo, _kinds())
    assert found and all(f.startswith("src/onlinerank/planted.py:") for f in found), found


def test_a_planted_comparison_in_a_rule_file_is_found(repo):
    rule = 'rule x:\n    threads: lambda wc: 2 if wc.table == "runtime" else 1\n'
    (repo / "workflow" / "rules" / "x.smk").write_text(rule)
    assert findings(repo, _kinds()) == [
        "workflow/rules/x.smk:2: comparison on the figure/table name 'runtime'"
    ]


def test_a_declaration_and_the_declaring_module_are_not_branches(repo):
    """A claim's reads and a figure's tables and claims are references; the module that declares a
    name may use it."""
    (repo / "src" / "onlinerank" / "declares.py").write_text(
        '@figure("x", tables=("runtime",), claims=("thm3.1",), caption="c")\n'
        "def plot(t, c):\n    pass\n"
        '@claim(id="x", reads={"sim_upper": ()})\ndef b(ctx):\n    pass\n'
    )
    names = _kinds()
    names["fpl"]["learner"].add("src/onlinerank/own.py")
    (repo / "src" / "onlinerank" / "own.py").write_text('def f(n):\n    return n == "fpl"\n')
    assert findings(repo, names) == []
