"""The evaluation loop for text agents: games in the chat environment, several in flight, every
transcript saved as it finishes, an interrupted evaluation resumed without replaying a game.

:func:`evaluate_chat` is what :func:`guessgym.evaluation.evaluate.evaluate` runs for a
:class:`~guessgym.agents.text.TextAgent`; it returns the same
:class:`~guessgym.evaluation.results.EvaluationResult` as every other agent gets (so the same
tables, plots and distance from the optimum), with the accounting of each game filled in:
invalid replies by kind, turns with retries, lost turns, tokens and latency.

**Concurrency.** A language model spends its time waiting on a server, so games run in threads
(``concurrency`` at once), each with its own :class:`~guessgym.envs.chat.env.ChatGuessEnv` and
conversation; the shared HTTP client pools the connections.

**Transcripts and resuming.** With ``transcripts=PATH`` every finished game is appended to a
JSON-lines file (flushed and synced): a header line naming the evaluation (agent and sampling,
environment and options, seed), then one line per game with its record and its conversation. A
rerun with the same path and the same evaluation skips the games already there, after playing each
one again from its saved replies to check it (a line whose record or tiles the game contradicts
is refused, naming it); a different evaluation is refused (the message names what differs); a line
cut short by a crash is dropped; a second evaluation on a file in use is refused. Nothing in a
file is changed before its header shows it is this evaluation's (:mod:`guessgym.infra.resumable_log`).

**Failures.** A failure that retrying does not fix
(:class:`~guessgym.agents.llm.client.ModelServerError`: server unreachable, wrong model name,
refused key...) stops the evaluation: no new game starts, the games in flight end, and one
error says what happened and how many games are saved.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import Any

from ..agents.text import TextAgent
from ..envs.chat.env import CHAT_OPTIONS, ChatFamily, ChatGuessEnv
from .episodes import play_chat_game
from .games import answers_label, progress_callback, select_answers
from .meta import json_safe, result_meta
from .results import EvaluationResult, GameRecord
from .transcripts import TranscriptLog, replay_check


class EvaluationStopped(RuntimeError):
    """The evaluation stopped on a failure; the games finished before it are saved (if a
    transcripts file was given) and a rerun resumes after them."""


class EvaluationInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the evaluation: the games in flight were cancelled, every finished one is
    saved (with a transcripts file), and the message says how to resume."""


