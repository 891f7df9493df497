"""From a pipeline config to experiment cells and replicate blocks, and running one block.

A *cell* is one (stage, experiment, adversary, learner, family, n, k, T); its replicates are split
into blocks of ``block_size``.  One job simulates one block of every cell of a *group*: the cells
of one experiment that share the values of the stage's ``split`` keys (default ``adversary, n,
k``: one grid point; ``[adversary]``: every n, k of an adversary in one job; ``[]``: the whole
experiment).  Python, Snakemake and numba start-up cost about a second per job, so the split sets
the number of jobs to the useful parallelism, and it depends only on the config, never on the
cores.  Replicate r of a cell draws from its own named streams whatever group or block it is
simulated in, so the tables do not depend on the split either.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import cast

from .adversaries import ADVERSARIES, make_adversary
from .game import Game
from .learners import LEARNERS, make_learner
from .results import SimResult
from .settings import STAGES, Settings
from .simulate import simulate

__all__ = [
    "STAGES",
    "Cell",
    "spec_params",
    "cell_game",
    "cells_of",
    "pair_law",
    "stage_cells",
    "groups_of",
    "find_group",
    "group_plugins",
    "run_block",
    "run_group_block",
]

#: cell keys that may separate jobs (a stage's ``split``; the schema states its default)
SPLIT_KEYS = ("adversary", "learner", "n", "k", "T")


@dataclass(frozen=True)
class Cell:
    """One experiment cell; ``path`` is its directory below ``results/sim``."""

    stage: str
    experiment: str
    adversary: str
    learner: str
    family: str
    n: int
    k: int
    T: int
    replicates: int
    block_size: int
    #: draw the rankings (realised loss) as well as the exact expected loss
    sample: bool
    #: the stage's cell keys whose values separate jobs (:attr:`group`)
    split: tuple[str, ...]
    #: computed from the adversary's closed form (theory §4.6), not simulated: no job, no block
    closed_form: bool

    @property
    def path(self) -> str:
        return (
            f"{self.stage}/{self.experiment}/{self.adversary}/{self.learner}/"
            f"{self.family}_n{self.n}_k{self.k}_T{self.T}"
        )

    @property
    def group(self) -> str:
        """The job directory: the stage, the experiment and the values of the split keys."""
        parts = [f"{key}-{getattr(self, key)}" for key in SPLIT_KEYS if key in self.split]
        return "/".join([self.stage, self.experiment, *parts])

    @property
    def key(self) -> str:
        """The cell within its group's files: ``adversary|learner|n|k|T``."""
        return f"{self.adversary}|{self.learner}|n{self.n}|k{self.k}|T{self.T}"

    @property
    def blocks(self) -> int:
        return math.ceil(self.replicates / self.block_size)

    def block_range(self, b: int) -> tuple[int, int]:
        lo = b * self.block_size
        return lo, min(self.replicates, lo + self.block_size)

    @property
    def stream_names(self) -> tuple:
        """Names of the adversary's random streams: shared by every learner of the cell."""
        return (self.stage, self.experiment, self.adversary, self.family, self.n, self.k, self.T)

    def game(self, M: float | None = None) -> Game:
        return Game(n=self.n, T=self.T, family=self.family, k=self.k, M=M)


def spec_params(spec: dict) -> dict:
    """Constructor parameters of a learner/adversary spec (everything but its ``name``)."""
    return {k: v for k, v in spec.items() if k != "name"}


def cell_game(settings: Settings, cell: Cell) -> Game:
    """The cell's :class:`~onlinerank.game.Game`; graded feedback takes M from its adversary
    (``adv.M(n)``, theory §1.1)."""
    M = None
    if cell.family == "graded":
        aspec = settings.adversary(cell.adversary)
        M = float(cast(float, make_adversary(aspec["name"], **spec_params(aspec)).M(cell.n)))
    return cell.game(M)


def pair_law(settings: Settings, adversary: str, game: Game) -> Mapping[int, Fraction] | None:
    """The exact law of ``s_t(u) - s_t(v)`` of the adversary labelled ``adversary`` in ``game``
    (its :meth:`~onlinerank.adversaries.base.Adversary.pair_difference_law`, theory §4.6), or
    ``None`` when its cells have no closed form."""
    aspec = settings.adversary(adversary)
    adv = make_adversary(aspec["name"], **spec_params(aspec))
    if not adv.learner_independent or game.family not in adv.families:
        return None
    return adv.pair_difference_law(game)


