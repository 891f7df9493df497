"""The one way to register (design §plugins): a :class:`Registry` per kind of thing the
pipeline finds by name -- learners, adversaries, claims, figures, tables, mutations -- filled by
``registry.register`` (a decorator, or a call on a declaration), and :func:`discover`, which
imports every module of a package so that the registrations in them run.  Adding a plug-in, a
claim, a figure or a table is one new module of its package, with no import line to add.

:meth:`Registry.substituted` is the one way to play a variant of a registered plug-in under its
name (the mutation tests of the claims, ``workflow/mutants``, play deliberately broken OnlineRanks
through the pipeline's own code with it); a config can only name registered classes.
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
from collections.abc import Iterator
from types import ModuleType
from typing import Any, TypeVar

__all__ = ["Registry", "discover", "owner", "block_hook_applies"]

_C = TypeVar("_C")

#: the module of a package that defines its contract and registry: the package imports it itself
BASE_MODULE = "base"


def discover(package: str) -> tuple[ModuleType, ...]:
    """Import every module of the (already importing) package ``package`` whose name does not
    start with ``_``, in name order, except its :data:`BASE_MODULE`; the modules.  Their
    registrations run on import: this is how a package finds its learners, adversaries, claims,
    figures and tables (and the mutation tests their broken learners)."""
    path = importlib.import_module(package).__path__
    names = sorted(m.name for m in pkgutil.iter_modules(path))
    return tuple(
        importlib.import_module(f"{package}.{name}")
        for name in names
        if not name.startswith("_") and name != BASE_MODULE
    )


def owner(cls: type, attr: str) -> type:
    """The class of ``cls.__mro__`` that defines ``attr``."""
    return next(k for k in cls.__mro__ if attr in vars(k))


def block_hook_applies(cls: type, block_hook: str, per_round: tuple[str, ...]) -> bool:
    """True when ``cls``'s ``block_hook`` is at least as derived as each of its ``per_round``
    methods.  A subclass that overrides a per-round method of a class with a block method, but not
    the block method, must be played round by round (else the block method would bypass it)."""
    blk = owner(cls, block_hook)
    return all(issubclass(blk, owner(cls, m)) for m in per_round)


class Registry(dict):
    """``name -> item`` (a plug-in class, a claim, a figure, a table, a mutation), in the order of
    registration; :meth:`register` adds an item under its attribute ``key`` (a class decorator for
    plug-ins), :meth:`make` instantiates a registered class."""

    def __init__(self, kind: str, key: str = "name") -> None:
        super().__init__()
        self.kind = kind
        #: the attribute of an item that is its name in the registry
        self.key = key
        #: the names whose class is substituted at present (:meth:`substituted`)
        self.substitutions: dict[str, type] = {}

    def register(self, item: _C) -> _C:
        """Add ``item`` under its attribute :attr:`key` (``name``: a plug-in's class attribute,
        ``id`` for a claim) and return it: a class decorator, or a call on a declaration."""
        name = getattr(item, self.key, None)
        if not name:
            what = getattr(item, "__name__", type(item).__name__)
            raise TypeError(
                f"{what} needs a {'class ' if isinstance(item, type) else ''}attribute {self.key!r}"
            )
        if name in self:
            raise ValueError(f"duplicate {self.kind} {self.key} {name!r}")
        self[name] = item
        return item

    def make(self, name: str, **params: Any) -> Any:
        """Instantiate a registered class by name; unknown names list the known ones."""
        try:
            cls = self[name]
        except KeyError:
            raise ValueError(f"unknown {self.kind} {name!r}; known: {', '.join(sorted(self))}") from None
        return cls(**params)

    @contextlib.contextmanager
    def substituted(self, name: str, variant: type) -> Iterator[None]:
        """Within the block, ``name`` stands for ``variant``: every lookup and :meth:`make` of
        ``name`` gets it.  ``variant`` must subclass the registered class and keep its ``name``
        (a variant of the plug-in, played wherever the plug-in would be).  The registered class is
        put back on exit, also on an exception; a name is substituted once at a time."""
        original = self.get(name)
        if original is None:
            raise ValueError(f"unknown {self.kind} {name!r}; known: {', '.join(sorted(self))}")
        if name in self.substitutions:
            raise RuntimeError(f"{self.kind} {name!r} is already substituted; substitutions do not nest")
        if not (isinstance(variant, type) and issubclass(variant, original)):
            raise TypeError(f"{variant!r} does not subclass the registered {self.kind} {original.__name__}")
        if getattr(variant, "name", None) != name:
            raise TypeError(f"{variant.__name__} must keep the {self.kind}'s name {name!r}")
        self.substitutions[name] = original
        self[name] = variant
        try:
            yield
        finally:
            self[name] = self.substitutions.pop(name)
