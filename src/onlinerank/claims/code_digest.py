"""The code that decides a verdict, as text a digest can cover (design §verdicts).

:func:`code_closure` starts from a claim's builder (and the verdict rule every claim shares) and
follows every function, class and module-level constant of the package it references — by name,
through a module alias (``B.theorem31_paper``), through an import inside a function, through a
closure cell or through a constant that holds functions — into the modules that compute the
statistics: the claims modules, the bounds, the exact formulas, the fits, the named streams.  Each
object contributes a normalised text: the syntax tree of its source without docstrings, comments
or layout (a reformatting or a reworded docstring does not move it; a changed literal, operator or
call does), or the ``repr`` of a constant (e.g. a level ``ALPHA = 0.05``).

Two kinds of module are named but not followed (:data:`NOT_FOLLOWED`): the algorithms, plug-ins and
game a claim tests (their change is what a claim exists to catch, not a change of the test), and
the loading and typing of the config (the config values a claim reads enter its digest through its
grid and thresholds, :func:`onlinerank.claims.evidence.claim_test`).
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import hashlib
import importlib
import importlib.util
import inspect
import sys
import textwrap
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["PACKAGE", "NOT_FOLLOWED", "NOT_FOLLOWED_NAMES", "code_closure", "followed", "normalised"]

PACKAGE = "onlinerank"

#: modules of the package whose code no digest follows (a reference to them is kept by name)
NOT_FOLLOWED = (
    # what the claims test: the learners, adversaries and samplers, the game and its losses, the
    # engine and its compiled kernels, the offline optimum they are scored against
    "onlinerank.learners",
    "onlinerank.adversaries",
    "onlinerank.registry",
    "onlinerank.samplers",
    "onlinerank.logweights",
    "onlinerank.feedback",
    "onlinerank.game",
    "onlinerank.hindsight",
    "onlinerank.simulate",
    "onlinerank.results",
    "onlinerank.worst_case",
    "onlinerank.worst_case_search",
    "onlinerank._kernels",
    # the config's loading and typing, and the tables' declarations (the values and columns a
    # claim reads are in its digest through its test, grid and thresholds)
    "onlinerank.settings",
    "onlinerank.config",
    "onlinerank.schema_validation",
    "onlinerank.tables",
    # the digest and the change log themselves, the report and the figures' catalog
    "onlinerank.claims.code_digest",
    "onlinerank.claims.evidence",
    "onlinerank.claims.changelog",
    "onlinerank.claims.report",
    "onlinerank.figures",
)


#: objects of followed modules that are kept by their name only, the registration of claims (every
#: claim's builder is reachable from it, and what a registration fixes is in the claim's test)
NOT_FOLLOWED_NAMES = (
    "onlinerank.claims.registry.REGISTRY",
    "onlinerank.claims.registry.claim",
    "onlinerank.claims.registry.not_tested",
    "onlinerank.claims.registry._add",
)


def followed(module: str) -> bool:
    """Whether the digest follows the code of module ``module`` (in the package, not excluded)."""
    if module != PACKAGE and not module.startswith(PACKAGE + "."):
        return False
    return not any(module == m or module.startswith(m + ".") for m in NOT_FOLLOWED)


def _module_of(obj: Any) -> str:
    return getattr(obj, "__module__", None) or ""


def _qualname(obj: Any) -> str:
    return f"{_module_of(obj)}.{getattr(obj, '__qualname__', getattr(obj, '__name__', type(obj).__name__))}"


def _norm(node: Any) -> Any:
    """A syntax tree as nested lists: node type and fields, without positions, contexts, type
    comments, or fields that are empty (the same text whatever the Python version's defaults)."""
    if isinstance(node, ast.AST):
        out: list = [type(node).__name__]
        for name in node._fields:
            if name in ("ctx", "type_comment", "kind"):
                continue
            value = _norm(getattr(node, name, None))
            if value is None or value == []:
                continue
            out.append([name, value])
        return out
    if isinstance(node, list):
        return [_norm(x) for x in node]
    if isinstance(node, str | int | float | complex | bool | bytes) or node is None:
        return [type(node).__name__, repr(node)] if node is not None else None
    return repr(node)


def _strip_docstrings(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    node.body = body[1:] or [ast.Pass()]


def _drop_annotations(tree: ast.AST) -> None:
    """Type annotations decide no number: they are left out of the text and of the references."""
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            node.annotation = None
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            node.returns = None
        elif isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(None)


def _lambda_node(fn: types.FunctionType) -> ast.AST | None:
    """The syntax tree of lambda ``fn``: among the lambdas of its module that start on its line,
    the one that compiles to its code (all of them if none matches exactly)."""
    try:
        module_source = inspect.getsource(inspect.getmodule(fn))  # type: ignore[arg-type]
    except (OSError, TypeError):
        return None
    line = fn.__code__.co_firstlineno
    candidates = [
        node
        for node in ast.walk(ast.parse(module_source))
        if isinstance(node, ast.Lambda) and node.lineno == line
    ]
    for node in candidates:
        code = compile(ast.Expression(node), "<lambda>", "eval")
        inner = next((c for c in code.co_consts if isinstance(c, types.CodeType)), None)
        if inner is not None and (inner.co_code, inner.co_names) == (
            fn.__code__.co_code,
            fn.__code__.co_names,
        ):
            return ast.Expression(node)
    return ast.Module(body=[ast.Expr(node) for node in candidates], type_ignores=[]) if candidates else None


def normalised(source: str) -> str:
    """The text the digest keeps of ``source`` (a function, a class, a module): its syntax tree
    without docstrings, comments, layout or type annotations."""
    tree = ast.parse(textwrap.dedent(source))
    _strip_docstrings(tree)
    _drop_annotations(tree)
    return repr(_norm(tree))


def _tree(obj: Any, *, drop_decorators: bool) -> ast.AST | None:
    if isinstance(obj, types.FunctionType) and obj.__name__ == "<lambda>":
        tree = _lambda_node(obj)
    else:
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(obj)))
        except (OSError, TypeError, SyntaxError):
            return None
    if tree is None:
        return None
    _strip_docstrings(tree)
    _drop_annotations(tree)
    if drop_decorators:
        for node in getattr(tree, "body", []):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                node.decorator_list = []
    return tree


