"""One opener's value on demand: read from the shipped table at once, else solved, else bounded.

An opener's *total* is the table's (:mod:`guessgym.agents.opener_values`): the fewest guesses
summed over every answer when the game opens with it and is played optimally after, as the move
analysis values a first move (:class:`~guessgym.baselines.move_values.StateValues`; an opener whose
tree cannot win every answer within the attempts has the games it cannot win in time played on
without the limit, and is not ranked among the openers that always win). :func:`opener_report`
answers from the shipped table when it has the opener's exact total; otherwise it solves the
opener's tree (:meth:`~guessgym.baselines.move_values.StateValues.after`, a bucket at a time, with
``progress``; the solved sets are kept in ``cache_dir``), and once ``time_budget`` runs out it gives
the proven interval instead. ``guessgym opener`` prints it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..agents.opener_values import OpenerValues, opener_values
from ..agents.optima import known_optimum
from ..envs.game import Game
from .move_values import StateValues, ValuesTimedOut
from .search_kernels import INF


@dataclass(frozen=True)
class OpenerReport:
    """What is known of one opener (see the module docstring).

    Attributes:
        opener, game, hard_mode, answers: the opener and the game it opens.
        lower, upper: the proven interval of its total (equal: exact).
        fits: whether a tree opening with it wins every answer within the attempts (``None``: not
            known yet, the time budget ran out before it was).
        source: ``"table"`` (the shipped table), ``"solved"`` (solved now) or ``"bounded"``
            (the time budget ran out: ``lower`` and ``upper`` are bounds; ``upper`` is 0 where no
            complete tree was found).
        rank: the best and worst rank its interval allows among the table's openers that always win
            (1: no opener is better), ``None`` without a table or for an opener that cannot always win.
        ranked: how many openers that always win the table holds, this one among them where it
            always wins (what ``rank`` counts among).
        table_openers, guesses: the openers the table holds, of the game's guesses (0: no table).
        best_opener, best_total: the game's proven optimum, if known (``""`` and 0 otherwise).
        seconds: the time the answer took.
        memo: the file the solved sets were read from and kept in (``""``: in memory only, or read
            from the table).
    """

    opener: str
    game: str
    hard_mode: bool
    answers: int
    lower: int
    upper: int
    fits: bool | None
    source: str
    rank: tuple[int, int] | None
    ranked: int
    table_openers: int
    guesses: int
    best_opener: str
    best_total: int
    seconds: float
    memo: str = ""

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "rank": None if self.rank is None else list(self.rank), "exact": self.exact}

    def lines(self) -> list[str]:
        """The report in words, as ``guessgym opener`` prints it."""
        n, mode = self.answers, "hard mode" if self.hard_mode else "normal mode"
        if self.exact:
            value = f"total {self.upper:,} over {n:,} answers (mean {self.upper / n:.4f} guesses)"
        elif self.upper:
            value = (f"total between {self.lower:,} and {self.upper:,} over {n:,} answers (mean {self.lower / n:.4f} "
                     f"to {self.upper / n:.4f}; the time budget ran out)")
        else:
            value = (f"total at least {self.lower:,} over {n:,} answers (mean >= {self.lower / n:.4f}; the time budget "
                     "ran out)")
        out = [f"{self.opener} on {self.game} ({mode}): {value}"]
        if self.fits is False:
            out.append("cannot always win within the attempts: the games it cannot win in time are counted as played "
                       "on without the limit (as the move analysis does), so it is neither ranked among the openers "
                       "that always win nor compared with the best")
        elif self.fits is None:
            out.append("whether it always wins within the attempts is not known yet: no rank")
        elif self.rank is not None:
            low, high = self.rank
            where = f"rank {low:,}" if low == high else f"rank {low:,} to {high:,}"
            out.append(f"{where} of the {self.ranked:,} openers in the shipped table that always win"
                       + ("" if low == high else " (openers not solved exactly yet could be better or worse)"))
        else:
            out.append("no shipped table for this game: no rank")
        if self.table_openers and self.table_openers < self.guesses:
            out.append(f"the table holds {self.table_openers:,} of the {self.guesses:,} openers (the most promising "
                       "first); the others are not ranked yet")
        if self.best_total and self.fits:
            if self.exact:
                loss = f"{(self.upper - self.best_total) / n:.4f}"
            else:
                top = f"{(self.upper - self.best_total) / n:.4f}" if self.upper else "?"
                loss = f"{max(0, self.lower - self.best_total) / n:.4f} to {top}"
            out.append(f"loss against the best ({self.best_opener}, {self.best_total:,}): {loss} guesses per game")
        kept = f"the solved sets are kept in {self.memo}" if self.memo else "the solved sets were kept in memory only"
        how = {"table": "read from the shipped opener table", "solved": f"solved now ({kept})",
               "bounded": f"bounded now ({kept}; run again with more --time-budget for the exact total)"}
        out.append(f"{how[self.source]} in {self.seconds:.1f} s")
        return out


def opener_report(game: Game, word: str, *, time_budget: float | None = None,
                  progress: Callable[[int, int], None] | None = None,
                  cache_dir: str | os.PathLike[str] | None = None, table: OpenerValues | None = None,
                  values: StateValues | None = None) -> OpenerReport:
    """What is known of opening ``game`` with ``word`` (see the module docstring). ``table``: the
    opener table to read and rank by (default: the shipped one of ``game``, if any); ``values``:
    state values to solve with (made for ``game`` with ``cache_dir`` otherwise).

    Raises:
        ValueError: ``word`` is not a guess of ``game``.
        DamagedMemo: the solved sets read from ``cache_dir`` value the opener below what is proven
            (the table's lower bound, or the game's proven optimum).
    """
    started = time.perf_counter()
    key = game.normalize_guess(word)
    if key not in game.guess_index:
        raise ValueError(f"{word!r} is not a guess of {game.name} (one of its {len(game.guesses):,} guesses of "
                         f"{game.length} symbols)")
    guess = game.guess_index[key]
    table = table if table is not None else opener_values(game)
    known = table.interval(game, guess) if table is not None else None
    if known is not None and known.exact:
        return _report(game, guess, table, known.lower, known.upper, known.fits, "table", started)
    values = values if values is not None else StateValues(game, cache_dir=cache_dir)
    values.set_budget(time_budget)
    everyone, left, allowed = values.everyone, game.max_attempts, values.all_guesses
    try:
        total, buckets = values.after(everyone, guess, left, allowed, progress)
        kernel = values.kernel
        fits: bool | None = all(b.pattern == kernel.green or kernel.cost(b.answers, left - 1, b.allowed, INF) < INF
                                for b in buckets)
        lower = upper = total
        source = "solved"
    except ValuesTimedOut:
        low, high, _ = values.bounds().after(everyone, guess, left, allowed)
        lower, upper = low, (high or 0)
        fits = known.fits if known is not None else None
        if known is not None:
            lower, upper = max(lower, known.lower), min(upper or known.upper, known.upper)
        source = "bounded" if lower != upper else "solved"
    store = values.kernel.store
    memo = "" if store is None else str(store.path)
    _check_against_proofs(game, guess, lower, upper, fits, known, memo)
    values.save()
    return _report(game, guess, table, lower, upper, fits, source, started, memo)


class DamagedMemo(ValueError):
    """Solved sets that value a move below what is proven: the memo file was changed or damaged."""


def _check_against_proofs(game: Game, guess: int, lower: int, upper: int, fits: bool | None,
                          known: Any, memo: str) -> None:
    """Refuse totals below what is proven: the table's lower bound of ``guess``, and the game's
    proven optimum for an opener that always wins (no opener's total is below it)."""
    optimum = known_optimum(game)
    floors = []
    if known is not None:
        floors.append((known.lower, "the shipped opener table's proven lower bound for it"))
    if optimum is not None and optimum.proven and fits:
        floors.append((optimum.total, f"the game's proven optimum ({optimum.opener})"))
    claimed = min(lower, upper) if upper else lower  # upper is 0 where no complete tree was found
    for floor, what in floors:
        if claimed < floor:
            where = f"the solved sets of {memo}" if memo else "the solved sets"
            raise DamagedMemo(f"{where} value {game.guesses[guess]} at a total of {claimed:,}, below "
                              f"{what}, {floor:,}: the file is damaged; remove it (or run with --no-memo)")


def _report(game: Game, guess: int, table: OpenerValues | None, lower: int, upper: int, fits: bool | None,
            source: str, started: float, memo: str = "") -> OpenerReport:
    optimum = known_optimum(game)
    rank: tuple[int, int] | None = None
    ranked = 0
    if table is not None:
        fitting = table.always_wins
        fitting[guess] = False
        others_low, others_high = table.lower[fitting], table.upper[fitting]
        ranked = int(np.count_nonzero(fitting)) + (1 if fits else 0)
        if fits and (table.upper[guess] > 0 or table.computed == len(game.guesses)):
            worst = int(np.count_nonzero(others_low < (upper or INF)))
            rank = (1 + int(np.count_nonzero(others_high < lower)), 1 + worst)
    best = (optimum.opener, optimum.total) if optimum is not None and optimum.proven else ("", 0)
    return OpenerReport(game.guesses[guess], game.name, game.hard_mode, len(game.answers), lower, upper, fits, source,
                        rank, ranked, 0 if table is None else table.computed, len(game.guesses), best[0], best[1],
                        time.perf_counter() - started, memo)


__all__ = ["DamagedMemo", "OpenerReport", "opener_report"]
