"""One description per family of environment: what the evaluation loop, its backends and the command line ask.

Plain, multi-board, Absurdle and chat environments differ in who picks the answer, how many boards
a guess scores, what an evaluation iterates over and what a finished game records. Each of those
differences lives in one :class:`EnvFamily` object per family, set as the ``family`` attribute of
its environment class (``GuessEnv.family``, ``MultiBoardEnv.family``...); :func:`family_of` finds
it from a registered id's entry point. Nothing outside registration tests an id's name or a
family's name: callers ask what a family does (:attr:`EnvFamily.text_actions`,
:attr:`EnvFamily.fixed_answer`, :attr:`EnvFamily.adversarial`). A new family is one module (its
env class and its family) plus one row of the registration table.

("Family" is the environment's way of playing; a game's ``kind`` is its symbols, ``"wordle"`` or
``"nerdle"`` (:attr:`guessgym.envs.game.Game.kind`). Up to 0.3 the family was called ``GameKind``
in ``guessgym.envs.kinds``; those names still import, with a deprecation warning.)

A family says:

* how a registered id (with keyword arguments and an attempt limit) becomes a :class:`GameSetup`:
  the game, the env's options, the name its results carry (:meth:`EnvFamily.resolve`);
* what an evaluation iterates over: answers, or seeded game numbers (:attr:`EnvFamily.plays_answers`);
* how to build the env (:meth:`EnvFamily.make_env`) and reset it for one game (:meth:`EnvFamily.reset`);
* what a finished game records: the answer, the guesses used, won or not (:meth:`EnvFamily.outcome`);
* what its games are: text or arrays, one fixed answer or not, an adversarial host or not; and
  which agents can play them (:meth:`EnvFamily.agent_problem`).

Examples:
    >>> import guessgym
    >>> family = family_of("guessgym/Quordle-v0")
    >>> family.name, family.plays_answers, family.fixed_answer
    ('multiboard', False, False)
    >>> setup = family.resolve("guessgym/Quordle-v0")
    >>> setup.label, setup.game.max_attempts
    ('wordle-5-nyt-4boards', 9)
    >>> family_of("CartPole-v1") is None
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
        family: the description of its family.
        game: the game played, with this evaluation's attempt limit.
        env_id: the registered id (``None`` for a Game or env object given directly).
        env_options: keyword arguments of the env besides ``game`` (``matrix_cache``, ``boards``...).
        label: the game's name in results (``"wordle"``, ``"wordle-4boards"``, ``"absurdle-wordle"``).
        meta: what the result's metadata adds for this family (``{"boards": 4}``...).
        max_attempts: the attempt limit results are read against (``None``: no cap, as in
            uncapped Absurdle, where the most guesses a won game took is used instead).
        env_kwargs: the keyword arguments it was resolved with, as given (what a result records).
    """

    family: EnvFamily
    game: Game
    env_id: str | None
    env_options: dict[str, Any] = field(default_factory=dict)
    label: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    max_attempts: int | None = None
    env_kwargs: dict[str, Any] = field(default_factory=dict)

    def make_env(self) -> gym.Env[Any, Any]:
        return self.family.make_env(self)


class EnvFamily(ABC):
    """The description of one family of environment (see the module docstring)."""

    #: Short name: ``"plain"``, ``"multiboard"``, ``"absurdle"``, ``"chat"``.
    name: ClassVar[str]
    #: Which ids these are, for messages: ``"multi-board ids (guessgym/Quordle-v0, ...)"``.
    description: ClassVar[str]
    #: What sets these games apart, in a few words (``guessgym list``; ``""`` for the plain game).
    summary: ClassVar[str] = ""
    #: Whether an evaluation iterates over the game's answers (else over seeded game numbers).
    plays_answers: ClassVar[bool] = True
    #: Whether actions and observations are text (a language model's turn), not arrays.
    text_actions: ClassVar[bool] = False
    #: Whether each game is one board whose answer is fixed at reset, so that the game's exact
    #: values, decision trees and optima describe its play (plain and chat games).
    fixed_answer: ClassVar[bool] = False
    #: Whether the host chooses the answer against the player (Absurdle).
    adversarial: ClassVar[bool] = False
    #: Guesses after which a game that never ends is counted as lost (``None``: the env ends it).
    max_guesses: ClassVar[int | None] = None
    #: Why ``answers=`` cannot be given, for families that play game numbers.
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
        """Games an evaluation plays when no sample is given (families that play game numbers)."""
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

    @property
    def plays_arrays_on_one_answer(self) -> bool:
        """Array actions on one fixed answer: the games the exact solver, trees and move analysis play."""
        return self.fixed_answer and not self.text_actions

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def family_of(env_id: str) -> EnvFamily | None:
    """The family of a registered id, read from its entry point's ``family`` (``None``: not guessgym's)."""
    spec = gym.registry.get(env_id)
    if spec is None or not isinstance(spec.entry_point, str) or not spec.entry_point.startswith("guessgym."):
        return None
    creator = gym.envs.registration.load_env_creator(spec.entry_point)
    family = getattr(creator, "family", None)
    return family if isinstance(family, EnvFamily) else None


def registered_families() -> dict[str, EnvFamily]:
    """Every family of the registered ids, by name, in registration order."""
    families: dict[str, EnvFamily] = {}
    for env_id in gym.registry:
        family = family_of(env_id)
        if family is not None:
            families.setdefault(family.name, family)
    return families


def guessgym_ids() -> list[str]:
    """Every registered id of guessgym's families, in registration order."""
    return [i for i in gym.registry if family_of(i) is not None]


# ---- helpers the families share ----------------------------------------------------------------------
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
    """Game numbers ``0 .. count-1``, what families that do not play answers iterate over."""
    return np.arange(count, dtype=np.int64)


__all__ = ["EnvFamily", "GameSetup", "game_numbers", "guessgym_ids", "family_of",
           "registered_families", "registered_kwargs", "take_cache_option"]
