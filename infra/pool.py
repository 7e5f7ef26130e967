"""The one worker pool: run tasks in this process, in spawned worker processes, or on Ray.

:func:`run_tasks` is what the evaluation loop (chunks of games) and the opener search (chunks of
openers) hand their work to. Each worker builds its state once (``setup(*setup_args)``: an agent
and its env, a search kernel and its memo) and keeps it for every task of the run, so a memoising
player or search reuses what it solved on earlier tasks. Tasks are taken from the iterable only
when a worker is free (at most ``window`` in flight), so a task can carry what the run has learnt
so far (the opener search hands out the best bound known at that moment). Results come back in
the order they finish.

* ``serial``: the caller's process; ``setup`` runs once, here, with the caller's own objects.
* ``process``: :class:`concurrent.futures.ProcessPoolExecutor` with the ``spawn`` start method
  (safe with numba's and torch's thread pools, unlike ``fork``); ``setup`` runs in each worker's
  initializer, after limiting numba and torch to one thread, so that ``n_jobs`` workers use
  ``n_jobs`` cores; each worker ends itself when its parent is gone (:func:`watch_parent`), so a
  killed run leaves no worker behind.
* ``ray``: one ``ray.remote`` task per task; ``ray.init(address=...)`` when Ray is not initialised
  yet (:func:`connect_ray`). Ray is an optional extra: ``pip install "guessgym[ray]"``.

Examples:
    >>> def setup(offset):
    ...     return offset
    >>> def add(state, task):
    ...     return state + task
    >>> sorted(run_tasks(add, [1, 2, 3], setup=setup, setup_args=(10,)))
    [11, 12, 13]
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Literal, TypeVar

from .optional import require

Task = TypeVar("Task")
Result = TypeVar("Result")
Item = TypeVar("Item")
State = Any

Backend = Literal["serial", "process", "ray"]
BACKENDS: tuple[str, ...] = ("serial", "process", "ray")

#: Seconds to wait for a TCP connection to an explicit Ray address before giving up.
RAY_CONNECT_TIMEOUT = 5.0


class WorkerDied(RuntimeError):
    """A worker process of the process backend ended without returning its task."""


def run_tasks(
    fn: Callable[[State, Task], Result],
    tasks: Iterable[Task],
    *,
    setup: Callable[..., State],
    setup_args: tuple[Any, ...] = (),
    backend: Backend = "serial",
    n_jobs: int = 1,
    address: str | None = None,
    window: int | None = None,
    died: str = "",
) -> Iterator[Result]:
    """Run ``fn(state, task)`` for every task, ``state`` being ``setup(*setup_args)`` of the worker.

    Args:
        fn, setup: module-level functions for the ``process`` and ``ray`` backends (they are
            pickled); ``setup`` runs once per worker and run, ``fn`` once per task.
        tasks: taken lazily, at most ``window`` in flight (default ``2 * n_jobs``).
        backend: ``"serial"``, ``"process"`` or ``"ray"``.
        n_jobs: worker processes (``process``), or CPUs of a local Ray instance.
        address: the Ray cluster (``None``: a local instance).
        died: what to add to :class:`WorkerDied`'s message (what the caller's user can do).

    Yields:
        Each task's result, as it finishes. Leaving the iteration early (or Ctrl-C) cancels the tasks not
        started and, with the ``process`` backend, ends the workers of those running.

    Raises:
        WorkerDied: a worker process ended without its result (with ``died`` appended).
        ConnectionError: ``backend="ray"`` and no cluster at ``address``.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if int(n_jobs) < 1:
        raise ValueError(f"n_jobs must be at least 1, got {n_jobs}")
    limit = max(1, window if window is not None else 2 * int(n_jobs))
    if backend == "serial":
        state = setup(*setup_args)
        for task in tasks:
            yield fn(state, task)
    elif backend == "process":
        yield from _run_processes(fn, tasks, setup, setup_args, int(n_jobs), limit, died)
    else:
        yield from _run_ray(fn, tasks, setup, setup_args, int(n_jobs), limit, address)


# ---- processes -----------------------------------------------------------------------------------
_WORKER_STATE: dict[str, State] = {}


def _worker_state(token: str, setup: Callable[..., State], setup_args: tuple[Any, ...]) -> State:
    """This worker's state for run ``token``: built on first use (one run at a time per worker)."""
    if token not in _WORKER_STATE:
        _WORKER_STATE.clear()  # a new run: drop the previous state (and its memo)
        limit_threads()
        _WORKER_STATE[token] = setup(*setup_args)
    return _WORKER_STATE[token]


#: How often a worker looks whether its parent still runs (seconds).
PARENT_WATCH_SECONDS = 0.5


