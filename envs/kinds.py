"""One description per kind of game: what the evaluation loop, its backends and the command line ask.

Plain, multi-board, Absurdle and chat games differ in who picks the answer, how many boards a
guess scores, what an evaluation iterates over and what a finished game records. Each of those
differences lives in one :class:`GameKind` object per kind, set as the ``kind`` attribute of its
environment class (``GuessEnv.kind``, ``MultiBoardEnv.kind``...); :func:`kind_of` finds it from a
registered id's entry point. Nothing outside registration tests an id's name: a new kind of game is
one module (its env class and its kind) plus one registration.

A kind says:

* how a registered id (with keyword arguments and an attempt limit) becomes a :class:`GameSetup`:
  the game, the env's options, the name its results carry (:meth:`GameKind.resolve`);
* what an evaluation iterates over: answers, or seeded game numbers (:attr:`GameKind.plays_answers`);
* how to build the env (:meth:`GameKind.make_env`) and reset it for one game (:meth:`GameKind.reset`);
* what a finished game records: the answer, the guesses used, won or not (:meth:`GameKind.outcome`);
* which commands and agents support it (:attr:`GameKind.commands`, :meth:`GameKind.agent_problem`).

Examples:
    >>> import guessgym
    >>> kind = kind_of("guessgym/Quordle-v0")
    >>> kind.name, kind.plays_answers, "solve" in kind.commands
    ('multiboard', False, False)
    >>> setup = kind.resolve("guessgym/Quordle-v0")
    >>> setup.label, setup.game.max_attempts
    ('wordle-5-nyt-4boards', 9)
    >>> kind_of("CartPole-v1") is None
    True
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from .game import GAME_KEYS, Game
from .options import check_bool


@dataclass(frozen=True)
class GameSetup:
    """A registered game resolved for one evaluation (picklable: it travels to worker processes).

    Attributes:
        kind: the description of its kind.
        game: the game played, with this evaluation's attempt limit.
        env_id: the registered id (``None`` for a Game or env object given directly).
        env_options: keyword arguments of the env besides ``game`` (``matrix_cache``, ``boards``...).
        label: the game's name in results (``"wordle"``, ``"wordle-4boards"``, ``"absurdle-wordle"``).
        meta: what the result's metadata adds for this kind (``{"boards": 4}``...).
        max_attempts: the attempt limit results are read against (``None``: no cap, as in
            uncapped Absurdle, where the most guesses a won game took is used instead).
    """

    kind: GameKind
    game: Game
    env_id: str | None
    env_options: dict[str, Any] = field(default_factory=dict)
    label: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    max_attempts: int | None = None

    def make_env(self) -> gym.Env[Any, Any]:
        return self.kind.make_env(self)


class GameKind(ABC):
    """The description of one kind of game (see the module docstring)."""

    #: Short name: ``"plain"``, ``"multiboard"``, ``"absurdle"``, ``"chat"``.
    name: ClassVar[str]
    #: Which ids these are, for messages: ``"multi-board ids (guessgym/Quordle-v0, ...)"``.
    description: ClassVar[str]
    #: What sets these games apart, in a few words (``guessgym list``; ``""`` for the plain game).
    summary: ClassVar[str] = ""
    #: Whether an evaluation iterates over the game's answers (else over seeded game numbers).
    plays_answers: ClassVar[bool] = True
    #: The command-line commands that accept these ids (``evaluate``, ``play``, ``tree``, ``solve``,
    #: ``worst-case``).
    commands: ClassVar[frozenset[str]] = frozenset()
    #: Guesses after which a game that never ends is counted as lost (``None``: the env ends it).
    max_guesses: ClassVar[int | None] = None
    #: Why ``answers=`` cannot be given, for kinds that play game numbers.
    no_answers: ClassVar[str] = ""

    @abstractmethod
    def resolve(self, env_id: str, env_kwargs: dict[str, Any] | None = None,
                max_attempts: int | None = None) -> GameSetup:
        """The setup of registered id ``env_id`` with ``env_kwargs`` (reward options are checked and
        play no part in an evaluation) and the attempt limit ``max_attempts`` (``None``: the id's).

        Raises:
            ValueError: a bad keyword argument, named with the ones allowed.
        """

    @abstractmethod
    def make_env(self, setup: GameSetup) -> gym.Env[Any, Any]:
        """The environment the setup's games are played in."""

    def default_games(self, game: Game) -> int:
        """Games an evaluation plays when no sample is given (kinds that play game numbers)."""
        return len(game.answers)

    def reset(self, env: gym.Env[Any, Any], index: int, seed: int) -> tuple[Any, dict[str, Any]]:
        """Reset ``env`` for game ``index`` (an answer index, or a game number) with ``seed``."""
        return env.reset(seed=seed, options={"answer": int(index)})

    @abstractmethod
    def outcome(self, env: gym.Env[Any, Any], index: int, info: dict[str, Any],
                played: list[str]) -> tuple[str, int, bool]:
        """``(answer, guesses, won)`` of a finished game: the answer recorded (several boards'
        joined by ``+``), the attempts used and whether the game was won."""

    def agent_problem(self, agent: Any) -> str | None:
        """Why ``agent`` cannot play these games (``None``: it can try)."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def kind_of(env_id: str) -> GameKind | None:
    """The kind of a registered id, read from its entry point's ``kind`` (``None``: not guessgym's)."""
    spec = gym.registry.get(env_id)
    if spec is None or not isinstance(spec.entry_point, str) or not spec.entry_point.startswith("guessgym."):
        return None
    creator = gym.envs.registration.load_env_creator(spec.entry_point)
    kind = getattr(creator, "kind", None)
    return kind if isinstance(kind, GameKind) else None


def registered_kinds() -> dict[str, GameKind]:
    """Every kind of the registered ids, by name, in registration order."""
    kinds: dict[str, GameKind] = {}
    for env_id in gym.registry:
        kind = kind_of(env_id)
        if kind is not None:
            kinds.setdefault(kind.name, kind)
    return kinds


def guessgym_ids() -> list[str]:
    """Every registered id of guessgym's kinds of game, in registration order."""
    return [i for i in gym.registry if kind_of(i) is not None]


# ---- helpers the kinds share ----------------------------------------------------------------------
def registered_kwargs(env_id: str, env_kwargs: dict[str, Any] | None) -> dict[str, Any]:
    """The id's registered keyword arguments with ``env_kwargs`` on top."""
    return {**gym.registry[env_id].kwargs, **(env_kwargs or {})}


def take_cache_option(env_id: str, kwargs: dict[str, Any], allowed: str) -> dict[str, Any]:
    """Take ``matrix_cache`` out of ``kwargs`` (returned as the env option) and check that only game
    arguments remain; the error names ``env_id`` and the ``allowed`` arguments (matrix_cache added)."""
    options: dict[str, Any] = {}
    if "matrix_cache" in kwargs:
        options["matrix_cache"] = check_bool("matrix_cache", kwargs.pop("matrix_cache"))
    unknown = sorted(set(kwargs) - set(GAME_KEYS))
    if unknown:
        raise ValueError(f"bad keyword arguments for {env_id}: unknown {unknown}; allowed: {allowed}, matrix_cache")
    return options


def game_numbers(count: int) -> np.ndarray:
    """Game numbers ``0 .. count-1``, what kinds that do not play answers iterate over."""
    return np.arange(count, dtype=np.int64)


__all__ = ["GameKind", "GameSetup", "game_numbers", "guessgym_ids", "kind_of",
           "registered_kinds", "registered_kwargs", "take_cache_option"]
