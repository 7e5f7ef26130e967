"""What an evaluation plays: the game of a registered id, a Game or an env, and which of its games.

:func:`resolve_setup` turns what :func:`~guessgym.evaluation.evaluate.evaluate` was given (a
registered id with keyword arguments, a :class:`~guessgym.envs.game.Game`, or a (wrapped)
:class:`~guessgym.envs.env.GuessEnv`) into a :class:`~guessgym.envs.families.GameSetup`, asking the
id's family (:mod:`guessgym.envs.families`). :func:`select_games` says which games are played:
answers (:func:`select_answers`) or, for families that draw their games from a seed, game numbers.

Examples:
    >>> setup = resolve_setup("guessgym/MicroNerdle-v1")
    >>> setup.family.name, setup.label
    ('plain', 'micro-nerdle')
    >>> select_games(setup, None, 3, 0)[1]
    'sample'
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterable
from typing import Any, cast

import gymnasium as gym
import numpy as np

from ..envs.engine import REWARD_KEYS
from ..envs.env import GuessEnv, PlainFamily
from ..envs.families import GameSetup, family_of, game_numbers
from ..envs.game import Game

#: The plain kind (the one :class:`~guessgym.envs.env.GuessEnv` carries): games given as objects are plain.
PLAIN = cast(PlainFamily, GuessEnv.family)


def resolve_setup(env: str | Game | gym.Env[Any, Any] | GameSetup, env_kwargs: dict[str, Any] | None = None,
                  max_attempts: int | None = None) -> GameSetup:
    """The setup of what an evaluation plays (see the module docstring).

    Args:
        env: a registered id such as ``"guessgym/Wordle-v1"``, a :class:`~guessgym.envs.game.Game`, a
            (possibly wrapped) :class:`~guessgym.envs.env.GuessEnv` whose game and rules are used (its
            reward settings play no part in an evaluation), or a setup already resolved (returned
            as it is: the command line resolves once, to check its arguments before it builds the agent).
        env_kwargs: keyword arguments for the registered id (e.g. ``{"guesses": "all"}``); reward
            options are accepted and play no part in an evaluation; only ``matrix_cache`` (and
            reward options) are accepted with a Game or an env.
        max_attempts: overrides the game's attempt limit.

    Raises:
        ValueError: unknown id, bad keyword arguments, or an env that is not a GuessEnv.
    """
    if isinstance(env, GameSetup):
        if env_kwargs or max_attempts is not None:
            raise ValueError("a resolved GameSetup takes no env_kwargs or max_attempts (resolve it with them)")
        return env
    return dataclasses.replace(_resolve(env, env_kwargs, max_attempts), env_kwargs=dict(env_kwargs or {}))


def _resolve(env: str | Game | gym.Env[Any, Any], env_kwargs: dict[str, Any] | None,
             max_attempts: int | None) -> GameSetup:
    if isinstance(env, str):
        family = family_of(env)
        if family is None or family.text_actions:
            # Only plain ids reach here untested (a chat id needs a text agent): the plain kind's
            # message names an unknown id and the ids there are.
            return PLAIN.resolve(env, env_kwargs, max_attempts)
        return family.resolve(env, env_kwargs, max_attempts)
    env_kwargs = dict(env_kwargs or {})
    options = PLAIN._common_options(env_kwargs)
    if isinstance(env, Game):
        _only_cache(env_kwargs, "a Game")
        return PLAIN.setup(env, None, options, max_attempts)
    if isinstance(env, gym.Env):
        _only_cache(env_kwargs, "an environment object")
        unwrapped = env.unwrapped
        if not isinstance(unwrapped, GuessEnv):
            raise ValueError(f"evaluate() needs a guessgym GuessEnv, got {type(unwrapped).__name__}")
        options.setdefault("matrix_cache", unwrapped.matrix_cache)
        return PLAIN.setup(unwrapped.game, env.spec.id if env.spec is not None else None, options, max_attempts)
    raise TypeError(f"env must be a registered id, a Game or a GuessEnv, got {type(env).__name__}")


def _only_cache(env_kwargs: dict[str, Any], what: str) -> None:
    extra = sorted(set(env_kwargs) - {"matrix_cache"} - set(REWARD_KEYS))
    if extra:
        raise ValueError(f"env_kwargs {extra} cannot be applied to {what}; build the game with them instead")


def answers_label(answers: object, sample: int | None) -> str:
    """How the answers were chosen: ``"all"``, a given ``"list"``, or a seeded ``"sample"``."""
    return "all" if answers is None and sample is None else ("sample" if sample is not None else "list")


def select_games(setup: GameSetup, answers: Iterable[str | int] | None, sample: int | None,
                 seed: int) -> tuple[np.ndarray, str]:
    """The games to play (answer indices, or game numbers for kinds that draw their games from a
    seed) and how they were chosen (``"all"``, ``"list"``, ``"sample"`` or ``"games"``)."""
    if not setup.family.plays_answers:
        if answers is not None:
            raise ValueError(f"{setup.env_id} {setup.family.no_answers}")
        n_games = setup.family.default_games(setup.game) if sample is None else int(sample)
        if n_games < 1:
            raise ValueError(f"sample must be a number of games >= 1, got {sample}")
        return game_numbers(n_games), "games"
    indices = select_answers(setup.game, answers, sample, seed)
    return indices, answers_label(answers, sample)


def select_answers(
    game: Game,
    answers: Iterable[str | int] | None = None,
    sample: int | None = None,
    seed: int = 0,
) -> np.ndarray:
    """Indices (into ``game.answers``) of the answers to play, in order of play.

    * ``answers=None``: every answer, in list order;
    * ``answers=[...]``: those answers (strings or indices), in the given order, duplicates
      dropped;
    * ``sample=k``: ``k`` of them drawn without replacement with
      ``numpy.random.default_rng(seed)``, played in list order.

    Raises:
        ValueError: naming the answers that are not in the game's list, or a bad sample size.
    """
    n = len(game.answers)
    if answers is None:
        pool = np.arange(n, dtype=np.int64)
    else:
        if isinstance(answers, str):
            raise TypeError("answers must be a list of answers, not a single string (wrap it in a list)")
        chosen: list[int] = []
        unknown: list[str] = []
        for item in answers:
            if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
                if 0 <= int(item) < n:
                    chosen.append(int(item))
                else:
                    unknown.append(f"index {int(item)}")
            elif isinstance(item, str):
                key = game.normalize_guess(item)
                if key in game.answer_index:
                    chosen.append(game.answer_index[key])
                else:
                    unknown.append(repr(item))
            else:
                raise TypeError(f"answers must be strings or indices, got {item!r} ({type(item).__name__})")
        if unknown:
            shown = ", ".join(unknown[:10]) + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else "")
            raise ValueError(f"{len(unknown)} answer(s) not in the answer list of {game.name} ({n} answers): {shown}")
        pool = np.array(list(dict.fromkeys(chosen)), dtype=np.int64)
        if pool.size == 0:
            raise ValueError("the answer list to evaluate is empty")
    if sample is not None:
        if not isinstance(sample, (int, np.integer)) or isinstance(sample, bool):
            raise ValueError(f"sample must be a whole number of answers, got {sample!r}")
        k = int(sample)
        if not 1 <= k <= pool.size:
            raise ValueError(f"sample must be between 1 and {pool.size} (the answers available), got {sample}")
        picked = np.random.default_rng(seed).choice(pool.size, size=k, replace=False)
        pool = np.sort(pool[picked])
    return pool


def progress_callback(
    progress: bool | Callable[[int, int], None], total: int, desc: str
) -> tuple[Callable[[int, int], None] | None, Callable[[], None]]:
    """(callback, closer): a tqdm bar on stderr for ``True``, the caller's function, or nothing."""
    if callable(progress):
        return progress, lambda: None
    if not progress:
        return None, lambda: None
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True)

    def update(done: int, _total: int) -> None:
        bar.update(done - bar.n)

    return update, bar.close


__all__ = ["answers_label", "progress_callback", "resolve_setup", "select_answers", "select_games"]