def evaluate_chat(
    agent: TextAgent,
    env: str = "guessgym/WordleChat-v0",
    *,
    env_kwargs: dict[str, Any] | None = None,
    answers: Iterable[str | int] | None = None,
    sample: int | None = None,
    seed: int = 0,
    max_attempts: int | None = None,
    concurrency: int | None = None,
    transcripts: str | os.PathLike[str] | None = None,
    record_guesses: bool = True,
    progress: bool | Callable[[int, int], None] = False,
) -> EvaluationResult:
    """Play ``agent`` on the chosen answers of a game in conversation (see the module docstring).

    Args:
        agent: the text agent (e.g. :class:`~guessgym.agents.llm.LLMAgent`).
        env: a chat id (``guessgym/WordleChat-v0``...) or a plain guessgym id (played in
            conversation with the default chat options).
        env_kwargs: game and chat options (``hard_mode``, ``length``, ``invalid``, ``max_retries``,
            ``feedback``, ``reply_format``, ``prompts``...).
        answers, sample, seed, max_attempts: which games, as in :func:`guessgym.evaluation.evaluate.evaluate`.
        concurrency: games in flight (default: the agent's ``concurrency`` attribute, else 1).
        transcripts: the JSON-lines file of the games (resumed if it holds this evaluation).
        record_guesses: keep each game's valid guesses in its record.
        progress: ``True`` for a progress bar on stderr, or a ``callback(done, total)``.

    Raises:
        EvaluationStopped: a game failed (the message says why, from the underlying error, and
            how many games are saved); the underlying error is its ``__cause__``.
        ValueError: bad options, or a transcripts file of another evaluation.
    """
    kwargs = ChatFamily.chat_kwargs(env, env_kwargs, max_attempts)
    probe = ChatGuessEnv(**kwargs)
    game = probe.game
    indices = [int(i) for i in select_answers(game, answers, sample, seed)]
    workers = concurrency if concurrency is not None else int(getattr(agent, "concurrency", 1))
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"concurrency must be an integer >= 1, got {workers!r}")
    chat_options = {k: v for k, v in kwargs.items() if k in CHAT_OPTIONS}
    header = {"agent": agent.config(), "env_id": env, "env_kwargs": json_safe(kwargs), "seed": int(seed),
              "game": game.name}
    log = (TranscriptLog(transcripts, header, replay_check(ChatGuessEnv(**kwargs), seed))
           if transcripts is not None else None)
    done: dict[int, GameRecord] = {i: r for i, r in (log.finished.items() if log else ()) if i in set(indices)}
    todo = [i for i in indices if i not in done]

    local = threading.local()
    stop = threading.Event()

    def play(answer_index: int) -> None:
        if stop.is_set():
            return
        env_here = getattr(local, "env", None)
        if env_here is None:
            env_here = local.env = ChatGuessEnv(**kwargs)
        try:
            record, transcript = play_chat_game(env_here, agent, answer_index, seed=seed,
                                                record_guesses=record_guesses)
        except BaseException:
            stop.set()
            raise
        if log is not None:
            log.add(record, transcript)
        done[answer_index] = record
        if callback is not None:
            with counter_lock:
                callback(len(done), len(indices))

    counter_lock = threading.Lock()
    callback, close = progress_callback(progress, len(indices), f"{agent.name} on {game.name}")
    if callback is not None:
        callback(len(done), len(indices))
    failure: BaseException | None = None
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="guessgym-game")
    try:
        futures: list[Future[None]] = [pool.submit(play, i) for i in todo]
        try:
            wait(futures, return_when=FIRST_EXCEPTION)
        except KeyboardInterrupt:
            stop.set()
            agent.cancel()  # the requests in flight end within a fraction of a second
            pool.shutdown(wait=True, cancel_futures=True)
            raise EvaluationInterrupted(_saved_message(len(done), len(indices), log, "interrupted")) from None
        failure = next((f.exception() for f in futures if f.done() and f.exception() is not None), None)
        if failure is not None:
            stop.set()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        close()
        if log is not None:
            log.close()
    if failure is not None:
        raise EvaluationStopped(f"{failure}\n{_saved_message(len(done), len(indices), log, 'stopped')}") from failure
    records = [done[i] for i in indices]
    meta = result_meta(game, records, chosen=answers_label(answers, sample), seed=seed, sample=sample,
                       backend="threads", n_jobs=workers,
                       env_kwargs=json_safe({k: v for k, v in kwargs.items() if k not in ("kind",)}),
                       fixed_answer=True, record_guesses=record_guesses,
                       extra={"chat": json_safe(chat_options), "agent_config": agent.config(),
                              "resumed_games": len(indices) - len(todo),
                              "base_url": getattr(getattr(agent, "client", None), "base_url", None),
                              "transcripts": None if transcripts is None else str(transcripts)})
    return EvaluationResult(agent=agent.name, description=agent.describe(), env_id=env, game=game.name,
                            max_attempts=game.max_attempts, records=records, meta=meta)


def _saved_message(finished: int, total: int, log: TranscriptLog | None, how: str) -> str:
    """How many games are kept, and how to go on."""
    if log is not None:
        return (f"{how}: {finished:,} of {total:,} games are saved in {log.path}; rerun the same evaluation "
                "to resume")
    return f"{how}: {finished:,} of {total:,} games were played; give transcripts=PATH to keep them"


__all__ = ["EvaluationInterrupted", "EvaluationStopped", "evaluate_chat"]
