"""guessgym: Wordle and Nerdle as Gymnasium environments, baselines and learned agents.

One namespace, in layers; each imports only the layers below it (``tests/package/test_layers.py``
checks it, and that no import circle exists)::

    guessgym.cli, main_job, play, assist   the command line and the main job
    guessgym.serving                       the games in OpenEnv's protocol (the ``openenv`` extra)
    guessgym.adapters                      the games in other trainers' forms (SkyRL-Gym)
    guessgym.training                      training learned agents (the ``train`` extra)
    guessgym.evaluation                    the shared loop, episodes, backends, results, reports
    guessgym.baselines                     the research documents' deterministic solvers
    guessgym.agents                        the Agent protocol, the players, the agent registry
    guessgym.envs                          the Gymnasium classes and their kinds of game, over the
                                           game core (rules, scoring, matrices, candidates, engine)
    guessgym.infra                         atomic files, the resumable log, the worker pool, caches

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
