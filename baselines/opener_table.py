"""Every opener's value: its exact total, or a proven interval, computed in resumable pieces.

An opener's *total* is the fewest guesses summed over every answer with optimal play after it (the
value :class:`~guessgym.baselines.move_values.StateValues` gives the first move). The table holds,
for every opener that tells answers apart, a proven interval ``[lower, upper]``:

* ``upper`` is the total of a complete tree that opens with it: first a greedy one (the exact
  solver's kernel at width 1, each node playing the guess its bounds rank first; wider where that
  does not fit the attempts), then, when the opener is solved, the optimal one;
* ``lower`` is a proven lower bound: the larger of the opener's static bound (from its first
  split alone) and a bound given by the caller (a proof's, :mod:`~guessgym.baselines.opener_search`);
  once solved, the total itself.

Two stages fill it, each resumable (:class:`~guessgym.infra.resumable_log.ResumableLog`: a header
naming the game and rules, one line per result, appended as it is known; a later line about an
opener replaces an earlier one): ``greedy`` gives every opener its interval (a third of a second
each on Wordle), ``exact`` then solves openers most promising first (smallest ``upper``; seconds
each for good openers, up to a minute for weak ones), so the exact part always covers the best
openers first.
"""

from __future__ import annotations

import bisect
import gzip
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..agents.opener_values import OpenerInterval, certain_count
from ..envs.game import Game
from ..infra.pool import Backend, run_tasks
from ..infra.resumable_log import ResumableLog
from .optimal import ExactSearch, SearchKernel
from .search_kernels import INF

#: Format of the table's header.
TABLE_FORMAT = 1
#: The widths tried, in order, for an opener's greedy tree (0: every guess, which always fits).
GREEDY_WIDTHS = (1, 2, 4, 16, 0)


@dataclass(frozen=True)
class OpenerValue(OpenerInterval):
    """An opener's :class:`~guessgym.agents.opener_values.OpenerInterval` as the table records it,
    with ``seconds``, the computation's time. Where ``fits`` is False (no tree opening with it wins
    every answer within the attempts) its value is the move analysis's, each bucket that cannot be
    won in time played without the limit."""

    seconds: float = 0.0


def table_header(game: Game) -> dict[str, Any]:
    """The header line of ``game``'s table (a table of other rules is refused)."""
    return {"format": TABLE_FORMAT, "what": "opener values", "game": game.name, "fingerprint": game.fingerprint,
            "hard_mode": game.hard_mode, "max_attempts": game.max_attempts}


def _row_parser(game: Game) -> Callable[[Any], OpenerValue]:
    floor = 2 * len(game.answers) - 1  # every answer costs a guess, all but one at least two

    def parse(value: Any) -> OpenerValue:
        if not isinstance(value, dict):
            raise ValueError("not a JSON object")
        row = OpenerValue(**value)
        if not isinstance(row.opener, str) or row.opener not in game.guess_index:
            raise ValueError(f"opener {row.opener!r} is not a guess of {game.name}")
        for name in ("lower", "upper"):
            number = getattr(row, name)
            if type(number) is not int or not floor <= number < INF:
                raise ValueError(f"{name} must be a whole number from {floor}, got {number!r}")
        if not isinstance(row.fits, bool):
            raise ValueError(f"fits must be true or false, got {row.fits!r}")
        if row.lower > row.upper:
            raise ValueError(f"lower {row.lower} is above upper {row.upper}")
        if isinstance(row.seconds, bool) or not isinstance(row.seconds, (int, float)) or not row.seconds >= 0:
            raise ValueError(f"seconds must be a number >= 0, got {row.seconds!r}")
        return row

    return parse


