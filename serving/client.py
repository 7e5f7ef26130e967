"""The client of guessgym's server: OpenEnv's ``EnvClient`` with guessgym's types.

Example (a server started with ``guessgym serve --port 8000``)::

    from guessgym.serving.client import GuessgymClient
    from guessgym.serving.models import GuessAction

    with GuessgymClient(base_url="http://127.0.0.1:8000").sync() as env:
        result = env.reset(seed=0)
        result = env.step(GuessAction(message="[crane]"))
        print(result.observation.tiles, result.reward, result.done)

Any other OpenEnv client works too: ``openenv.GenericEnvClient`` with ``{"message": "[crane]"}``.
"""

from __future__ import annotations

from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from .models import GuessAction, GuessObservation, GuessState


class GuessgymClient(EnvClient[GuessAction, GuessObservation, GuessState]):
    """One session of a guessgym server over OpenEnv's socket (see the module docstring)."""

    def _step_payload(self, action: GuessAction) -> dict[str, Any]:
        return {"message": action.message}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[GuessObservation]:
        observation = GuessObservation(**payload.get("observation", {}), done=payload.get("done", False),
                                       reward=payload.get("reward"))
        return StepResult(observation=observation, reward=payload.get("reward"), done=bool(payload.get("done")))

    def _parse_state(self, payload: dict[str, Any]) -> GuessState:
        return GuessState(**payload)


__all__ = ["GuessgymClient"]
