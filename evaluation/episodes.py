"""The episode loops: one game of an :class:`~guessgym.agents.base.Agent` through an env, and one
game of a :class:`~guessgym.agents.text.TextAgent` through the chat env.

* :func:`play_game` drives any Agent through one game and returns its
  :class:`~guessgym.evaluation.results.GameRecord`. The evaluation loop (every backend) plays each
  game with it.
* :func:`play_chat_game` plays one conversation and returns the record (with the invalid replies
  by kind, the turns, the lost turns, the tokens and the latency) and its transcript.

Examples:
    >>> from guessgym.agents.text import ModelReply, TextAgent
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

import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np

from ..agents.base import Agent
from ..agents.text import ModelReply, TextAgent
from ..envs.chat.env import ChatGuessEnv
from ..envs.families import EnvFamily
from ..envs.game import Game
from .results import GameRecord

#: Default cap on rejected actions in one game before it is declared lost.
MAX_INVALID_ACTIONS = 50


def episode_seed(seed: int, answer_index: int) -> int:
    """The seed of the game whose answer is ``answer_index``: independent of chunking and order."""
    return int(np.random.SeedSequence([int(seed), int(answer_index)]).generate_state(1)[0])


def play_game(
    env: gym.Env[Any, Any],
    agent: Agent,
    index: int,
    *,
    seed: int = 0,
    record_guesses: bool = False,
    max_invalid: int = MAX_INVALID_ACTIONS,
) -> GameRecord:
    """Play game ``index`` (an answer index, or a game number for families that draw their games from
    a seed) to the end through ``env`` and return its record.

    The env's family (:mod:`guessgym.envs.families`) resets it for that game and reads what the
    finished game records; the loop is the same for every family. If the agent has a
    ``seed_episode(seed: int)`` method it is called first with a seed that depends only on
    ``seed`` and ``index``, so a randomised agent plays each game identically whatever the
    backend or chunking. A game in which the agent's actions are rejected ``max_invalid`` times,
    or that runs past its family's ``max_guesses``, is lost, with a note saying why.
    """
    family: EnvFamily = env.unwrapped.family  # type: ignore[attr-defined]
    game: Game = env.unwrapped.game  # type: ignore[attr-defined]
    game_seed = episode_seed(seed, index)
    start = time.perf_counter()
    seed_episode = getattr(agent, "seed_episode", None)
    if callable(seed_episode):
        seed_episode(game_seed)
    obs, info = family.reset(env, index, game_seed)
    played: list[str] = []
    invalid = 0
    note = ""
    try:
        agent.begin(game)
        while True:
            if family.max_guesses is not None and len(played) >= family.max_guesses:
                note = f"no win in {family.max_guesses} guesses"
                break
            obs, _, terminated, _, info = env.step(agent.act(obs, info))
            if info.get("invalid_action"):
                invalid += 1
                if invalid >= max_invalid:
                    note = f"lost after {invalid} rejected actions (last: {info['invalid_reason']})"
                    break
                continue
            played.append(info["guess"])
            if terminated:
                break
    except Exception as exc:
        if sys.version_info >= (3, 11):  # add_note is new in 3.11
            what = f"answer {game.answers[index]!r}" if family.plays_answers else f"game {index}"
            exc.add_note(f"while agent {getattr(agent, 'name', type(agent).__name__)!r} played {what} "
                         f"of {game.name} (after guesses {played})")
        raise
    answer, guesses, solved = family.outcome(env, index, info, played)
    return GameRecord(
        answer=answer,
        guesses=guesses,
        solved=solved and not note,
        played=tuple(played) if record_guesses else None,
        seconds=time.perf_counter() - start,
        note=note,
        invalid={"hard_mode": invalid} if family.plays_arrays_on_one_answer else {},
    )


def play_chat_game(env: ChatGuessEnv, agent: TextAgent, answer_index: int, *, seed: int = 0,
                   record_guesses: bool = False) -> tuple[GameRecord, dict[str, Any]]:
    """Play one game of ``env`` on answer ``answer_index`` with ``agent``.

    Returns:
        The game's record and its transcript: ``{"answer_index", "answer", "messages",
        "replies"}``, ``replies`` holding, per reply, the tokens, latency and finish reason, and what
        the game made of it: the ``guess`` it played and its ``tiles`` (``""`` for an invalid reply),
        the ``invalid`` kind (``""`` for a valid one) and whether it ``forfeit`` a turn.
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
        forfeits = info.get("forfeits", 0)
        _, _, terminated, _, info = env.step(reply.text)
        if info["guess"]:
            played.append(info["guess"])
        replies[-1].update(guess=info["guess"], tiles=info["tiles"], invalid=info["invalid_kind"],
                           forfeit=info["forfeits"] > forfeits)
    record = GameRecord(
        answer=game.answers[int(answer_index)],
        guesses=int(info["attempt"]),
        solved=bool(info["won"]),
        played=tuple(played) if record_guesses else None,
        seconds=time.perf_counter() - start,
        invalid=dict(info["invalid_counts"]),
        turns=int(info["turn"]),
        forfeits=int(info["forfeits"]),
        note="aborted: too many invalid replies in a row" if info.get("aborted") else "",
        prompt_tokens=prompt,
        completion_tokens=completion,
        latency=latency,
    )
    transcript = {"answer_index": int(answer_index), "answer": record.answer, "messages": info["messages"],
                  "replies": replies}
    return record, transcript


__all__ = ["MAX_INVALID_ACTIONS", "episode_seed", "play_chat_game", "play_game"]
