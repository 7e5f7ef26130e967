"""What every result records besides its games: one builder for the array and the chat loops, and
the one way values are made fit for JSON.

:func:`result_meta` writes the metadata both :func:`~guessgym.evaluation.evaluate.evaluate` and
:func:`~guessgym.evaluation.chat.evaluate_chat` attach to a result: how the answers were chosen, the
pool, the seed, how the games ran, the game's options and mode, the known optimum (only when every
answer of the game was played: a total over every answer is not compared with a part) and, when the
guesses were kept, how the agent played (:mod:`guessgym.evaluation.conduct`).

Examples:
    >>> from guessgym.envs import make_game
    >>> from guessgym.evaluation.records import GameRecord
    >>> game = make_game("guessgym/MicroNerdle-v1")
    >>> meta = result_meta(game, [GameRecord(game.answers[0], 2, True)], chosen="list", seed=0, sample=None,
    ...                    backend="serial", n_jobs=1, env_kwargs={}, fixed_answer=True, record_guesses=False)
    >>> meta["answers"], meta["answer_pool"], "optimum" in meta
    ('list', 127, False)
    >>> json_safe({1: float("nan"), "t": (1, 2), "x": object}) == {"1": None, "t": [1, 2], "x": repr(object)}
    True
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from ..agents.optima import known_optimum
from ..envs.game import Game
from .conduct import conduct_summary
from .records import GameRecord


def is_json(value: Any) -> bool:
    """Whether ``value`` is JSON as it is (``json.dumps`` takes it)."""
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def json_safe(value: Any) -> Any:
    """``value`` as JSON holds it: NaN as ``None`` (JSON has no NaN), keys as strings, tuples as
    lists, and anything JSON cannot hold shown by its ``repr``."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def result_meta(game: Game, records: Sequence[GameRecord], *, chosen: str, seed: int, sample: int | None,
                backend: str, n_jobs: int, env_kwargs: dict[str, Any], fixed_answer: bool,
                record_guesses: bool, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The metadata of a result (see the module docstring).

    Args:
        game: the game played.
        records: its games.
        chosen: how the answers were chosen (:func:`~guessgym.evaluation.games.answers_label`, or
            ``"games"``).
        seed, sample: the evaluation's seed and sample size.
        backend, n_jobs: how the games ran.
        env_kwargs: the environment's options as the result keeps them (JSON).
        fixed_answer: whether the family plays one fixed answer per game, so that the game's
            optimum and the conduct metrics apply.
        record_guesses: whether the records hold the guesses (the conduct metrics need them).
        extra: what the loop adds (its family's facts, the chat options...), before the optimum.
    """
    meta: dict[str, Any] = {
        "answers": chosen,
        "answer_pool": len(game.answers),
        "seed": int(seed),
        "sample": sample,
        "backend": backend,
        "n_jobs": n_jobs,
        "env_kwargs": env_kwargs,
        "hard_mode": game.hard_mode,
        "guess_vocabulary": game.guess_vocabulary,
        **(extra or {}),
    }
    optimum = known_optimum(game) if fixed_answer else None
    if optimum is not None and len(records) == len(game.answers) == optimum.answers:
        meta["optimum"] = optimum.meta()
    if record_guesses and fixed_answer:
        meta["conduct"] = conduct_summary(game, records)
    return meta


__all__ = ["is_json", "json_safe", "result_meta"]
