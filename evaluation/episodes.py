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

import numpy as np

from ..agents.base import Agent
from ..agents.text import ModelReply, TextAgent
from ..envs.absurdle import AbsurdleEnv
from ..envs.chat.env import ChatGuessEnv
from ..envs.env import GuessEnv
from ..envs.multiboard import MultiBoardEnv
from .results import GameRecord

#: Default cap on rejected actions in one game before it is declared lost.
MAX_INVALID_ACTIONS = 50


def episode_seed(seed: int, answer_index: int) -> int:
    """The seed of the game whose answer is ``answer_index``: independent of chunking and order."""
    return int(np.random.SeedSequence([int(seed), int(answer_index)]).generate_state(1)[0])


def play_game(
    env: GuessEnv,
    agent: Agent,
    answer_index: int,
    *,
    seed: int = 0,
    record_guesses: bool = False,
    max_invalid: int = MAX_INVALID_ACTIONS,
) -> GameRecord:
    """Play one game to the end through ``env`` and return its record.

    If the agent has a ``seed_episode(seed: int)`` method it is called first with a seed that
    depends only on ``seed`` and the answer index, so a randomised agent plays each game
    identically whatever the backend or chunking. A game in which the agent's actions are
    rejected ``max_invalid`` times is lost, with a note saying why.
    """
    game = env.game
    answer = game.answers[answer_index]
    game_seed = episode_seed(seed, answer_index)
    start = time.perf_counter()
    seed_episode = getattr(agent, "seed_episode", None)
    if callable(seed_episode):
        seed_episode(game_seed)
    obs, info = env.reset(seed=game_seed, options={"answer": int(answer_index)})
    played: list[str] = []
    invalid = 0
    note = ""
    solved = False
    try:
        agent.begin(game)
        while True:
            action = agent.act(obs, info)
            obs, _, terminated, _, info = env.step(action)
            if info["invalid_action"]:
                invalid += 1
                if invalid >= max_invalid:
                    note = f"lost after {invalid} rejected actions (last: {info['invalid_reason']})"
                    break
                continue
            played.append(info["guess"])
            if terminated:
                solved = int(info["pattern"]) == game.solved_pattern
                break
    except Exception as exc:
        if sys.version_info >= (3, 11):  # add_note is new in 3.11
            exc.add_note(f"while agent {getattr(agent, 'name', type(agent).__name__)!r} played answer {answer!r} "
                         f"of {game.name} (after guesses {played})")
        raise
    seconds = time.perf_counter() - start
    return GameRecord(
        answer=answer,
        guesses=len(played),
        solved=solved,
        played=tuple(played) if record_guesses else None,
        seconds=seconds,
        note=note,
        invalid={"hard_mode": invalid},  # the only action GuessEnv rejects is a hard-mode violation
    )


def board_answers(n_answers: int, boards: int, seed: int, game_index: int) -> np.ndarray:
    """The answers of game ``game_index`` of a multi-board evaluation: ``boards`` distinct answer
    indices drawn from the game's own seed (so every backend and chunking plays the same games)."""
    rng = np.random.default_rng(episode_seed(seed, game_index))
    return rng.choice(n_answers, size=boards, replace=False).astype(np.int64)


def play_multiboard_game(env: MultiBoardEnv, agent: Agent, game_index: int, *, seed: int = 0,
                         record_guesses: bool = False) -> GameRecord:
    """Play game ``game_index`` of a multi-board evaluation (answers from :func:`board_answers`).

    The record's ``answer`` is the boards' answers joined by ``+``; ``guesses`` is the attempts
    used; ``solved`` means every board was solved.
    """
    game = env.game
    answers = board_answers(len(game.answers), env.boards, seed, game_index)
    start = time.perf_counter()
    seed_episode = getattr(agent, "seed_episode", None)
    if callable(seed_episode):
        seed_episode(episode_seed(seed, game_index))
    obs, info = env.reset(seed=episode_seed(seed, game_index), options={"answers": answers})
    played: list[str] = []
    agent.begin(game)
    terminated = False
    while not terminated:
        obs, _, terminated, _, info = env.step(agent.act(obs, info))
        played.append(info["guess"])
    return GameRecord(
        answer="+".join(game.answers[int(a)] for a in answers),
        guesses=int(info["attempt"]),
        solved=bool(info["solved"].all()),
        played=tuple(played) if record_guesses else None,
        seconds=time.perf_counter() - start,
    )


#: Guesses after which an uncapped Absurdle game is counted as lost (an agent may never win).
MAX_ABSURDLE_GUESSES = 100


def play_absurdle_game(env: AbsurdleEnv, agent: Agent, game_index: int, *, seed: int = 0,
                       record_guesses: bool = False) -> GameRecord:
    """Play game ``game_index`` of an Absurdle evaluation (the host is deterministic, so only a
    randomised agent plays the games differently). The record's ``answer`` is the answer the host
    conceded (``""`` if it never did); a game with no cap that reaches
    :data:`MAX_ABSURDLE_GUESSES` guesses is counted as lost, with a note."""
    game = env.game
    start = time.perf_counter()
    seed_episode = getattr(agent, "seed_episode", None)
    if callable(seed_episode):
        seed_episode(episode_seed(seed, game_index))
    obs, info = env.reset(seed=episode_seed(seed, game_index))
    agent.begin(game)
    played: list[str] = []
    terminated, note = False, ""
    while not terminated:
        if len(played) >= MAX_ABSURDLE_GUESSES:
            note = f"no win in {MAX_ABSURDLE_GUESSES} guesses"
            break
        obs, _, terminated, _, info = env.step(agent.act(obs, info))
        played.append(info["guess"])
    won = terminated and bool(info.get("answer"))
    return GameRecord(
        answer=info.get("answer", "") or "",
        guesses=len(played),
        solved=won,
        played=tuple(played) if record_guesses else None,
        seconds=time.perf_counter() - start,
        note=note,
    )


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


__all__ = [
    "MAX_ABSURDLE_GUESSES", "MAX_INVALID_ACTIONS", "board_answers", "episode_seed", "play_absurdle_game",
    "play_chat_game", "play_game", "play_multiboard_game",
]
