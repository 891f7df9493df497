"""The figure catalog (registry :data:`onlinerank.figures.base.FIGURES`): a figure is one module
of this package.

Every module of this folder is imported once, here, in name order
(:func:`onlinerank.registry.discover`): a module whose drawing is declared with ``@figure(...)``
(:func:`onlinerank.figures.base.figure`: the figure's name, the tables it reads, the claims it
supports, its caption) is all a new figure needs.  The pipeline's figure jobs, the claims
report (a claim's figures, :func:`onlinerank.figures.base.claim_figures`), the docs' figure
catalog and the tests all read the catalog.  Importing it imports neither matplotlib nor the
simulation engine.
"""

from ..registry import discover
from . import base
from .base import *  # noqa: F403  (the catalog's names, base.__all__)

#: the modules found in this folder and imported (figure discovery)
MODULES = discover(__name__)

__all__ = [*base.__all__, "MODULES"]
