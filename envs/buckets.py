"""Vectorised feedback-bucket statistics: the shared engine of the baselines and of the learned
policies' split features (:mod:`guessgym.agents.split_features`).

A guess ``g`` splits the remaining candidates ``C`` into *buckets*, one per feedback pattern
(``PatternMatrix[g, c]`` for ``c`` in ``C``). Every seed method scores a guess from the sizes of
those buckets:

* the largest bucket (Pawson 2023 "least worst", Lahiri et al. 2023
  6.1),
* the sum of squared sizes (the report's "expected" variant; min-average depth 1 of
  Jain et al. 2024 is the same sum divided by ``|C|``),
* ``sum(c * log2(c))`` (feedback-pattern entropy of the Nerdle entropy blog post:
  ``H = log2(n) - sum(c log2 c) / n``),
* the number of buckets.

:func:`bucket_stat` computes one of these for many guesses at once with a numba kernel that reads
the pattern matrix through index arrays (no copy of the sub-matrix), counting patterns per guess
in a small scratch array that is reset by revisiting only the touched entries. Guesses are
processed in parallel blocks when the problem is large. For few candidates and many guesses (every
decision after the first of the all-guesses solvers) a transposed copy of the matrix (answers x
guesses, built once per game, up to :data:`TRANSPOSE_MAX_BYTES`) is read instead: the
candidates' rows are walked side by side, several times faster than one cache miss per pattern.
When the game's matrix is computed on demand (too large to keep), sub-matrices are built in
chunks of bounded size instead.

Entropy is returned as an exact fixed-point integer (``round(c log2 c * 2**32)`` summed in
``int64``), so that two guesses with the same multiset of bucket sizes get *identical* scores
whatever the order of their buckets; ties are then broken exactly as the seeds say (first in list
order) instead of by floating-point noise.

The tie-breaking rules of the seeds live here too (:func:`first_min`, :func:`betterof_fold`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

import numpy as np
from numba import njit, prange

from .matrix import PatternMatrix

#: Which statistic :func:`bucket_stat` computes.
STAT_MAX = 0  # size of the largest bucket
STAT_SUMSQ = 1  # sum of squared bucket sizes
STAT_CLOGC = 2  # fixed-point sum of c*log2(c) over buckets (see ENTROPY_SCALE)
STAT_COUNT = 3  # number of buckets

#: Fixed-point scale of :data:`STAT_CLOGC` values.
ENTROPY_SCALE = float(2**32)

_BLOCK = 32  # guesses per parallel work item
_PARALLEL_MIN_WORK = 1 << 22  # smaller problems run on one thread (thread launch costs ms on a busy machine)
_CHUNK_BYTES = 96 << 20  # on-demand mode: largest sub-matrix built at once


@njit(cache=True, nogil=True)
def _one_row(row: np.ndarray, cols: np.ndarray, counts: np.ndarray, stat: int, clogc: np.ndarray) -> np.int64:
    """The statistic of one guess's buckets; ``counts`` is zero on entry and on exit."""
    n_cols = cols.shape[0]
    total = np.int64(0)
    if stat == 0:
        for j in range(n_cols):
            p = row[cols[j]]
            c = counts[p] + 1
            counts[p] = c
            if c > total:
                total = c
        for j in range(n_cols):
            counts[row[cols[j]]] = 0
    elif stat == 1:
        for j in range(n_cols):
            p = row[cols[j]]
            c = counts[p] + 1
            counts[p] = c
            total += 2 * c - 1  # c^2 - (c-1)^2
        for j in range(n_cols):
            counts[row[cols[j]]] = 0
    elif stat == 3:
        for j in range(n_cols):
            p = row[cols[j]]
            if counts[p] == 0:
                total += 1
                counts[p] = 1
        for j in range(n_cols):
            counts[row[cols[j]]] = 0
    else:
        for j in range(n_cols):
            counts[row[cols[j]]] += 1
        for j in range(n_cols):
            p = row[cols[j]]
            c = counts[p]
            if c > 0:  # each bucket is added once, then cleared
                total += clogc[c]
                counts[p] = 0
    return total


