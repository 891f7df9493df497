"""The learner contract and registry (design §plugins): the one file a plug-in author reads.

A learner plays R independent replicates of the game at once.  A new learner is one module in
this folder: subclass :class:`Learner`, set ``name``, decorate the class with ``@register``.  The
package imports every module of the folder (``learners/__init__.py``), so there is no import
line to add.

What a learner implements
-------------------------
Required: ``name``; :meth:`Learner.reset` (call ``super().reset``), :meth:`Learner._rank` and
:meth:`Learner.update`.  Everything else is an optional hook, declared on :class:`Learner` with
its default and documented there once:

=========================  ====================================  ==================================
hook                       default                               override to
=========================  ====================================  ==================================
``example()``              ``cls()``                             give the conformance tests an
                                                                 instance exercising every path
``check(game)``            accept every game                     refuse games it cannot play
``expected_loss(fb)``      ``None`` (no exact expectation)       return the exact E[loss] (R,)
``log_weights()``          ``None``                              expose Bradley-Terry log-weights
``pair_probs()``           ``None``                              expose P(u before v) (R, n, n)
``expected_positions()``   ``None`` (n ``expected_loss`` calls)  give E[pi(u) - 1] (R, n) at once,
                                                                 bit-identical to those calls
``sample_first_step()``    raises ``NotImplementedError``        time a partial draw (timing.py)
``play_block(...)``        the per-round reference loop          play many rounds in one call
``describe()``             ``{"learner": name}``                 add parameters to the outputs
``regret_bound(game)``     ``None`` (no bound of its own)        state its own regret bound
                                                                 (worst-case tables, theory §3.3)
``memory_bytes(n, reps)``  ``0``                                 declare (R, n, n) or larger
                                                                 arrays (the command line's
                                                                 memory estimate)
``plot_color``             ``None`` (an automatic colour,        give the figures one colour
                           ``automatic_color`` below)
``plot_style(spec, ...)``  ``plot_color``, marker ``^``, ``-.``  style variants of the learner
``timing_counters()``      ``{}``                                report work counters of the last
                                                                 update to the timings (e.g.
                                                                 ``{"sweeps": ...}``)
``paper_algorithm``        ``False``                             mark the paper's algorithm, which
                                                                 the claims of the paper test
``deterministic``          ``False``                             mark a ranking without randomness
``configured_rate(p)``     ``None`` (no learning rate)           name the rate rule of an entry
``configured_sampler(p)``  ``None`` (no choice of sampler)       name the sampler of an entry
=========================  ====================================  ==================================

``Learner.implements("hook")`` tells whether a class overrides an optional hook (instead of
probing with ``hasattr``).  What a learner knows about itself (its bound, its style in the
figures, its work counters, whether it is the paper's algorithm and at which rate and with which
sampler an entry of the config runs it) lives in its own module: the worst-case tables, the
figures, the timings and the claims ask these hooks and never match learner names.

Protocol of a round (the engine, :func:`onlinerank.simulate`, through :meth:`Learner.play_block`):
``expected_loss(fb)`` (exact E[pairwise loss] of the coming ranking, or ``None``), then
``rank(seeds)`` (one sampled order per replicate; replicate r's randomness comes only from
``seeds[r]``) when realised losses are wanted, then ``update(fb)``.  Adaptive adversaries may read
the learner's *distribution* (``expected_loss`` of candidate feedback, ``log_weights``,
``pair_probs``), never its sampled ranking.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ..feedback import Feedback, FeedbackBlock
from ..game import Game
from ..registry import Registry, owner
from ..seeding import draw_seeds

__all__ = [
    "Learner",
    "LEARNERS",
    "register",
    "make_learner",
    "paper_algorithm",
    "check_seeds",
    "AUTO_COLORS",
    "automatic_color",
]

LEARNERS = Registry("learner")
#: class decorator adding a learner to :data:`LEARNERS` under ``cls.name``
register = LEARNERS.register

#: the colours of the learners whose class declares no ``plot_color`` (a plug-in's default): each
#: at least 50 apart in RGB (0-255 a channel) from every colour of the built-in learners (their
#: ``plot_color`` and OnlineRank's sampler and variant styles) and from each other
AUTO_COLORS = ("#1b9e77", "#c51b7d", "#00441b", "#762a83", "#a6d854", "#01665e", "#a50026", "#e6ab02")


def automatic_color(name: str) -> str | None:
    """The colour of the registered learner ``name`` whose class declares no ``plot_color``: the
    registered learners without one (and without a ``plot_style`` of their own), in the order of
    their names, take :data:`AUTO_COLORS` in turn.  So the colour is the same in every figure of a
    run, never a built-in learner's colour, and distinct for up to ``len(AUTO_COLORS)`` such
    learners (then the palette repeats).  None for a name that is not registered or whose class
    has a colour of its own."""
    plain = sorted(
        key for key, cls in LEARNERS.items() if cls.plot_color is None and not cls.implements("plot_style")
    )
    if name not in plain:
        return None
    return AUTO_COLORS[plain.index(name) % len(AUTO_COLORS)]


def make_learner(name: str, **params: Any) -> Learner:
    """Instantiate a registered learner by name; unknown names list the known ones."""
    return LEARNERS.make(name, **params)


def paper_algorithm() -> str:
    """The registered name of the paper's algorithm: the learner whose class declares
    :attr:`Learner.paper_algorithm` itself (OnlineRank, theory §2.1; a variant substituted for it,
    :meth:`~onlinerank.registry.Registry.substituted`, stands in its place).  The default learner
    of the exact worst case, the worst-case search and the command line."""
    names = []
    for name, cls in LEARNERS.items():
        declared = LEARNERS.substitutions.get(name, cls)
        if declared.paper_algorithm and owner(declared, "paper_algorithm") is declared:
            names.append(name)
    if len(names) != 1:
        raise LookupError(f"expected one registered learner declaring paper_algorithm, found {names}")
    return names[0]


def check_seeds(seeds: np.ndarray, reps: int) -> np.ndarray:
    """``seeds`` as a C-contiguous uint64 array of shape ``(reps,)``, else a ``ValueError``."""
    s = np.ascontiguousarray(seeds, dtype=np.uint64)
    if s.shape != (reps,):
        raise ValueError(f"seeds must have shape ({reps},), got {s.shape}")
    return s


class Learner:
    """Base class of every learner; see the module docstring for the contract."""

    #: registry key used in configs
    name: ClassVar[str] = ""
    #: True when ``expected_loss`` returns the exact expectation (no sampling)
    exact: ClassVar[bool] = True
    #: True for the paper's algorithm (OnlineRank, Algorithm 1, theory §2.1): the learner whose
    #: theorems the claims of the paper test, whose learning rate the figures' titles state and
    #: whose exact worst case the worst-case tables hold against Theorem 3.1
    paper_algorithm: ClassVar[bool] = False
    #: True for a learner whose ranking is a function of the feedback so far, with no randomness
    #: (Follow-the-Leader): against the least-favoured-item adversary its regret grows linearly
    #: (theory §3.4), which a finding beyond the paper checks
    deterministic: ClassVar[bool] = False

    # --- required --------------------------------------------------------------------------------
    def reset(self, game: Game, reps: int) -> None:
        """Start a new game for ``reps`` replicates (subclasses call ``super().reset``)."""
        self.game = game
        self.reps = reps

    def _rank(self, seeds: np.ndarray) -> np.ndarray:  # pragma: no cover - interface
        """One order (items best-first, int64) per replicate, shape (R, n); ``seeds`` are already
        validated by :meth:`~onlinerank.learners.base.Learner.rank` (uint64, shape (R,)); row r may use
        ``seeds[r]`` only."""
        raise NotImplementedError

    def update(self, fb: Feedback) -> None:  # pragma: no cover - interface
        """Observe the feedback of this round."""
        raise NotImplementedError

    # --- template method (do not override) --------------------------------------------------------
    def rank(self, seeds: np.ndarray) -> np.ndarray:
        """One sampled order per replicate: validates ``seeds`` once, then calls :meth:`_rank`."""
        return self._rank(check_seeds(seeds, self.reps))

    @classmethod
    def implements(cls, hook: str) -> bool:
        """True when this class overrides the optional hook ``hook`` of :class:`Learner`."""
        if not callable(getattr(Learner, hook, None)):
            raise ValueError(f"{hook!r} is not a hook of Learner")
        return owner(cls, hook) is not Learner

    # --- optional hooks (defaults) ----------------------------------------------------------------
    @classmethod
    def example(cls) -> Learner:
        """An instance for the conformance tests (default: the default parameters)."""
        return cls()

    def check(self, game: Game) -> None:
        """Raise ``ValueError`` if this learner cannot play ``game`` (called before any work:
        by the engine and by the config validation).  Default: every game is fine."""

    def expected_loss(self, fb: Feedback) -> np.ndarray | None:
        """Exact expected pairwise loss (R,) of the coming ranking against ``fb``, or None.

        Must accept any valid feedback batch, not only the game's family: adaptive adversaries
        probe the learner's distribution with candidate feedback (e.g. single items).
        """
        return None

    def log_weights(self) -> np.ndarray | None:
        """Log-weights ``a`` (R, n) when the coming ranking has the Bradley-Terry marginals
        ``P(u before v) = expit(a_u - a_v)`` (OnlineRank, Lemma 6.1); default ``None``."""
        return None

    def pair_probs(self) -> np.ndarray | None:
        """Pairwise marginals ``P[r, u, v] = P(u before v)`` (R, n, n) of the coming ranking,
        diagonal 0; default ``None`` (not available)."""
        return None

    def expected_positions(self) -> np.ndarray | None:
        """Expected ``pi(u) - 1`` (R, n) of every item under the coming ranking, in one call, or
        ``None`` (the default): then an adaptive adversary that reads them asks
        :meth:`expected_loss` of each single choice ``{u}`` instead
        (:func:`onlinerank.adversaries.base.expected_positions`).  An override must return exactly
        those n expected losses, bit for bit (the conformance tests compare them), so that an
        adversary plays the same feedback whichever way it asks."""
        return None

    def sample_first_step(self) -> None:
        """The work every draw of :meth:`~onlinerank.learners.base.Learner.rank` performs (for timing a
        lower bound on a draw too slow
        to time whole); only learners that override it can be timed that way."""
        raise NotImplementedError(f"learner {self.name!r} has no sample_first_step()")

    def play_block(
        self, block: FeedbackBlock, keys: np.ndarray | None, t0: int, exp_loss: np.ndarray, loss: np.ndarray
    ) -> bool:
        """Play the rounds ``t0 .. t0 + B - 1`` of ``block`` (the engine's only call per block).

        Per round t, in this order: ``exp_loss += expected_loss(fb)``; if ``keys`` (R,) uint64 is
        given, ``loss +=`` the pairwise loss of ``rank(draw_seeds(keys, t))``; then ``update(fb)``.
        Returns False if some round had no expected loss (``exp_loss`` then holds the sum over
        the rounds that had one).  This default is the per-round reference implementation; a
        learner overriding it (a compiled loop) must give bit-identical ``exp_loss``, ``loss`` and
        state -- the conformance tests check it, for any block size and every family.  The engine
        uses an override only where it is at least as derived as ``expected_loss``, ``rank``,
        ``_rank`` and ``update``: a subclass overriding one of those alone (e.g. to record the
        rounds) is played by this reference loop.
        """
        has_exp = True
        for b in range(block.rounds):
            fb = block.round(b)
            el = self.expected_loss(fb)
            if el is None:
                has_exp = False
            else:
                exp_loss += el
            if keys is not None:
                loss += fb.pairwise_loss(self.rank(draw_seeds(keys, t0 + b)))
            self.update(fb)
        return has_exp

    def describe(self) -> dict:
        """Parameters that identify this learner in outputs."""
        return {"learner": self.name}

    def regret_bound(self, game: Game) -> float | None:
        """This learner's own bound on the expected regret of ``game`` in the game's units, for
        the parameters it was built with (theory §3.2-§3.3: Theorem 3.1 for OnlineRank, the cited
        bounds of the baselines), or ``None`` when it has no such bound (default).  Needs no
        :meth:`~onlinerank.learners.base.Learner.reset`.  The worst-case tables divide a learner's worst
        case by it
        (:func:`onlinerank.worst_case.learner_bound`, NaN for ``None``), and the claims count a
        learner that overrides it among those with a sublinear guarantee."""
        return None

    @classmethod
    def memory_bytes(cls, n: int, reps: int) -> int:
        """Peak bytes of working memory this learner needs at ``n`` items and ``reps`` replicates
        beyond the engine's arrays of a fixed number of bytes per replicate and item (theory §1:
        the game's sizes), which also cover a state of a few (reps, n) arrays.  Default 0; a
        learner holding (reps, n, n) matrices (PermELearn) declares them.  The command line adds
        it to its memory estimate (:func:`onlinerank.cli.estimate_memory`) and refuses a run that
        would not fit."""
        return 0

    #: the colour of this learner's lines in the figures (``None``: an automatic colour, distinct
    #: from the built-in learners', :func:`onlinerank.learners.base.automatic_color`)
    plot_color: ClassVar[str | None] = None

    @classmethod
    def plot_style(cls, spec: dict, label: str, learners: dict | None = None) -> dict:
        """Line style (``color``, ``marker``, ``ls``, ``mfc``, ``label``) of the learner with config
        spec ``spec`` and config label ``label`` in the figures (theory §3.3: the learners the
        figures compare); ``learners`` is the config's whole ``learners`` dict when the caller has
        it, so that variants of one learner can be told apart.  Default: :attr:`plot_color` (when
        ``None``, :func:`onlinerank.learners.base.automatic_color`), an open triangle and a dash-dot
        line, labelled ``label``.  :func:`onlinerank.plotting.learner_style` calls it."""
        color = cls.plot_color if cls.plot_color is not None else automatic_color(cls.name)
        return {"color": color, "marker": "^", "ls": "-.", "mfc": "none", "label": label}

    @classmethod
    def configured_rate(cls, params: Mapping) -> str | float | None:
        """The learning-rate rule (theory §3.2: ``"paper"``, ``"stated"``, ``"optimal"`` or a number)
        that the config entry ``params`` (its keys but ``name``) gives this learner, its
        constructor's default where the entry names none; ``None`` for a learner without a rate
        (default).  The claims select the learner at the paper's rate with it."""
        return None

    @classmethod
    def configured_sampler(cls, params: Mapping) -> str | None:
        """The sampling procedure (theory §2.2-§2.4) that the config entry ``params`` gives this
        learner, its constructor's default where the entry names none; ``None`` for a learner
        without a choice of sampler (default).  The claims of Lemma 6.1 compare the samplers."""
        return None

    def timing_counters(self) -> dict[str, float]:
        """Work counters of the last :meth:`update` that the timings report next to the seconds
        (theory §3.3: PermELearn's Sinkhorn balancing), e.g. ``{"sweeps": 12}`` for the Sinkhorn
        sweeps of the update; after :meth:`~onlinerank.learners.base.Learner.reset`.  A learner reporting
        ``"sweeps"`` gets the
        runtime table's ``sweep`` part (seconds per sweep) and ``sweeps_per_round``
        (:func:`onlinerank.timing.repeat_seconds`).  Default: no counters."""
        return {}

    # --- exact worst-case DP hooks (onlinerank.worst_case) ----------------------------------------
    # A learner whose law of the coming ranking is a function of the cumulative scores S alone can
    # be put "in state S" for a batch of states; the DP then asks its own expected_loss.

    def scores_law(self) -> str | None:
        """How the law of the coming ranking depends on the cumulative scores ``S`` (after reset):

        ``"symmetric"``: a function of ``S`` only, invariant under ``S -> S + c`` and equivariant
        under relabelling the items; ``"labelled"``: a function of ``S`` invariant under
        translation but not under relabelling (e.g. ties broken by item id); ``None``: not a
        function of ``S`` (internal randomness or history), so the exact DP refuses the learner.
        """
        return None

    def set_scores(self, S: np.ndarray) -> None:
        """Put the learner in the state reached after cumulative scores ``S`` (R, n), one
        replicate per row (the replicate count becomes R); needs a prior
        :meth:`~onlinerank.learners.base.Learner.reset`."""
        raise NotImplementedError(
            f"learner {self.name!r} cannot be put in a state S: its law is not a function of the "
            "cumulative scores"
        )

    def state_floats(self) -> int:
        """Floats of state per replicate (sizes the DP's batches of states); after reset."""
        return self.game.n * self.game.n

    # --- end of exact worst-case DP hooks ---------------------------------------------------------
