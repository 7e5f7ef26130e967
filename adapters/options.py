"""What a trainer's config may ask of a guessgym game: the one check every adapter applies.

A trainer's config (verifiers' arguments, NeMo Gym's YAML, SkyRL's section) may come from anyone, so
an adapter takes the same closed set of options as a saved file does
(:func:`guessgym.evaluation.saved.check_saved_game`: no file paths, no regular expressions), a seed
that every dataset format can hold, and counts that are whole numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..envs.chat.env import ChatFamily
from ..envs.chat.splits import ChatGames, split_games
from ..envs.families import family_of
from ..evaluation.saved import check_saved_game

#: The largest seed an adapter takes: what a dataset's 64-bit integer column holds.
MAX_SEED = 2**63 - 1


def chat_options(gym_id: str, env_kwargs: Mapping[str, Any] | None, what: str) -> dict[str, Any]:
    """The chat game's keyword arguments for ``gym_id`` and ``env_kwargs``, once the options are held
    to the closed set of a saved game (``what`` names the config, for the message).

    Raises:
        ValueError: an id that is not a text game, or an option (or value) outside the closed set.
    """
    options = dict(env_kwargs or {})
    family = family_of(gym_id) if isinstance(gym_id, str) else None
    if family is None or not family.fixed_answer:
        ChatFamily.chat_kwargs(gym_id, {})  # the id alone, refused with what a text game is
    check_saved_game(gym_id, options, what)
    return ChatFamily.chat_kwargs(gym_id, options)


def chat_games(gym_id: str, env_kwargs: Mapping[str, Any] | None, what: str) -> ChatGames:
    """The chat game of ``gym_id`` and ``env_kwargs`` (held to the closed set by
    :func:`chat_options`), its :class:`~guessgym.envs.game.Game` built once."""
    setup = ChatFamily().resolve(gym_id, chat_options(gym_id, env_kwargs, what))  # the game built once
    return ChatGames(setup.game, setup.env_options)


def check_side(indices: Sequence[int], fraction: Any, what: str, side: str) -> None:
    """Refuse an empty side of a split that a config asks games of (``split: eval`` with every
    answer on the training side gave 0 tasks without a word).

    Raises:
        ValueError: naming the option ``what`` and what would give the side some answers.
    """
    if not indices:
        other = "below 1" if side == "evaluation" else "above 0"
        raise ValueError(f"{what}={fraction!r} leaves no {side} answers to draw games from; give a {what} {other}")


def check_seed(seed: Any, name: str = "seed") -> int:
    """``seed`` if it is a whole number from 0 to :data:`MAX_SEED`.

    Raises:
        ValueError: naming what was given and what is allowed.
    """
    if type(seed) is not int or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"{name} must be a whole number from 0 to 2**63 - 1, got {str(seed)[:40]}")
    return seed


def draw(indices: Sequence[int], count: Any, seed: int, name: str, side: str) -> list[int]:
    """``count`` of ``indices`` drawn by ``seed`` (``-1``: all of them), in list order.

    Raises:
        ValueError: a count that is not -1 or a whole number up to ``len(indices)``.
    """
    if type(count) is not int or not (count == -1 or 0 <= count):
        raise ValueError(f"{name} must be -1 (every {side} answer) or a count from 0; got {str(count)[:40]}")
    if count > len(indices):
        raise ValueError(f"{name}={count:,} is more than the {len(indices):,} {side} answers of this split; "
                         "use -1 for all of them or change split")
    if count == -1:
        return list(indices)
    picked = np.random.default_rng([seed, len(side)]).permutation(len(indices))[:count]
    return sorted(int(indices[i]) for i in picked)


__all__ = ["MAX_SEED", "ChatGames", "chat_games", "chat_options", "check_seed", "check_side", "draw", "split_games"]
