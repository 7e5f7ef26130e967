"""Deprecated: renamed :mod:`guessgym.evaluation.tree_checks` (three modules were named ``trees``).
The old names still import, with a warning."""

from __future__ import annotations

from ..infra.deprecation import moved_names

__getattr__ = moved_names(__name__, {name: f"guessgym.evaluation.tree_checks:{name}" for name in (
    "TreeCheck", "record_tree", "verify_tree")})
