"""The parameters of one online ranking game (theory §1): n items, horizon T, feedback family."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .feedback import FAMILIES, family_M

__all__ = ["Game"]


@dataclass(frozen=True)
class Game:
    """``n`` items, ``T`` rounds, feedback ``family`` (see ``feedback.FAMILIES``), ``k`` chosen
    items per round (k-choice), and the complexity parameter ``M`` (2.3) used to tune learners.

    ``M=None`` takes the family's exact value (theory §1.1); graded feedback must state its M.
    """

    n: int
    T: int
    family: str = "single"
    k: int = 1
    #: a float once built (``None`` at construction means the family's exact value)
    M: float = None  # type: ignore[assignment]

    if TYPE_CHECKING:  # the constructor the dataclass generates, as type checkers should see it

        def __init__(
            self, n: int, T: int, family: str = "single", k: int = 1, M: float | None = None
        ) -> None: ...

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 2:
            raise ValueError(f"n must be an integer >= 2, got n={self.n!r}")
        if isinstance(self.T, bool) or not isinstance(self.T, int) or self.T < 1:
            raise ValueError(f"T must be an integer >= 1, got T={self.T!r}")
        if self.family not in FAMILIES:
            raise ValueError(f"unknown feedback family {self.family!r}; choose from {', '.join(FAMILIES)}")
        if self.family == "kchoice":
            if isinstance(self.k, bool) or not isinstance(self.k, int) or not 1 <= self.k:
                raise ValueError(f"k must be an integer >= 1, got k={self.k!r}")
            if self.k > self.n:
                raise ValueError(f"k must be <= n, got k={self.k}, n={self.n}")
            if 2 * self.k > self.n:
                raise ValueError(f"the paper assumes k <= n/2 for k-choice, got k={self.k}, n={self.n}")
        elif self.family == "single" and self.k != 1:
            raise ValueError(f"single choice has k=1, got k={self.k}")
        if self.M is None:
            if self.family == "graded":
                raise ValueError("graded feedback needs an explicit M (complexity parameter)")
            object.__setattr__(self, "M", family_M(self.family, self.n, self.k))
        elif not self.M > 0:
            raise ValueError(f"M must be positive, got M={self.M!r}")

    @property
    def chosen(self) -> int | None:
        """Number of chosen items per round for binary families, else None."""
        return {"single": 1, "kchoice": self.k, "subset": self.n // 2}.get(self.family)