def _resolve_import(
    node: ast.ImportFrom | ast.Import, package: str
) -> dict[str, tuple[Any, tuple[str, str]]]:
    """``{name: (object, (module, attribute))}`` of the names an import inside a function binds,
    resolved without importing a module the digest does not follow (such a name is kept as its
    dotted path)."""
    out: dict[str, tuple[Any, tuple[str, str]]] = {}
    if isinstance(node, ast.Import):
        for alias in node.names:
            out[alias.asname or alias.name.split(".")[0]] = (_ModuleRef(alias.name), (alias.name, ""))
        return out
    base = node.module or ""
    if node.level:
        base = importlib.util.resolve_name("." * node.level + base, package)
    for alias in node.names:
        name = alias.asname or alias.name
        target = f"{base}.{alias.name}"
        if not followed(base) and not followed(target):
            out[name] = (_ModuleRef(target), (base, alias.name))
            continue
        module = importlib.import_module(base)
        obj = getattr(module, alias.name) if hasattr(module, alias.name) else importlib.import_module(target)
        out[name] = (obj, (base, alias.name))
    return out


@dataclasses.dataclass(frozen=True)
class _ModuleRef:
    """A name the digest keeps by its dotted path only (not followed)."""

    path: str


def _lookup(name: str, local: Mapping[str, Any], glob: Mapping[str, Any]) -> Any:
    if name in local:
        return local[name]
    if name in glob:
        return glob[name]
    return _MISSING


_MISSING = object()


def _attribute_chain(node: ast.Attribute) -> list[str] | None:
    parts: list[str] = []
    cur: ast.expr = node
    while isinstance(cur, ast.Attribute):
        parts.append(cur.attr)
        cur = cur.value
    if not isinstance(cur, ast.Name):
        return None
    parts.append(cur.id)
    return parts[::-1]


