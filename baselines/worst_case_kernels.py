"""numba kernels of the worst-case search (:mod:`guessgym.baselines.worst_case`).

Every function answers one question about a set of candidate answers ``cands`` (answer indices)
and a pattern matrix ``mt`` (guesses x answers): can the game be won, whatever the answer in
``cands``, within 2 or 3 more guesses, and with which guess. ``cls`` gives each answer its class:
answers a guess wins together (the answer itself in a plain game; its commutative rearrangements
when Nerdle's commutative rule is on). ``green`` is the all-green pattern, whose bucket is won at
once. ``absurdle`` replaces "every bucket" by the one bucket the Absurdle host keeps
(:func:`host_pattern`).

The stamp arrays (one slot per pattern) are scratch space reused across calls without clearing:
a slot belongs to the current guess when its stamp equals the generation counter ``gen[0]``,
which every guess increments.

Two guesses left, most sets cannot be won, and proving it means finding, for every guess, two
answers it does not tell apart. Asked guess by guess, that reads a few patterns from each of the
guess rows of ``mt`` (one cache miss each). :func:`two_guess_win` first sweeps pairs of answers
instead, a contiguous row each of the transposed matrix ``mtT`` (answers x guesses), striking out
every guess under which the pair shares a bucket; only the guesses left are checked in full.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.typed import Dict

from .memo_tables import set_hash

#: Pairs of answers :func:`two_guess_win` sweeps at most before checking the guesses left one by one.
SWEEP_PAIRS = 24
#: The sweep stops early once this few guesses are left.
SWEEP_STOP = 64


@njit(cache=True)
def one_class(cands: np.ndarray, cls: np.ndarray) -> bool:
    """Whether one guess wins for every answer of ``cands`` (they all share a class)."""
    for a in cands:
        if cls[a] != cls[cands[0]]:
            return False
    return True


@njit(cache=True)
def host_pattern(mt: np.ndarray, cands: np.ndarray, guess: int, counts: np.ndarray, host_rank: np.ndarray,
                 green: int) -> int:
    """The pattern the Absurdle host answers ``guess`` with: the largest bucket other than the
    green one (green only when it is the only one), ties to the pattern of smallest ``host_rank``
    (fewest greens, then yellows, then smallest code; see
    :func:`guessgym.envs.hosts.host_choice`). ``counts`` must be zero and is left zero."""
    best = green
    size = 0
    for a in cands:
        counts[mt[guess, a]] += 1
    for a in cands:
        p = mt[guess, a]
        c = counts[p]
        if p != green and (c > size or (c == size and host_rank[p] < host_rank[best])):
            best = p
            size = c
    for a in cands:
        counts[mt[guess, a]] = 0
    return best


@njit(cache=True)
def bucket(mt: np.ndarray, cands: np.ndarray, guess: int, pattern: int) -> np.ndarray:
    """The members of ``cands`` that show ``pattern`` against ``guess``."""
    n = 0
    for a in cands:
        if mt[guess, a] == pattern:
            n += 1
    out = np.empty(n, dtype=cands.dtype)
    k = 0
    for a in cands:
        if mt[guess, a] == pattern:
            out[k] = a
            k += 1
    return out


@njit(cache=True)
def splits_into_classes(mt: np.ndarray, cands: np.ndarray, guess: int, cls: np.ndarray, green: int,
                        stamp: np.ndarray, owner: np.ndarray, gen: np.ndarray) -> bool:
    """Whether every bucket of ``guess`` other than the green one holds a single class (so the next
    guess wins). Stops at the first bucket that does not."""
    gen[0] += 1
    g = gen[0]
    for a in cands:
        p = mt[guess, a]
        if p == green:
            continue
        if stamp[p] == g:
            if owner[p] != cls[a]:
                return False
        else:
            stamp[p] = g
            owner[p] = cls[a]
    return True


@njit(cache=True)
def sweep_pairs(mtT: np.ndarray, cands: np.ndarray, cls: np.ndarray, green: int, alive: np.ndarray) -> None:
    """Strike out of ``alive`` (one flag per guess, all set on entry) every guess under which two
    answers of different classes among the first :data:`SWEEP_PAIRS` neighbouring pairs of
    ``cands`` share a bucket other than the green one: such a guess cannot split ``cands`` into
    classes. Exact (only guesses proven unable are struck); stops early once at most
    :data:`SWEEP_STOP` guesses are left."""
    n_guesses = alive.size
    left = n_guesses
    swept = 0
    k = 0
    while k + 1 < cands.size and swept < SWEEP_PAIRS and left > SWEEP_STOP:
        a = cands[k]
        b = cands[k + 1]
        k += 1
        if cls[a] == cls[b]:
            continue
        ra = mtT[a]
        rb = mtT[b]
        left = 0
        for g in range(n_guesses):
            x = ra[g]
            keep = alive[g] & ((x != rb[g]) | (x == green))
            alive[g] = keep
            left += keep
        swept += 1


@njit(cache=True)
def two_guess_win(mt: np.ndarray, mtT: np.ndarray, cands: np.ndarray, cls: np.ndarray, green: int, absurdle: bool,
                  plain: bool, host_rank: np.ndarray, counts: np.ndarray, stamp: np.ndarray, owner: np.ndarray,
                  gen: np.ndarray, alive: np.ndarray) -> int:
    """The first guess after which one more guess wins for every answer of ``cands``, or -1.

    Against every host: every non-green bucket must be one class. Against the Absurdle host in a
    plain game the same test is exact (its bucket is the largest, and one class means one answer);
    with commutative classes the host's bucket is computed and must be one class.

    ``mtT`` (the transposed ``mt``, or an empty array when there is none) and ``alive`` (a flag
    per guess, scratch) let the tests that split into classes start with :func:`sweep_pairs`; the
    guess returned is the same either way.
    """
    n_guesses = mt.shape[0]
    if (not absurdle or plain) and mtT.shape[0] > 0:
        alive[:] = 1
        sweep_pairs(mtT, cands, cls, green, alive)
        for guess in range(n_guesses):
            if alive[guess] and splits_into_classes(mt, cands, guess, cls, green, stamp, owner, gen):
                return guess
        return -1
    for guess in range(n_guesses):
        if not absurdle or plain:
            if splits_into_classes(mt, cands, guess, cls, green, stamp, owner, gen):
                return guess
        else:
            p = host_pattern(mt, cands, guess, counts, host_rank, green)
            if p == green or one_class(bucket(mt, cands, guess, p), cls):
                return guess
    return -1


@njit(cache=True)
def three_guess_win(mt: np.ndarray, mtT: np.ndarray, cands: np.ndarray, order: np.ndarray, cls: np.ndarray,
                    green: int, absurdle: bool, plain: bool, host_rank: np.ndarray, keys: np.ndarray, memo: Dict,
                    counts: np.ndarray, stamp: np.ndarray, owner: np.ndarray, gen: np.ndarray,
                    alive: np.ndarray) -> int:
    """A guess (tried in ``order``) after which two more guesses win for every answer of ``cands``
    (against every host, or the Absurdle host), or -1. The two-guess answers of the buckets are
    memoised by set hash in ``memo``."""
    n_patterns = counts.size
    seen = np.zeros(n_patterns, dtype=np.int64)
    patterns = np.empty(cands.size, dtype=np.int64)
    sizes = np.empty(cands.size, dtype=np.int64)
    for guess in order:
        if absurdle:
            p = host_pattern(mt, cands, guess, counts, host_rank, green)
            if p == green:
                return guess
            patterns[0] = p
            n_buckets = 1
            sizes[0] = 0
        else:
            n_buckets = 0
            for a in cands:
                counts[mt[guess, a]] += 1
            for a in cands:
                p = mt[guess, a]
                if p != green and counts[p] >= 2 and seen[p] == 0:
                    seen[p] = 1
                    patterns[n_buckets] = p
                    sizes[n_buckets] = -counts[p]
                    n_buckets += 1
            for a in cands:
                p = mt[guess, a]
                counts[p] = 0
                seen[p] = 0
        ok = True
        for j in np.argsort(sizes[:n_buckets]):  # the largest bucket first: the likeliest to fail
            members = bucket(mt, cands, guess, patterns[j])
            if one_class(members, cls):
                continue
            h = set_hash(members, keys)
            if h in memo:
                solvable = memo[h]
            else:
                solvable = two_guess_win(mt, mtT, members, cls, green, absurdle, plain, host_rank, counts, stamp,
                                         owner, gen, alive) >= 0
                memo[h] = solvable
            if not solvable:
                ok = False
                break
        if ok:
            return guess
    return -1


@njit(cache=True)
def guess_order_stats(mt: np.ndarray, cands: np.ndarray, green: int, absurdle: bool, host_rank: np.ndarray,
                      counts: np.ndarray) -> np.ndarray:
    """For every guess, the size of the bucket the adversary would keep: the largest non-green
    bucket (every host) or the Absurdle host's bucket (0 when it is green). Used to order and prune
    the guesses of a node."""
    n_guesses = mt.shape[0]
    out = np.empty(n_guesses, dtype=np.int64)
    for guess in range(n_guesses):
        if absurdle:
            p = host_pattern(mt, cands, guess, counts, host_rank, green)
            if p == green:
                out[guess] = 0
            else:
                size = 0
                for a in cands:
                    if mt[guess, a] == p:
                        size += 1
                out[guess] = size
        else:
            worst = 0
            for a in cands:
                p = mt[guess, a]
                counts[p] += 1
                if p != green and counts[p] > worst:
                    worst = counts[p]
            for a in cands:
                counts[mt[guess, a]] = 0
            out[guess] = worst
    return out


@njit(cache=True)
def bucket_counts(mt: np.ndarray, cands: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """For every guess (row of ``mt``), how many buckets (distinct patterns, the green one counted)
    it makes of ``cands``. ``seen`` (one slot per pattern) must be zero and is left zero."""
    out = np.empty(mt.shape[0], dtype=np.int64)
    for guess in range(mt.shape[0]):
        row = mt[guess]
        n = 0
        for a in cands:
            if seen[row[a]] == 0:
                seen[row[a]] = 1
                n += 1
        for a in cands:
            seen[row[a]] = 0
        out[guess] = n
    return out
