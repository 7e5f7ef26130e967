"""Where the games of an evaluation run: in this process, in worker processes, or on Ray.

The games are cut into contiguous chunks of the answer list and handed to the one worker pool
(:func:`guessgym.infra.pool.run_tasks`); every backend plays a chunk with the same function,
:func:`play_chunk` (each game played by :func:`guessgym.evaluation.episodes.play_game`), and hands
back ``(position, GameRecord)`` pairs that :func:`run` puts back in answer order, so a serial and a
parallel run of a deterministic agent give identical records.

Each worker keeps the agent it was sent (and one env) for the whole evaluation, so a memoising
solver reuses the decisions it made on its earlier chunks instead of rebuilding them per chunk; a
serial run uses the caller's own agent object (its memo survives the call).
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from ..agents.base import Agent
from ..envs.families import GameSetup
from ..infra.pool import Backend, WorkerDied, run_tasks
from .episodes import MAX_INVALID_ACTIONS, play_game
from .results import GameRecord

ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to play games of one evaluation (picklable).

    Attributes:
        token: identifies the evaluation.
        agent: the agent to drive.
        setup: the game, its kind and the env's options (:class:`~guessgym.envs.families.GameSetup`).
        record_guesses: keep the list of guesses of every game.
        seed: base seed; game ``i`` gets its own seed derived from it.
        max_invalid: rejected actions allowed in one game before it counts as a loss.
    """

    token: str
    agent: Agent
    setup: GameSetup
    record_guesses: bool = False
    seed: int = 0
    max_invalid: int = MAX_INVALID_ACTIONS

    def make_env(self) -> gym.Env[Any, Any]:
        """The environment the games are played in (the setup's kind builds it)."""
        return self.setup.make_env()


def play_chunk(job: Job, chunk: Sequence[tuple[int, int]], agent: Agent,
               env: gym.Env[Any, Any]) -> list[tuple[int, GameRecord]]:
    """Play ``(position, index)`` pairs with ``agent`` in ``env``; return ``(position, record)`` pairs."""
    return [(pos, play_game(env, agent, idx, seed=job.seed, record_guesses=job.record_guesses,
                            max_invalid=job.max_invalid)) for pos, idx in chunk]


# ---- running the chunks on the pool -------------------------------------------------------------
WorkerState = tuple[Job, Agent, gym.Env[Any, Any]]


def _worker_setup(job: Job) -> WorkerState:
    """A worker's state for ``job``: the job, its agent (the caller's own object in a serial run, so
    its memo survives the call) and one environment."""
    return job, job.agent, job.make_env()


def _play_chunk_task(state: WorkerState, chunk: Sequence[tuple[int, int]]) -> list[tuple[int, GameRecord]]:
    job, agent, env = state
    return play_chunk(job, chunk, agent, env)


def chunked(items: Sequence[tuple[int, int]], chunk_size: int) -> list[list[tuple[int, int]]]:
    """Contiguous chunks of at most ``chunk_size`` items."""
    return [list(items[i : i + chunk_size]) for i in range(0, len(items), chunk_size)]


def default_chunk_size(n_games: int, n_jobs: int) -> int:
    """About eight chunks per worker (load balance, progress updates), at most 64 games each.

    Small chunks cost little: workers keep their agent (and its memo) across chunks.
    """
    return max(1, min(64, math.ceil(n_games / (8 * max(1, n_jobs)))))


def check_picklable(agent: Agent, backend: str) -> None:
    """Raise a clear error if ``agent`` cannot be sent to worker processes."""
    try:
        pickle.dumps(agent)
    except Exception as exc:  # pickle raises several types
        raise TypeError(
            f"agent {getattr(agent, 'name', type(agent).__name__)!r} cannot be pickled for the {backend!r} "
            f"backend ({type(exc).__name__}: {exc}); use backend='serial' or make the agent picklable"
        ) from exc


def run(job: Job, items: Sequence[tuple[int, int]], *, backend: Backend = "serial", n_jobs: int = 1,
        chunk_size: int | None = None, progress: ProgressCallback | None = None,
        address: str | None = None) -> list[GameRecord]:
    """Play ``(position, answer_index)`` items on the worker pool; the records in position order."""
    if backend != "serial":
        check_picklable(job.agent, backend)
    size = chunk_size or default_chunk_size(len(items), n_jobs)
    # A serial run plays one chunk at a time (one progress update per game, as before any pool).
    chunks = chunked(items, 1 if backend == "serial" else size)
    records: list[GameRecord | None] = [None] * len(items)
    total, done = len(items), 0
    died = ("If the evaluation was started from a script, put it under `if __name__ == \"__main__\":` "
            "(the process backend spawns workers that import the script); if a worker ran out of memory, "
            "use fewer jobs or backend=\"serial\"")
    try:
        for pairs in run_tasks(_play_chunk_task, chunks, setup=_worker_setup, setup_args=(job,), backend=backend,
                               n_jobs=n_jobs, address=address, died=died):
            for pos, rec in pairs:
                records[pos] = rec
                done += 1
            if progress is not None:
                progress(done, total)
    except WorkerDied as exc:
        raise WorkerDied(str(exc).replace("before finishing its task", f"before finishing its games ({done} of "
                                          f"{total} were played); task", 1)) from None
    return _complete(records)


def _complete(records: list[GameRecord | None]) -> list[GameRecord]:
    missing = [i for i, r in enumerate(records) if r is None]
    if missing:  # pragma: no cover - a backend bug, not a user error
        raise RuntimeError(f"{len(missing)} games have no result (first position {missing[0]})")
    return [r for r in records if r is not None]


__all__ = ["MAX_INVALID_ACTIONS", "Job", "WorkerDied", "check_picklable", "chunked", "default_chunk_size",
           "play_chunk", "run"]