def _references(tree: ast.AST, module: str, glob: Mapping[str, Any], package: str) -> list[tuple]:
    """``(object, module, name)`` for every object the tree refers to: a global name of
    ``module``, an attribute of a module (``B.theorem31_paper``), a name imported inside a
    function (its own module and name)."""
    local: dict[str, Any] = {}
    origin: dict[str, tuple[str, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for name, (obj, where) in _resolve_import(node, package).items():
                local[name] = obj
                origin[name] = where
    found: list[tuple] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            obj = _lookup(node.id, local, glob)
            if obj is not _MISSING:
                found.append((obj, *origin.get(node.id, (module, node.id))))
        elif isinstance(node, ast.Attribute):
            chain = _attribute_chain(node)
            if not chain:
                continue
            obj = _lookup(chain[0], local, glob)
            for part in chain[1:]:
                if not isinstance(obj, types.ModuleType | type) or not hasattr(obj, part):
                    break
                owner = obj.__name__ if isinstance(obj, types.ModuleType) else _module_of(obj)
                obj = getattr(obj, part)
                found.append((obj, owner, part))
    return found


def _stable(obj: Any, queue: list[Any], depth: int = 0) -> str:
    """A text of a constant that is the same in every process: containers element by element,
    dataclasses field by field, functions and classes by name (and queued to be followed)."""
    if depth > 6:
        return "…"
    if obj is None or isinstance(obj, bool | int | float | complex | str | bytes):
        return repr(obj)
    if isinstance(obj, enum.Enum):
        return f"{_qualname(type(obj))}.{obj.name}"
    if isinstance(obj, list | tuple):
        inner = ", ".join(_stable(x, queue, depth + 1) for x in obj)
        return f"{type(obj).__name__}[{inner}]"
    if isinstance(obj, set | frozenset):
        return f"{type(obj).__name__}{{{', '.join(sorted(_stable(x, queue, depth + 1) for x in obj))}}}"
    if isinstance(obj, Mapping):
        items = sorted((_stable(k, queue, depth + 1), _stable(v, queue, depth + 1)) for k, v in obj.items())
        return "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = ", ".join(
            f"{f.name}={_stable(getattr(obj, f.name), queue, depth + 1)}" for f in dataclasses.fields(obj)
        )
        return f"{_qualname(type(obj))}({fields})"
    if isinstance(obj, _ModuleRef):
        return obj.path
    if isinstance(obj, types.ModuleType):
        return f"module {obj.__name__}"
    if callable(obj):
        if followed(_module_of(obj)):
            queue.append(obj)
        return _qualname(obj)
    if hasattr(obj, "dtype") and hasattr(obj, "tolist"):
        return f"array[{obj.dtype}]{obj.tolist()!r}"
    return f"<{_qualname(type(obj))}>"


def _key(obj: Any, text: str) -> str:
    """The name of an object in a closure; a lambda's carries a hash of its text (a module can
    hold several lambdas of the same qualified name)."""
    name = _qualname(obj)
    if name.endswith("<lambda>"):
        name += "#" + hashlib.sha256(text.encode()).hexdigest()[:8]
    return name


#: the text and references of each function or class seen in this process, by identity (the object
#: is kept, so that its id is not reused): the sources do not change while a process runs
_SEEN: dict[tuple[int, bool], tuple[Any, str | None, list[tuple]]] = {}


def _analysed(obj: Any, drop: bool) -> tuple[str | None, list[tuple]]:
    """The normalised text of a function or class (``None`` without source) and its references."""
    key = (id(obj), drop)
    if key not in _SEEN:
        tree = _tree(obj, drop_decorators=drop)
        if tree is None:
            _SEEN[key] = (obj, None, [])
        else:
            module = sys.modules.get(_module_of(obj))
            glob = dict(vars(module)) if module is not None else {}
            package = module.__package__ if module is not None and module.__package__ else PACKAGE
            _SEEN[key] = (obj, repr(_norm(tree)), _references(tree, _module_of(obj), glob, package))
    return _SEEN[key][1], _SEEN[key][2]


def _unwrapped(obj: Any) -> Any:
    return inspect.unwrap(obj) if callable(obj) and not isinstance(obj, type) else obj


def code_closure(roots: Iterable[Callable | type], *, drop_decorators: Iterable[Any] = ()) -> dict[str, str]:
    """``{qualified name: normalised text}`` of ``roots`` and every function, class and constant of
    the followed modules of the package they reference, transitively.  ``drop_decorators``: roots
    whose decorators are left out (a claim's ``@claim(...)`` fields are in its test already)."""
    drop = {id(_unwrapped(x)) for x in drop_decorators}
    queue: list[Any] = list(roots)
    out: dict[str, str] = {}
    seen: set[int] = set()
    while queue:
        obj = _unwrapped(queue.pop())
        if id(obj) in seen or _qualname(obj) in NOT_FOLLOWED_NAMES:
            continue
        seen.add(id(obj))
        if not isinstance(obj, types.FunctionType | type):
            continue
        text, refs = _analysed(obj, id(obj) in drop)
        if text is None:
            out[_qualname(obj)] = f"<no source: {_qualname(obj)}>"
            continue
        if isinstance(obj, types.FunctionType) and obj.__closure__:
            cells = {
                name: _stable(cell.cell_contents, queue)
                for name, cell in zip(obj.__code__.co_freevars, obj.__closure__, strict=True)
                if name != "__class__"
            }
            text += " closure " + repr(sorted(cells.items()))
        out[_key(obj, text)] = text
        for ref, owner, name in refs:
            ref = _unwrapped(ref)
            if isinstance(ref, types.ModuleType | _ModuleRef):
                continue
            if isinstance(ref, types.FunctionType | type):
                if followed(_module_of(ref)):
                    queue.append(ref)
                continue
            if callable(ref) or not followed(owner) or f"{owner}.{name}" in NOT_FOLLOWED_NAMES:
                continue
            # a module-level constant of a followed module: its value, as stable text
            out[f"{owner}.{name}"] = _stable(ref, queue)
    return dict(sorted(out.items()))
