"""Agents that play by text (language models), and the game loop that plays them through the chat
environment.

A :class:`TextAgent` answers a conversation (``{"role", "content"}`` messages) with a
:class:`ModelReply`: the text, and what the model server reported (tokens) and how long the call
took. :func:`play_chat_game` plays one game of a
:class:`~guessgym.envs.chat.env.ChatGuessEnv` with it and returns the game's
:class:`~guessgym.agents.results.GameRecord` (with the invalid replies by kind, the turns, the
lost turns, the tokens and the latency) and its transcript.

Examples:
    >>> from guessgym.envs.chat import ChatGuessEnv
    >>> class AlwaysCrane(TextAgent):
    ...     name = "crane"
    ...     def reply(self, messages):
    ...         return ModelReply("[crane]")
    >>> env = ChatGuessEnv(answers=["crane", "slate"])
    >>> record, transcript = play_chat_game(env, AlwaysCrane(), 0)
    >>> record.solved, record.guesses, len(transcript["messages"])
    (True, 1, 4)
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from ..envs.chat.env import ChatGuessEnv
from .episodes import episode_seed
from .results import GameRecord


@dataclass(frozen=True)
class ModelReply:
    """One reply of a text agent.

    Attributes:
        text: the reply, as the environment receives it.
        prompt_tokens, completion_tokens: as reported by the model server (``None``: not reported).
        latency: seconds the reply took (``None``: not measured, e.g. a scripted agent).
        finish_reason: the server's reason for ending the reply (``"stop"``, ``"length"``...), if any.
    """

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency: float | None = None
    finish_reason: str | None = None


class TextAgent(ABC):
    """A player that reads the conversation and writes a reply (see the module docstring)."""

    name: str = "text-agent"

    @abstractmethod
    def reply(self, messages: list[dict[str, str]]) -> ModelReply:
        """The reply to ``messages`` (the whole conversation so far, system message first)."""

    def describe(self) -> str:
        """One line saying what the agent is (shown in reports)."""
        return (self.__doc__ or self.name).strip().splitlines()[0]

    def config(self) -> dict[str, Any]:
        """What identifies this agent's evaluations (model, sampling...): a resumed evaluation
        must have the same (see :func:`guessgym.agents.chat_eval.evaluate_chat`)."""
        return {"agent": self.name}

    def cancel(self) -> None:
        """End the replies in flight at once (an interrupted evaluation calls this, from another
        thread); later :meth:`reply` calls may raise. The default does nothing: a local agent's
        reply is quick."""
        return None


def play_chat_game(env: ChatGuessEnv, agent: TextAgent, answer_index: int, *, seed: int = 0,
                   record_guesses: bool = False) -> tuple[GameRecord, dict[str, Any]]:
    """Play one game of ``env`` on answer ``answer_index`` with ``agent``.

    Returns:
        The game's record and its transcript: ``{"answer_index", "answer", "messages",
        "replies"}``, ``replies`` holding, per reply, the tokens, latency and finish reason.
    """
    game = env.game
    start = time.perf_counter()
    _, info = env.reset(seed=episode_seed(seed, answer_index), options={"answer": int(answer_index)})
    replies: list[dict[str, Any]] = []
    played: list[str] = []
    prompt = completion = None
    latency = None
    terminated = False
    while not terminated:
        reply = agent.reply(info["messages"])
        if not isinstance(reply, ModelReply):
            raise TypeError(f"{type(agent).__name__}.reply() must return a ModelReply, got {type(reply).__name__}")
        replies.append({"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                        "latency": None if reply.latency is None else round(reply.latency, 6),
                        "finish_reason": reply.finish_reason})
        if reply.prompt_tokens is not None:
            prompt = (prompt or 0) + reply.prompt_tokens
        if reply.completion_tokens is not None:
            completion = (completion or 0) + reply.completion_tokens
        if reply.latency is not None:
            latency = (latency or 0.0) + reply.latency
        _, _, terminated, _, info = env.step(reply.text)
        if info["guess"]:
            played.append(info["guess"])
    record = GameRecord(
        answer=game.answers[int(answer_index)],
        guesses=int(info["attempt"]),
        solved=bool(info["won"]),
        played=tuple(played) if record_guesses else None,
        seconds=time.perf_counter() - start,
        invalid=dict(info["invalid_counts"]),
        turns=int(info["turn"]),
        forfeits=int(info["forfeits"]),
        prompt_tokens=prompt,
        completion_tokens=completion,
        latency=latency,
    )
    transcript = {"answer_index": int(answer_index), "answer": record.answer, "messages": info["messages"],
                  "replies": replies}
    return record, transcript


__all__ = ["ModelReply", "TextAgent", "play_chat_game"]