@njit(cache=True, parallel=True, nogil=True)
def _row_stats_parallel(
    dense: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    n_patterns: int,
    stat: int,
    clogc: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[r]`` = statistic of the buckets of ``dense[rows[r], cols]``, blocks of rows in parallel."""
    n_rows = rows.shape[0]
    n_blocks = (n_rows + _BLOCK - 1) // _BLOCK
    for b in prange(n_blocks):
        counts = np.zeros(n_patterns, dtype=np.int32)
        for r in range(b * _BLOCK, min(n_rows, (b + 1) * _BLOCK)):
            out[r] = _one_row(dense[rows[r]], cols, counts, stat, clogc)


@njit(cache=True, nogil=True)
def _row_stats_serial(
    dense: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    n_patterns: int,
    stat: int,
    clogc: np.ndarray,
    out: np.ndarray,
) -> None:
    """Same as :func:`_row_stats_parallel` on one thread (small problems: no launch overhead)."""
    counts = np.zeros(n_patterns, dtype=np.int32)
    for r in range(rows.shape[0]):
        out[r] = _one_row(dense[rows[r]], cols, counts, stat, clogc)


def _row_stats(
    dense: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    n_patterns: int,
    stat: int,
    clogc: np.ndarray,
    out: np.ndarray,
) -> None:
    kernel = _row_stats_serial if rows.size * cols.size < _PARALLEL_MIN_WORK else _row_stats_parallel
    kernel(dense, rows, cols, n_patterns, stat, clogc, out)


@njit(cache=True, nogil=True, inline="always")
def _gather_column(transposed: np.ndarray, cands: np.ndarray, guess: int, buf: np.ndarray) -> None:
    """``buf[j] = transposed[cands[j], guess]``: one guess's patterns against the candidates."""
    for j in range(cands.shape[0]):
        buf[j] = transposed[cands[j], guess]


@njit(cache=True, nogil=True)
def _col_stats(
    transposed: np.ndarray,
    guesses: np.ndarray,
    cands: np.ndarray,
    n_patterns: int,
    stat: int,
    clogc: np.ndarray,
    out: np.ndarray,
) -> None:
    """Same statistics from the transposed matrix (answers x guesses): for few candidates and many
    guesses, ``transposed[cands[j], g]`` walks ``len(cands)`` contiguous rows side by side instead
    of jumping to a new cache line for every (guess, candidate) pair."""
    counts = np.zeros(n_patterns, dtype=np.int32)
    m = cands.shape[0]
    buf = np.empty(m, dtype=transposed.dtype)
    local = np.arange(m)
    for i in range(guesses.shape[0]):
        _gather_column(transposed, cands, guesses[i], buf)
        out[i] = _one_row(buf, local, counts, stat, clogc)


@njit(cache=True, nogil=True)
def _one_profile(row: np.ndarray, cols: np.ndarray, counts: np.ndarray, clogc: np.ndarray, out: np.ndarray) -> None:
    """Every statistic of one guess's buckets in one pass: ``out`` = (buckets, largest, sum of
    squares, fixed-point sum of c log2 c); ``counts`` is zero on entry and on exit."""
    n_cols = cols.shape[0]
    for j in range(n_cols):
        counts[row[cols[j]]] += 1
    buckets = np.int64(0)
    largest = np.int64(0)
    sumsq = np.int64(0)
    entropy = np.int64(0)
    for j in range(n_cols):
        p = row[cols[j]]
        c = np.int64(counts[p])
        if c > 0:  # each bucket is counted once, then cleared
            buckets += 1
            sumsq += c * c
            entropy += clogc[c]
            if c > largest:
                largest = c
            counts[p] = 0
    out[0] = buckets
    out[1] = largest
    out[2] = sumsq
    out[3] = entropy


@njit(cache=True, nogil=True)
def _profile_rows(dense: np.ndarray, rows: np.ndarray, cols: np.ndarray, n_patterns: int, clogc: np.ndarray,
                  out: np.ndarray) -> None:
    counts = np.zeros(n_patterns, dtype=np.int32)
    for r in range(rows.shape[0]):
        _one_profile(dense[rows[r]], cols, counts, clogc, out[r])


@njit(cache=True, nogil=True)
def _profile_cols(transposed: np.ndarray, guesses: np.ndarray, cands: np.ndarray, n_patterns: int,
                  clogc: np.ndarray, out: np.ndarray) -> None:
    """:func:`_profile_rows` from the transposed matrix (see :func:`_col_stats`)."""
    counts = np.zeros(n_patterns, dtype=np.int32)
    m = cands.shape[0]
    buf = np.empty(m, dtype=transposed.dtype)
    local = np.arange(m)
    for i in range(guesses.shape[0]):
        _gather_column(transposed, cands, guesses[i], buf)
        _one_profile(buf, local, counts, clogc, out[i])


#: Largest dense matrix for which a transposed copy is kept (built on first use, once per game).
#: Wordle's is 30 MB, classic Nerdle's 628 MB; 0 disables the transposed path.
TRANSPOSE_MAX_BYTES = 1 << 30
#: The transposed path is used for at most this many candidates (and at least 1,000 guesses).
TRANSPOSE_MAX_CANDIDATES = 256
_transposed_cache: dict[str, np.ndarray] = {}


def _transposed(matrix: PatternMatrix) -> np.ndarray | None:
    """The answers x guesses copy of a dense matrix (at most two kept per process)."""
    dense = matrix.dense
    if dense is None or dense.nbytes > TRANSPOSE_MAX_BYTES:
        return None
    key = matrix.game.fingerprint
    cached = _transposed_cache.get(key)
    if cached is None or cached.shape != dense.shape[::-1]:
        while len(_transposed_cache) >= 2:
            _transposed_cache.pop(next(iter(_transposed_cache)))
        cached = _transposed_cache[key] = np.ascontiguousarray(dense.T)
    return cached


@lru_cache(maxsize=8)
def _clogc_table(n: int) -> np.ndarray:
    """``round(c * log2(c) * 2**32)`` for ``c = 0..n`` (int64, exact and order-independent)."""
    c = np.arange(n + 1, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(c > 1, c * np.log2(np.maximum(c, 1.0)), 0.0)
    return np.rint(v * ENTROPY_SCALE).astype(np.int64)


_EMPTY_TABLE = np.zeros(1, dtype=np.int64)


#: Who hears of the chunks of a long bucket computation (see :func:`chunk_progress`).
_PROGRESS: ContextVar[Callable[[int, int], None] | None] = ContextVar("bucket_progress", default=None)


@contextmanager
def chunk_progress(callback: Callable[[int, int], None]) -> Iterator[None]:
    """Call ``callback(guesses_done, guesses_total)`` after each chunk of an on-demand bucket
    computation within the block (the minutes-long first proposals over 67,346 Nerdle guesses)."""
    token = _PROGRESS.set(callback)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def bucket_stat(matrix: PatternMatrix, guesses: np.ndarray, candidates: np.ndarray, stat: int) -> np.ndarray:
    """One bucket statistic per guess, as ``int64`` (see :func:`_plain_bucket_stat`; in a game with
    commutative answers, a winning bucket of several answers counts as that many buckets of one,
    as every answer in it is won: :func:`_count_wins_as_singletons`)."""
    out = _plain_bucket_stat(matrix, guesses, candidates, stat)
    if matrix.game.commutative and len(guesses) and len(candidates):
        columns = {STAT_MAX: 0, STAT_SUMSQ: 1, STAT_CLOGC: 2, STAT_COUNT: 3}
        stacked = np.zeros((len(out), 4), dtype=np.int64)
        stacked[:, columns[stat]] = out
        _count_wins_as_singletons(matrix, np.asarray(guesses, dtype=np.int64), np.asarray(candidates, dtype=np.int64),
                                  stacked, {stat: columns[stat]})
        out = stacked[:, columns[stat]].copy()
    return out


def _count_wins_as_singletons(matrix: PatternMatrix, guesses: np.ndarray, candidates: np.ndarray, out: np.ndarray,
                              columns: dict[int, int]) -> None:
    """Correct bucket statistics (``out[:, columns[stat]]``) for winning buckets of ``m >= 2``
    answers (a guess that rearranges several candidates, under commutative answers): each such
    answer is won, so the bucket counts as ``m`` buckets of one. Plain games never have one."""
    game = matrix.game
    pair_guesses, pair_answers = _winning_pairs(game)
    in_set = np.zeros(len(game.answers), dtype=bool)
    in_set[candidates] = True
    keep = in_set[pair_answers]
    wins = np.bincount(pair_guesses[keep], minlength=len(game.guesses))[guesses]
    hit = np.flatnonzero(wins >= 2)
    if hit.size == 0:
        return
    m = wins[hit]
    if STAT_COUNT in columns:
        out[hit, columns[STAT_COUNT]] += m - 1
    if STAT_SUMSQ in columns:
        out[hit, columns[STAT_SUMSQ]] -= m * m - m
    if STAT_CLOGC in columns:
        out[hit, columns[STAT_CLOGC]] -= _clogc_table(int(m.max()))[m]
    if STAT_MAX in columns:
        column = columns[STAT_MAX]
        green = game.solved_pattern
        for i, size in zip(hit.tolist(), m.tolist()):
            if out[i, column] == size:  # the winning bucket may have been the largest: the others decide
                counts = np.bincount(matrix.row(int(guesses[i]))[candidates].astype(np.int64), minlength=green + 1)
                counts[green] = 0
                out[i, column] = max(int(counts.max()), 1)


def _winning_pairs(game: Any) -> tuple[np.ndarray, np.ndarray]:
    """(guess, answer) index pairs whose pattern is all green: each answer as a guess, and the
    rearrangements of :attr:`Game.commutative_wins`. Remembered per game."""
    key = game.fingerprint
    found = _WINNING_PAIRS.get(key)
    if found is None:
        g = [np.asarray(game.answer_to_guess, dtype=np.int64)]
        a = [np.arange(len(game.answers), dtype=np.int64)]
        for guess, answers in game.commutative_wins.items():
            g.append(np.full(len(answers), guess, dtype=np.int64))
            a.append(np.asarray(answers, dtype=np.int64))
        found = _WINNING_PAIRS[key] = (np.concatenate(g), np.concatenate(a))
    return found


_WINNING_PAIRS: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def _plain_bucket_stat(matrix: PatternMatrix, guesses: np.ndarray, candidates: np.ndarray, stat: int) -> np.ndarray:
    """One bucket statistic per guess, as ``int64``, one bucket per pattern.

    Args:
        matrix: the game's pattern matrix.
        guesses: guess indices (rows), in the order of the result.
        candidates: answer indices (columns): the remaining candidates.
        stat: :data:`STAT_MAX`, :data:`STAT_SUMSQ`, :data:`STAT_CLOGC` or :data:`STAT_COUNT`.

    Returns:
        ``out[i]`` for ``guesses[i]``.
    """
    guesses = np.ascontiguousarray(guesses, dtype=np.int64)
    candidates = np.ascontiguousarray(candidates, dtype=np.int64)
    out = np.zeros(guesses.shape[0], dtype=np.int64)
    if guesses.size == 0 or candidates.size == 0:
        return out
    n_patterns = 3**matrix.game.length
    table = _clogc_table(int(candidates.size)) if stat == STAT_CLOGC else _EMPTY_TABLE
    if matrix.dense is not None:
        if candidates.size <= TRANSPOSE_MAX_CANDIDATES and guesses.size >= 1000:
            transposed = _transposed(matrix)
            if transposed is not None:
                _col_stats(transposed, guesses, candidates, n_patterns, stat, table, out)
                return out
        _row_stats(matrix.dense, guesses, candidates, n_patterns, stat, table, out)
        return out
    # On-demand matrix: build bounded chunks of the sub-matrix and run the kernel on each.
    itemsize = np.dtype(matrix.dtype).itemsize
    rows_per_chunk = max(1, _CHUNK_BYTES // max(1, candidates.size * itemsize))
    local_cols = np.arange(candidates.size, dtype=np.int64)
    report = _PROGRESS.get()
    for start in range(0, guesses.size, rows_per_chunk):
        part = guesses[start : start + rows_per_chunk]
        sub = np.ascontiguousarray(matrix.submatrix(part, candidates))
        _row_stats(
            sub,
            np.arange(part.size, dtype=np.int64),
            local_cols,
            n_patterns,
            stat,
            table,
            out[start : start + part.size],
        )
        if report is not None:
            report(start + part.size, int(guesses.size))
    return out


def pair_splitters(matrix: PatternMatrix, guesses: np.ndarray, candidates: np.ndarray) -> np.ndarray | None:
    """For two candidates of a plain game: whether each guess shows them different tiles, from the
    two candidates' rows of the transposed copy (``None`` where there is none, or the game is not
    plain, or there are not two candidates: then only the statistics decide).

    With two candidates a guess that tells them apart has the best score of every statistic here
    (largest bucket 1, sum of squares 2, two buckets, ``c log c`` 0) and one that does not has the
    worst, so the set of best-scoring guesses is this mask: a solver's choice among them needs no
    scan of every guess's buckets (most of a deterministic solver's decisions over a whole list)."""
    if len(candidates) != 2 or matrix.game.commutative or len(guesses) < 1000:
        return None
    transposed = _transposed(matrix)
    if transposed is None:
        return None
    a, b = (int(c) for c in candidates)
    pool = np.asarray(guesses, dtype=np.int64)
    return np.asarray(transposed[a, pool] != transposed[b, pool])


def bucket_profile(matrix: PatternMatrix, guesses: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Every statistic at once: ``(len(guesses), 4)`` int64 columns :data:`STAT_COUNT`,
    :data:`STAT_MAX`, :data:`STAT_SUMSQ`, :data:`STAT_CLOGC` (in that order), from one pass over
    the buckets of each guess instead of four (commutative games as in :func:`bucket_stat`)."""
    out = _plain_bucket_profile(matrix, guesses, candidates)
    if matrix.game.commutative and len(guesses) and len(candidates):
        _count_wins_as_singletons(matrix, np.asarray(guesses, dtype=np.int64), np.asarray(candidates, dtype=np.int64),
                                  out, {STAT_COUNT: 0, STAT_MAX: 1, STAT_SUMSQ: 2, STAT_CLOGC: 3})
    return out


def _plain_bucket_profile(matrix: PatternMatrix, guesses: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """:func:`bucket_profile` with one bucket per pattern."""
    guesses = np.ascontiguousarray(guesses, dtype=np.int64)
    candidates = np.ascontiguousarray(candidates, dtype=np.int64)
    out = np.zeros((guesses.shape[0], 4), dtype=np.int64)
    if guesses.size == 0 or candidates.size == 0:
        return out
    dense = matrix.dense
    if dense is None:  # on-demand matrix: the chunked path of bucket_stat, once per statistic
        for column, stat in enumerate((STAT_COUNT, STAT_MAX, STAT_SUMSQ, STAT_CLOGC)):
            out[:, column] = bucket_stat(matrix, guesses, candidates, stat)
        return out
    n_patterns = 3**matrix.game.length
    table = _clogc_table(int(candidates.size))
    if candidates.size <= TRANSPOSE_MAX_CANDIDATES and guesses.size >= 1000:
        transposed = _transposed(matrix)
        if transposed is not None:
            _profile_cols(transposed, guesses, candidates, n_patterns, table, out)
            return out
    _profile_rows(dense, guesses, candidates, n_patterns, table, out)
    return out


def worst_bucket(matrix: PatternMatrix, guesses: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Size of the largest bucket of each guess."""
    return bucket_stat(matrix, guesses, candidates, STAT_MAX)


def sum_of_squares(matrix: PatternMatrix, guesses: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Sum of squared bucket sizes of each guess (``|C|`` times the expected remaining size)."""
    return bucket_stat(matrix, guesses, candidates, STAT_SUMSQ)


def entropy_key(matrix: PatternMatrix, guesses: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Fixed-point ``sum(c log2 c) * 2**32`` per guess: *smaller* means *more* entropy."""
    return bucket_stat(matrix, guesses, candidates, STAT_CLOGC)


def entropy_bits(key: np.ndarray | int, n: int) -> np.ndarray | float:
    """Feedback-pattern entropy in bits from :func:`entropy_key` values over ``n`` candidates."""
    if n <= 1:
        return np.zeros_like(key, dtype=np.float64) if isinstance(key, np.ndarray) else 0.0
    return np.log2(n) - np.asarray(key, dtype=np.float64) / (ENTROPY_SCALE * n)


def bucket_sizes(matrix: PatternMatrix, guess: int, candidates: np.ndarray) -> dict[int, int]:
    """The buckets of one guess as ``{pattern: size}`` (for explanations and tests)."""
    row = matrix.row(guess)[np.asarray(candidates, dtype=np.int64)]
    patterns, counts = np.unique(row, return_counts=True)
    return {int(p): int(c) for p, c in zip(patterns, counts)}


# ---- tie-breaking rules --------------------------------------------------------------------------


def first_min(values: np.ndarray) -> int:
    """Position of the first minimum (a fold keeping the best with a strict ``<``)."""
    return int(np.argmin(values))


def first_max(values: np.ndarray) -> int:
    """Position of the first maximum (a fold keeping the best with a strict ``>``)."""
    return int(np.argmax(values))


def first_min_float(values: np.ndarray, rel_tol: float = 1e-12) -> int:
    """Position of the first value within ``rel_tol`` (relative) of the minimum.

    Emulates a left-to-right fold that replaces the best only when a value is *strictly* smaller,
    while treating values equal up to floating-point rounding (sums accumulated in a different
    order) as equal.
    """
    values = np.asarray(values, dtype=np.float64)
    best = float(values.min())
    return int(np.flatnonzero(values <= best + abs(best) * rel_tol)[0])


def betterof_fold(counts: np.ndarray, is_candidate: np.ndarray) -> int:
    """Result of Pawson 2023's ``Aggregate(BetterOf)`` fold, without the loop.

    ``BetterOf(best, next)`` keeps ``next`` when its count is strictly smaller, or equal *and*
    ``next`` is a remaining possible answer. Folding left to right over the list, the first word
    reaching the minimum count ``m`` replaces whatever came before (or is the seed), and after it
    only candidates with count ``m`` replace the best. So the fold returns the *last* candidate
    with count ``m`` if there is one, otherwise the *first* word with count ``m``.

    Args:
        counts: the score of each word, in list order (smaller is better).
        is_candidate: whether each word is still a possible answer.

    Returns:
        The position of the chosen word.

    Examples:
        >>> betterof_fold(np.array([3, 2, 2, 2]), np.array([False, False, True, False]))
        2
        >>> betterof_fold(np.array([3, 2, 2]), np.array([True, False, False]))
        1
    """
    counts = np.asarray(counts)
    return betterof_choice(counts == counts.min(), is_candidate)


def betterof_choice(at_min: np.ndarray, is_candidate: np.ndarray) -> int:
    """:func:`betterof_fold` given which words reach the minimum count (``at_min``): the last
    candidate among them if there is one, otherwise the first of them."""
    cand_at_min = np.flatnonzero(np.asarray(at_min, dtype=bool) & np.asarray(is_candidate, dtype=bool))
    if cand_at_min.size:
        return int(cand_at_min[-1])
    return int(np.flatnonzero(at_min)[0])