def _closed_form(settings: Settings, adversary: str, family: str, n: int, k: int, T: int) -> bool:
    """Whether a cell with these values has a closed form (an invalid game has none: the config's
    validation reports it)."""
    try:
        return pair_law(settings, adversary, Game(n=n, T=T, family=family, k=k, M=1.0)) is not None
    except (KeyError, TypeError, ValueError):
        return False


def cells_of(settings: Settings, stage: str) -> list[Cell]:
    """All cells of a stage, in a fixed order (config order: experiments, then adversary,
    learner, n, k, T); a cell of an adversary with a closed form (theory §4.6) is marked
    ``closed_form`` unless its experiment says ``closed_form: false``.  Computed once per
    settings object (:meth:`~onlinerank.settings.Settings.derived`)."""
    return list(settings.derived(("cells_of", stage), lambda: tuple(_cells_of(settings, stage))))


def _cells_of(settings: Settings, stage: str) -> list[Cell]:
    sec = settings.stages.get(stage)
    if sec is None:
        return []
    closed: dict[tuple, bool] = {}  # (adversary, family, n, k, T) -> has a closed form
    out = []
    for ex in sec.experiments:
        for adv, lrn, n, k, T in itertools.product(ex.adversaries, ex.learners, ex.n, ex.k, ex.T):
            key = (adv, ex.family, n, k, T)
            if ex.closed_form and key not in closed:
                closed[key] = _closed_form(settings, *key)
            out.append(
                Cell(
                    stage,
                    ex.name,
                    adv,
                    lrn,
                    ex.family,
                    n,
                    k,
                    T,
                    ex.replicates,
                    sec.block_size,
                    sample=ex.sample,
                    split=sec.split,
                    closed_form=ex.closed_form and closed[key],
                )
            )
    return out


def stage_cells(settings: Settings) -> dict[str, list[Cell]]:
    """Cells of every configured stage."""
    return {s: cells_of(settings, s) for s in settings.stages}


def groups_of(settings: Settings, stage: str) -> dict[str, list[Cell]]:
    """The simulated cells of a stage grouped by job directory (see :attr:`Cell.group`), in
    config order; closed-form cells (theory §4.6) have no job."""
    return {group: list(cells) for group, cells in _groups(settings, stage).items()}


def _groups(settings: Settings, stage: str) -> Mapping[str, tuple[Cell, ...]]:
    def compute() -> Mapping[str, tuple[Cell, ...]]:
        out: dict[str, list[Cell]] = {}
        for c in cells_of(settings, stage):
            if not c.closed_form:
                out.setdefault(c.group, []).append(c)
        return MappingProxyType({group: tuple(cells) for group, cells in out.items()})

    return settings.derived(("groups_of", stage), compute)


def find_group(settings: Settings, group: str) -> list[Cell]:
    """The cells of job directory ``group`` (raises ``KeyError`` if the config has none)."""
    stage = group.split("/", 1)[0]
    if stage in STAGES:
        cells = _groups(settings, stage).get(group)
        if cells:
            return list(cells)
    raise KeyError(f"no cells {group!r} in the config")


def group_plugins(settings: Settings, group: str) -> list[type]:
    """The learner and adversary classes the cells of job directory ``group`` play (the code a
    simulate job runs besides the engine, :func:`onlinerank.pipeline.step_code`)."""
    cells = find_group(settings, group)
    classes = [LEARNERS[settings.learners[c.learner].name] for c in cells]
    classes.append(ADVERSARIES[settings.adversaries[cells[0].adversary].name])
    return list(dict.fromkeys(classes))


def run_block(
    settings: Settings, cell: Cell, block: int, progress: Callable[[int, int], None] | None = None
) -> SimResult:
    """Simulate replicates of block ``block`` of ``cell``."""
    lspec = settings.learner(cell.learner)
    aspec = settings.adversary(cell.adversary)
    learner = make_learner(lspec["name"], **spec_params(lspec))
    adversary = make_adversary(aspec["name"], **spec_params(aspec))
    lo, hi = cell.block_range(block)
    res = simulate(
        learner,
        adversary,
        cell_game(settings, cell),
        hi - lo,
        seed=settings.seed,
        cell=cell.stream_names,
        rep_start=lo,
        learner_label=cell.learner,
        K=settings.checkpoints,
        sample=cell.sample,
        progress=progress,
    )
    res.meta.update(
        {"cell": cell.path, "block": block, "learner_label": cell.learner, "adversary_label": cell.adversary}
    )
    return res


def run_group_block(
    settings: Settings, group: str, block: int, progress: Callable[[int, int], None] | None = None
) -> dict[str, SimResult]:
    """Simulate block ``block`` of every cell of job directory ``group``; keys are
    :attr:`Cell.key`."""
    return {c.key: run_block(settings, c, block, progress) for c in find_group(settings, group)}
