"""A plain dict registry of plug-ins (learners, adversaries): ``name -> class``.

:meth:`Registry.substituted` is the one way to play a variant of a registered plug-in under its
name (the mutation tests of the claims, ``workflow/mutants``, play deliberately broken OnlineRanks
through the pipeline's own code with it); a config can only name registered classes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, TypeVar

__all__ = ["Registry", "owner", "block_hook_applies"]

_C = TypeVar("_C", bound=type)


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
    """``name -> class``; :meth:`register` is a class decorator, :meth:`make` instantiates."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        #: the names whose class is substituted at present (:meth:`substituted`)
        self.substitutions: dict[str, type] = {}

    def register(self, cls: _C) -> _C:
        """Class decorator adding ``cls`` under ``cls.name``."""
        name = getattr(cls, "name", None)
        if not name:
            raise TypeError(f"{cls.__name__} needs a class attribute 'name'")
        if name in self:
            raise ValueError(f"duplicate {self.kind} name {name!r}")
        self[name] = cls
        return cls

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