class OpenerTable:
    """The table of one game, read from (and appended to) its log; ``values`` holds the latest
    line of each opener (see the module docstring).

    Args:
        game: the game (its rules are the header's).
        path: the JSON-lines log.
        read_only: read a log a live run may be writing (no lock, nothing created or repaired).
    """

    def __init__(self, game: Game, path: str | os.PathLike[str], *, read_only: bool = False) -> None:
        self.game = game
        self.log = ResumableLog(path, table_header(game), _row_parser(game), what="opener table",
                                read_only=read_only)
        self.values: dict[str, OpenerValue] = {}
        for _, row in self.log.rows:
            self._keep(row)

    def _keep(self, row: OpenerValue) -> None:
        old = self.values.get(row.opener)
        if old is not None and (row.lower > old.upper or row.upper < old.lower):
            raise ValueError(f"{self.log.path}: opener {row.opener!r} has the interval [{old.lower}, {old.upper}] "
                             f"and then [{row.lower}, {row.upper}], which contradict each other")
        if old is not None and old.fits != row.fits:
            raise ValueError(f"{self.log.path}: opener {row.opener!r} is said to fit the attempts and not to")
        self.values[row.opener] = row if old is None else OpenerValue(
            row.opener, max(row.lower, old.lower), min(row.upper, old.upper), row.fits, old.seconds + row.seconds)

    def add(self, row: OpenerValue) -> None:
        self.log.append(asdict(row))
        self._keep(row)

    def close(self) -> None:
        self.log.close()

    def __enter__(self) -> OpenerTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class OpenerSolver:
    """The searches behind the table: one exact and one greedy kernel for the whole run (their
    memos of solved sets are shared by every opener)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.search = ExactSearch(game)
        self.order, self.static = self.search.opener_order(SearchKernel(game, self.search.mt, 0, 0.0), every=True)
        self._kernels: dict[int, SearchKernel] = {}
        self.everyone = np.arange(len(game.answers), dtype=np.int32)

    def kernel(self, width: int) -> SearchKernel:
        if width not in self._kernels:
            self._kernels[width] = SearchKernel(self.game, self.search.mt, width, 0.0)
        return self._kernels[width]

    def openers(self) -> list[str]:
        """Every opener that tells answers apart, most promising first (by the static bound)."""
        return [self.game.guesses[g] for g in self.order]

    def bucketwise(self, guess: int, exact: bool) -> tuple[int, bool, int]:
        """The opener's value as the move analysis takes it
        (:class:`~guessgym.baselines.move_values.StateValues`): each bucket's best within the
        attempts left, or without the limit where none fits; and whether every bucket fits. Exact,
        or (``exact=False``) an upper bound from the narrowest search that fits each bucket (a
        bucket is played without the limit only once the full search finds no tree within it). Also
        the least any value could be: each bucket of ``m`` answers costs at least ``2m - 1``."""
        everyone = self.everyone
        left = self.game.max_attempts - 1
        total, fits, least = int(everyone.size), True, int(everyone.size)
        for _, bucket, allowed in self.kernel(0).children(everyone, guess, self.kernel(0).all_guesses):
            cost = INF
            for width in ((0,) if exact else GREEDY_WIDTHS):
                cost = self.kernel(width).cost(bucket, left, allowed, INF) if left >= 1 else INF
                if cost < INF:
                    break
            if cost >= INF:
                fits = False
                cost = self.kernel(0 if exact else 1).cost(bucket, max(int(bucket.size), 1), allowed, INF)
            total += cost
            least += 2 * int(bucket.size) - 1
        return total, fits, least

    def greedy(self, opener: str, floor: int = 0) -> OpenerValue:
        """The opener's greedy tree total and its proven lower bound (at least ``floor``): a narrow
        search of the whole tree, else bucket by bucket (:meth:`bucketwise`)."""
        started = time.perf_counter()
        guess = self.game.guess_index[opener]
        for width in GREEDY_WIDTHS[:-1]:
            total, _ = self.search.opener_cost(self.kernel(width), guess, INF)
            if total < INF:
                return OpenerValue(opener, min(max(self.static[guess], floor), total), total,
                                   seconds=time.perf_counter() - started)
        total, fits, least = self.bucketwise(guess, exact=False)
        # valued as the analysis does where no tree fits: every bucket still costs at least 2m - 1 guesses
        lower = max(self.static[guess], floor) if fits else least
        return OpenerValue(opener, min(lower, total), total, fits, time.perf_counter() - started)

    def exact(self, opener: str, upper: int, fits: bool = True) -> OpenerValue:
        """The opener's exact total (searched below ``upper + 1``: a tree of ``upper`` is known)."""
        started = time.perf_counter()
        guess = self.game.guess_index[opener]
        if fits:
            total, lower = self.search.opener_cost(self.kernel(0), guess, upper + 1)
        else:
            total, _, _ = self.bucketwise(guess, exact=True)
            lower = total
        if total > upper or lower != total:
            raise RuntimeError(f"the search of {opener!r} found {total} against a known tree of {upper}")
        return OpenerValue(opener, total, total, fits, time.perf_counter() - started)

    def refute(self, opener: str, bound: int) -> OpenerValue:
        """The opener's exact total where it is below ``bound``; else a proven lower bound of at
        least ``bound`` as ``lower``, with ``upper`` :data:`INF` (the search builds no tree then:
        :func:`fill_refute` keeps the table's own)."""
        started = time.perf_counter()
        total, lower = self.search.opener_cost(self.kernel(0), self.game.guess_index[opener], bound)
        seconds = time.perf_counter() - started
        if total < bound:
            return OpenerValue(opener, total, total, True, seconds)
        return OpenerValue(opener, lower, INF, True, seconds)


