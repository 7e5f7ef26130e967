"""The set-level kernels of the exact search (:mod:`guessgym.baselines.search_kernels` holds the
search itself and its memo): the lower bounds of a set, a guess and a part of a set; the scans that
score every guess against a set at once (:func:`scan`, with sums of squares for ordering, and
:func:`least_lb_scan`, a bit table for bounds alone); a guess's split of a set into buckets; and
the checks for a candidate that splits the rest into singletons and for Nerdle's commutative
classes. Each is a numba kernel on plain arrays; the module docstring of ``search_kernels`` says how
the search uses them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: A cost no tree reaches (an infeasible candidate set, or an unknown one).
INF = 1 << 40

#: Guesses scored together by :func:`scan` (one 64-byte cache line of a uint8 row).
CHUNK = 64

#: Guesses scored together by :func:`least_lb_scan` (its bit table, 103 words a guess for Nerdle's
#: 6,561 patterns, then takes about 100 KiB: the core's L2 cache).
BIT_CHUNK = 128

@njit(cache=True)
def bucket_lb(m: int, left: int, c: int = 1) -> int:
    """Fewest total guesses for ``m`` candidates with ``left`` attempts (``INF``: impossible), when
    one guess wins at most ``c`` of them (1 in a plain game; the most rearrangements of one answer
    among them with Nerdle's commutative rule): the first guess wins at most ``c``, every other
    answer needs at least two guesses; ``c == m`` (one class) is won by one guess."""
    if m == 0:
        return 0
    if left <= 0:
        return INF
    if m == 1 or c >= m:
        return m
    if left == 1:
        return INF
    return 2 * m - c


@njit(cache=True)
def guess_lb(n: int, k: int, wins: int, left: int, cmax: int = 1) -> int:
    """Lower bound of a guess splitting ``n`` candidates into ``k`` non-green buckets (``wins``: the
    answers it wins now, at most one in a plain game) with ``left`` attempts including this guess,
    when one guess wins at most ``cmax`` of them (see :func:`bucket_lb`): each bucket of ``m``
    costs at least ``2m - min(m, cmax)``, so the guess costs at least
    ``n + 2(n - wins) - min(n - wins, k * cmax)`` (plain: ``3n - 2*wins - k``)."""
    rest = n - wins
    if rest == 0:
        return n
    if left <= 1:
        return INF
    won_next = min(rest, k * cmax)
    if left == 2:
        return 2 * n - wins if won_next == rest else INF  # every bucket must be won by its next guess
    return 3 * n - 2 * wins - won_next


@njit(cache=True)
def part_lb(m: int, most: int) -> int:
    """Fewest total guesses for ``m`` candidates (two attempts or more) that are part of a set on
    which no guess shows more than ``most`` tile patterns: no guess shows more on a part than on the
    whole, so the next guess wins at most one answer and leaves at most ``most - 1`` other buckets,
    and every answer it does not win needs two more guesses unless it is alone in its bucket
    (:func:`guess_lb` with ``k + wins <= most``): ``3m - 1 - most``."""
    return 3 * m - 1 - most


@njit(cache=True)
def least_guess_lb(n: int, k: np.ndarray, wins: np.ndarray, left: int, cmax: int) -> int:
    """The least :func:`guess_lb` over guesses with ``k`` buckets and ``wins`` (from :func:`scan`),
    those that learn nothing left out: a lower bound of the set itself (``INF`` if none helps)."""
    best = INF
    for j in range(k.size):
        if k[j] == 0 and wins[j] == 0:
            continue
        lb = guess_lb(n, k[j], wins[j], left, cmax)
        if lb < best:
            best = lb
    return best


@njit(cache=True)
def scan(mt: np.ndarray, cands: np.ndarray, guesses: np.ndarray, green: int, counts: np.ndarray,
         out_k: np.ndarray, out_wins: np.ndarray, out_sumsq: np.ndarray) -> None:
    """For every guess of ``guesses``: non-green buckets, the answers it wins now (0 or 1 in a plain
    game), sum of squares.

    ``mt`` is the transposed pattern matrix (answers x guesses); ``counts`` a zeroed
    ``(CHUNK, n_patterns)`` scratch table, left zeroed: by clearing the cells the set touched when
    it is small, else the whole rows at once (one pass over the set instead of two).
    """
    n = cands.size
    m = guesses.size
    kk = np.zeros(CHUNK, np.int64)
    ss = np.zeros(CHUNK, np.int64)
    ww = np.zeros(CHUNK, np.int64)
    small = 4 * n < counts.shape[1]
    for g0 in range(0, m, CHUNK):
        w = min(CHUNK, m - g0)
        kk[:] = 0
        ss[:] = 0
        ww[:] = 0
        for i in range(n):
            row = mt[cands[i]]
            for j in range(w):
                p = row[guesses[g0 + j]]
                c = counts[j, p]
                kk[j] += c == 0
                ss[j] += 2 * c + 1
                ww[j] += p == green
                counts[j, p] = c + 1
        if small:
            for i in range(n):
                row = mt[cands[i]]
                for j in range(w):
                    counts[j, row[guesses[g0 + j]]] = 0
        else:
            counts[:w] = 0
        for j in range(w):
            out_wins[g0 + j] = ww[j]
            out_k[g0 + j] = kk[j] - (1 if ww[j] > 0 else 0)
            out_sumsq[g0 + j] = ss[j]


@njit(cache=True, inline="always")
def _popcount(x: np.uint64) -> int:
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


#: Pattern spaces up to this size (Wordle's 243) keep one byte per pattern in :func:`least_lb_scan`'s
#: table, a store per cell instead of a read-modify-write of a bit, summed per guess by vector
#: instructions (a large bucket's scan: 1.6x faster); larger ones (Nerdle's 6,561) keep bits.
BYTE_PATTERNS = 256

#: Guesses scored together by :func:`least_lb_scan` with a byte table (Wordle's: 62 KiB): each
#: answer's row is read once per chunk, so wider chunks read rows less often: 256 against 128 took
#: 3% off normal-mode openers' values and 1% off hard-mode ones; 512 was slower than 256
#: (``benchmarks/bench_search_params.py --setting chunk``, results/benchmarks/chunk_128_vs_256.txt).
BYTE_CHUNK = 256


def scan_table(n_patterns: int) -> np.ndarray:
    """The zeroed scratch table :func:`least_lb_scan` takes: per guess of a chunk, a byte per
    pattern where :data:`BYTE_PATTERNS` allows, else a bit."""
    if n_patterns <= BYTE_PATTERNS:
        return np.zeros((BYTE_CHUNK, -(-n_patterns // 8)), dtype=np.uint64)
    return np.zeros((BIT_CHUNK, -(-n_patterns // 64)), dtype=np.uint64)


_BYTES = np.uint64(0x0101010101010101)


@njit(cache=True, inline="always")
def _column(row: np.ndarray, guesses: np.ndarray, dense: bool, c: int) -> int:
    return row[c] if dense else row[guesses[c]]


@njit(cache=True)
def _is_every(guesses: np.ndarray, m: int) -> bool:
    if guesses.size != m:
        return False
    for j in range(m):
        if guesses[j] != j:
            return False
    return True


@njit(cache=True)
def least_lb_scan(mt: np.ndarray, cands: np.ndarray, guesses: np.ndarray, green: int, seen: np.ndarray,
                  left: int, stop: int = 0, shown: np.ndarray | None = None, enough: int = INF) -> int:
    """The least :func:`guess_lb` over ``guesses`` for ``cands`` in a plain game (a guess wins at
    most the one answer it is): what ``scan`` then ``least_guess_lb`` give, three to four times
    faster, for the bounds of a proof, which need no sum of squares.

    Each guess of a chunk marks the patterns it has seen in ``seen`` (:func:`scan_table`: a byte per
    pattern where the table is wide enough, else a bit; left zeroed), which stays in the core's
    cache. With bits, a set with many answers counts them afterwards, a small one as they are set.

    ``stop``: the scan may end once the least found is at most this (the caller only asks whether
    the bound exceeds it), returning that least. ``shown``: for a part of a set scanned before, how
    many tile patterns each guess showed on the whole set, with ``guesses`` sorted by it, most
    first. A guess shows no more patterns on a part than on the whole, so its bound on ``cands`` is
    at least ``3n - 1 - shown``; once that reaches the least found, no later guess can go below it
    and the scan ends with the same least it would have found. ``enough``: with ``shown``, the
    caller only asks whether the bound reaches this; the scan may end once every guess left is
    bounded at it, returning a bound that is at least ``enough`` but may be below the least.
    """
    n = cands.size
    m = guesses.size
    n_patterns = green + 1  # the all-green pattern is the last
    dense = _is_every(guesses, mt.shape[1])  # every column in order: read the row directly
    width, words = seen.shape
    bytewise = n_patterns <= BYTE_PATTERNS and 8 * words >= n_patterns
    flags = seen.view(np.uint8)
    one = np.uint64(1)
    green_word, green_bit = green >> 6, one << np.uint64(green & 63)
    sparse = not bytewise and 8 * n < words  # measured: counting as it goes wins below about a dozen answers (Nerdle)
    kk = np.zeros(width, np.int64)
    ww = np.zeros(width, np.int64)
    best = INF
    for g0 in range(0, m, width):
        if shown is not None and part_lb(n, shown[g0]) >= min(best, enough):
            return min(best, part_lb(n, shown[g0]))
        w = min(width, m - g0)
        if bytewise:
            for i in range(n):
                row = mt[cands[i]]
                for j in range(w):
                    flags[j, _column(row, guesses, dense, g0 + j)] = 1
            for j in range(w):
                wins = np.int64(flags[j, green])
                c = np.int64(0)
                for t in range(words):  # eight flags a word, each byte 0 or 1: one multiply sums them
                    c += np.int64((seen[j, t] * _BYTES) >> np.uint64(56))
                    seen[j, t] = 0
                kk[j] = c - wins
                ww[j] = wins
        elif sparse:
            kk[:] = 0
            for i in range(n):
                row = mt[cands[i]]
                for j in range(w):
                    p = _column(row, guesses, dense, g0 + j)
                    b = one << np.uint64(p & 63)
                    x = seen[j, p >> 6]
                    kk[j] += (x & b) == 0
                    seen[j, p >> 6] = x | b
        else:
            for i in range(n):
                row = mt[cands[i]]
                for j in range(w):
                    p = _column(row, guesses, dense, g0 + j)
                    seen[j, p >> 6] |= one << np.uint64(p & 63)
            for j in range(w):
                c = 0
                wins = 1 if seen[j, green_word] & green_bit else 0
                for t in range(words):
                    if seen[j, t]:
                        c += _popcount(seen[j, t])
                        seen[j, t] = 0
                kk[j] = c - wins
                ww[j] = wins
        for j in range(w):
            if sparse:
                ww[j] = 1 if seen[j, green_word] & green_bit else 0
                kk[j] -= ww[j]
            k, wins = kk[j], ww[j]
            if k > 0 or wins > 0:
                lb = guess_lb(n, k, wins, left)
                if lb < best:
                    best = lb
        if sparse:
            for i in range(n):
                row = mt[cands[i]]
                for j in range(w):
                    seen[j, _column(row, guesses, dense, g0 + j) >> 6] = 0
        if best <= max(2 * n - 1, stop):  # the least any guess can give, or as low as the caller cares
            break
    return best


@njit(cache=True)
def split(mt: np.ndarray, cands: np.ndarray, guess: int, green: int, keys: np.ndarray, tally: np.ndarray,
          order: np.ndarray, starts: np.ndarray, sizes: np.ndarray, patterns: np.ndarray,
          hashes: np.ndarray) -> int:
    """Split ``cands`` by the tiles of ``guess`` into non-green buckets, largest first.

    Writes the answers grouped by bucket into ``order`` and, per bucket, its start, size, pattern
    and set hash; returns the number of buckets. ``tally`` is a zeroed ``n_patterns`` scratch
    array, left zeroed. Within a bucket the answers keep their order in ``cands``.
    """
    n = cands.size
    seen = np.empty(n, np.int64)
    t = 0
    for i in range(n):
        p = mt[cands[i], guess]
        if tally[p] == 0:
            seen[t] = p
            t += 1
        tally[p] += 1
    nb = 0
    for s in range(t):
        if seen[s] != green:
            patterns[nb] = seen[s]
            sizes[nb] = tally[seen[s]]
            nb += 1
    tally[green] = 0  # the winning answer goes in no bucket
    rank = np.argsort(-sizes[:nb], kind="mergesort")
    tmp_p = patterns[:nb][rank].copy()
    tmp_s = sizes[:nb][rank].copy()
    pos = 0
    for b in range(nb):
        patterns[b] = tmp_p[b]
        sizes[b] = tmp_s[b]
        starts[b] = pos
        tally[tmp_p[b]] = pos + 1  # next free slot + 1 (0 stays "not a bucket")
        pos += tmp_s[b]
    for i in range(n):
        p = mt[cands[i], guess]
        slot = tally[p]
        if slot > 0:
            order[slot - 1] = cands[i]
            tally[p] = slot + 1
    for b in range(nb):
        tally[patterns[b]] = 0
        h = np.uint64(0)
        for i in range(starts[b], starts[b] + sizes[b]):
            h += keys[order[i]]
        hashes[b] = h
    for s in range(t):
        tally[seen[s]] = 0
    return nb


@njit(cache=True)
def class_max(cands: np.ndarray, cls: np.ndarray, tally: np.ndarray) -> int:
    """The most answers of ``cands`` one guess can win: the largest number sharing a class
    (``cls``: each answer's class of commutative rearrangements). ``tally`` (one slot per class) is
    zero and left zero."""
    best = 0
    for a in cands:
        tally[cls[a]] += 1
        if tally[cls[a]] > best:
            best = tally[cls[a]]
    for a in cands:
        tally[cls[a]] = 0
    return best


@njit(cache=True)
def perfect_candidate(mt: np.ndarray, cands: np.ndarray, answer_guess: np.ndarray, stamp: np.ndarray,
                      clock: np.ndarray) -> int:
    """A remaining candidate whose guess splits the others into singletons, or -1."""
    n = cands.size
    for i in range(n):
        g = answer_guess[cands[i]]
        clock[0] += 1
        now = clock[0]
        ok = True
        for j in range(n):
            p = mt[cands[j], g]
            if stamp[p] == now:
                ok = False
                break
            stamp[p] = now
        if ok:
            return g
    return -1


@njit(cache=True)
def perfect_splitter(mt: np.ndarray, cands: np.ndarray, guesses: np.ndarray, green: int, stamp: np.ndarray,
                     clock: np.ndarray) -> int:
    """The first guess of ``guesses`` that shows every answer of ``cands`` a different pattern, none
    of them green, or -1: what a set with two attempts left needs when no candidate splits the rest
    into singletons (:func:`perfect_candidate`). Each guess is dropped at its first repeated
    pattern, so most cost a few reads, where :func:`scan` reads every answer for every guess."""
    n = cands.size
    for j in range(guesses.size):
        h = guesses[j]
        clock[0] += 1
        now = clock[0]
        ok = True
        for i in range(n):
            p = mt[cands[i], h]
            if p == green or stamp[p] == now:
                ok = False
                break
            stamp[p] = now
        if ok:
            return h
    return -1
