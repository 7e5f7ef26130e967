"""The protocol's record of a run (``evaluations.json``), checked field by field when read.

The report reads files other people send (a new algorithm's runs beside the references), so a file
is JSON only, and every field it relies on is checked: a wrong one is a ``ValueError`` naming the
file and the field, never a crash or a silently skipped run.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .protocol import check_version, tier

#: What an algorithm's name may be: a shipped name or package.module:Class (it reaches tables, figures
#: and folder names, so never markup or a path).
ALGO_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,100}")

#: The fields of one evaluation.
EVALUATION_FIELDS = ("step", "mean_score", "win_rate", "regret", "wall_s")


def _number(value: Any, where: str, *, whole: bool = False, nan: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (whole and not isinstance(value, int)):
        raise ValueError(f"{where} must be {'an integer' if whole else 'a number'}, got {value!r}")
    if not nan and not math.isfinite(value):
        raise ValueError(f"{where} must be finite, got {value!r}")
    return float(value)


def _evaluation(row: Any, where: str, budget: int) -> None:
    if not isinstance(row, dict) or not set(EVALUATION_FIELDS) <= set(row):
        raise ValueError(f"{where} must be an object with {', '.join(EVALUATION_FIELDS)}")
    step = _number(row["step"], f"{where}.step", whole=True)
    if not 0 < step <= 2 * budget:
        raise ValueError(f"{where}.step {row['step']} is outside 1..{2 * budget:,}")
    _number(row["mean_score"], f"{where}.mean_score")
    if not 0.0 <= _number(row["win_rate"], f"{where}.win_rate") <= 1.0:
        raise ValueError(f"{where}.win_rate must be 0 to 1, got {row['win_rate']!r}")
    _number(row["regret"], f"{where}.regret", nan=True)
    _number(row["wall_s"], f"{where}.wall_s")


def check_record(data: Any, where: str, *, protocol_tiers: bool = True) -> dict[str, Any]:
    """``data`` if it is a run's record of this protocol version, else a ``ValueError``.
    ``protocol_tiers``: its tier must be one of the protocol's, with the protocol's budget (what
    the report compares); ``False`` accepts a tier of a test's own budget (what a run resumes)."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: a run's record is a JSON object")
    check_version(data.get("protocol"), where)
    for key, kind in (("tier", str), ("algo", str), ("seed", int), ("budget", int), ("evaluations", list),
                      ("complete", bool), ("resumed_at", list), ("hyperparams", dict), ("scored_answers", int)):
        value = data.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ValueError(f"{where}: field {key!r} must be a {kind.__name__}, got {value!r}")
    if not ALGO_NAME.fullmatch(data["algo"]):
        raise ValueError(f"{where}: algo {data['algo'][:60]!r} is not an algorithm's name (letters, digits and "
                         "_ . : - only, as package.module:Class), which tables, figures and folders show")
    known = tier(data["tier"]) if protocol_tiers else None
    budget = data["budget"]
    if budget < 1:
        raise ValueError(f"{where}: budget must be positive, got {budget}")
    for i, row in enumerate(data["evaluations"]):
        _evaluation(row, f"{where}: evaluations[{i}]", budget)
    steps = [row["step"] for row in data["evaluations"]]
    if steps != sorted(set(steps)):
        raise ValueError(f"{where}: evaluation steps must increase")
    if data["complete"]:
        final = data.get("final")
        _evaluation(final, f"{where}: final", budget)
        assert isinstance(final, dict)
        guesses = final.get("guesses")
        if (not isinstance(guesses, list) or len(guesses) != data["scored_answers"]
                or not all(type(g) is int and g >= 0 for g in guesses)):
            raise ValueError(f"{where}: final.guesses must list {data['scored_answers']} non-negative integers")
    if known is not None and budget != known.budget:
        raise ValueError(f"{where}: budget {budget:,} is not tier {known.name}'s {known.budget:,}")
    return data


__all__ = ["ALGO_NAME", "EVALUATION_FIELDS", "check_record"]
