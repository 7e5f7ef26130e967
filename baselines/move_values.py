"""Exact values of game states under optimal play, for judging moves (:mod:`guessgym.evaluation.analysis`).

A *state* is the set ``C`` of answers still consistent with the tiles, the attempts left and, in
hard mode, the guesses still allowed. Its value ``T*(C)`` is the fewest *total* guesses over the
answers of ``C`` with optimal play from here, counting the next guess: the objective the optimum
baselines minimise, so ``T*(C) / |C|`` is the expected number of guesses still needed, uniform
over ``C``. Playing guess ``g`` and then optimally costs ``|C| + sum T*(B)`` over the buckets ``B``
the tiles of ``g`` split ``C`` into (the bucket ``g`` wins costs nothing more).

The values come from the exact solver's kernel (:class:`~guessgym.baselines.optimal.SearchKernel`,
every guess at every node), whose memo of solved sets is kept on disk between runs (``cache_dir``),
so an opener solved once is never solved again. The value of the starting state is the shipped
optimum's total where one is known (:mod:`guessgym.agents.optima`); ``root_proven`` says whether it
is proven optimal over every opener. The value of an opener, where the shipped table of openers
has it exactly (:mod:`guessgym.agents.opener_values`), is read from there, so a first move is
judged without solving its tree (only the bucket its tiles chose). A state from which no strategy
finishes within the attempts left is valued without the limit (``T*`` with as many attempts as
answers, always enough).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..agents.base import UnsupportedGameError
from ..agents.opener_values import OpenerValues, opener_values
from ..agents.optima import known_optimum
from ..envs.candidates import hard_filter
from ..envs.game import Game
from ..envs.matrix import PatternMatrix, solver_matrix_refusal
from . import search_kernels as K
from .memo_store import load_shipped
from .optimal import SearchKernel
from .search_kernels import INF

#: The most answers whose start is solved again with fewer attempts than the shipped tree needs.
ROOT_SOLVE_LIMIT = 1000
#: Whether values start from the solved states shipped with the package
#: (:func:`~guessgym.baselines.memo_store.load_shipped`); ``scripts/state_values.py`` turns it off to
#: rebuild them from nothing.
SHIPPED = True


class ValuesTimedOut(TimeoutError):
    """The time budget of :meth:`StateValues.set_budget` ran out. The values object stays sound:
    the search writes a state to its memo only once that state is settled, and a search cut short
    writes nothing on its way out, so what was solved before the budget ran out is kept (and saved),
    and a new budget (:meth:`StateValues.set_budget`) lets it go on."""


@dataclass(frozen=True)
class Bucket:
    """One outcome of a guess: its tiles' pattern, the answers left, the guesses then allowed, and
    the value ``T*`` of that state (0 for the bucket the guess wins)."""

    pattern: int
    answers: np.ndarray
    allowed: np.ndarray
    total: int


class StateValues:
    """``T*`` of any state of one game, memoised (see the module docstring).

    The states it values start from the solved ones shipped with the package for the main job's
    games (:data:`SHIPPED`) and the cache's memo; the search, and its transposed pattern matrix
    (classic Nerdle with every valid equation as a guess: 2.4 GB), are made only for a state
    neither holds. Tiles are read from the game's pattern matrix until then.

    Args:
        game: a game whose pattern matrix fits in memory (the exact solver's condition: classic
            Nerdle with every valid equation as a guess takes 2.4 GB, built without the dense matrix).
        cache_dir: where the solver's memo is kept between runs (``None``: in memory only).
        patterns: the game's pattern matrix (guesses x answers), if the caller has it.
    """

    def __init__(self, game: Game, *, cache_dir: str | os.PathLike[str] | None = None,
                 patterns: np.ndarray | None = None) -> None:
        self.game = game
        mt: np.ndarray | Callable[[], np.ndarray]
        if patterns is None:
            refusal = solver_matrix_refusal(game, "move analysis")
            if refusal:
                raise UnsupportedGameError(refusal)
            self._rows: PatternMatrix | None = PatternMatrix.for_game(game)
            mt = self._transposed  # made on the first state the memos do not hold
        else:
            self._rows = None
            mt = np.ascontiguousarray(patterns.T)
        self.kernel = SearchKernel(game, mt, 0, 0.0, cache_dir)
        #: solved states read from the values shipped with the package (:data:`SHIPPED`)
        self.shipped = load_shipped(self.kernel, game) if SHIPPED else 0
        self.everyone = np.arange(len(game.answers), dtype=np.int32)
        self.all_guesses = self.kernel.all_guesses
        optimum = known_optimum(game)
        self.root_total = optimum.total if optimum is not None else None
        self.root_opener = optimum.opener if optimum is not None else None
        self.root_proven = bool(optimum.proven) if optimum is not None else True
        self.root_max = optimum.max_guesses if optimum is not None else game.max_attempts
        #: the shipped table of every opener's value, if this game has one
        self.openers: OpenerValues | None = opener_values(game)
        #: True once the time budget ran out, until the next :meth:`set_budget` (see :meth:`bounds`)
        self.spent = False
        self._budget: float | None = None
        self._bounds: StateBounds | None = None
        self._bounds_timed = False
        self._after: dict[tuple[bytes, int, int, bytes], tuple[int, list[Bucket]]] = {}

    def _transposed(self) -> np.ndarray:
        mt = PatternMatrix.for_game(self.game).transposed()
        if mt is None:  # the size was checked when the values were made
            raise UnsupportedGameError(f"move analysis needs {self.game.name}'s whole pattern matrix in memory")
        return mt

    def patterns(self, answers: np.ndarray, guess: int) -> np.ndarray:
        """The tiles ``guess`` shows each of ``answers``, as ``int64`` patterns: from the search's
        matrix where it is made, else from the game's pattern matrix (its rows scored on demand
        where it is not kept whole)."""
        if self.kernel.has_matrix or self._rows is None:
            return self.kernel.mt[answers, guess].astype(np.int64)
        return self._rows.row_over(guess, answers)[answers].astype(np.int64)

    def pattern(self, guess: int, answer: int) -> int:
        """The tiles ``guess`` shows against one answer (indices)."""
        if self.kernel.has_matrix or self._rows is None:
            return int(self.kernel.mt[answer, guess])
        return self._rows.pattern(guess, answer)

    def set_budget(self, seconds: float | None) -> None:
        """Bound the solving that follows to ``seconds`` from now (``None``: no bound); past it,
        :class:`ValuesTimedOut` is raised. An earlier budget's end is forgotten: what it solved is
        kept, and what it left is solved again under this one."""
        self.kernel.deadline = 0.0 if seconds is None else time.perf_counter() + seconds
        self.kernel.stats[K.ABORTED] = 0
        self.spent = False
        self._budget = seconds
        self._bounds_timed = False

    def is_root(self, answers: np.ndarray, left: int) -> bool:
        """Whether the state is the start, or the start with fewer attempts that the shipped tree
        still fits in (a chat game's turn lost before its first guess): its value is then the
        shipped optimum's. A start with fewer attempts than that tree needs is refused on a game
        of over :data:`ROOT_SOLVE_LIMIT` answers (it would be the whole game solved again)."""
        if self.root_total is None or answers.size != self.everyone.size:
            return False
        if self.root_max <= left <= self.game.max_attempts:
            return True
        if answers.size > ROOT_SOLVE_LIMIT:
            raise UnsupportedGameError(
                f"the start of {self.game.name} with {left} attempts left (turns lost before the first guess) "
                f"would need the whole game solved again, since its optimal tree needs {self.root_max}")
        return False

    def best(self, answers: np.ndarray, left: int, allowed: np.ndarray) -> int:
        """``T*`` of the state: the fewest total guesses over ``answers`` with optimal play."""
        if self.is_root(answers, left):
            assert self.root_total is not None
            return self.root_total
        return self._solve(answers, left, allowed)

    def best_guess(self, answers: np.ndarray, left: int, allowed: np.ndarray) -> int:
        """A guess that achieves :meth:`best` (the solver's, after it has solved the state)."""
        if self.is_root(answers, left) and self.root_opener is not None:
            return self.game.guess_index[self.root_opener]
        self._solve(answers, left, allowed)
        for attempts in (left, answers.size):
            guess = self.kernel.known(answers, attempts, allowed)[1]
            if guess >= 0:
                return guess
        raise RuntimeError("the solver left a solved state without its guess")

    def knows_after(self, answers: np.ndarray, guess: int, left: int, allowed: np.ndarray) -> bool:
        """Whether :meth:`after_total` knows this state and guess already (else it may take a
        while: an opener of Wordle not in the shipped table takes seconds to solve, once)."""
        return self._key(answers, guess, left, allowed) in self._after or \
            self._table_total(answers, guess, left) is not None

    def _table_total(self, answers: np.ndarray, guess: int, left: int) -> int | None:
        """The opener's exact value from the shipped table, at the start of the game only."""
        if self.openers is None or answers.size != self.everyone.size or left != self.game.max_attempts:
            return None
        interval = self.openers.interval(self.game, guess)
        return interval.upper if interval is not None and interval.exact else None

    def after_total(self, answers: np.ndarray, guess: int, left: int, allowed: np.ndarray) -> int:
        """The total of :meth:`after` alone: for an opener, read from the shipped table where it has
        it (nothing solved), else solved with every bucket."""
        known = self._table_total(answers, guess, left)
        return known if known is not None else self.after(answers, guess, left, allowed)[0]

    def bucket_after(self, answers: np.ndarray, guess: int, pattern: int, left: int,
                     allowed: np.ndarray) -> Bucket | None:
        """The bucket of :meth:`after` with tiles ``pattern`` (``None``: no answer shows them),
        solving only that bucket when the others are not known."""
        key = self._key(answers, guess, left, allowed)
        if key in self._after:
            return next((b for b in self._after[key][1] if b.pattern == pattern), None)
        bucket = answers[self.patterns(answers, guess) == pattern]
        return self._bucket(bucket, guess, int(pattern), left, allowed) if bucket.size else None

    def solved_buckets(self, answers: np.ndarray, guess: int, left: int, allowed: np.ndarray) -> list[Bucket] | None:
        """Every bucket of :meth:`after` where it has been solved already, else ``None`` (nothing solved)."""
        known = self._after.get(self._key(answers, guess, left, allowed))
        return None if known is None else known[1]

    def _key(self, answers: np.ndarray, guess: int, left: int, allowed: np.ndarray) -> tuple[bytes, int, int, bytes]:
        return answers.tobytes(), guess, left, allowed.tobytes() if self.game.hard_mode else b""

    def after(self, answers: np.ndarray, guess: int, left: int, allowed: np.ndarray,
              progress: Callable[[int, int], None] | None = None) -> tuple[int, list[Bucket]]:
        """The total with ``guess`` played now and optimal play after it, and its buckets
        (``progress``: told the answers whose buckets are solved, of all, as each is)."""
        key = self._key(answers, guess, left, allowed)
        if key not in self._after:
            buckets, done = [], 0
            for pattern, bucket in self.split(answers, guess):
                buckets.append(self._bucket(bucket, guess, pattern, left, allowed))
                done += int(bucket.size)
                if progress is not None:
                    progress(done, int(answers.size))
            self._after[key] = (int(answers.size) + sum(b.total for b in buckets), buckets)
        return self._after[key]

    def split(self, answers: np.ndarray, guess: int) -> list[tuple[int, np.ndarray]]:
        """``(pattern, answers that show it)`` for every tile pattern ``guess`` can show, in pattern order."""
        patterns = self.patterns(answers, guess)
        return [(int(p), answers[patterns == p]) for p in np.unique(patterns)]

    def allowed_after(self, guess: int, pattern: int, allowed: np.ndarray) -> np.ndarray:
        """The guesses allowed once ``guess`` showed ``pattern`` (all of ``allowed`` outside hard mode)."""
        if not self.game.hard_mode:
            return allowed
        return hard_filter(allowed, self.kernel.codes, guess, pattern, self.game.n_symbols)

    def _bucket(self, bucket: np.ndarray, guess: int, pattern: int, left: int, allowed: np.ndarray) -> Bucket:
        then = self.allowed_after(guess, pattern, allowed)
        return Bucket(pattern, bucket, then, 0 if pattern == self.kernel.green else self._solve(bucket, left - 1, then))

    def _solve(self, answers: np.ndarray, left: int, allowed: np.ndarray) -> int:
        self._check()
        if left >= 1:
            total = self._value(answers, left, allowed)
            if total < INF:
                return total
        return self._value(answers, max(int(answers.size), 1), allowed)  # no strategy fits: no limit

    def _value(self, answers: np.ndarray, left: int, allowed: np.ndarray) -> int:
        """``T*`` with ``left`` attempts (:data:`INF`: no tree fits): from the memo where it holds
        the state (no matrix needed), else searched."""
        cost, _, floor = self.kernel.known(answers, left, allowed)
        if cost >= 0:
            return cost
        if floor >= INF:
            return INF
        total = self.kernel.cost(answers, left, allowed, INF)
        self._check()
        return total

    def _check(self) -> None:
        if self.kernel.aborted:
            self.spent = True
            raise ValuesTimedOut("the time budget ran out")

    @property
    def exhausted(self) -> bool:
        """Whether the time budget ran out and the bounds' budget after it too: what is left would
        be judged only by the bounds that cost nothing (which an analysis leaves unjudged instead)."""
        return self.spent and self._bounds_timed and self._bounds is not None and self._bounds.spent

    def bounds(self) -> StateBounds:
        """The bounds that judge what is left once the time budget ran out (made once). They get a
        budget as long as the one that ran out, from their first use after it: past both, what is
        left is judged by the bounds that cost nothing (see :class:`StateBounds`)."""
        if self._bounds is None:
            self._bounds = StateBounds(self)
        if not self._bounds_timed:
            self._bounds.set_budget(self._budget)
            self._bounds_timed = True
        return self._bounds

    def save(self) -> None:
        """Write the memo to ``cache_dir`` now, after a time-out too: the memo holds only states
        whose search finished (see :class:`ValuesTimedOut`), so a rerun starts from them."""
        self.kernel.checkpoint(force=True)


class StateBounds:
    """Proven bounds on the values of :class:`StateValues`, for the moves left when its time
    budget ran out: a lower bound from one scan of a state's guesses (the solver's own bound, taken
    without the attempt limit, so it holds whether or not a tree fits), and an upper bound from the
    narrowest search that finds a tree within the attempts (``None`` where none does: a state whose
    value may then be the one without the limit). It keeps its own kernels (the budgeted one may
    hold a search cut short), and every state and guess it bounded, so the games of a deterministic
    agent, which share their states, bound each once.

    Those scans and searches cost a fraction of a second a state on Wordle but add up on a large
    game (a classic Nerdle agent's moves took over ten minutes), so they have a budget of their own
    (:meth:`set_budget`). Past it a state gets the bounds that cost nothing: its value where either
    memo holds it, else ``2n - w`` (every answer but those the next guess wins needs two guesses)
    or the memo's floor, and no upper bound.

    Args:
        values: the values object whose states are bounded (its game, pattern matrix, shipped
            optimum and opener table).
    """

    WIDTHS = (1, 2, 4, 16)

    def __init__(self, values: StateValues) -> None:
        self.values = values

        def mt() -> np.ndarray:
            return values.kernel.mt

        self.low = SearchKernel(values.game, mt, 0, 0.0)
        self.high = {w: SearchKernel(values.game, mt, w, 0.0) for w in self.WIDTHS}
        self.deadline = 0.0
        self._states: dict[tuple[bytes, int, int, bytes], tuple[int, int | None]] = {}
        self._after: dict[tuple[bytes, int, int, bytes],
                          tuple[int, int | None, list[tuple[int, np.ndarray, np.ndarray]]]] = {}

    def set_budget(self, seconds: float | None) -> None:
        """Search and scan for ``seconds`` from now (``None``: no bound); past it, only the bounds
        that cost nothing. A search cut short by it leaves no upper bound for its state."""
        self.deadline = 0.0 if seconds is None else time.perf_counter() + seconds
        for kernel in self.high.values():
            kernel.deadline = self.deadline
            kernel.stats[K.ABORTED] = 0

    @property
    def spent(self) -> bool:
        """Whether the budget of :meth:`set_budget` ran out (only free bounds from now)."""
        return self.deadline > 0 and time.perf_counter() > self.deadline

    def at_root(self, answers: np.ndarray, left: int) -> bool:
        """:meth:`StateValues.is_root`, where a start it would refuse to solve is simply bounded."""
        try:
            return self.values.is_root(answers, left)
        except UnsupportedGameError:
            return False

    def state(self, answers: np.ndarray, left: int, allowed: np.ndarray) -> tuple[int, int | None]:
        """``(lower, upper)`` bounds of ``T*`` of the state (``upper`` None: no tree found)."""
        values = self.values
        if self.at_root(answers, left) and values.root_total is not None:
            optimum = known_optimum(values.game)
            return (optimum.lower_bound if optimum is not None else values.root_total), values.root_total
        key = values._key(answers, -1, left, allowed)  # a state: no guess played yet
        if key not in self._states:
            self._states[key] = self._state(answers, left, allowed)
        return self._states[key]

    def _state(self, answers: np.ndarray, left: int, allowed: np.ndarray) -> tuple[int, int | None]:
        n = int(answers.size)
        if n == 0:
            return 0, 0
        exact = self.values.kernel.known(answers, left, allowed)[0]
        if exact >= 0:  # solved exactly before the budget ran out, or a set of one or two
            return exact, exact
        # bounds taken without the attempt limit hold whether or not a tree fits within it
        unlimited = n
        cost, _, floor = self.low.known(answers, unlimited, allowed)
        if self.spent:
            return (cost if cost >= 0 else floor), None
        lower = self.low.scan_bound(answers, unlimited, allowed, 2 * n - self.low.class_max(answers))
        for kernel in self.high.values():
            if self.spent:
                break
            upper = kernel.cost(answers, left, allowed, INF) if left >= 1 else INF
            if kernel.aborted:
                break
            if upper < INF:
                return min(lower, upper), upper
        return lower, None

    def after(self, answers: np.ndarray, guess: int, left: int,
              allowed: np.ndarray) -> tuple[int, int | None, list[tuple[int, np.ndarray, np.ndarray]]]:
        """Bounds of the total with ``guess`` played now and optimal play after it, and its
        buckets ``(pattern, answers, allowed)``; an opener's from the shipped table where it has it."""
        values = self.values
        key = values._key(answers, guess, left, allowed)
        if key not in self._after:
            self._after[key] = self._bound_after(key, answers, guess, left, allowed)
        return self._after[key]

    def _bound_after(self, key: tuple[bytes, int, int, bytes], answers: np.ndarray, guess: int, left: int,
                     allowed: np.ndarray) -> tuple[int, int | None, list[tuple[int, np.ndarray, np.ndarray]]]:
        values = self.values
        buckets = [(pattern, bucket, values.allowed_after(guess, pattern, allowed))
                   for pattern, bucket in values.split(answers, guess)]
        if values.openers is not None and answers.size == values.everyone.size and left == values.game.max_attempts:
            interval = values.openers.interval(values.game, guess)
            if interval is not None:
                return interval.lower, interval.upper, buckets
        if key in values._after:  # solved before the budget ran out
            total = values._after[key][0]
            return total, total, buckets
        lower = int(answers.size)
        upper: int | None = lower
        for pattern, bucket, then in buckets:
            if pattern == values.kernel.green:
                continue
            lo, hi = self.state(bucket, left - 1, then)
            lower += lo
            upper = None if upper is None or hi is None else upper + hi
        return lower, upper, buckets

    def best_guess(self, answers: np.ndarray, left: int, allowed: np.ndarray) -> str:
        """The first guess of the best tree the bounds found ("" where none fits)."""
        values = self.values
        if self.at_root(answers, left) and values.root_opener is not None:
            return values.root_opener
        for kernel in (values.kernel, *self.high.values()):
            guess = kernel.known(answers, left, allowed)[1]
            if guess >= 0:
                return values.game.guesses[guess]
        return ""


__all__ = ["Bucket", "ROOT_SOLVE_LIMIT", "StateBounds", "StateValues", "ValuesTimedOut"]
