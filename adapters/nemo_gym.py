"""guessgym's chat games as a NeMo Gym resources server, on NeMo Gym's Gymnasium base.

NeMo Gym (NVIDIA's environment servers for NeMo RL) runs an environment as a *resources server*;
its ``gymnasium_agent`` plays one rollout by posting ``/reset`` once, then, after each model
response, ``/step``, until the server says the episode ended, and sums the step rewards.
:class:`GuessgymResourcesServer` is such a server on ``resources_servers.gymnasium.GymnasiumServer``:
each rollout (NeMo Gym's session) plays one game of a guessgym chat id in
:class:`~guessgym.envs.chat.env.ChatGuessEnv`; the model's text is played as the in-process chat
game plays a reply, and the game's message is the next user turn, so a game through NeMo Gym is the
in-process game reply for reply, rewards included. The game's options come from the server's config
(``gym_id``, ``env_kwargs``), the game of each rollout from its dataset row (``answer``, ``seed``),
which :func:`nemo_gym_rows` writes in NeMo Gym's JSONL form (``responses_create_params.input``:
the game's opening conversation; the answer stays with the server, never in the model's input).

It needs the ``nemo-gym`` extra, which cannot be installed beside guessgym's other extras: NeMo
Gym 0.4.0 needs Python 3.12 or later and pins ``mcp<2`` (openenv-core's fastmcp
needs ``mcp>=2.3``) and ``openai<=2.7.2``. The server in NeMo Gym's own layout (``app.py``, config
YAML, example rows, pyproject) is ``integrations/nemo_gym/resources_servers/guessgym/`` in the
repository; NeMo Gym's launcher starts it as ``python app.py`` in that folder.
``python -m guessgym.adapters.nemo_gym`` does the same from anywhere, given the launcher's config.
"""

from __future__ import annotations

import functools
from typing import Any

from ..envs.chat.env import ChatGuessEnv
from ..infra.optional import require_extra
from .openings import openings
from .options import chat_options, check_seed

#: The chat id played unless the config names another.
DEFAULT_ENV_ID = "guessgym/WordleChat-v0"
#: Games a server keeps at once; past it, a new rollout is refused (NeMo Gym drops a session when
#: its game ends, so only abandoned rollouts can fill it).
MAX_SESSIONS = 10_000


def nemo_gym_rows(gym_id: str = DEFAULT_ENV_ID, games: int | None = None, *, seed: int = 0,
                  env_kwargs: dict[str, Any] | None = None, agent: str | None = None) -> list[dict[str, Any]]:
    """NeMo Gym's dataset rows (one JSON object per line of its JSONL file) for ``games`` answers
    (a seeded sample; every answer for ``None``): ``responses_create_params.input`` is the game's
    opening conversation; ``answer``, ``answer_index`` and ``seed`` go to the server only;
    ``agent`` names the agent that plays each row (NeMo Gym's ``agent_ref``), where given."""
    from ..evaluation.games import select_answers

    check_seed(seed)
    if agent is not None and (not isinstance(agent, str) or not agent.strip()):
        raise ValueError(f"agent must name a NeMo Gym agent of the config (a non-empty string), not {agent!r}")
    env = ChatGuessEnv(**chat_options(gym_id, env_kwargs, "NeMo Gym config"))
    ref = {} if agent is None else {"agent_ref": {"type": "responses_api_agents", "name": agent}}
    return [{"responses_create_params": {"input": messages}, "answer": answer, "answer_index": index, "seed": seed,
             **ref} for index, answer, messages in openings(env, select_answers(env.game, None, games, seed), seed)]


@functools.cache
def _classes() -> tuple[type, type]:
    require_extra("nemo-gym", "the NeMo Gym resources server")
    from fastapi import HTTPException
    from nemo_gym.base_resources_server import BaseResourcesServerConfig
    from resources_servers.gymnasium import GymnasiumServer, extract_text

    class Refused(HTTPException, ValueError):
        """A request the server refuses: an HTTP 4xx with its reason (a ValueError to a caller in process)."""

        def __init__(self, status: int, reason: str) -> None:
            HTTPException.__init__(self, status_code=status, detail=reason)

    class GuessgymResourcesServerConfig(BaseResourcesServerConfig):
        """NeMo Gym's server config, with the chat game's id and options."""

        gym_id: str = DEFAULT_ENV_ID
        env_kwargs: dict[str, Any] = {}

    class GuessgymResourcesServer(GymnasiumServer):
        """One guessgym chat game per NeMo Gym session (see the module docstring)."""

        config: GuessgymResourcesServerConfig

        def model_post_init(self, context: Any) -> None:
            super().model_post_init(context)
            # bad options fail when the server starts, not at its first game
            ChatGuessEnv(**chat_options(self.config.gym_id, self.config.env_kwargs, "NeMo Gym config"))

        async def reset(self, metadata: dict[str, Any], session_id: str | None = None) -> tuple[str | None, dict]:
            """Start the row's game; the row's prompt already holds its opening turn."""
            if "answer" not in metadata:
                raise Refused(422, "a guessgym row names its game's answer (nemo_gym_rows writes it); this one has "
                                   "none")
            if session_id not in self.session_state and len(self.session_state) >= MAX_SESSIONS:
                raise Refused(503, f"this server already plays {MAX_SESSIONS:,} games; finish or drop some first")
            seed = metadata.get("seed")
            env = ChatGuessEnv(**chat_options(self.config.gym_id, self.config.env_kwargs, "NeMo Gym config"))
            try:
                env.reset(seed=None if seed is None else check_seed(seed), options={"answer": metadata["answer"]})
            except (ValueError, TypeError) as exc:
                raise Refused(422, str(exc).splitlines()[0]) from None
            self.session_state[session_id] = env
            return None, {}

        async def step(self, action: Any, metadata: dict[str, Any],
                       session_id: str | None = None) -> tuple[str | None, float, bool, bool, dict]:
            """Play the model's text as a reply; the game's message is the next observation."""
            env = self.session_state.get(session_id)
            if not isinstance(env, ChatGuessEnv):
                raise Refused(409, "this session has no game: /reset starts one, and a finished game takes no step")
            _, reward, terminated, truncated, info = env.step(extract_text(action))
            done = bool(terminated or truncated)
            outcome: dict[str, Any] = {key: info[key] for key in ("guess", "tiles", "attempt", "invalid_kind")
                                       if key in info}
            if done:
                outcome.update(won=bool(info["won"]), answer=info["answer"])
            return (None if done else str(info["messages"][-1]["content"])), float(reward), bool(terminated), \
                bool(truncated), outcome

    for cls in (GuessgymResourcesServerConfig, GuessgymResourcesServer):
        cls.__module__ = __name__
    return GuessgymResourcesServerConfig, GuessgymResourcesServer


def __getattr__(name: str) -> Any:
    if name in ("GuessgymResourcesServerConfig", "GuessgymResourcesServer"):
        config, server = _classes()
        globals().update(GuessgymResourcesServerConfig=config, GuessgymResourcesServer=server)
        return globals()[name]
    raise AttributeError(name)


__all__ = ["DEFAULT_ENV_ID", "GuessgymResourcesServer", "GuessgymResourcesServerConfig",  # noqa: F822 (built on use)
           "nemo_gym_rows"]

if __name__ == "__main__":  # pragma: no cover (NeMo Gym's launcher starts it, with its config)
    server: Any = _classes()[1]
    server.run_webserver()
