"""A plain dict registry of plug-ins (learners, adversaries): ``name -> class``."""

from __future__ import annotations

__all__ = ["Registry"]


class Registry(dict):
    """``name -> class``; :meth:`register` is a class decorator, :meth:`make` instantiates."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def register(self, cls: type) -> type:
        """Class decorator adding ``cls`` under ``cls.name``."""
        if not getattr(cls, "name", None):
            raise TypeError(f"{cls.__name__} needs a class attribute 'name'")
        if cls.name in self:
            raise ValueError(f"duplicate {self.kind} name {cls.name!r}")
        self[cls.name] = cls
        return cls

    def make(self, name: str, **params):
        """Instantiate a registered class by name; unknown names list the known ones."""
        try:
            cls = self[name]
        except KeyError:
            raise ValueError(f"unknown {self.kind} {name!r}; known: {', '.join(sorted(self))}") from None
        return cls(**params)
