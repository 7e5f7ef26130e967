"""Sphinx configuration of guessgym's documentation (MyST Markdown, the Furo theme).

Build it offline, warnings as errors, with the README's command:
``python -m sphinx -W --keep-going -b html docs docs/_build/html``. The pages that come from the
code (every environment, the command line, the API, the imported results) are written by the
``guessgym_docs`` extension in ``docs/_ext`` when the build starts.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

import guessgym

project = "guessgym"
author = "the guessgym developers"
copyright = "2026, the guessgym developers"
release = guessgym.__version__
version = ".".join(release.split(".")[:2])

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "guessgym_docs"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]
root_doc = "index"

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# Docstrings are Google style (Args:, Returns:, Raises:, Attributes:).
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
napoleon_use_ivar = True  # "Attributes:" as fields: dataclass fields are members already
autodoc_inherit_docstrings = False  # Gymnasium's own docstrings are not ours to check
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"undoc-members": False}

html_theme = "furo"
html_title = f"guessgym {release}"
html_static_path = ["_static"]
html_css_files = ["guessgym.css"]
html_favicon = "_static/favicon.png"  # drawn by the extension as the build starts
html_copy_source = False
html_show_sourcelink = False
html_theme_options = {
    "light_css_variables": {"color-brand-primary": "#3b7a57", "color-brand-content": "#3b7a57"},
    "dark_css_variables": {"color-brand-primary": "#6aaa64", "color-brand-content": "#6aaa64"},
}
# The API pages list every function and class; in the navigation tree that every page copies they
# made half of the build (furo copies the whole tree per page): headings only.
toc_object_entries = False
