"""guessgym's chat game as an OpenEnv ``Environment``: one game per session, text in, text out.

:class:`GuessgymEnvironment` wraps :class:`~guessgym.envs.chat.env.ChatGuessEnv`: ``reset`` starts a
game (``seed`` draws the answer as the in-process environment does, ``answer`` fixes it), ``step``
plays one reply and returns what the chat environment returns for it, reward and end included, so a
game over the server is the in-process game reply for reply. Sessions share one
:class:`~guessgym.envs.game.Game` (its lists and pattern matrix, read-only), built once per server
process by :class:`GameServer`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import EnvironmentMetadata

from ..envs.chat.env import ChatFamily, ChatGuessEnv
from ..envs.families import GameSetup
from .models import GuessAction, GuessObservation, GuessState, observation_fields

#: The longest conversation a served game may reach unless told (characters): OpenEnv's observation
#: carries the whole conversation with every reply, so this bounds a reply's size and the time it
#: takes to build; the default game (6 attempts, 2 retries, replies of up to 100,000 characters)
#: fits.
DEFAULT_MAX_CONVERSATION_CHARS = 8_000_000
#: Characters of feedback a reply may cause beyond the reply it quotes (a worst case, measured over the
#: invalid kinds: tests/serving).
FEEDBACK_CHARS = 2_000


class GameNotStarted(RuntimeError):
    """A step before the first reset, or after the game ended: reset starts a game."""


@dataclass
class GameServer:
    """What every session of a server plays: a chat id (or a plain id, played in conversation) and
    its options, resolved once.

    Raises:
        ValueError: an id that is not a text game, or options the chat environment refuses (named).
    """

    env_id: str = "guessgym/WordleChat-v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    max_conversation_chars: int = DEFAULT_MAX_CONVERSATION_CHARS

    def __post_init__(self) -> None:
        # resolving builds one chat environment: the id and every option are checked now, not in the first session
        self.setup: GameSetup = ChatFamily().resolve(self.env_id, dict(self.env_kwargs))
        longest = self.longest_conversation()
        if longest > self.max_conversation_chars:
            env = self.make_env()
            raise ValueError(
                f"a game of these options can take {env.max_replies:,} replies of up to "
                f"{env.parser.max_reply_chars:,} characters, a conversation of up to {longest:,} characters, "
                f"which the server would send whole with every reply (at most {self.max_conversation_chars:,}): lower "
                "max_attempts, max_retries or max_reply_chars, or raise max_conversation_chars")

    def longest_conversation(self) -> int:
        """The most characters a game's conversation can reach: its first messages, then every reply
        at its longest with feedback that quotes it."""
        env = self.make_env()
        _, info = env.reset(seed=0)
        first = sum(len(m["content"]) for m in info["messages"])
        return first + env.max_replies * (2 * env.parser.max_reply_chars + FEEDBACK_CHARS)

    def make_env(self) -> ChatGuessEnv:
        """A new chat environment of the served game (sharing its :class:`Game`)."""
        return ChatGuessEnv(game=self.setup.game, **self.setup.env_options)

    def environment(self) -> GuessgymEnvironment:
        """A session's environment (what OpenEnv's server calls for each session)."""
        return GuessgymEnvironment(self)


class GuessgymEnvironment(Environment[GuessAction, GuessObservation, GuessState]):
    """One session's game (see the module docstring).

    ``reset(seed=None, episode_id=None, answer=None)``: ``answer`` is an answer of the game (its
    text or index); a step before a reset, or after the game ended, is an error that changes
    nothing.
    """

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, server: GameServer | None = None) -> None:
        super().__init__()
        self.server = server or GameServer()
        self.env = self.server.make_env()
        # the session's place as plain attributes (a step updates them; :attr:`state` builds the
        # pydantic model when asked: assigning to its validated fields cost a tenth of a step)
        self._episode_id: str | None = None
        self._step_count = 0
        self._attempt = 0
        self._done = True

    def reset(self, seed: int | None = None, episode_id: str | None = None,
              answer: int | str | None = None, **kwargs: Any) -> GuessObservation:
        if kwargs:
            raise ValueError(f"reset takes seed, episode_id and answer; got {', '.join(sorted(kwargs))}")
        options = {"answer": answer} if answer is not None else None
        _, info = self.env.reset(seed=seed, options=options)
        self._episode_id = episode_id or uuid.uuid4().hex
        self._step_count = self._attempt = 0
        self._done = False
        return GuessObservation(done=False, reward=0.0, **observation_fields(info))

    def step(self, action: GuessAction, timeout_s: float | None = None,
             **kwargs: Any) -> GuessObservation:
        if self._done:
            raise GameNotStarted("no game is under way: reset starts one" if self._step_count == 0 else
                                 "the game has ended: reset starts another")
        if not isinstance(action, GuessAction):
            raise TypeError(f"the action is a GuessAction with the reply as its message, got {type(action).__name__}")
        _, reward, terminated, truncated, info = self.env.step(action.message)
        done = bool(terminated or truncated)
        self._step_count += 1
        self._attempt = int(info["attempt"])
        self._done = done
        return GuessObservation(done=done, reward=float(reward), **observation_fields(info))

    async def reset_async(self, seed: int | None = None, episode_id: str | None = None,
                          answer: int | str | None = None, **kwargs: Any) -> GuessObservation:
        """:meth:`reset` on the server's event loop: a reset or a step takes tens of microseconds,
        less than handing it to a thread and back (what OpenEnv does for a synchronous environment)."""
        return self.reset(seed, episode_id, answer, **kwargs)

    async def step_async(self, action: GuessAction, timeout_s: float | None = None, **kwargs: Any) -> GuessObservation:
        """:meth:`step` on the server's event loop (see :meth:`reset_async`)."""
        return self.step(action, timeout_s, **kwargs)

    @property
    def state(self) -> GuessState:
        return GuessState(episode_id=self._episode_id, step_count=self._step_count, env_id=self.server.env_id,
                          game=self.env.game.name, attempt=self._attempt, done=self._done)

    def get_metadata(self) -> EnvironmentMetadata:
        from importlib import metadata

        game = self.env.game
        return EnvironmentMetadata(
            name=f"guessgym {self.server.env_id}", version=metadata.version("guessgym"),
            author="the guessgym developers",
            description=f"{game.name}: {len(game.answers):,} answers, {len(game.guesses):,} guesses, "
                        f"{game.max_attempts} attempts; text in, text out (guessgym's chat environment)")

    def close(self) -> None:
        self.env.close()


__all__ = ["DEFAULT_MAX_CONVERSATION_CHARS", "GameNotStarted", "GameServer", "GuessgymEnvironment"]
