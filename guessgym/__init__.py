"""guessgym: Wordle and Nerdle as Gymnasium environments, baselines and learned agents.

One namespace:

* :mod:`guessgym.envs`: games, scoring, the game engine, the Gymnasium environments;
* :mod:`guessgym.agents`: the Agent protocol, the agent registry, the shared evaluation loop,
  results, learned agents (the ``train`` extra);
* :mod:`guessgym.baselines`: the research documents' deterministic solvers;
* :mod:`guessgym.training`: training learned agents (the ``train`` extra);
* :mod:`guessgym.cli`: the ``guessgym`` command line.

Importing the package registers every environment id with Gymnasium (and the baselines with the
agent registry) by name, without loading numba or the word lists::

    import gymnasium as gym
    import guessgym

    env = gym.make("guessgym/Wordle-v1")
"""

from __future__ import annotations

from .envs.registration import register_envs

__version__ = "0.3.0"

register_envs()

__all__ = ["__version__", "main", "register_envs"]


def main(argv: list[str] | None = None) -> int:
    """Run the command line (see :mod:`guessgym.cli`)."""
    from .cli import main as cli_main

    return cli_main(argv)
