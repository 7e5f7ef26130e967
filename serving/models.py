"""What travels between an OpenEnv client and guessgym's server: the action, the observation and
the state, as OpenEnv's pydantic types (what ``/schema`` publishes)."""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.types import Action, Observation, State
from pydantic import ConfigDict, Field

#: The longest reply a message may carry (characters); the game's own bound, ``max_reply_chars``
#: (100,000 by default), decides what is valid: a longer reply is refused before it is played.
MAX_MESSAGE_CHARS = 1_000_000


class GuessAction(Action):
    """One reply of the model: its whole text, read by the game's reply format (``[crane]`` by
    default, or the preset's)."""

    model_config = ConfigDict(extra="forbid")

    message: str = Field(..., max_length=MAX_MESSAGE_CHARS,
                         description="the model's reply, e.g. 'I will try [crane]'")


class GuessObservation(Observation):
    """The game after a reset or a reply: the conversation so far and what the last reply did.

    ``reward`` and ``done`` are the chat environment's (``ChatGuessEnv``), reply for reply.
    """

    messages: list[dict[str, str]] = Field(default_factory=list,
                                           description="the conversation so far, as chat messages "
                                                       "({'role', 'content'})")
    prompt: str = Field(default="", description="the environment's last message (the rules and first turn "
                                                "after a reset, else the feedback on the reply)")
    guess: str = Field(default="", description="the guess the reply played ('' for an invalid reply)")
    tiles: str = Field(default="", description="its tiles, G/Y/B per symbol ('' for an invalid reply)")
    candidates: int = Field(default=-1, description="answers still possible after the guess (-1: none played)")
    attempt: int = Field(default=0, description="attempts used (valid guesses and turns lost)")
    turn: int = Field(default=0, description="replies so far, retries included")
    invalid_kind: str = Field(default="", description="why the reply was refused ('' when it was played)")
    invalid_reason: str = Field(default="", description="the message the model was shown about it")
    invalid_counts: dict[str, int] = Field(default_factory=dict, description="the game's refused replies by kind")
    won: bool | None = Field(default=None, description="once the game has ended: whether it was won")
    answer: str | None = Field(default=None, description="once the game has ended: the answer")
    reward_terms: dict[str, float] = Field(default_factory=dict,
                                           description="a preset's named reward terms, on the last reply")


class GuessState(State):
    """The session's game: which id and options it plays, and where it stands."""

    model_config = ConfigDict(extra="allow")

    env_id: str = Field(default="", description="the chat id served")
    game: str = Field(default="", description="the game's name (wordle-5-nyt, nerdle...)")
    attempt: int = Field(default=0, description="attempts used")
    done: bool = Field(default=True, description="whether the game has ended (or not started)")


def observation_fields(info: dict[str, Any]) -> dict[str, Any]:
    """The fields of a :class:`GuessObservation` from the chat environment's ``info`` (its
    ``messages`` a list of its own; the observation's validation copies each message)."""
    messages = info["messages"]
    return {
        "messages": messages, "prompt": messages[-1]["content"] if messages else "", "guess": info["guess"],
        "tiles": info["tiles"], "candidates": int(info["candidates"]), "attempt": int(info["attempt"]),
        "turn": int(info["turn"]), "invalid_kind": info["invalid_kind"], "invalid_reason": info["invalid_reason"],
        "invalid_counts": {k: int(v) for k, v in info["invalid_counts"].items()}, "won": info.get("won"),
        "answer": info.get("answer"), "reward_terms": dict(info.get("reward_terms", {})),
    }


__all__ = ["MAX_MESSAGE_CHARS", "GuessAction", "GuessObservation", "GuessState", "observation_fields"]
