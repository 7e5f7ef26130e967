"""Deprecated: renamed :mod:`guessgym.agents.decision_tree` (three modules were named ``trees``).
The old names still import, with a warning."""

from __future__ import annotations

from ..infra.deprecation import moved_names

__getattr__ = moved_names(__name__, {name: f"guessgym.agents.decision_tree:{name}" for name in (
    "DecisionTree", "TREE_FORMAT", "TreeAgent", "TreeMismatch", "TreeNode", "show_tree")})