#: What a worker is asked: ``("greedy", opener, floor, True)``, ``("exact", opener, upper, fits)`` or
#: ``("refute", opener, bound, True)``.
OpenerTask = tuple[str, str, int, bool]


@dataclass(frozen=True)
class Workers:
    """Where the table's openers are computed (:func:`~guessgym.infra.pool.run_tasks`): in this
    process (``serial``, with the caller's solver and its memo), in ``n_jobs`` local processes
    (``process``), or on Ray (``ray``: a local instance of ``n_jobs`` CPUs, or the cluster at
    ``address``). Each worker builds one :class:`OpenerSolver` and keeps it, with its memo, for
    every opener it is given; the table itself is written by the caller's process alone, so a run
    stopped anywhere resumes from what reached it."""

    backend: Backend = "serial"
    n_jobs: int = 1
    address: str | None = None


def solve_opener(solver: OpenerSolver, task: OpenerTask) -> OpenerValue:
    """One opener's greedy interval, exact total or refutation (a worker's task)."""
    kind, opener, number, fits = task
    if kind == "greedy":
        return solver.greedy(opener, number)
    if kind == "refute":
        return solver.refute(opener, number)
    return solver.exact(opener, number, fits)


def _computed(solver: OpenerSolver, tasks: Iterable[OpenerTask], workers: Workers) -> Iterator[OpenerValue]:
    if workers.backend == "serial":
        return run_tasks(solve_opener, tasks, setup=lambda: solver)
    return run_tasks(solve_opener, tasks, setup=OpenerSolver, setup_args=(solver.game,), backend=workers.backend,
                     n_jobs=workers.n_jobs, address=workers.address,
                     died="the openers it had were not written; run the same command again to resume")


def fill_greedy(table: OpenerTable, solver: OpenerSolver, *, floors: dict[str, int] | None = None,
                deadline: float | None = None, progress: Callable[[int, int], None] | None = None,
                workers: Workers = Workers(), openers: Sequence[str] | None = None) -> int:
    """Give every opener not in the table its greedy interval; returns how many were added.
    ``floors``: proven lower bounds to start from (a proof's); ``deadline``: a ``time.monotonic()``
    past which no new opener is started; ``workers``: where they are computed; ``openers``: a
    slice of the table (default: every opener, :meth:`OpenerSolver.openers`)."""
    openers = solver.openers() if openers is None else list(openers)
    todo = [w for w in openers if w not in table.values]
    done = len(openers) - len(todo)

    def tasks() -> Iterator[OpenerTask]:
        for word in todo:
            if deadline is not None and time.monotonic() >= deadline:
                return
            yield "greedy", word, (floors or {}).get(word, 0), True

    for value in _computed(solver, tasks(), workers):
        table.add(value)
        done += 1
        if progress is not None:
            progress(done, len(openers))
    return done - (len(openers) - len(todo))


def fill_exact(table: OpenerTable, solver: OpenerSolver, *, count: int | None = None,
               deadline: float | None = None, progress: Callable[[int, int], None] | None = None,
               workers: Workers = Workers()) -> int:
    """Solve openers exactly, most promising first (smallest known tree, then smallest bound),
    until the table's ``count`` best openers that always win are all exact (``None``: every
    opener) or ``deadline`` (a ``time.monotonic()``) passes; returns how many were solved. An
    opener's exact total only ever moves it up, so the next unsolved opener is the one whose rank
    is in doubt. Openers that cannot always win are ranked apart: each is solved when its turn
    comes in the same order, but does not count towards ``count``. Openers without an interval yet
    are skipped (:func:`fill_greedy` first). With several workers, an opener is handed out when one
    is free, judged by the totals known then (a few more than ``count`` may be solved; every total
    is the same)."""
    key = lambda v: (v.upper, v.lower, v.opener)  # noqa: E731
    pending = sorted((v for v in table.values.values() if not v.exact), key=key)
    exact = sorted(key(v) for v in table.values.values() if v.exact and v.fits)
    fitting = sum(v.fits for v in table.values.values())
    wanted = fitting if count is None else min(count, fitting)
    everything = count is None

    def tasks() -> Iterator[OpenerTask]:
        for value in pending:
            if not everything and bisect.bisect_left(exact, key(value)) >= wanted:
                return  # the best ``wanted`` that always win are exact and all come before this one
            if deadline is not None and time.monotonic() >= deadline:
                return
            yield "exact", value.opener, value.upper, value.fits

    solved = 0
    for done in _computed(solver, tasks(), workers):
        table.add(done)
        if done.fits:
            bisect.insort(exact, key(done))
        solved += 1
        if progress is not None:
            progress(min(len(exact), wanted), wanted)
    return solved


