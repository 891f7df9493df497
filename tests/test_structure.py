"""The package's dependency graph reads one way: no module imports, directly or through others, a
module that imports it back, neither file by file nor package by package (the plug-in and
catalog packages taken as one room each), so every arrow runs down a floor; an import sits at a
module's top unless it is deliberately lazy, and then a comment says why; modules are imported by
name (``importlib``) only where a package discovers its own modules, where the package facade
loads its public names lazily, and where the claim digests resolve the code a claim refers to.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGE = ROOT / "src" / "onlinerank"
#: the packages drawn as one room each (their modules form one unit: a registry and its plug-ins)
ROOMS = ("learners", "adversaries", "claims", "figures", "tables", "_kernels")
#: the only modules that import modules by name, and why
IMPORTLIB_USERS = {
    "registry.py": "discover(): a package imports its own modules (plug-ins, claims, figures, tables)",
    "__init__.py": "the package facade's lazy public names (PEP 562)",
    "claims/code_digest.py": "the claim digests resolve the names a claim's code refers to",
}


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by dotted name."""
    out = {}
    for p in sorted(package.rglob("*.py")):
        parts = list(p.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def _statements(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of a module, at any depth, but not under ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        yield from _statements(node)


def imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that module ``name`` imports (a ``from X import y`` names module
    ``X.y`` when that is a module, else ``X``); not the top-level facade, which only re-exports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in _statements(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        out |= {t for t in targets if t in modules and t != "onlinerank" and t != name}
    return out


def graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    modules = _modules(package)
    return {name: imports(name, path, modules) for name, path in modules.items()}


def room(name: str) -> str:
    parts = name.split(".")
    return f"{parts[1]}/" if len(parts) > 1 and parts[1] in ROOMS else name


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def rooms(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for a, bs in edges.items():
        out.setdefault(room(a), set()).update(room(b) for b in bs if room(b) != room(a))
    return out


def test_no_module_imports_one_that_imports_it_back():
    assert circles(graph()) == []


def test_no_package_imports_one_that_imports_it_back():
    """Package by package (each plug-in or catalog package one room): a DAG, so every arrow runs
    down a floor (no arrow up, e.g. from the plotting helpers into the figures that use them)."""
    assert circles(rooms(graph())) == []


def test_a_planted_circle_is_found(tmp_path):
    pkg = tmp_path / "onlinerank"
    (pkg / "figures").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "plotting.py").write_text("def draw():\n    from .figures import base\n")
    (pkg / "figures" / "__init__.py").write_text("")
    (pkg / "figures" / "base.py").write_text("from ..plotting import draw\n")
    assert circles(graph(pkg)) == [["onlinerank.figures.base", "onlinerank.plotting"]]
    assert circles(rooms(graph(pkg))) == [["figures/", "onlinerank.plotting"]]


def lazy_imports(path: Path) -> list[tuple[int, str, bool]]:
    """``(line, statement, justified)`` of every import inside a function (not under
    ``TYPE_CHECKING``); justified: a comment on its line or on the lines just above it (over a
    block of imports)."""
    text = path.read_text()
    lines = text.splitlines()

    def justified(lineno: int) -> bool:
        if "#" in lines[lineno - 1]:
            return True
        i = lineno - 2
        while i >= 0 and (lines[i].strip().startswith(("from ", "import ")) or not lines[i].strip()):
            i -= 1
        return i >= 0 and lines[i].strip().startswith("#")

    out = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if in_function and isinstance(child, ast.Import | ast.ImportFrom):
                out.append((child.lineno, lines[child.lineno - 1].strip(), justified(child.lineno)))
            visit(child, inner)

    visit(ast.parse(text), False)
    return out


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.relative_to(PACKAGE).as_posix()
)
def test_an_import_inside_a_function_says_why(path):
    unjustified = [(line, stmt) for line, stmt, ok in lazy_imports(path) if not ok]
    assert unjustified == [], "an import inside a function without a comment saying why it is lazy"


def test_a_planted_unexplained_lazy_import_is_found(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(
        "def f():\n    import json\n    return json\n\n"
        "def g():\n    # lazy: a reason\n    import json\n    from os import path\n    return json, path\n"
    )
    assert [(line, ok) for line, _, ok in lazy_imports(path)] == [(2, False), (7, True), (8, True)]


def test_modules_are_imported_by_name_only_where_that_is_the_point():
    users = {
        p.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("*.py")
        if "import_module" in p.read_text() or "__import__(" in p.read_text()
    }
    assert users == set(IMPORTLIB_USERS)
