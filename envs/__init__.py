"""guessgym environments: Wordle and Nerdle as Gymnasium environments.

``import guessgym`` registers the ids (Gymnasium 1.x has no plugin entry points)::

    import gymnasium as gym
    import guessgym  # noqa: F401  (registers guessgym/*)

    env = gym.make("guessgym/Wordle-v1")
    obs, info = env.reset(seed=0, options={"answer": "crane"})

``gym.make("guessgym:guessgym/Wordle-v1")`` imports the package for you.

The names below are loaded on first use, so importing this package costs no more than Gymnasium.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .registration import (
    ABSURDLE_ENV_SPECS,
    CHAT_ENV_SPECS,
    ENV_SPECS,
    MULTIBOARD_ENV_SPECS,
    register_envs,
)

if TYPE_CHECKING:
    from .chat import ChatGuessEnv
    from .engine import GameEngine, RewardConfig
    from .env import GuessEnv
    from .game import Game, make_game, nerdle, wordle
    from .multiboard import MultiBoardEnv
    from .multiboard_vector import BatchedMultiBoardEnv
    from .vector import BatchedGuessEnv
    from .wrappers import TerminateOnInvalidAction, TextGuess

register_envs()

_LAZY = {
    "Game": "game",
    "make_game": "game",
    "nerdle": "game",
    "wordle": "game",
    "GuessEnv": "env",
    "ChatGuessEnv": "chat",
    "MultiBoardEnv": "multiboard",
    "BatchedMultiBoardEnv": "multiboard_vector",
    "BatchedGuessEnv": "vector",
    "GameEngine": "engine",
    "RewardConfig": "engine",
    "TextGuess": "wrappers",
    "TerminateOnInvalidAction": "wrappers",
}

__all__ = [
    "ABSURDLE_ENV_SPECS", "CHAT_ENV_SPECS", "ENV_SPECS", "MULTIBOARD_ENV_SPECS", "BatchedGuessEnv",
    "BatchedMultiBoardEnv", "ChatGuessEnv",
    "Game", "GameEngine", "GuessEnv", "MultiBoardEnv", "RewardConfig", "TerminateOnInvalidAction", "TextGuess",
    "make_game", "nerdle", "register_envs", "wordle",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'guessgym.envs' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f".{module}", __name__), name)
