"""guessgym's Wordle and Nerdle chat games as a NeMo Gym resources server.

NeMo Gym's launcher (``gym env start``) runs this file in its folder with the server's config;
:class:`~guessgym.adapters.nemo_gym.GuessgymResourcesServer` (guessgym's adapter, on NeMo Gym's
Gymnasium base) plays one game of the configured chat id per rollout. ``configs/guessgym.yaml``
names the game (``gym_id``, ``env_kwargs``) and the ``gymnasium_agent`` that plays it;
``data/example.jsonl`` holds five games in NeMo Gym's row form.
"""

from guessgym.adapters.nemo_gym import GuessgymResourcesServer, GuessgymResourcesServerConfig

__all__ = ["GuessgymResourcesServer", "GuessgymResourcesServerConfig"]

if __name__ == "__main__":
    GuessgymResourcesServer.run_webserver()
