"""Every opener searched on its own: resumable from a checkpoint, over worker processes or Ray.

Proving that a total ``T`` is the optimum of a game means showing that no opener has a tree
below ``T``. Openers are independent, so :func:`search_openers` hands them out in chunks to the
one worker pool (:func:`guessgym.infra.pool.run_tasks`: ``serial``, ``process``, ``ray``), each worker keeping one
search kernel (and its memo of solved sets, which openers share) for the whole run. Each opener is
searched with the bound ``T``: it is either *refuted* (a proven lower bound of at least ``T``) or
it yields a complete cheaper tree, which becomes the new bound of the chunks handed out after it.

The checkpoint is a JSON-lines file: a header naming the game, the rules and the search width,
then one line per finished opener, appended and flushed to disk as soon as it is known. A run
started again with the same file skips the openers already there (a line cut short by a kill is
dropped and searched again); a file for another game or setting, or a line that contradicts the
game, is refused naming the file and what differs (:mod:`guessgym.infra.resumable_log`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..envs.game import Game
from ..infra.pool import BACKENDS, settle_in_chunks
from ..infra.resumable_log import OutcomeLog
from . import search_kernels as K
from .optimal import ExactSearch, SearchKernel, SolveResult

#: Format of the checkpoint header.
CHECKPOINT_FORMAT = 1


@dataclass(frozen=True)
class OpenerOutcome:
    """What the search proved about one opener.

    Attributes:
        opener: the first guess.
        lower_bound: proven lower bound of every tree starting with it.
        total: the optimal total of those trees when it was below the bound searched with, else
            ``None`` (refuted).
        bound: the bound it was searched with.
        seconds: search time.
        nodes: candidate sets searched.
    """

    opener: str
    lower_bound: int
    total: int | None
    bound: int
    seconds: float
    nodes: int


def _header(game: Game, max_attempts: int, width: int) -> dict[str, Any]:
    return {"format": CHECKPOINT_FORMAT, "game": game.name, "fingerprint": game.fingerprint,
            "hard_mode": game.hard_mode, "max_attempts": max_attempts, "width": width}


def _opener_outcome(game: Game) -> Callable[[Any], OpenerOutcome]:
    """The row parser of ``game``'s checkpoints: an outcome whose fields have their types and
    agree with each other (a refuted opener's bound is proven; a found tree beats its bound)."""

    def parse(value: Any) -> OpenerOutcome:
        if not isinstance(value, dict):
            raise ValueError("not a JSON object")
        outcome = OpenerOutcome(**value)
        for name in ("lower_bound", "bound", "nodes"):
            if type(getattr(outcome, name)) is not int or getattr(outcome, name) < 0:
                raise ValueError(f"{name} must be a whole number >= 0, got {getattr(outcome, name)!r}")
        if isinstance(outcome.seconds, bool) or not isinstance(outcome.seconds, (int, float)) or outcome.seconds < 0:
            raise ValueError(f"seconds must be a number >= 0, got {outcome.seconds!r}")
        if not isinstance(outcome.opener, str) or outcome.opener not in game.guess_index:
            raise ValueError(f"opener {outcome.opener!r} is not a guess of {game.name}")
        floor = 2 * len(game.answers) - 1  # every answer costs a guess, all but one at least two
        if outcome.total is None:
            if outcome.lower_bound < outcome.bound:
                raise ValueError(f"a refuted opener's lower bound {outcome.lower_bound} is below its bound "
                                 f"{outcome.bound}")
        elif type(outcome.total) is not int or not floor <= outcome.total < outcome.bound:
            raise ValueError(f"total {outcome.total!r} is not a whole number from {floor} (every answer at least "
                             f"one guess, all but one two) up to its bound {outcome.bound}")
        return outcome

    return parse


class Checkpoint(OutcomeLog[str, OpenerOutcome]):
    """The JSON-lines record of a run (see the module docstring): each opener's outcome, by opener."""

    def __init__(self, path: str | os.PathLike[str], header: dict[str, Any], game: Game, *,
                 read_only: bool = False) -> None:
        parse = _opener_outcome(game)

        def keyed(row: Any) -> tuple[str, OpenerOutcome]:
            outcome = parse(row)
            return outcome.opener, outcome

        super().__init__(path, header, keyed, lambda _, outcome: asdict(outcome), read_only=read_only)

    @property
    def done(self) -> dict[str, OpenerOutcome]:
        """Every opener settled, with its outcome."""
        return self.values

    def add(self, outcome: OpenerOutcome) -> None:
        self.record(outcome.opener, outcome)


# ---- the work of one chunk, in any process ------------------------------------------------------
_WORKERS: dict[tuple[str, bool, int, int, str | None], tuple[ExactSearch, SearchKernel]] = {}


def _worker(game: Game, max_attempts: int, width: int, cache_dir: str | None) -> tuple[ExactSearch, SearchKernel]:
    key = (game.fingerprint, game.hard_mode, max_attempts, width, cache_dir)
    if key not in _WORKERS:
        search = ExactSearch(game, max_attempts=max_attempts, width=width)
        _WORKERS.clear()  # one game per worker at a time: the memo can be large
        _WORKERS[key] = (search, SearchKernel(game, search.mt, width, 0.0, cache_dir))
    return _WORKERS[key]


def search_chunk(game: Game, max_attempts: int, width: int, openers: Sequence[str], bound: int,
                 cache_dir: str | None = None) -> list[OpenerOutcome]:
    """Search each opener with ``bound`` (the bound drops when one beats it); with ``cache_dir``,
    the worker's memo is shared through the solved-subproblem cache there."""
    search, kernel = _worker(game, max_attempts, width, cache_dir)
    out = []
    for word in openers:
        started = time.perf_counter()
        nodes = int(kernel.stats[K.NODES])
        total, lower = search.opener_cost(kernel, game.guess_index[word], bound)
        found = total if total < bound else None
        out.append(OpenerOutcome(word, lower, found, bound, time.perf_counter() - started,
                                 int(kernel.stats[K.NODES]) - nodes))
        if found is not None:
            bound = found
    kernel.checkpoint()
    return out


def _worker_setup(game: Game, max_attempts: int, width: int,
                  cache_dir: str | None) -> tuple[Game, int, int, str | None]:
    """A worker's state: the search's settings (its kernel is built on first use and kept across
    runs, see :func:`_worker`)."""
    _worker(game, max_attempts, width, cache_dir)
    return game, max_attempts, width, cache_dir


def _search_task(state: tuple[Game, int, int, str | None], task: tuple[list[str], int]) -> list[OpenerOutcome]:
    game, max_attempts, width, cache_dir = state
    openers, bound = task
    return search_chunk(game, max_attempts, width, openers, bound, cache_dir)


def search_openers(game: Game, openers: Sequence[str], bound: int, *, max_attempts: int | None = None,
                   width: int = 0, checkpoint: str | os.PathLike[str] | None = None, backend: str = "serial",
                   n_jobs: int = 1, address: str | None = None, chunk_size: int = 1,
                   progress: Callable[[int, int], None] | None = None,
                   cache_dir: str | os.PathLike[str] | None = None) -> list[OpenerOutcome]:
    """Search every opener of ``openers`` with ``bound`` and return their outcomes (in the order
    given; with a checkpoint, those already in it are read back instead of searched).

    Args:
        game: the game.
        openers: the first guesses to search.
        bound: the total to beat (the best tree known).
        max_attempts: the attempt limit (default: the game's).
        width: guesses per node (0: exact, needed for a proof).
        checkpoint: the JSON-lines file that makes the run resumable.
        backend: ``"serial"``, ``"process"`` (``n_jobs`` processes) or ``"ray"``.
        n_jobs: worker processes (``process``) or CPUs of a local Ray instance.
        address: Ray cluster address (``None``: a local instance).
        chunk_size: openers per task (each task's outcomes reach the checkpoint when it ends: with
            one, stopping a run loses only the opener each worker was searching).
        progress: called with ``(openers done, openers)``.
        cache_dir: the solved-subproblem cache (:mod:`~guessgym.baselines.memo_store`) the workers
            load at the start and save to every minute (they share it: on a cluster, a shared folder).
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be 'serial', 'process' or 'ray', not {backend!r}")
    if n_jobs < 1 or chunk_size < 1:
        raise ValueError(f"n_jobs and chunk_size must be at least 1, not {n_jobs} and {chunk_size}")
    unknown = [w for w in openers if w not in game.guess_index]
    if unknown:
        raise ValueError(f"{len(unknown)} openers are not guesses of {game.name} (e.g. {unknown[0]!r})")
    attempts = game.max_attempts if max_attempts is None else int(max_attempts)
    memo = None if cache_dir is None else str(cache_dir)
    record = None if checkpoint is None else Checkpoint(checkpoint, _header(game, attempts, width), game)
    try:
        done: dict[str, OpenerOutcome] = {} if record is None else dict(record.done)
        todo = [w for w in openers if w not in done]
        for outcome in done.values():
            if outcome.total is not None:
                bound = min(bound, outcome.total)

        n_done = len(openers) - len(todo)

        def finish(outcomes: list[OpenerOutcome]) -> bool:
            nonlocal bound, n_done
            n_done += len(outcomes)
            for outcome in outcomes:
                done[outcome.opener] = outcome
                if record is not None:
                    record.add(outcome)
                if outcome.total is not None:
                    bound = min(bound, outcome.total)
            if progress is not None:
                progress(n_done, len(openers))
            return True  # every opener is searched: no outcome stops the run

        if progress is not None:
            progress(n_done, len(openers))
        # Each chunk is handed out with the bound as it is when a worker takes it.
        settle_in_chunks(todo, chunk_size, lambda chunk: (chunk, bound), _search_task, finish,
                         setup=_worker_setup, setup_args=(game, attempts, width, memo),
                         backend=backend, n_jobs=n_jobs, address=address)  # type: ignore[arg-type]
        return [done[w] for w in openers]
    finally:
        if record is not None:
            record.close()


@dataclass(frozen=True)
class ProofProgress:
    """How far a proof over every opener has come (read from its checkpoint, nothing searched).

    Attributes:
        openers: openers that tell answers apart (the ones a proof must settle).
        done: openers settled: the ``first`` solved exactly, plus those in the checkpoint.
        best: the best total known (the first openers' best, or an opener that beat it).
        lower_bound: proven lower bound of the optimum over every opener: the smallest of ``best``
            (the first openers were solved exactly), the bound of every settled opener, and the
            static bound of every opener not settled yet (the least of which is the next one's).
        seconds: search time of the openers in the checkpoint.
        remaining_seconds: an estimate of the rest: the mean time of the last 200 settled openers
            times the openers left (openers come most promising first, and later ones are usually
            refuted faster, so this tends to overestimate).
    """

    openers: int
    done: int
    best: int
    lower_bound: int
    seconds: float
    remaining_seconds: float

    @property
    def finished(self) -> bool:
        return self.done == self.openers


def proof_progress(game: Game, checkpoint: str | os.PathLike[str], *, first: int = 20,
                   max_attempts: int | None = None) -> ProofProgress:
    """The state of the :func:`prove` run recorded in ``checkpoint`` (see :class:`ProofProgress`)."""
    if not Path(checkpoint).is_file():
        raise FileNotFoundError(f"{checkpoint}: no such checkpoint (a proof writes it as it runs)")
    search = ExactSearch(game, max_attempts=max_attempts)
    order, lbs = search.opener_order(SearchKernel(game, search.mt, 0, 0.0), every=True)
    record = Checkpoint(checkpoint, _header(game, search.max_attempts, 0), game, read_only=True)  # a run may be live
    outcomes = list(record.done.values())
    if not outcomes:
        raise ValueError(f"{checkpoint}: no opener is settled yet, so the first openers' best total is unknown")
    incumbent = max(o.bound for o in outcomes)  # the first openers' best: every later bound is lower
    best = min([incumbent, *(o.total for o in outcomes if o.total is not None)])
    top = set(order[:first])
    settled = {game.guess_index[o.opener] for o in outcomes} | top
    pending = [lbs[g] for g in order if g not in settled]
    lower = min([best, *(o.lower_bound for o in outcomes), *pending])
    recent = [o.seconds for o in outcomes[-200:]]
    return ProofProgress(len(order), len(settled), best, lower, sum(o.seconds for o in outcomes),
                         sum(recent) / len(recent) * len(pending))


def prove(game: Game, *, first: int = 20, max_attempts: int | None = None,
          checkpoint: str | os.PathLike[str] | None = None, backend: str = "serial", n_jobs: int = 1,
          address: str | None = None, progress: Callable[[int, int], None] | None = None,
          cache_dir: str | os.PathLike[str] | None = None) -> SolveResult:
    """The optimum over every opener, proven: the exact trees of the ``first`` most promising
    openers give the bound to beat, then every other opener is refuted or beats it
    (:func:`search_openers`, resumable through ``checkpoint``).

    ``progress`` counts openers (the first ones included). ``cache_dir`` keeps the solved
    subproblems on disk (:mod:`~guessgym.baselines.memo_store`), so a resumed run does not redo
    the first openers' trees.
    """
    started = time.perf_counter()
    search = ExactSearch(game, max_attempts=max_attempts, openers=first, cache_dir=cache_dir)
    incumbent = search.solve()
    order, _ = search.opener_order(SearchKernel(game, search.mt, 0, 0.0), every=True)
    top = set(order[:first])
    rest = [game.guesses[g] for g in order if g not in top]
    if progress is not None:
        progress(len(top), len(order))
    outcomes = search_openers(game, rest, incumbent.total, max_attempts=search.max_attempts,
                              checkpoint=checkpoint, backend=backend, n_jobs=n_jobs, address=address,
                              cache_dir=cache_dir,
                              progress=None if progress is None else lambda d, t: progress(len(top) + d, len(order)))
    result = incumbent
    better = [o for o in outcomes if o.total is not None and o.total < incumbent.total]
    if better:
        best = min(better, key=lambda o: o.total or 0)
        result = ExactSearch(game, max_attempts=max_attempts, opener=best.opener, cache_dir=cache_dir).solve()
        if result.total != best.total:  # only a checkpoint's line can claim a tree the search does not find
            line = "?"
            if checkpoint is not None:
                header = _header(game, search.max_attempts, 0)
                line = str(Checkpoint(checkpoint, header, game, read_only=True).lines.get(best.opener, "?"))
            raise ValueError(f"{checkpoint}: line {line} claims that opener {best.opener!r} has a tree of total "
                             f"{best.total:,}, but its search gives {result.total:,}: the checkpoint is damaged or "
                             "edited; remove that line (or the file) and rerun")
    lower = min([incumbent.lower_bound, result.total, *(o.lower_bound for o in outcomes)])
    result.lower_bound = lower
    result.proven = lower == result.total
    result.openers_searched = len(order)
    result.seconds = time.perf_counter() - started
    result.settings = {**result.settings, "openers": "all", "proof": True}
    return result


__all__ = ["CHECKPOINT_FORMAT", "Checkpoint", "OpenerOutcome", "ProofProgress", "proof_progress", "prove",
           "search_chunk", "search_openers"]
