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

The games a server holds are bounded (:class:`GameSessions`): a client that sends no session cookie
gets a new session at every ``/reset``, and a rollout may be abandoned, so a game idle for
``idle_timeout`` seconds is dropped, and a new game is refused (503) once the server holds
``max_sessions`` games, its client address ``max_sessions_per_client`` of them, or the games hold
``memory_budget_mib`` (each counted as :data:`SESSION_BYTES` plus four bytes a character of its
conversation); a step whose reply would take the games past that budget ends its game (503, the
game dropped), so the budget holds while games grow, not only when they start. Every game shares
one :class:`~guessgym.envs.game.Game`, its lists and pattern matrix, as the OpenEnv server's
sessions do. A request body over ``max_body_bytes`` (unless the config says, :func:`body_bound`
of the game's ``max_reply_chars``) is refused with 413 before it is read
(:class:`~guessgym.infra.body_limit.BodyLimit`, the OpenEnv server's own).

It needs the ``nemo-gym`` extra, which cannot be installed beside guessgym's other extras: NeMo
Gym 0.4.0 needs Python 3.12 or later and pins ``mcp<2`` (openenv-core's fastmcp
needs ``mcp>=2.3``) and ``openai<=2.7.2``. The server in NeMo Gym's own layout (``app.py``, config
YAML, example rows, pyproject) is ``integrations/nemo_gym/resources_servers/guessgym/`` in the
repository; NeMo Gym's launcher starts it as ``python app.py`` in that folder.
``python -m guessgym.adapters.nemo_gym`` does the same from anywhere, given the launcher's config.
"""

from __future__ import annotations

import contextvars
import functools
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ..envs.chat.env import ChatGuessEnv
from ..infra.optional import require_extra
from .openings import openings
from .options import chat_games, check_seed

#: The chat id played unless the config names another.
DEFAULT_ENV_ID = "guessgym/WordleChat-v0"
#: Games a server holds at once unless its config says (NeMo Gym drops a session when its game ends,
#: so only rollouts under way and abandoned ones hold one).
DEFAULT_MAX_SESSIONS = 1024
#: Seconds a game may wait for its next step unless the config says (a model's reply can take
#: minutes); past it the game is dropped.
DEFAULT_IDLE_TIMEOUT = 600.0
#: The memory a server's games may hold unless the config says (MiB), by :meth:`GameSessions.size`.
DEFAULT_MEMORY_BUDGET_MIB = 1024
#: What one game is counted as holding besides its conversation, a game sharing the server's Game
#: (bytes; ``tests/adapters/test_nemo_gym_rows.py`` measures a game and holds this above it).
SESSION_BYTES = 1 << 20
#: Bytes of a request body per character of the longest reply a game takes: a reply's JSON (six bytes
#: a character escaped as ``\\uXXXX``), four times over for what NeMo Gym's response carries beside it.
BODY_BYTES_PER_REPLY_CHAR = 4 * 6
#: The smallest body bound (bytes), whatever the game's longest reply.
MIN_BODY_BYTES = 1 << 20
#: The client address of the request being answered (set by :class:`_ClientAddress`).
_client: contextvars.ContextVar[str | None] = contextvars.ContextVar("guessgym_nemo_client", default=None)


def body_bound(max_reply_chars: int) -> int:
    """The largest request body a server of a game with ``max_reply_chars`` reads unless its config
    says: a few times the longest reply's JSON, 1 MiB at least."""
    return max(MIN_BODY_BYTES, BODY_BYTES_PER_REPLY_CHAR * max_reply_chars)


class GameSessions:
    """The games of a server's sessions, bounded in number, idle time and memory (see the module
    docstring). ``clock`` is the time in seconds (monotonic).

    Raises:
        ValueError: a bound out of range (named).
    """

    def __init__(self, max_sessions: int = DEFAULT_MAX_SESSIONS, idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
                 memory_budget_mib: int = DEFAULT_MEMORY_BUDGET_MIB,
                 clock: Callable[[], float] = time.monotonic, max_sessions_per_client: int | None = None) -> None:
        if type(max_sessions) is not int or not 1 <= max_sessions <= 100_000:
            raise ValueError(f"max_sessions must be a whole number from 1 to 100,000, got {max_sessions!r}")
        if isinstance(idle_timeout, bool) or not isinstance(idle_timeout, (int, float)) or \
                not 0 < idle_timeout <= 7 * 24 * 3600:
            raise ValueError(f"idle_timeout must be seconds above 0 and at most a week, got {idle_timeout!r}")
        if type(memory_budget_mib) is not int or not 16 <= memory_budget_mib <= 1 << 20:
            raise ValueError(f"memory_budget_mib must be a whole number from 16 to {1 << 20:,}, got "
                             f"{memory_budget_mib!r}")
        per_client = max_sessions if max_sessions_per_client is None else max_sessions_per_client
        if type(per_client) is not int or not 1 <= per_client <= max_sessions:
            raise ValueError(f"max_sessions_per_client must be a whole number from 1 to max_sessions ({max_sessions}), "
                             f"got {per_client!r}")
        self.max_sessions, self.idle_timeout = max_sessions, float(idle_timeout)
        self.max_sessions_per_client = per_client
        self.budget = memory_budget_mib << 20
        self.clock = clock
        self.games: OrderedDict[str | None, ChatGuessEnv] = OrderedDict()  # least recently active first
        self._seen: dict[str | None, float] = {}
        self._sizes: dict[str | None, int] = {}
        self._clients: dict[str | None, str | None] = {}  # each game's client address
        self.held = 0  # the sizes summed

    @staticmethod
    def size(messages: list[dict[str, Any]]) -> int:
        """What a game is counted as holding: :data:`SESSION_BYTES` and four bytes a character of
        its conversation (no character takes more)."""
        return SESSION_BYTES + 4 * sum(len(str(m.get("content", ""))) for m in messages)

    def expire(self) -> int:
        """Drop every game idle for ``idle_timeout`` seconds; return how many were dropped."""
        now, dropped = self.clock(), 0
        while self.games:
            oldest = next(iter(self.games))
            if now - self._seen[oldest] < self.idle_timeout:
                break
            self.drop(oldest)
            dropped += 1
        return dropped

    def admit(self, session: str | None, env: ChatGuessEnv, messages: list[dict[str, Any]],
              client: str | None = None) -> None:
        """Hold ``env`` as ``session``'s game (replacing its earlier one), once idle games are dropped;
        ``client`` is the address asking (``None``: not known, counted as one client).

        Raises:
            OverflowError: the server holds ``max_sessions`` games, ``client`` holds
                ``max_sessions_per_client``, or the games would pass the memory budget.
        """
        self.expire()
        self.drop(session)
        size = self.size(messages)
        if len(self.games) >= self.max_sessions or self.held + size > self.budget:
            raise OverflowError(f"this server holds {len(self.games):,} games ({self.held / (1 << 20):,.0f} MiB), the "
                                f"most it holds is {self.max_sessions:,} games or {self.budget >> 20:,} MiB; finish "
                                f"some, or wait: a game idle for {self.idle_timeout:g} s is dropped")
        mine = sum(1 for held_by in self._clients.values() if held_by == client)
        if mine >= self.max_sessions_per_client:
            raise OverflowError(f"this client holds {mine:,} games, the most one client address holds on this server "
                                f"is {self.max_sessions_per_client:,}; finish some, or wait: a game idle for "
                                f"{self.idle_timeout:g} s is dropped")
        self.games[session] = env
        self._seen[session] = self.clock()
        self._sizes[session] = size
        self._clients[session] = client
        self.held += size

    def get(self, session: str | None) -> ChatGuessEnv | None:
        """``session``'s game, if it holds one that is not past its idle time."""
        self.expire()
        return self.games.get(session)

    def touch(self, session: str | None, messages: list[dict[str, Any]]) -> None:
        """``session``'s game was played: it is active now, its conversation as long as ``messages``.

        Raises:
            OverflowError: the game, grown to ``messages``, would take the games past the memory
                budget: it is dropped (the budget holds while games grow, not only at their start).
        """
        if session not in self.games:
            return
        size = self.size(messages)
        if self.held - self._sizes[session] + size > self.budget:
            self.drop(session)
            raise OverflowError(f"this game's conversation ({size / (1 << 20):,.1f} MiB as counted) would take this "
                                f"server's games past its {self.budget >> 20:,} MiB; the game is ended")
        self.games.move_to_end(session)
        self._seen[session] = self.clock()
        self.held += size - self._sizes[session]
        self._sizes[session] = size

    def drop(self, session: str | None) -> None:
        """Forget ``session``'s game, if it holds one."""
        if self.games.pop(session, None) is not None:
            del self._seen[session]
            del self._clients[session]
            self.held -= self._sizes.pop(session)

    def __len__(self) -> int:
        return len(self.games)


class _ClientAddress:
    """ASGI middleware telling the request's handlers its client address (:data:`_client`)."""

    def __init__(self, app: Callable[[MutableMapping[str, Any], Any, Any], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        token = _client.set((scope.get("client") or (None,))[0])
        try:
            await self.app(scope, receive, send)
        finally:
            _client.reset(token)


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
    env = chat_games(gym_id, env_kwargs, "NeMo Gym config").make_env()
    ref = {} if agent is None else {"agent_ref": {"type": "responses_api_agents", "name": agent}}
    return [{"responses_create_params": {"input": messages}, "answer": answer, "answer_index": index, "seed": seed,
             **ref} for index, answer, messages in openings(env, select_answers(env.game, None, games, seed), seed)]


@functools.cache
def _classes() -> tuple[type, type]:
    require_extra("nemo-gym", "the NeMo Gym resources server")
    from fastapi import HTTPException
    from nemo_gym.base_resources_server import BaseResourcesServerConfig
    from pydantic import PrivateAttr
    from resources_servers.gymnasium import GymnasiumServer, extract_text

    class Refused(HTTPException, ValueError):
        """A request the server refuses: an HTTP 4xx with its reason (a ValueError to a caller in process)."""

        def __init__(self, status: int, reason: str) -> None:
            HTTPException.__init__(self, status_code=status, detail=reason)

    class GuessgymResourcesServerConfig(BaseResourcesServerConfig):
        """NeMo Gym's server config, with the chat game's id and options and the bounds on the games
        it holds (see the module docstring)."""

        gym_id: str = DEFAULT_ENV_ID
        env_kwargs: dict[str, Any] = {}
        max_sessions: int = DEFAULT_MAX_SESSIONS
        max_sessions_per_client: int | None = None
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT
        memory_budget_mib: int = DEFAULT_MEMORY_BUDGET_MIB
        max_body_bytes: int | None = None

    class GuessgymResourcesServer(GymnasiumServer):
        """One guessgym chat game per NeMo Gym session (see the module docstring)."""

        config: GuessgymResourcesServerConfig
        _games: Any = PrivateAttr(None)
        _sessions: Any = PrivateAttr(None)

        def model_post_init(self, context: Any) -> None:
            super().model_post_init(context)
            # bad options or bounds fail when the server starts, not at its first game
            self._games = chat_games(self.config.gym_id, self.config.env_kwargs, "NeMo Gym config")
            self._sessions = GameSessions(self.config.max_sessions, self.config.idle_timeout,
                                          self.config.memory_budget_mib,
                                          max_sessions_per_client=self.config.max_sessions_per_client)
            self.session_state = self._sessions.games  # what NeMo Gym's base drops a finished game from
            self._body_bytes = self.config.max_body_bytes or body_bound(self._games.make_env().parser.max_reply_chars)
            if type(self._body_bytes) is not int or not 1024 <= self._body_bytes <= 1 << 30:
                raise ValueError(f"max_body_bytes must be a whole number from 1,024 to {1 << 30:,}, got "
                                 f"{self.config.max_body_bytes!r}")

        def setup_webserver(self) -> Any:
            """NeMo Gym's app, its request bodies bounded before they are read and each request's client
            address known to :meth:`reset` (the per-client share of games)."""
            from ..infra.body_limit import BodyLimit

            app = super().setup_webserver()
            app.add_middleware(_ClientAddress)
            app.add_middleware(BodyLimit, limit=self._body_bytes)
            return app

        async def reset(self, metadata: dict[str, Any], session_id: str | None = None) -> tuple[str | None, dict]:
            """Start the row's game; the row's prompt already holds its opening turn."""
            if "answer" not in metadata:
                raise Refused(422, "a guessgym row names its game's answer (nemo_gym_rows writes it); this one has "
                                   "none")
            seed = metadata.get("seed")
            env = self._games.make_env()
            try:
                _, info = env.reset(seed=None if seed is None else check_seed(seed),
                                    options={"answer": metadata["answer"]})
            except (ValueError, TypeError) as exc:
                raise Refused(422, str(exc).splitlines()[0]) from None
            try:
                self._sessions.admit(session_id, env, info["messages"], _client.get())
            except OverflowError as exc:
                raise Refused(503, str(exc)) from None
            return None, {}

        async def step(self, action: Any, metadata: dict[str, Any],
                       session_id: str | None = None) -> tuple[str | None, float, bool, bool, dict]:
            """Play the model's text as a reply; the game's message is the next observation."""
            env = self._sessions.get(session_id)
            if env is None:
                raise Refused(409, "this session has no game: /reset starts one, a finished game takes no step, and "
                                   f"a game idle for {self._sessions.idle_timeout:g} s is dropped")
            _, reward, terminated, truncated, info = env.step(extract_text(action))
            try:
                self._sessions.touch(session_id, info["messages"])
            except OverflowError as exc:
                raise Refused(503, str(exc)) from None
            done = bool(terminated or truncated)
            outcome: dict[str, Any] = {key: info[key] for key in ("guess", "tiles", "attempt", "invalid_kind")
                                       if key in info}
            if done:
                outcome.update(won=bool(info["won"]), answer=info["answer"])
            return (None if done else str(info["messages"][-1]["content"])), float(reward), bool(terminated), \
                bool(truncated), outcome

        async def close_session(self, session_id: str | None) -> None:
            """A finished game is dropped (NeMo Gym's base calls this when a step ends it)."""
            self._sessions.drop(session_id)

    for cls in (GuessgymResourcesServerConfig, GuessgymResourcesServer):
        cls.__module__ = __name__
    return GuessgymResourcesServerConfig, GuessgymResourcesServer


def __getattr__(name: str) -> Any:
    if name in ("GuessgymResourcesServerConfig", "GuessgymResourcesServer"):
        config, server = _classes()
        globals().update(GuessgymResourcesServerConfig=config, GuessgymResourcesServer=server)
        return globals()[name]
    raise AttributeError(name)


__all__ = ["BODY_BYTES_PER_REPLY_CHAR", "DEFAULT_ENV_ID", "DEFAULT_IDLE_TIMEOUT", "DEFAULT_MAX_SESSIONS",
           "DEFAULT_MEMORY_BUDGET_MIB", "GameSessions", "GuessgymResourcesServer", "GuessgymResourcesServerConfig",  # noqa: F822 (built on use)
           "MIN_BODY_BYTES", "SESSION_BYTES", "body_bound", "nemo_gym_rows"]

if __name__ == "__main__":  # pragma: no cover (NeMo Gym's launcher starts it, with its config)
    server: Any = _classes()[1]
    server.run_webserver()