def watch_parent(parent: int, every: float = PARENT_WATCH_SECONDS) -> threading.Thread:
    """Start a daemon thread that ends this process at once (``os._exit``) when its parent process
    ``parent`` is gone: a worker whose parent was killed (SIGKILL, SIGTERM, a crash) never learns it
    from the task pipe it is blocked on, and would run, holding its memory, for ever. The parent's
    end is seen as this process being handed to another parent (``os.getppid()`` changes)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(1)

    thread = threading.Thread(target=watch, name="guessgym-parent-watch", daemon=True)
    thread.start()
    return thread


def _init_process(token: str, setup: Callable[..., State], setup_args: tuple[Any, ...], parent: int) -> None:
    # Ctrl-C reaches every process of the terminal's group: the parent alone handles it (and ends
    # the workers), so a worker never prints a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent(parent)
    _worker_state(token, setup, setup_args)


def _process_task(token: str, fn: Callable[[State, Task], Result], task: Task) -> Result:
    return fn(_WORKER_STATE[token], task)


def _run_processes(fn: Callable[[State, Task], Result], tasks: Iterable[Task], setup: Callable[..., State],
                   setup_args: tuple[Any, ...], n_jobs: int, limit: int, died: str) -> Iterator[Result]:
    check_not_bootstrapping()
    check_main_importable()
    token = uuid.uuid4().hex
    todo = iter(tasks)
    finished_tasks = 0
    ctx = multiprocessing.get_context("spawn")
    workers = min(n_jobs, len(tasks)) if isinstance(tasks, Sized) else n_jobs  # no idle workers to spawn
    pool = ProcessPoolExecutor(max_workers=max(1, workers), mp_context=ctx, initializer=_init_process,
                               initargs=(token, setup, setup_args, os.getpid()))
    pending: set[Future[Result]] = set()
    interrupted = False

    def refill() -> None:
        while len(pending) < limit:
            task = next(todo, _END)
            if task is _END:
                return
            pending.add(pool.submit(_process_task, token, fn, task))

    try:
        refill()
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                result = future.result()
                finished_tasks += 1
                yield result
            refill()
    except BrokenProcessPool:
        raise WorkerDied(f"a worker process died before finishing its task ({finished_tasks} finished). "
                         + died) from None
    except (KeyboardInterrupt, GeneratorExit):  # Ctrl-C, or the caller stopped early (Ctrl-C in its loop)
        interrupted = True
        raise
    finally:
        for future in pending:
            future.cancel()
        if interrupted:  # a running task may take minutes: end the workers instead of waiting for them
            for process in list(getattr(pool, "_processes", {}).values()):
                process.terminate()
        pool.shutdown(wait=not interrupted, cancel_futures=True)


_END: Any = object()


def limit_threads() -> None:
    """One compute thread per worker process: ``n_jobs`` workers should use ``n_jobs`` cores."""
    try:
        import numba

        numba.set_num_threads(1)
    except (ImportError, ValueError):  # pragma: no cover - numba is a core dependency
        pass
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def check_not_bootstrapping() -> None:
    """Refuse to start a run inside a worker that is still importing the parent's script.

    A spawned worker imports the main script; one without an ``if __name__ == "__main__":`` guard
    would run its work again (for minutes) instead of serving the parent. Failing at once ends the
    worker, which the parent reports as :class:`WorkerDied` with what to do.
    """
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise RuntimeError(
            "a parallel run was started while a worker process was importing the main script: "
            "put it under `if __name__ == \"__main__\":`"
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


# ---- Ray -------------------------------------------------------------------------------------------
def _ray_task(token: str, setup: Callable[..., State], setup_args: tuple[Any, ...],
              fn: Callable[[State, Task], Result], task: Task) -> Result:
    return fn(_worker_state(token, setup, setup_args), task)


def _run_ray(fn: Callable[[State, Task], Result], tasks: Iterable[Task], setup: Callable[..., State],
             setup_args: tuple[Any, ...], n_jobs: int, limit: int, address: str | None) -> Iterator[Result]:
    ray = connect_ray(address, n_jobs)
    remote = ray.remote(num_cpus=1)(_ray_task)
    token = uuid.uuid4().hex
    args_ref = ray.put(setup_args)
    todo = iter(tasks)
    pending: list[Any] = []

    def refill() -> None:
        while len(pending) < limit:
            task = next(todo, _END)
            if task is _END:
                return
            pending.append(remote.remote(token, setup, args_ref, fn, task))

    try:
        refill()
        while pending:
            ready, rest = ray.wait(pending, num_returns=1)
            pending[:] = rest
            yield ray.get(ready[0])
            refill()
    finally:
        for ref in pending:
            ray.cancel(ref)


def connect_ray(address: str | None, n_jobs: int = 1) -> Any:
    """The ``ray`` module, initialised: a local instance (``address=None``) or the cluster at ``address``.

    Nothing happens if Ray is already initialised. An explicit ``host:port`` (or ``ray://host:port``)
    is first probed with a TCP connection, so an unreachable address fails within
    :data:`RAY_CONNECT_TIMEOUT` seconds instead of Ray's minutes of retries.

    Raises:
        ConnectionError: no cluster at ``address`` (``"auto"`` with none running, or unreachable),
            with what to do.
    """
    ray: Any = require("ray", extra="ray", purpose="backend='ray' runs")
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


def settle_in_chunks(
    todo: Sequence[Item],
    chunk_size: int,
    task: Callable[[list[Item]], Task],
    fn: Callable[[State, Task], Result],
    settled: Callable[[Result], bool],
    *,
    setup: Callable[..., State],
    setup_args: tuple[Any, ...] = (),
    backend: Backend = "serial",
    n_jobs: int = 1,
    address: str | None = None,
    died: str = "",
) -> None:
    """Settle ``todo`` in chunks on the pool: the one driver of the long searches that settle item by
    item (each opener of a proof) and keep each outcome in a checkpoint as it arrives.

    Each chunk's task is ``task(chunk)``, built when a worker takes it (so it carries the bound or
    the deadline as it stands then); each chunk's result goes to ``settled`` as it arrives, which
    records it and returns ``False`` to stop (the chunks not started are cancelled). The rest is
    :func:`run_tasks`'."""
    tasks = (task(list(todo[i:i + chunk_size])) for i in range(0, len(todo), chunk_size))
    for result in run_tasks(fn, tasks, setup=setup, setup_args=setup_args, backend=backend, n_jobs=n_jobs,
                            address=address, died=died):
        if not settled(result):
            break


__all__ = ["BACKENDS", "PARENT_WATCH_SECONDS", "RAY_CONNECT_TIMEOUT", "Backend", "WorkerDied", "check_main_importable",
           "check_not_bootstrapping", "connect_ray", "limit_threads", "run_tasks", "settle_in_chunks", "watch_parent"]
