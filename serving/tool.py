"""TRL's tool-calling rollouts against a guessgym server: the ``guess`` tool, played over OpenEnv.

:class:`RemoteGuessToolEnv` is :class:`~guessgym.envs.chat.tools.GuessToolEnv` with its game on a
server (``guessgym serve``, or any host serving the same id and options): the same tool (``guess``),
the same dataset rows (:func:`~guessgym.envs.chat.tools.tool_dataset`), the same reward
(``get_reward``), so ``GRPOTrainer(environment_factory=...)`` trains against the server exactly as
it trains in process; each environment holds one session of the server's ``/ws`` socket.

Example::

    from trl import GRPOTrainer
    from guessgym.serving.tool import RemoteGuessToolEnv

    trainer = GRPOTrainer(..., environment_factory=lambda: RemoteGuessToolEnv("http://127.0.0.1:8000"))
"""

from __future__ import annotations

from typing import Any

from ..envs.chat.tools import GuessToolEnv, make_chat_env
from .client import GuessgymClient
from .models import GuessAction


class RemoteGuessToolEnv:
    """One game per rollout on a guessgym server, through the ``guess`` tool (see the module docstring).

    Args:
        base_url: the server (``http://HOST:PORT``).
        env_id, env_kwargs: the id and options the server plays (to write the replies in its reply
            format and know its loss reward; the server's own game is what is played).
        timeout: seconds to connect, and to wait for each answer.
    """

    def __init__(self, base_url: str, env_id: str = "guessgym/WordleChat-v0", timeout: float = 60.0,
                 **env_kwargs: Any) -> None:
        local = make_chat_env(env_id, env_kwargs)
        local.parser.reply_for(local.parser.example)  # a custom reply format cannot carry the tool's guesses
        self.parser = local.parser
        self._loss_reward = float(local.env.rewards.loss_reward)
        self.client = GuessgymClient(base_url=base_url, connect_timeout_s=timeout, message_timeout_s=timeout).sync()
        self.client.connect()
        self.total_reward = 0.0
        self.done = False
        self.info: dict[str, Any] = {}

    def reset(self, answer: str | None = None, seed: int | None = None, **row: Any) -> None:
        """Start the game of a dataset row (its ``answer``) on the server. Returns None: the row's
        prompt already holds the rules and the first turn."""
        result = self.client.reset(**{k: v for k, v in (("answer", answer), ("seed", seed)) if v is not None})
        self.info = result.observation.model_dump()
        self.total_reward = 0.0
        self.done = False

    def guess(self, guess: str) -> str:  # its docstring is GuessToolEnv.guess's (TRL's tool schema): set below
        if self.done:
            return "The game is over; no more guesses."
        result = self.client.step(GuessAction(message=self.parser.reply_for(guess)))
        self.info = result.observation.model_dump()
        self.total_reward += float(result.reward or 0.0)
        self.done = bool(result.done)
        return str(result.observation.prompt)

    guess.__doc__ = GuessToolEnv.guess.__doc__

    def get_reward(self) -> float:
        """The game's reward: the server's rewards summed, and a game the rollout left unfinished
        counts as lost (``loss_reward``), as in :class:`~guessgym.envs.chat.tools.GuessToolEnv`."""
        return self.total_reward if self.done else self.total_reward + self._loss_reward

    def _close(self) -> None:
        """End the session (private: TRL makes every public method a tool)."""
        client = getattr(self, "client", None)
        if client is not None:
            self.client = None
            client.close()

    def __del__(self) -> None:
        try:
            self._close()
        except Exception:  # the interpreter may be shutting down
            pass


__all__ = ["RemoteGuessToolEnv"]
