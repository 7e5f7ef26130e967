"""Agents that play by text (language models).

A :class:`TextAgent` answers a conversation (``{"role", "content"}`` messages) with a
:class:`ModelReply`: the text, and what the model server reported (tokens) and how long the call
took. :func:`guessgym.evaluation.episodes.play_chat_game` plays one game of a
:class:`~guessgym.envs.chat.env.ChatGuessEnv` with it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any


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
        must have the same (see :func:`guessgym.evaluation.chat.evaluate_chat`)."""
        return {"agent": self.name}

    def cancel(self) -> None:
        """End the replies in flight at once (an interrupted evaluation calls this, from another
        thread); later :meth:`reply` calls may raise. The default does nothing: a local agent's
        reply is quick."""
        return None


__all__ = ["ModelReply", "TextAgent"]
