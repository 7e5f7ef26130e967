"""Where the games of an evaluation run: in this process, in worker processes, or on Ray.

All three backends run the same function, :func:`play_chunk` (each game played by
:func:`guessgym.evaluation.episodes.play_game`), on contiguous chunks of the answer list and hand back
``(position, GameRecord)`` pairs that :func:`guessgym.evaluation.evaluate.evaluate` puts back in answer
order, so a serial and a parallel run of a deterministic agent give identical
records.

Each worker keeps the agent it was sent for the whole evaluation (keyed by a per-evaluation
token), so a memoising solver reuses the decisions it made on its earlier chunks instead of
rebuilding them per chunk.

* ``serial``: one environment and the caller's own agent object (its memo survives the call).
* ``process``: :class:`concurrent.futures.ProcessPoolExecutor` with the ``spawn`` start method
  (safe with numba's and torch's thread pools, unlike ``fork``); the agent and the game are
  pickled once per worker through the pool initializer; each worker limits numba and torch to
  one thread so that ``n_jobs`` workers use ``n_jobs`` cores.
* ``ray``: the same chunk function as a ``ray.remote`` task; ``ray.init(address=...)`` when Ray
  is not initialised yet (address ``None`` starts a local instance with ``n_jobs`` CPUs and no
  dashboard). Ray is an optional extra: ``pip install "guessgym[ray]"``.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import pickle
import socket
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from ..agents.base import Agent
from ..envs.absurdle import AbsurdleEnv
from ..envs.env import GuessEnv
from ..envs.game import Game
from ..envs.multiboard import MultiBoardEnv
from ..infra.optional import require
from .episodes import MAX_INVALID_ACTIONS, play_absurdle_game, play_game, play_multiboard_game
from .results import GameRecord

ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to play games of one evaluation (picklable).

    Attributes:
        token: identifies the evaluation; workers cache the unpickled agent under it.
        agent: the agent to drive.
        game: the game, with the attempt limit of this evaluation.
        env_options: extra :class:`~guessgym.envs.env.GuessEnv` keyword arguments (``matrix_cache``).
        record_guesses: keep the list of guesses of every game.
        seed: base seed; game ``i`` of the answer list gets its own seed derived from it.
        max_invalid: rejected actions allowed in one game before it counts as a loss.
        boards: 1 for the single-board game; more for a multi-board game, whose items are game
            numbers (each game's answers are drawn from its own seed) instead of answer indices.
        absurdle: the :class:`~guessgym.envs.absurdle.AbsurdleEnv` options (``max_attempts``)
            for an Absurdle evaluation, whose items are game numbers; ``None`` otherwise.
    """

    token: str
    agent: Agent
    game: Game
    env_options: dict[str, Any] = field(default_factory=dict)
    record_guesses: bool = False
    seed: int = 0
    max_invalid: int = MAX_INVALID_ACTIONS
    boards: int = 1
    absurdle: dict[str, Any] | None = None

    def make_env(self) -> GuessEnv | MultiBoardEnv | AbsurdleEnv:
        """The environment the games are played in: one board, ``boards`` boards, or Absurdle."""
        if self.absurdle is not None:
            return AbsurdleEnv(game=self.game, **self.absurdle, **self.env_options)
        if self.boards > 1:
            return MultiBoardEnv(game=self.game, boards=self.boards, **self.env_options)
        return GuessEnv(game=self.game, **self.env_options)


def play_chunk(job: Job, chunk: Sequence[tuple[int, int]], agent: Agent | None = None,
               env: GuessEnv | MultiBoardEnv | AbsurdleEnv | None = None) -> list[tuple[int, GameRecord]]:
    """Play ``(position, answer_index)`` pairs; return ``(position, record)`` pairs.

    Without ``agent``/``env``, the worker-cached ones of ``job`` are used (created on first use).
    """
    if agent is None or env is None:
        agent, env = _worker_state(job)
    return [(pos, _play(env, agent, job, idx)) for pos, idx in chunk]


def _play(env: GuessEnv | MultiBoardEnv | AbsurdleEnv, agent: Agent, job: Job, index: int) -> GameRecord:
    if isinstance(env, AbsurdleEnv):
        return play_absurdle_game(env, agent, index, seed=job.seed, record_guesses=job.record_guesses)
    if isinstance(env, MultiBoardEnv):
        return play_multiboard_game(env, agent, index, seed=job.seed, record_guesses=job.record_guesses)
    return play_game(env, agent, index, seed=job.seed, record_guesses=job.record_guesses,
                     max_invalid=job.max_invalid)


# ---- worker-side state ---------------------------------------------------------------------------
_WORKER: dict[str, tuple[Agent, GuessEnv | MultiBoardEnv | AbsurdleEnv]] = {}


