"""Sphinx configuration of the ldpkit documentation.

Build (offline; warnings are errors, so a broken cross-reference fails the build)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The API reference is generated from the numpydoc docstrings (autosummary), the bibliography
from :mod:`ldp.references`, and the gallery by running every script in ``examples/``
(``docs/_ext/ldpdocs.py``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # this checkout, even with another copy installed
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")

import ldp  # noqa: E402

project = "ldpkit"
author = "The ldpkit developers"
copyright = "2026, The ldpkit developers"
release = ldp.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "ldpdocs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

# ------------------------------------------------------------------------- cross-references
# Every reference written in a docstring (:func:`...`, :class:`...`) must resolve. Types in
# signatures and parameter lists are not turned into references (they name numpy, pandas and
# typing objects this offline build cannot link), so nitpicky mode checks exactly the
# library's own references.
nitpicky = True
nitpick_ignore_regex = [
    # third-party and standard-library objects (no intersphinx: the build is offline)
    (r"py:.*", r"(numpy|np|pandas|pd|scipy|sklearn|matplotlib|dask|pyarrow|tqdm|cvxpy)(\..*)?"),
    (r"py:.*", r"(collections|typing|pathlib|argparse|os|io|json|numbers|abc)\..*"),
]
nitpick_ignore: list[tuple[str, str]] = []
default_role = "literal"
# docs/protocol.md shows message shapes with "..." placeholders in JSON blocks
suppress_warnings = ["misc.highlighting_failure"]

# --------------------------------------------------------------------------------- autodoc
autosummary_generate = True
autosummary_ignore_module_all = False  # a module's public API is its __all__
autosummary_imported_members = True
autodoc_typehints = "none"  # types are documented in the numpydoc Parameters sections
autodoc_member_order = "groupwise"
#: Names that a package re-exports from another one: listed on its page, documented once.
#: (package -> {name: the module that documents it})
autosummary_context = {
    "reexported": {
        "estimators": {"ImplausibleReportsWarning": "ldp", "PrivacyLeakWarning": "ldp"},
        "ldp.mechanisms": dict.fromkeys(
            ("Ball", "Categories", "Field", "Interval", "Items", "Mechanism", "ReportCodec"),
            "ldp.core",
        ),
    }
}
numpydoc_show_class_members = False  # the class template lists them
numpydoc_xref_param_type = False
# tests/project/test_public_api.py checks the sections
numpydoc_validation_checks: set[str] = set()
numpydoc_use_plots = False
add_module_names = False

# ---------------------------------------------------------------------------------- markdown
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3

# -------------------------------------------------------------------------------------- HTML
html_theme = "pydata_sphinx_theme"
html_title = f"ldpkit {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 7,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_sidebars = {"**": ["sidebar-nav-bs"]}
html_static_path: list[str] = []
html_show_sourcelink = False

# ----------------------------------------------------------------------------------- gallery
ldp_gallery_examples = str(ROOT / "examples")
