"""The protocol's record of a run (``evaluations.json``), checked field by field when read.

The report reads files other people send (a new algorithm's runs beside the references), so a file
is JSON only, and every field it relies on is checked: a wrong one is a ``ValueError`` naming the
file and the field, never a crash or a silently skipped run. A record of one of the protocol's
tiers is also checked against the tier, so a forged or impossible one is refused, not ranked: its
scored answers and budget are the tier's; a complete run has one evaluation at or past each of
the tier's evaluation steps, the last at the budget; every evaluation's regret is its mean score's
under the tier's anchors, every mean score a possible one (from 1 to ``max_attempts + 1``, never
below a proven optimum); and the final evaluation is the last one, its mean score, win rate and
regret recomputed from its guesses.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Any

from .protocol import PROTOCOLS, Tier, aids_of, check_version

#: What an algorithm's name may be: a shipped name or package.module:Class (it reaches tables, figures
#: and folder names, so never markup or a path).
ALGO_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,100}")

#: The fields of one evaluation.
EVALUATION_FIELDS = ("step", "mean_score", "win_rate", "regret", "wall_s")


def _number(value: Any, where: str, *, whole: bool = False) -> float:
    """``value`` as a float if it is a finite number (a whole one where ``whole``), else a ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (whole and not isinstance(value, int)):
        raise ValueError(f"{where} must be {'an integer' if whole else 'a number'}, got {value!r}")
    if not math.isfinite(value):
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
    _number(row["regret"], f"{where}.regret")
    if not 0.0 <= _number(row["wall_s"], f"{where}.wall_s") <= 1e9:
        raise ValueError(f"{where}.wall_s must be 0 to 1e9 seconds, got {row['wall_s']!r}")


@cache
def max_attempts_of(name: str, version: str = "1") -> int:
    """The attempts a game of tier ``name`` (of protocol ``version``) allows (a lost game scores one more)."""
    return PROTOCOLS[version].tier(name).training_game().max_attempts


def _against_tier(data: dict[str, Any], known: Tier, where: str) -> None:
    """Refuse a record that its tier could not have produced (see the module docstring)."""
    anchors = known.anchors()
    bounded = anchors.proven and PROTOCOLS[known.version].anchors_know == "scored"
    game = data["hyperparams"].get("policy_kwargs", {}).get("game") if isinstance(
        data["hyperparams"].get("policy_kwargs"), dict) else None
    if game is not None and game not in (known.env_id, known.unseen_of):
        raise ValueError(f"{where}: its policy knew the game {str(game)[:60]!r}, which a policy of tier {known.name} "
                         f"may not (its training answers {known.env_id}, or the whole list {known.unseen_of})")
    if data["scored_answers"] != anchors.answers:
        raise ValueError(f"{where}: scored_answers {data['scored_answers']} is not tier {known.name}'s "
                         f"{anchors.answers:,}")
    worst = max_attempts_of(known.name, known.version) + 1
    for i, row in enumerate(data["evaluations"]):
        mean = row["mean_score"]
        if not 1.0 <= mean <= worst:
            raise ValueError(f"{where}: evaluations[{i}].mean_score {mean!r} is not a mean score of this tier "
                             f"(1 to {worst})")
        if bounded and mean < anchors.optimum_mean - 1e-6:
            raise ValueError(f"{where}: evaluations[{i}].mean_score {mean!r} is below tier {known.name}'s proven "
                             f"optimum {anchors.optimum_mean:.6f}")
        if abs(row["regret"] - anchors.regret(mean)) > 1e-5:
            raise ValueError(f"{where}: evaluations[{i}].regret {row['regret']!r} is not its mean score's "
                             f"({anchors.regret(mean):.6f})")
    if not data["complete"]:
        return
    due = known.evaluation_steps
    steps = [row["step"] for row in data["evaluations"]]
    if len(steps) != len(due) or any(step < at or (k + 1 < len(due) and step >= due[k + 1])
                                     for k, (step, at) in enumerate(zip(steps, due))):
        raise ValueError(f"{where}: a complete run of tier {known.name} is evaluated once at or past each of "
                         f"{', '.join(f'{d:,}' for d in due[:3])}{', ...' if len(due) > 3 else ''} "
                         f"({len(due)} evaluations); it has {len(steps)} at {', '.join(map(str, steps[:4]))}")
    final = data["final"]
    if {k: final[k] for k in EVALUATION_FIELDS} != {k: data["evaluations"][-1][k] for k in EVALUATION_FIELDS}:
        raise ValueError(f"{where}: final must be the last evaluation")
    guesses = final["guesses"]
    if any(g > worst - 1 for g in guesses):
        raise ValueError(f"{where}: final.guesses holds a count over the tier's {worst - 1} attempts")
    scores = [g if g > 0 else worst for g in guesses]
    mean = sum(scores) / len(scores)
    wins = sum(1 for g in guesses if g > 0) / len(guesses)
    for key, value in (("mean_score", mean), ("win_rate", wins), ("regret", anchors.regret(mean))):
        if abs(final[key] - value) > 1e-5:
            raise ValueError(f"{where}: final.{key} {final[key]!r} is not what its guesses give ({value:.6f})")


def _check_aids(data: dict[str, Any], where: str) -> None:
    """Refuse a version 2 record whose declared aids are not those its settings use."""
    settings = data["hyperparams"]
    policy_kwargs, env_kwargs = settings.get("policy_kwargs", {}), settings.get("env_kwargs", {})
    if not isinstance(policy_kwargs, dict) or not isinstance(env_kwargs, dict):
        raise ValueError(f"{where}: hyperparams.policy_kwargs and env_kwargs must be objects")
    used = aids_of(policy_kwargs, env_kwargs)
    if data.get("aids") != used:
        raise ValueError(f"{where}: aids {str(data.get('aids'))[:80]} is not what its settings use "
                         f"({', '.join(used) or 'none'}): a run declares every learning-signal aid it takes")


def check_record(data: Any, where: str, *, protocol_tiers: bool = True) -> dict[str, Any]:
    """``data`` if it is a run's record of this protocol version, else a ``ValueError``.
    ``protocol_tiers``: its tier must be one of the protocol's, with the protocol's budget (what
    the report compares); ``False`` accepts a tier of a test's own budget (what a run resumes)."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: a run's record is a JSON object")
    version = check_version(data.get("protocol"), where)
    for key, kind in (("tier", str), ("algo", str), ("seed", int), ("budget", int), ("evaluations", list),
                      ("complete", bool), ("resumed_at", list), ("hyperparams", dict), ("scored_answers", int)):
        value = data.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ValueError(f"{where}: field {key!r} must be a {kind.__name__}, got {value!r}")
    if not ALGO_NAME.fullmatch(data["algo"]):
        raise ValueError(f"{where}: algo {data['algo'][:60]!r} is not an algorithm's name (letters, digits and "
                         "_ . : - only, as package.module:Class), which tables, figures and folders show")
    resumed = data["resumed_at"]
    if len(resumed) > 100_000 or not all(type(r) is int and r >= 0 for r in resumed):
        raise ValueError(f"{where}: resumed_at must list the steps a run was resumed at (whole numbers)")
    if version.aids:
        _check_aids(data, where)
    known = version.tier(data["tier"]) if protocol_tiers else None
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
    if known is not None:
        _against_tier(data, known, where)
    return data


__all__ = ["ALGO_NAME", "EVALUATION_FIELDS", "check_record", "max_attempts_of"]
