"""The simplest OpenEnv environment, served by openenv-core's own ``create_app``: the yardstick
``bench_server.py`` runs beside guessgym's server.

Every reset and step returns the same observation (a constant message, ``done`` false, reward 0);
the action is a message, as guessgym's is, so one load client drives both. What it costs per step is
OpenEnv's server, uvicorn and the socket, with no game: guessgym's server at its steps/s would add
nothing of its own. It runs with the socket settings guessgym's server runs with (no per-message
compression, quiet logs), so the comparison is of the servers, not of their options.

Usage (from the repository root)::

    python benchmarks/echo_openenv.py --port 8765 [--workers 2]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State

#: What every observation says.
MESSAGE = "echo"


class EchoAction(Action):
    """A reply, as guessgym's ``GuessAction`` carries it."""

    message: str


class EchoObservation(Observation):
    """The constant observation."""

    message: str = MESSAGE


class EchoEnvironment(Environment[EchoAction, EchoObservation, State]):
    """A session whose every reset and step returns :data:`MESSAGE`."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        super().__init__()
        self._state = State(step_count=0)

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> EchoObservation:
        self._state = State(episode_id=episode_id, step_count=0)
        return EchoObservation(done=False, reward=0.0)

    def step(self, action: EchoAction, timeout_s: float | None = None, **kwargs: Any) -> EchoObservation:
        self._state.step_count += 1
        return EchoObservation(done=False, reward=0.0)

    @property
    def state(self) -> State:
        return self._state


#: The application (``uvicorn echo_openenv:app``): sessions as many as the benchmark opens.
app = create_app(EchoEnvironment, EchoAction, EchoObservation, env_name="echo", max_concurrent_envs=1024)


def main() -> int:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    options: dict[str, Any] = {"host": "127.0.0.1", "port": args.port, "log_level": "warning",
                               "ws_per_message_deflate": False, "timeout_graceful_shutdown": 5}
    if args.workers > 1:
        uvicorn.run("echo_openenv:app", app_dir=str(Path(__file__).parent), workers=args.workers, **options)
    else:
        uvicorn.run(app, **options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