def _worker_state(job: Job) -> tuple[Agent, GuessEnv | MultiBoardEnv | AbsurdleEnv]:
    """The agent and env this worker process uses for ``job`` (one evaluation at a time)."""
    state = _WORKER.get(job.token)
    if state is None:
        _WORKER.clear()  # a new evaluation: drop the previous agent and its memo
        _limit_threads()
        state = (job.agent, job.make_env())
        _WORKER[job.token] = state
    return state


def _limit_threads() -> None:
    """One compute thread per worker process: ``n_jobs`` workers should use ``n_jobs`` cores."""
    try:
        import numba

        numba.set_num_threads(1)
    except (ImportError, ValueError):  # pragma: no cover - numba is a dependency of envs
        pass
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


_PROCESS_JOB: Job | None = None


class WorkerDied(RuntimeError):
    """A worker process of the process backend ended without returning its games."""


def check_not_bootstrapping() -> None:
    """Refuse to evaluate inside a worker that is still importing the parent's script.

    A spawned worker imports the main script; one without an ``if __name__ == "__main__":`` guard
    would run its evaluation again (for minutes) instead of serving the parent. Failing at once
    ends the worker, which the parent reports as :class:`WorkerDied` with what to do.
    """
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise RuntimeError(
            "an evaluation was started while a worker process was importing the main script: "
            "put the evaluation under `if __name__ == \"__main__\":`"
        )


def check_main_importable() -> None:
    """Refuse to spawn workers when the main script cannot be imported again by them.

    A spawned worker re-runs the parent's main module from its file. A program read from standard
    input (``python - < script.py``) names ``<stdin>`` as its file, which no worker can open: the
    workers die while starting, and the pool can wait for them for ever. Saying so at once is the
    only answer that does not hang.
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is not None and not os.path.exists(path):
        raise WorkerDied(
            f"the process backend cannot start workers: they re-import the main program, and {path!r} is not "
            "a file (a program read from standard input?); run it from a file, or use backend='serial'"
        )


def _init_process_worker(job: Job) -> None:
    global _PROCESS_JOB
    _PROCESS_JOB = job
    _worker_state(job)


def _process_chunk(chunk: Sequence[tuple[int, int]]) -> list[tuple[int, GameRecord]]:
    assert _PROCESS_JOB is not None, "worker was not initialised"
    return play_chunk(_PROCESS_JOB, chunk)


def _ray_chunk(job: Job, chunk: Sequence[tuple[int, int]]) -> list[tuple[int, GameRecord]]:
    return play_chunk(job, chunk)


# ---- the backends ----------------------------------------------------------------------------------
def chunked(items: Sequence[tuple[int, int]], chunk_size: int) -> list[list[tuple[int, int]]]:
    """Contiguous chunks of at most ``chunk_size`` items."""
    return [list(items[i : i + chunk_size]) for i in range(0, len(items), chunk_size)]


def default_chunk_size(n_games: int, n_jobs: int) -> int:
    """About eight chunks per worker (load balance, progress updates), at most 64 games each.

    Small chunks cost little: workers keep their agent (and its memo) across chunks.
    """
    return max(1, min(64, math.ceil(n_games / (8 * max(1, n_jobs)))))


def run_serial(job: Job, items: Sequence[tuple[int, int]], progress: ProgressCallback | None) -> list[GameRecord]:
    """Play every game in this process with the caller's agent object."""
    env = job.make_env()
    records: list[GameRecord] = []
    total = len(items)
    for done, (_, idx) in enumerate(items, 1):
        records.append(_play(env, job.agent, job, idx))
        if progress is not None:
            progress(done, total)
    env.close()
    return records


def check_picklable(agent: Agent, backend: str) -> None:
    """Raise a clear error if ``agent`` cannot be sent to worker processes."""
    try:
        pickle.dumps(agent)
    except Exception as exc:  # pickle raises several types
        raise TypeError(
            f"agent {getattr(agent, 'name', type(agent).__name__)!r} cannot be pickled for the {backend!r} "
            f"backend ({type(exc).__name__}: {exc}); use backend='serial' or make the agent picklable"
        ) from exc