def fill_refute(table: OpenerTable, solver: OpenerSolver, bound: int, *, deadline: float | None = None,
                progress: Callable[[int, int], None] | None = None, workers: Workers = Workers()) -> int:
    """Raise every unsolved opener's lower bound to ``bound`` (the proofs' refutation: its largest
    buckets bounded first, searched only as far as needed), or solve it exactly where its total is
    below ``bound``. With ``bound`` the ``k``-th best exact total, the best ``k`` openers are then
    ranked for certain. The search may prove more than ``bound``, but how much more depends on what
    its memo holds (which openers that worker had before), so the table records ``bound``: the same
    values wherever and in whatever order they were computed. Openers whose trees do not fit the
    attempts are left as they are.
    ``deadline``: past it no new opener is started; ``workers``: where they are computed. Returns
    how many openers were settled."""
    todo = sorted((v for v in table.values.values() if not v.exact and v.fits and v.lower < bound),
                  key=lambda v: (v.lower, v.upper, v.opener))

    def tasks() -> Iterator[OpenerTask]:
        for value in todo:
            if deadline is not None and time.monotonic() >= deadline:
                return
            yield "refute", value.opener, bound, True

    settled = 0
    for found in _computed(solver, tasks(), workers):
        known = table.values[found.opener]
        if found.upper < INF:  # solved: its total was below the bound
            table.add(found)
        else:
            lower = min(max(bound, known.lower), known.upper)  # found.lower >= bound: more depends on the memo
            table.add(OpenerValue(found.opener, lower, known.upper, True, found.seconds))
        settled += 1
        if progress is not None:
            progress(settled, len(todo))
    return settled


def shipped_blob(game: Game, values: dict[str, OpenerValue], command: str, floor: int = 0,
                 best: tuple[str, int] | None = None) -> bytes:
    """The package's compact form of a table (:func:`~guessgym.agents.opener_values.parse_table`
    reads it): gzip'd JSON with each guess's lower bound and upper total (0 and 0: not computed),
    and the guesses whose trees do not fit the attempts. ``floor``: a proven lower bound of every
    tree that fits (the optimum's, proven over every opener), which raises the openers' bounds;
    ``best``: the optimum's opener and total, a tree that lowers that opener's upper total (the
    table's own tree for it may be a greedy one: hard mode's SALET was 8,099 to 8,106)."""
    upper = [values[g].upper if g in values else 0 for g in game.guesses]
    if best is not None and best[0] in values:
        at = game.guess_index[best[0]]
        upper[at] = min(upper[at], best[1])
    lower = [(max(values[g].lower, min(floor, upper[i])) if values[g].fits else values[g].lower)
             if g in values else 0 for i, g in enumerate(game.guesses)]
    unfit = sorted(game.guess_index[w] for w, v in values.items() if not v.fits)
    data = {"format": 1, "game": game.name, "fingerprint": game.fingerprint, "hard_mode": game.hard_mode,
            "max_attempts": game.max_attempts, "guesses": len(game.guesses), "lower": lower, "upper": upper,
            "unfit": unfit, "command": command}
    return gzip.compress(json.dumps(data, separators=(",", ":")).encode(), mtime=0)


def certain_ranks(values: Iterable[OpenerValue]) -> int:
    """How many of the best openers that always win are ranked for certain
    (:func:`~guessgym.agents.opener_values.certain_count`); openers whose trees do not fit the
    attempts are ranked apart, so their bounds do not enter (as on the page)."""
    return certain_count((v.upper, v.lower) for v in values if v.fits)


__all__ = ["GREEDY_WIDTHS", "OpenerSolver", "OpenerTable", "OpenerTask", "OpenerValue", "TABLE_FORMAT", "Workers",
           "certain_ranks", "fill_exact", "fill_greedy", "fill_refute", "shipped_blob", "solve_opener",
           "table_header"]
