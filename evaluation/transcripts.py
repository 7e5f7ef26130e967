"""The transcripts file of a text agent's evaluation: written as games finish, checked when read.

A transcripts file (``evaluate(..., transcripts=PATH)``, ``guessgym evaluate --transcripts``) is a
:class:`~guessgym.infra.resumable_log.ResumableLog`: a header line naming the evaluation (``kind``
``"header"``, ``format``, ``agent``, ``env_id``, ``env_kwargs``, ``seed``, ``game``), then one line per
finished game with its record and its conversation (``{"kind": "game", "record", "transcript"}``).

Every saved game is *played again from its replies* when the file is read (:func:`replay_check`):
a line whose record, tiles or answer the game contradicts is refused, naming it. So what a reader
gets, :func:`read_transcripts`, is what the game gives, never what the file claims: the evaluation
result and, per game, every reply with the game's verdict on it (:class:`Turn`), invalid ones
included, for the move analysis (:func:`guessgym.evaluation.analysis.analyze`) and the game
viewer (:mod:`guessgym.evaluation.viewer`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agents.optima import known_optimum
from ..agents.text import ModelReply, TextAgent
from ..envs.chat.env import ChatGuessEnv
from ..infra.resumable_log import LogError, ResumableLog, read_header
from .conduct import conduct_summary
from .episodes import play_chat_game
from .results import EvaluationResult, GameRecord
from .saved import check_saved_game

#: Version of the transcripts file layout.
TRANSCRIPT_FORMAT = 1


@dataclass(frozen=True)
class Turn:
    """One reply of a chat game and what the game made of it.

    Attributes:
        reply: the model's text, as sent.
        guess: the guess it played (``""`` when the reply was invalid).
        tiles: that guess's tiles (``"GYB..."``; ``""`` when invalid).
        invalid: why the reply was refused (``"format"``, ``"length"``, ``"unknown"``,
            ``"hard_mode"``), ``""`` for a valid one.
        forfeit: the invalid reply used up an attempt (``invalid="forfeit"``, or retries spent).
    """

    reply: str
    guess: str
    tiles: str
    invalid: str
    forfeit: bool


@dataclass
class Transcripts:
    """What a transcripts file holds, every game checked by playing it again.

    Attributes:
        result: the evaluation result of its games (in file order; ``meta["transcripts"]`` is the
            file), each record with its guesses (``played``) even where the evaluation kept none.
        turns: per game (the same order as ``result.records``), every reply with its verdict.
        header: the file's header line.
    """

    result: EvaluationResult
    turns: list[tuple[Turn, ...]]
    header: dict[str, Any]


class _Replay(TextAgent):
    """Replies taken from a saved transcript, in order (to replay a saved game)."""

    name = "replay"

    def __init__(self, replies: list[str]) -> None:
        self.replies = replies
        self.turn = 0

    def reply(self, messages: list[dict[str, str]]) -> ModelReply:
        if self.turn >= len(self.replies):
            raise ValueError("the game needs more replies than the transcript holds")
        self.turn += 1
        return ModelReply(self.replies[self.turn - 1])


def _replayed(env: ChatGuessEnv, seed: int, line: Any) -> tuple[int, GameRecord, tuple[Turn, ...]]:
    """One game line played again through ``env``: its answer index, record and turns (see :func:`replay_check`)."""
    if not isinstance(line, dict) or line.get("kind") != "game":
        raise ValueError("not a game line")
    record = GameRecord.from_dict(line["record"])
    transcript = line["transcript"]
    index = transcript["answer_index"]
    if type(index) is not int or not 0 <= index < len(env.game.answers):
        raise ValueError(f"answer_index {index!r} is not an answer of {env.game.name}")
    messages = transcript["messages"]
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise ValueError("its messages are not a list of objects")
    replies = [m.get("content") for m in messages if m.get("role") == "assistant"]
    if not all(isinstance(r, str) for r in replies):
        raise ValueError("a reply is not text")
    replayed, again = play_chat_game(env, _Replay(replies), index, seed=seed, record_guesses=True)
    same = dataclasses.replace(replayed, played=replayed.played if record.played is not None else None,
                               prompt_tokens=record.prompt_tokens, completion_tokens=record.completion_tokens)
    if same != record or again["messages"] != messages or transcript.get("answer") != record.answer:
        raise ValueError(f"its record or conversation is not what the game gives when its replies are played "
                         f"again (answer {env.game.answers[index]!r}: {replayed.guesses} guesses, "
                         f"{'won' if replayed.solved else 'lost'})")
    turns = tuple(Turn(text, r["guess"], r["tiles"], r["invalid"], r["forfeit"])
                  for text, r in zip(replies, again["replies"], strict=True))
    return index, record, turns


def replay_check(env: ChatGuessEnv, seed: int) -> Callable[[Any], tuple[int, GameRecord]]:
    """The row parser of a transcripts file: each saved game is played again from its replies
    through ``env``, and must give exactly the saved record and conversation (so a forged or
    damaged line, wrong tiles or an answer that is not the game's, is refused, naming its line)."""

    def parse(line: Any) -> tuple[int, GameRecord]:
        index, record, _ = _replayed(env, seed, line)
        return index, record

    return parse


class TranscriptLog:
    """The transcripts file of one evaluation being written (see the module docstring): a
    :class:`~guessgym.infra.resumable_log.ResumableLog` whose saved games are checked by playing
    them again (``check``, e.g. :func:`replay_check`), locked while the evaluation runs."""

    def __init__(self, path: str | os.PathLike[str], header: dict[str, Any],
                 check: Callable[[Any], tuple[int, GameRecord]] | None = None) -> None:
        self.header = {"kind": "header", "format": TRANSCRIPT_FORMAT, **header}

        def unchecked(line: Any) -> tuple[int, GameRecord]:
            if not isinstance(line, dict) or line.get("kind") != "game":
                raise ValueError("not a game line")
            return int(line["transcript"]["answer_index"]), GameRecord.from_dict(line["record"])

        self.log = ResumableLog(path, self.header, check or unchecked, what="transcripts file")
        self.path = self.log.path
        self.finished: dict[int, GameRecord] = dict(row for _, row in self.log.rows)

    def add(self, record: GameRecord, transcript: dict[str, Any]) -> None:
        self.log.append({"kind": "game", "record": record.to_dict(), "transcript": transcript})

    def close(self) -> None:
        self.log.close()


def read_transcripts(path: str | os.PathLike[str]) -> Transcripts:
    """Read a transcripts file, playing every game again to check it (see the module docstring).

    A last line cut short (a run killed while writing it) is left out; the file is not changed.

    Raises:
        ValueError: not a transcripts file, a layout this version does not read, a game it cannot
            rebuild, or a line the game contradicts (the message names the file and line).
    """
    where = Path(path)
    header = read_header(where, "transcripts file")
    if header.get("kind") != "header" or "format" not in header:
        raise LogError(f"{where} is not a transcripts file (line 1 is not its header)")
    if header["format"] != TRANSCRIPT_FORMAT:
        raise LogError(f"{where}: transcripts format {header['format']!r}; this guessgym reads {TRANSCRIPT_FORMAT}")
    kwargs, env_id, seed = header.get("env_kwargs"), header.get("env_id"), header.get("seed")
    if not isinstance(kwargs, dict) or not isinstance(env_id, str) or type(seed) is not int:
        raise LogError(f"{where}: its header lacks env_id, env_kwargs or seed")
    try:
        check_saved_game(env_id, kwargs, "transcripts header")
        env = ChatGuessEnv(**kwargs)
    except (TypeError, ValueError, KeyError) as exc:
        raise LogError(f"{where}: its header's game cannot be rebuilt ({str(exc).splitlines()[0]})") from None
    log = ResumableLog(where, header, lambda line: _replayed(env, seed, line), what="transcripts file", read_only=True)
    games = [row for _, row in log.rows]
    first: dict[int, int] = {}
    for number, (index, _, _) in log.rows:
        if index in first:
            raise LogError(f"{where}: line {number} repeats the game of answer {env.game.answers[index]!r} (line "
                           f"{first[index]}); a transcripts file holds each game once")
        first[index] = number
    agent = header.get("agent")
    name = str(agent.get("agent", "text agent")) if isinstance(agent, dict) else "text agent"
    game = env.game
    meta: dict[str, Any] = {"answers": "list", "answer_pool": len(game.answers), "seed": seed, "sample": None,
                            "backend": "threads", "env_kwargs": {k: v for k, v in kwargs.items() if k != "kind"},
                            "hard_mode": game.hard_mode, "guess_vocabulary": game.guess_vocabulary,
                            "agent_config": agent, "transcripts": str(where)}
    optimum = known_optimum(game)
    if optimum is not None and sorted(i for i, _, _ in games) == list(range(len(game.answers))) == \
            list(range(optimum.answers)):
        meta["answers"] = "all"
        meta["optimum"] = optimum.meta()
    result = EvaluationResult(agent=name, description=f"{name}, read from {where.name}", env_id=env_id,
                              game=game.name, max_attempts=game.max_attempts,
                              records=[dataclasses.replace(record, played=tuple(t.guess for t in turns if t.guess))
                                       for _, record, turns in games], meta=meta)
    result.meta["conduct"] = conduct_summary(game, result.records)
    return Transcripts(result, [turns for _, _, turns in games], header)


__all__ = ["TRANSCRIPT_FORMAT", "TranscriptLog", "Transcripts", "Turn", "read_transcripts", "replay_check"]
