"""The counts of a saved result checked when it is read: what no evaluation could have given is refused.

:func:`check_counts` is what :meth:`~guessgym.evaluation.results.EvaluationResult.from_dict` applies
to every result read; :func:`~guessgym.evaluation.saved.check_saved_result` adds the checks that
need the game itself (its answers and guesses).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: The largest attempt limit a saved result may have (its distribution has a bar per attempt).
MAX_SAVED_ATTEMPTS = 10_000


def check_counts(max_attempts: int, env_id: Any, records: Sequence[Any]) -> None:
    """Refuse the counts of a result (its attempt limit, ``env_id`` and records) that no evaluation
    gives: an attempt limit outside 0 to :data:`MAX_SAVED_ATTEMPTS` (0: no limit), an ``env_id``
    that is not text, a game counted twice, a game won in no guesses or past the limit, more
    guesses played than counted, counts below zero.

    Raises:
        ValueError: naming the first game (or field) wrong.
    """
    if not 0 <= max_attempts <= MAX_SAVED_ATTEMPTS:
        raise ValueError(f"max_attempts {max_attempts:,} is not from 0 to {MAX_SAVED_ATTEMPTS:,}")
    if env_id is not None and not isinstance(env_id, str):
        raise ValueError(f"env_id must be text, got {type(env_id).__name__}")
    seen: set[str] = set()
    for r in records:
        limit = max_attempts or r.guesses
        if r.answer in seen:
            raise ValueError(f"the game of {r.answer[:40]!r} is there twice")
        seen.add(r.answer)
        if not 0 <= r.guesses <= limit or (r.solved and r.guesses < 1):
            raise ValueError(f"the game of {r.answer[:40]!r} counts {r.guesses} guesses, "
                             f"{'won' if r.solved else 'lost'}, with an attempt limit of {max_attempts}")
        if r.played is not None and (len(r.played) > r.guesses or not all(isinstance(g, str) for g in r.played)):
            raise ValueError(f"the game of {r.answer[:40]!r} plays {len(r.played)} guesses but counts {r.guesses}")
        if r.forfeits < 0 or r.turns < 0 or any(v < 0 for v in r.invalid.values()):
            raise ValueError(f"the game of {r.answer[:40]!r} has a count below zero")


__all__ = ["MAX_SAVED_ATTEMPTS", "check_counts"]