def run_process(
    job: Job, items: Sequence[tuple[int, int]], n_jobs: int, chunk_size: int,
    progress: ProgressCallback | None,
) -> list[GameRecord]:
    """Play the games in ``n_jobs`` spawned worker processes."""
    check_picklable(job.agent, "process")
    check_main_importable()
    chunks = chunked(items, chunk_size)
    records: list[GameRecord | None] = [None] * len(items)
    total, done = len(items), 0
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(n_jobs, len(chunks)) or 1, mp_context=ctx,
                             initializer=_init_process_worker, initargs=(job,)) as pool:
        pending = {pool.submit(_process_chunk, chunk) for chunk in chunks}
        try:
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    for pos, rec in fut.result():
                        records[pos] = rec
                        done += 1
                    if progress is not None:
                        progress(done, total)
        except BrokenProcessPool:
            raise WorkerDied(
                f"a worker process died before finishing its games ({done} of {total} were played). "
                "If the evaluation was started from a script, put it under "
                "`if __name__ == \"__main__\":` (the process backend spawns workers that import the "
                "script); if a worker ran out of memory, use fewer jobs or backend=\"serial\""
            ) from None
        except BaseException:
            for fut in pending:
                fut.cancel()
            raise
    return _complete(records)


#: Seconds to wait for a TCP connection to an explicit Ray address before giving up.
RAY_CONNECT_TIMEOUT = 5.0


def connect_ray(address: str | None, n_jobs: int = 1) -> Any:
    """The ``ray`` module, initialised: a local instance (``address=None``) or the cluster at ``address``.

    Nothing happens if Ray is already initialised. An explicit ``host:port`` (or ``ray://host:port``)
    is first probed with a TCP connection, so an unreachable address fails within
    :data:`RAY_CONNECT_TIMEOUT` seconds instead of Ray's minutes of retries.

    Raises:
        ConnectionError: no cluster at ``address`` (``"auto"`` with none running, or unreachable),
            with what to do.
    """
    ray: Any = require("ray", extra="ray", purpose="backend='ray' evaluations")
    if ray.is_initialized():
        return ray
    if address is None:
        # Local workers see this process's source folders (the package need not be installed).
        runtime_env = {"env_vars": {"PYTHONPATH": os.pathsep.join(_source_paths())}}
        ray.init(num_cpus=max(1, n_jobs), include_dashboard=False, log_to_driver=False,
                 configure_logging=False, runtime_env=runtime_env)
        return ray
    advice = "start one with `ray start --head`, or leave out the address for a local instance"
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if sep and host and port.isdigit():
        try:
            socket.create_connection((host, int(port)), timeout=RAY_CONNECT_TIMEOUT).close()
        except OSError as exc:
            raise ConnectionError(
                f"no Ray cluster reachable at {address!r} within {RAY_CONNECT_TIMEOUT:g} s "
                f"({exc.strerror or exc}); {advice}"
            ) from None
    try:
        ray.init(address=address, log_to_driver=False, configure_logging=False)
    except ConnectionError as exc:
        raise ConnectionError(f"no Ray cluster at {address!r} ({exc}); {advice}") from None
    return ray


def run_ray(
    job: Job, items: Sequence[tuple[int, int]], n_jobs: int, chunk_size: int,
    progress: ProgressCallback | None, address: str | None,
) -> list[GameRecord]:
    """Play the games as Ray tasks (one chunk per task)."""
    ray = connect_ray(address, n_jobs)
    remote = ray.remote(num_cpus=1)(_ray_chunk)
    job_ref = ray.put(job)
    chunks = chunked(items, chunk_size)
    pending = [remote.remote(job_ref, chunk) for chunk in chunks]
    records: list[GameRecord | None] = [None] * len(items)
    total, done = len(items), 0
    try:
        while pending:
            finished, pending = ray.wait(pending, num_returns=1)
            for pos, rec in ray.get(finished[0]):
                records[pos] = rec
                done += 1
            if progress is not None:
                progress(done, total)
    except BaseException:
        for ref in pending:
            ray.cancel(ref)
        raise
    return _complete(records)


def _source_paths() -> list[str]:
    """Folders on ``sys.path`` outside the Python installation (the project, the tests...)."""
    installed = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    paths: list[str] = []
    for entry in sys.path:
        path = os.path.realpath(entry or os.getcwd())
        if not os.path.isdir(path) or "site-packages" in path or "dist-packages" in path:
            continue
        if any(path == root or path.startswith(root + os.sep) for root in installed):
            continue
        if path not in paths:
            paths.append(path)
    existing = os.environ.get("PYTHONPATH")
    return paths + ([existing] if existing else [])


def _complete(records: list[GameRecord | None]) -> list[GameRecord]:
    missing = [i for i, r in enumerate(records) if r is None]
    if missing:  # pragma: no cover - a backend bug, not a user error
        raise RuntimeError(f"{len(missing)} games have no result (first position {missing[0]})")
    return [r for r in records if r is not None]


__all__ = [
    "Job",
    "MAX_INVALID_ACTIONS",
    "check_picklable",
    "chunked",
    "default_chunk_size",
    "play_chunk",
    "run_process",
    "run_ray",
    "run_serial",
]
