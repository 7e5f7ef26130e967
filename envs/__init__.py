"""guessgym environments: Wordle and Nerdle as Gymnasium environments.

Importing this package registers the environments (Gymnasium 1.x has no plugin entry points)::

    import gymnasium as gym
    import envs  # noqa: F401  (registers guessgym/*)

    env = gym.make("guessgym/Wordle-v0")
    obs, info = env.reset(seed=0, options={"answer": "crane"})

``gym.make("envs:guessgym/Wordle-v0")`` imports the package for you.
"""

from __future__ import annotations

import gymnasium as gym

from envs.game import Game, nerdle, wordle

#: The registered ids and the keyword arguments each one fixes (the rest are GuessEnv defaults).
ENV_SPECS: dict[str, dict[str, object]] = {
    "guessgym/Wordle-v0": {"kind": "wordle", "length": 5},
    "guessgym/WordleHard-v0": {"kind": "wordle", "length": 5, "hard_mode": True},
    "guessgym/Nerdle-v0": {"kind": "nerdle", "length": 8},
    "guessgym/MidiNerdle-v0": {"kind": "nerdle", "length": 7},
    "guessgym/MiniNerdle-v0": {"kind": "nerdle", "length": 6},
    "guessgym/MicroNerdle-v0": {"kind": "nerdle", "length": 5},
}


def _register() -> None:
    for env_id, kwargs in ENV_SPECS.items():
        if env_id not in gym.registry:
            gym.register(
                id=env_id,
                entry_point="envs.env:GuessEnv",
                vector_entry_point="envs.vector:make_batched",
                kwargs=dict(kwargs),
            )


_register()

__all__ = ["ENV_SPECS", "Game", "GuessEnv", "TerminateOnInvalidAction", "TextGuess", "nerdle", "wordle"]


def __getattr__(name: str) -> object:  # lazy: keep `import envs` light
    if name == "GuessEnv":
        from envs.env import GuessEnv

        return GuessEnv
    if name in ("TextGuess", "TerminateOnInvalidAction"):
        from envs import wrappers

        return getattr(wrappers, name)
    raise AttributeError(f"module 'envs' has no attribute {name!r}")
