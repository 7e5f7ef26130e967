"""What a file that names a game may name: a transcripts file's header, a saved result.

A game is rebuilt from what a file says (its id and options), and a file may come from anyone. So
before anything is built, :func:`check_saved_game` holds the options to a closed set of safe values
(:data:`SAVED_OPTIONS`: no file paths, no regular expressions), and :func:`check_saved_result`
holds a result to what a fresh evaluation of that game could give: its answers are the game's, its
guesses are words or equations the game accepts, a game won ends with the answer, and every count
is within the attempt limit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from ..agents.base import UnsupportedGameError
from ..envs.chat.env import INVALID_POLICIES, MAX_RETRIES, REPEAT_POLICIES
from ..envs.chat.feedback import FEEDBACK_STYLES
from ..envs.chat.presets import PRESETS
from ..envs.chat.replies import INVALID_KINDS, MAX_REPLY_CHARS_LIMIT, REPLY_FORMATS
from ..envs.families import family_of
from ..envs.game import GAME_KEYS, MAX_ATTEMPTS_LIMIT, Game
from ..envs.rewards import REWARD_MODES
from .results import EvaluationResult


def _one_of(*allowed: Any) -> Callable[[Any], bool]:
    return lambda value: any(value == a and type(value) is type(a) for a in allowed)


def _whole(low: int, high: int) -> Callable[[Any], bool]:
    return lambda value: type(value) is int and low <= value <= high


def _number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def _words(value: Any) -> bool:
    return isinstance(value, list) and len(value) <= 1_000_000 and all(isinstance(w, str) and len(w) <= 16
                                                                       for w in value)


def _keyword(value: Any) -> bool:
    return isinstance(value, str) and re.fullmatch(r"[a-z0-9_-]{1,40}", value) is not None


def _templates(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) and len(v) <= 10_000
                                           for k, v in value.items())


#: What a saved game (a transcripts file's header, a result) may set: every option of the chat
#: game, each from a closed set of safe values. No file paths (a list is named by its keyword, or
#: given as words), no regular expression (a reply format is named), no template that pads a field
#: without bound (checked where templates are read); a game is rebuilt from nothing else.
SAVED_OPTIONS: dict[str, Callable[[Any], bool]] = {
    "kind": _one_of("wordle", "nerdle"), "length": _whole(1, 16), "word_list": _keyword, "answers": _words,
    "guesses": lambda v: _one_of("answers", "all")(v) or _words(v), "max_attempts": _whole(1, MAX_ATTEMPTS_LIMIT),
    "hard_mode": _one_of(True, False), "commutative": _one_of(True, False),
    "preset": lambda v: v is None or _one_of(*PRESETS)(v),
    "invalid": lambda v: _one_of(*INVALID_POLICIES)(v) or (isinstance(v, dict) and all(
        _one_of(*INVALID_KINDS)(k) and _one_of(*INVALID_POLICIES)(p) for k, p in v.items())),
    "max_retries": _whole(0, MAX_RETRIES), "repeats": _one_of(*REPEAT_POLICIES), "feedback": _one_of(*FEEDBACK_STYLES),
    "reply_format": _one_of(*REPLY_FORMATS), "reply_instruction": lambda v: isinstance(v, str) and len(v) <= 10_000,
    "max_reply_chars": _whole(1, MAX_REPLY_CHARS_LIMIT), "prompts": _templates, "withheld": _words,
    "invalid_penalty": lambda v: v is None or _number(v), "reward_mode": _one_of(*REWARD_MODES),
    "win_reward": _number, "loss_reward": _number, "step_penalty": _number, "invalid_action_penalty": _number,
}


def check_saved_game(env_id: Any, kwargs: Any, what: str = "saved file") -> None:
    """Refuse a saved game (a transcripts header, a result's ``env_id`` and ``env_kwargs``; ``what``
    it is, for the message) that names anything but a registered single-board game and options
    from :data:`SAVED_OPTIONS` (a file may come from anyone).

    Raises:
        ValueError: naming the first option refused (and what is allowed).
    """
    family = family_of(env_id) if isinstance(env_id, str) else None
    if family is None or not family.fixed_answer:
        raise ValueError(f"env_id {str(env_id)[:60]!r} is not a registered guessgym id a text agent plays")
    if not isinstance(kwargs, dict):
        raise ValueError(f"its env_kwargs are not an object of options, got {_shown(kwargs)}")
    for key, value in kwargs.items():
        check = SAVED_OPTIONS.get(key)
        if check is None:
            raise ValueError(f"option {str(key)[:40]!r} is not one a {what} may set "
                             f"({', '.join(SAVED_OPTIONS)})")
        if not check(value):
            raise ValueError(f"option {key}={_shown(value)} is not a value a {what} may set")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def game_of_result(result: EvaluationResult) -> Game:
    """The game a saved result was played on (its id, environment arguments and attempt limit).

    Raises:
        UnsupportedGameError: a kind of game without a fixed answer per game (multi-board, Absurdle).
    """
    if result.env_id is None:
        raise ValueError("the result names no registered environment, so its game cannot be rebuilt")
    family = family_of(result.env_id)
    if family is None or not family.fixed_answer:
        what = family.description if family is not None else result.env_id
        raise UnsupportedGameError(f"move analysis is defined for single-board games with one answer, not {what}")
    kwargs = dict(result.meta.get("env_kwargs") or {})
    if not family.text_actions:  # an array id played in conversation keeps its chat options beside the game's
        kwargs = {k: v for k, v in kwargs.items() if k in GAME_KEYS}
    return family.resolve(result.env_id, kwargs, result.max_attempts or None).game


def check_saved_result(result: EvaluationResult, where: str) -> None:
    """Refuse a result read from ``where`` that no evaluation of its game could have given: options
    outside :data:`SAVED_OPTIONS`; for a single-board game, an answer that is not the game's, a guess
    it does not accept (or of another length), a game won whose last guess is not the answer.

    Raises:
        ValueError: one line naming the file and the first thing wrong.
    """
    family = family_of(result.env_id) if result.env_id else None
    if family is None or not family.fixed_answer:
        return
    try:
        check_saved_game(result.env_id, result.meta.get("env_kwargs") or {}, "saved result")
        game = game_of_result(result)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{where}: its game cannot be rebuilt ({str(exc).splitlines()[0]})") from None
    if game.name != result.game:
        raise ValueError(f"{where}: it says its game is {result.game!r}, but its id and options make {game.name!r}")
    for record in result.records:
        if record.answer not in game.answer_index:
            raise ValueError(f"{where}: {_shown(record.answer)} is not an answer of {game.name}")
        played = record.played or ()
        odd = next((g for g in played if g not in game.guess_index), None)
        if odd is not None:
            raise ValueError(f"{where}: the game of {record.answer!r} plays {_shown(odd)}, which {game.name} does not "
                             f"accept (a guess is one of its {len(game.guesses):,} of length {game.length})")
        if record.solved and played and game.score(played[-1], record.answer) != game.solved_pattern:
            raise ValueError(f"{where}: the game of {record.answer!r} is marked won, but its last guess "
                             f"{played[-1]!r} does not win it")


__all__ = ["SAVED_OPTIONS", "check_saved_game", "check_saved_result", "game_of_result"]
