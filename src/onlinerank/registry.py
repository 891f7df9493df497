"""A plain dict registry of plug-ins (learners, adversaries): ``name -> class``."""

from __future__ import annotations

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
