"""A chat game as a tool-calling environment for LLM reinforcement learning (TRL's
``GRPOTrainer(environment_factory=...)``).

TRL's multi-turn interface is duck-typed: the trainer builds one environment per rollout with the
factory, calls ``reset(**row)`` with the dataset row of the game, exposes every public method as a
tool the model may call (its docstring is the tool's description), and scores the rollout with
``get_reward()``. :class:`GuessToolEnv` offers one tool, ``guess``, which plays a guess in a
:class:`~guessgym.envs.chat.env.ChatGuessEnv` and returns that environment's message (the tiles,
in letters and emoji, and in words; or why the guess was invalid). The rules, the accounting and
the rewards are the chat environment's: a win pays ``win_reward`` at any attempt, invalid guesses
never earn credit (``invalid="retry"`` or ``"forfeit"``), and a rollout that ends before the game
does is a loss (``loss_reward``), never a draw.

:func:`tool_dataset` gives the rows: the first-turn messages of each game, with a system prompt
that asks for the tool instead of a bracketed reply, and the answer, which :meth:`GuessToolEnv.reset`
receives and the model never sees. Nothing here imports TRL (the ``tests`` run TRL's own
rollout code with it).

Examples:
    >>> env = GuessToolEnv("guessgym/NerdleChat-v0", length=5)
    >>> env.reset(answer="2*3=6")
    >>> print(env.guess("1+2=3").splitlines()[1])
    B B P G P  ⬛⬛🟪🟩🟪
    >>> env.guess("2*3=6").endswith("Solved on guess 2: the answer is 2*3=6."), env.get_reward()
    (True, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np

from .env import ChatGuessEnv

#: The system prompt of a tool-calling game: the rules, then how to play.
TOOL_SYSTEM_PROMPT = (
    "{rules}\n\nHow to play: call the `guess` tool with one guess at a time (for example {example}); "
    "its result shows the tiles. Keep guessing until the game is solved or over."
)


def make_chat_env(env_id: str, env_kwargs: dict[str, Any] | None = None) -> ChatGuessEnv:
    """The unwrapped chat environment of a registered chat id (a clear error for another id)."""
    from ..registration import CHAT_ENV_SPECS, is_chat_id

    if not is_chat_id(env_id):
        raise ValueError(f"{env_id!r} is not a chat environment; use one of {sorted(CHAT_ENV_SPECS)}")
    env = gym.make(env_id, **(env_kwargs or {})).unwrapped
    assert isinstance(env, ChatGuessEnv)
    return env


def first_turns(env_id: str, env_kwargs: dict[str, Any] | None = None, *, games: int | None = None,
                seed: int = 0) -> Iterator[tuple[str, int, list[dict[str, str]]]]:
    """``(id, answer index, first-turn messages)`` of games in a seeded random order.

    ``games=None``: every answer once; else that many distinct answers. Ids are random hex strings
    from ``seed`` (they say nothing about the answer).

    Raises:
        ValueError: not a chat id, or ``games`` outside 1 to the number of answers.
    """
    env = make_chat_env(env_id, env_kwargs)
    n = len(env.game.answers)
    if games is not None and (isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= n):
        raise ValueError(f"games must be from 1 to {n:,} ({env.game.name} has {n:,} answers, each played once), "
                         f"or None for every answer; got {games!r}")
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)[: n if games is None else games]
    ids = [f"{value:016x}" for value in rng.integers(0, 2**63, size=len(order), dtype=np.int64)]
    for game_id, answer in zip(ids, order):
        _, info = env.reset(options={"answer": int(answer)})
        yield game_id, int(answer), info["messages"]


def tool_dataset(env_id: str = "guessgym/WordleChat-v0", env_kwargs: dict[str, Any] | None = None, *,
                 games: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
    """Rows for ``datasets.Dataset.from_list``: ``{"prompt": messages, "answer", "id"}``.

    The system message states the game's rules and asks for the ``guess`` tool; the answer goes to
    :meth:`GuessToolEnv.reset` (TRL passes the row's fields), not into the prompt.
    """
    env = make_chat_env(env_id, env_kwargs)
    rows = []
    for game_id, answer, messages in first_turns(env_id, env_kwargs, games=games, seed=seed):
        rows.append({"prompt": tool_prompt(env, messages), "answer": env.game.answers[answer], "id": game_id})
    return rows


def tool_prompt(env: ChatGuessEnv, messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """A game's first-turn ``messages`` with the system prompt of a tool-calling game (the rules,
    then: call the ``guess`` tool)."""
    system = TOOL_SYSTEM_PROMPT.format(rules=env.rules, example=env.parser.example)
    return [{"role": "system", "content": system}, *messages[1:]]


class GuessToolEnv:
    """One game per rollout, played through the ``guess`` tool (see the module docstring).

    Args:
        env_id: a chat id (``guessgym/WordleChat-v0``, ``guessgym/NerdleChat-v0``).
        env_kwargs: the chat environment's options (``hard_mode``, ``length``, ``invalid``,
            ``max_retries``, rewards...).

    For ``GRPOTrainer(environment_factory=lambda: GuessToolEnv("guessgym/WordleChat-v0"))``.
    """

    def __init__(self, env_id: str = "guessgym/WordleChat-v0", **env_kwargs: Any) -> None:
        self._attach(make_chat_env(env_id, env_kwargs))

    @classmethod
    def around(cls, env: ChatGuessEnv) -> GuessToolEnv:
        """The tool over an existing chat environment (e.g. one for a plain id played in conversation)."""
        tool = cls.__new__(cls)
        tool._attach(env)
        return tool

    def _attach(self, env: ChatGuessEnv) -> None:
        env.parser.reply_for(env.parser.example)  # a custom reply format cannot carry the tool's guesses
        self.env = env
        self._loss_reward = float(self.env.env.rewards.loss_reward)
        self.total_reward = 0.0
        self.done = False
        self.info: dict[str, Any] = {}

    def reset(self, answer: str | None = None, seed: int | None = None, **row: Any) -> None:
        """Start the game of a dataset row (its ``answer``; other fields are ignored).

        Returns None: the row's prompt already holds the rules and the first turn."""
        _, self.info = self.env.reset(seed=seed, options=None if answer is None else {"answer": answer})
        self.total_reward = 0.0
        self.done = False

    def guess(self, guess: str) -> str:
        """Play one guess and get its tiles.

        Args:
            guess: the guess to play: a word of the list (Wordle) or a true equation (Nerdle).

        Returns:
            The tiles of the guess (G green, Y/P in the answer elsewhere, B not in it), in words too,
            and how many guesses are left; or why the guess is invalid.
        """
        if self.done:
            return "The game is over; no more guesses."
        _, reward, terminated, _, self.info = self.env.step(self.env.parser.reply_for(guess))
        self.total_reward += float(reward)
        self.done = terminated
        return str(self.info["messages"][-1]["content"])

    def get_reward(self) -> float:
        """The game's reward: the chat environment's rewards summed, and a game the rollout left
        unfinished counts as lost (``loss_reward``)."""
        return self.total_reward if self.done else self.total_reward + self._loss_reward


__all__ = ["TOOL_SYSTEM_PROMPT", "GuessToolEnv", "first_turns", "make_chat_env", "tool_dataset", "tool_prompt"]
