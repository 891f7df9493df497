"""Sphinx configuration of the onlinerank documentation site (``make docs``).

Sphinx with MyST (Markdown pages) and autodoc (the API from the docstrings), as numpy, scipy and
choix document themselves; the reasons are on the design page.  The build runs with warnings as
errors (``-W``) and nitpicky cross-references, so a broken reference fails it with its name.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "onlinerank"
author = "the onlinerank project"
copyright = "the onlinerank project"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    # MathJax from the pinned package, copied into the site's _static/mathjax/ (mathjax_path points
    # there): the maths renders offline, with no CDN
    "sphinx-mathjax-offline",
    "sphinx.ext.napoleon",
    "onlinerank_docs",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build"]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True
suppress_warnings = ["myst.header"]

# members defined in each module only (a package's re-exports are documented where they are defined)
autodoc_default_options = {
    "members": True,
    "undoc-members": False,
    "show-inheritance": True,
    "ignore-module-all": True,
}
autodoc_member_order = "bysource"
autodoc_typehints = "none"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
# parameter types in numpy-style docstrings are prose ("int or array", "optional"), not references
napoleon_preprocess_types = False
napoleon_use_param = False
napoleon_use_rtype = False

html_theme = "alabaster"
html_title = "onlinerank"
html_static_path: list[str] = []

# Nitpicky references stay on (a broken cross-reference in a page or a docstring fails the build
# with its name), except for what the docstrings name that is not a documented object:
nitpick_ignore_regex = [
    # the prose of "#:" comments and numpy-style type lines ("int or array", "one sampler")
    (r"py:class", r".*\s.*"),
    # private modules and names (the compiled kernels, helpers with a leading underscore)
    (r"py:.*", r"(onlinerank\.)?_.*"),
    (r"py:.*", r".*\._\w+"),
]
nitpick_ignore = [
    # registries and markers documented by their modules' text, not as autodoc objects
    ("py:data", name)
    for name in ("LEARNERS", "ADVERSARIES", "README_BEGIN", "README_END", "MUTATIONS")
] + [
    # prose that napoleon reads as a type in numpy-style lines ("Names", "styles") and option names
    ("py:class", name)
    for name in ("Names", "styles", "--T", "--k")
]
