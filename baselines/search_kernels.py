"""numba kernels of the exact search (:mod:`guessgym.baselines.optimal` is the Python side).

The search finds, for a set ``S`` of candidate answers with ``left`` attempts, the cheapest decision
tree: ``cost(S, left) = |S| + min over guesses g of sum over the non-green buckets B of g's split
of cost(B, left - 1)``. :func:`search` computes it depth first with branch and bound:

* **Scan.** Every allowed guess is scored against ``S`` at once (:func:`scan`): its number of
  non-green buckets ``k``, whether it can win now, and the sum of squared bucket sizes. The matrix
  is read transposed (answers x guesses), a chunk of 64 guesses per cache line, so a small ``S``
  reads a few contiguous rows instead of one scattered byte from every guess's row.
* **Bounds.** A bucket of ``m > 1`` answers costs at least ``2m - 1`` (one answer can be guessed
  next, every other needs at least two more guesses) and needs at least two attempts; a guess
  therefore costs at least ``lb = 3|S| - 2*wins - k`` (with enough attempts left). Guesses are
  tried in order of ``lb``, then of the sum of squares; a guess whose ``lb`` reaches the best
  total found is not searched, nor is any after it, and a bucket's search is told how much it may
  cost (``beta``) and gives up as soon as it cannot stay below. Before any bucket is searched,
  each one's bound is raised by what is known cheaply: its memo entry (exact cost or proven
  floor), else ``2m`` when no candidate splits the others into singletons (Alex Selby's solver
  makes the same pass), and at least :func:`part_lb`. Buckets of :data:`PRECHECK_MIN` answers or
  more are then bounded by their own :func:`least_lb_scan`, the guesses taken by how many patterns
  each shows on ``S``, most first, each scan ending once its bound is enough to refute the guess
  (hard mode scans the bucket's own allowed guesses, in the same order). A guess can fail on these
  bounds alone, with no search.
* **Shortcut.** A remaining candidate that splits the others into singletons costs ``2|S| - 1``,
  the smallest possible: it is played without scanning the guesses. With two attempts left and no
  such candidate, the set costs ``2|S|`` if some guess splits it into singletons and cannot be won
  otherwise: the first such guess is found by :func:`perfect_splitter`, which drops each guess at
  its first repeated pattern, and a bucket with two attempts is settled that way before any of its
  guess's buckets is searched.
* **Same moves.** Guesses that split ``S`` into the same buckets (and agree on winning now) are
  the same move in easy mode; they have the same ``lb`` and sum of squares, so they are adjacent in
  the order and only the first is searched.
* **Memo.** A solved ``(S, left, allowed guesses)`` is stored with its cost and guess; an unsolved
  one with the lower bound it proved. Sets are hashed by summing a random 64-bit key per answer
  (and per allowed guess in hard mode), so a bucket's key is computed while it is formed.
* **Width.** With ``width > 0`` only the ``width`` best distinct guesses per node are searched
  (the near-optimal mode); ``width = 0`` searches every guess (exact).
* **Hard mode.** A child's allowed guesses are the parent's that keep the greens in place and use
  every revealed symbol at least as often as the tiles showed (the rule of
  :class:`~guessgym.envs.candidates.HardModeRule`).

``search`` returns the exact cost when it is below ``beta``, otherwise a lower bound that is at
least ``beta``. ``stats`` counts nodes and carries the abort flag of a time budget: once set, every
call returns at once and stores nothing, so an interrupted search leaves only proven entries.
"""

from __future__ import annotations

import numpy as np
from numba import njit, objmode
from numba.typed import Dict

from ..envs.candidates import hard_filter
from .memo_tables import set_hash
from .scan_kernels import (  # noqa: F401 - re-exported: the search's callers and tests read them here
    BIT_CHUNK,
    BYTE_CHUNK,
    CHUNK,
    INF,
    bucket_lb,
    class_max,
    guess_lb,
    least_guess_lb,
    least_lb_scan,
    part_lb,
    perfect_candidate,
    perfect_splitter,
    scan,
    scan_table,
    split,
)

#: Sets of at least this many answers try :func:`least_lb_scan` against beta before the full scan
#: (most of them fail: refuting nyt2023 openers, 92% of the nodes); smaller sets, which mostly
#: do not, go straight to the scan (Mini Nerdle over every opener was 0.73x with every set). A
#: guess's buckets of this size are bounded by that scan before any of them is searched: 10
#: rather than 16 took 6-7% off Wordle openers' values from a cold memo, normal and hard mode,
#: and 5% off Nerdle's (``benchmarks/bench_search_params.py``, results/benchmarks/scan_min_16_vs_10.txt;
#: the gain is the buckets' threshold, the node's own made no difference). The search reads it
#: from ``params`` (tests lower it to put the scans to work on tiny games).
PRECHECK_MIN = 10

#: A node that has scanned this many of its guesses' buckets (normal mode) copies its set's rows of
#: the matrix, columns in the order the bucket scans take the guesses, so later scans read them in
#: sequence instead of gathering each from a row of every guess (mumsy's largest bucket: 12.4 s to
#: 10.9 s). The search reads it from ``params``.
BLOCK_AFTER = 8

#: Bits of a memo value that hold the guess (the cost sits above them).
GUESS_BITS = 24

#: Seed of the random set-hash keys of the exact search (fixed, so memo keys, and the memo files
#: of :mod:`guessgym.baselines.memo_store`, are reproducible across runs).
KEY_SEED = 0x6F70_7469

# stats slots, and how often the clock is read: every CHECK_EVERY nodes or bucket scans (a node can
# cost a thousand bucket scans of a large set, so counting nodes alone let a budget pass unseen)
NODES, ABORTED, SCANS, BOUND_SCANS, CHECK_EVERY = 0, 1, 2, 3, 64

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LEFT = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def memo_items(memo: Dict) -> tuple[np.ndarray, np.ndarray]:
    """Every ``(key, value)`` of a memo as two arrays (for saving it)."""
    keys = np.empty(len(memo), np.uint64)
    values = np.empty(len(memo), np.int64)
    i = 0
    for key, value in memo.items():
        keys[i] = key
        values[i] = value
        i += 1
    return keys, values


@njit(cache=True)
def memo_merge(memo: Dict, keys: np.ndarray, values: np.ndarray, keep_larger: bool) -> int:
    """Add saved entries to a memo; return how many were new. An entry already there is kept
    (exact values agree), or raised to the saved value when ``keep_larger`` (lower bounds)."""
    added = 0
    for i in range(keys.size):
        known = memo.get(keys[i], -1)
        if known < 0:
            memo[keys[i]] = values[i]
            added += 1
        elif keep_larger and values[i] > known:
            memo[keys[i]] = values[i]
    return added


@njit(cache=True, inline="always")
def mix64(x: np.uint64) -> np.uint64:
    """SplitMix64's finaliser: spreads the bits of a set hash."""
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


@njit(cache=True, inline="always")
def node_key(set_hash: np.uint64, left: int, allowed_hash: np.uint64) -> np.uint64:
    return mix64(set_hash ^ (np.uint64(left) * _LEFT)) ^ allowed_hash


#: Most links :func:`hard_hash` keeps (about 100 MB); past it, new ones are computed and not kept.
MAX_LINKS = 2_000_000


@njit(cache=True)
def hard_hash(links: Dict, allowed: np.ndarray, allowed_hash: np.uint64, codes: np.ndarray, guess: int,
              pattern: int, n_symbols: int, guess_keys: np.ndarray) -> np.uint64:
    """The set hash of the guesses hard mode allows once ``guess`` showed ``pattern`` among
    ``allowed`` (whose hash is ``allowed_hash``), kept in ``links`` by those three: a node searched
    again, against a larger beta, reads its buckets' memo entries without filtering the guesses."""
    link = mix64(allowed_hash ^ mix64((np.uint64(guess) << np.uint64(16)) | np.uint64(pattern)))
    if link in links:
        return np.uint64(links[link])  # its bits, kept as int64: a uint64-valued dict crashed the cached search
    h = set_hash(hard_filter(allowed, codes, guess, pattern, n_symbols), guess_keys)
    if len(links) < MAX_LINKS:
        links[link] = np.int64(h)
    return h


@njit(cache=True)
def probe(exact: Dict, floor: Dict, cands: np.ndarray, keys: np.ndarray, left: int, allowed: np.ndarray,
          guess_keys: np.ndarray, hard: bool) -> tuple[int, int]:
    """``(packed exact value or -1, proven floor or 0)`` of a subproblem in the memo."""
    allowed_hash = set_hash(allowed, guess_keys) if hard else np.uint64(0)
    key = node_key(set_hash(cands, keys), left, allowed_hash)
    return exact.get(key, -1), floor.get(key, 0)


@njit(cache=True)
def _timed_out(deadline: float) -> bool:
    with objmode(now="float64"):
        now = _clock()
    return now > deadline


def _clock() -> float:
    import time

    return time.perf_counter()


@njit(cache=True)
def solve_set(mt: np.ndarray, answer_guess: np.ndarray, codes: np.ndarray, keys: np.ndarray,
              guess_keys: np.ndarray, exact: Dict, floor: Dict, links: Dict, counts: np.ndarray, seen: np.ndarray,
              tally: np.ndarray, stamp: np.ndarray, clock: np.ndarray, params: np.ndarray, stats: np.ndarray,
              deadline: float,
              cls: np.ndarray, class_tally: np.ndarray,
              cands: np.ndarray, left: int, allowed: np.ndarray, beta: int) -> int:
    """:func:`search` for a set given with its allowed guesses (the hash is computed here)."""
    allowed_hash = set_hash(allowed, guess_keys) if params[1] else np.uint64(0)
    return search(mt, answer_guess, codes, keys, guess_keys, exact, floor, links, counts, seen, tally, stamp, clock,
                  params, stats, deadline, cls, class_tally, cands, left, allowed, allowed_hash, beta)


@njit(cache=True)
def search(mt: np.ndarray, answer_guess: np.ndarray, codes: np.ndarray, keys: np.ndarray, guess_keys: np.ndarray,
           exact: Dict, floor: Dict, links: Dict, counts: np.ndarray, seen: np.ndarray, tally: np.ndarray,
           stamp: np.ndarray,
           clock: np.ndarray, params: np.ndarray, stats: np.ndarray, deadline: float, cls: np.ndarray,
           class_tally: np.ndarray,
           cands: np.ndarray, left: int, allowed: np.ndarray, allowed_hash: np.uint64, beta: int) -> int:
    """The cost of the best tree for ``cands`` with ``left`` attempts if below ``beta``, else a
    lower bound that is at least ``beta`` (see the module docstring).

    ``params``: width (0: every guess), hard mode (0/1), the all-green pattern, symbols, classes
    (0/1: Nerdle's commutative rule, under which one guess wins every answer of its class ``cls``;
    ``class_tally`` is scratch space, one zeroed slot per class), the fewest answers a set needs to
    be bounded by :func:`least_lb_scan` (:data:`PRECHECK_MIN`), the bucket scans after which a node
    reads them from a copy of its rows (:data:`BLOCK_AFTER`).
    """
    n = cands.size
    if n == 1:
        return 1 if left >= 1 else INF
    cmax = class_max(cands, cls, class_tally) if params[4] else 1
    if cmax == n:  # one class: one guess wins them all
        return n if left >= 1 else INF
    if left <= 1:
        return INF
    if n == 2:
        return 3
    if stats[ABORTED]:
        return INF
    key = node_key(set_hash(cands, keys), left, allowed_hash)
    known = exact.get(key, -1)
    if known >= 0:
        return known >> GUESS_BITS
    low = max(2 * n - cmax, floor.get(key, 0))
    if low >= beta:
        return low
    stats[NODES] += 1
    if stats[NODES] % CHECK_EVERY == 0 and deadline > 0 and _timed_out(deadline):
        stats[ABORTED] = 1
        return INF
    width, hard, green, n_symbols = params[0], params[1], params[2], params[3]

    shortcut = perfect_candidate(mt, cands, answer_guess, stamp, clock) if cmax == 1 else -1
    if shortcut >= 0:
        exact[key] = ((2 * n - 1) << GUESS_BITS) | shortcut
        return 2 * n - 1
    if left == 2 and cmax == 1:  # every answer must be told apart by the next guess: the first that does
        splitter = perfect_splitter(mt, cands, allowed, green, stamp, clock)
        if 0 <= splitter and 2 * n < beta:
            exact[key] = ((2 * n) << GUESS_BITS) | splitter
            return 2 * n
        lowest = max(2 * n if splitter >= 0 else INF, beta)
        if lowest > floor.get(key, 0):
            floor[key] = lowest
        return lowest

    if cmax == 1 and n >= params[5]:  # most large sets fail against beta: the bit-table bound, 3x cheaper, says so
        stats[BOUND_SCANS] += 1
        first = least_lb_scan(mt, cands, allowed, green, seen, left, beta - 1)
        if first >= beta:  # what the scan would find: no guess below beta, the least bound stored
            if first > floor.get(key, 0):
                floor[key] = first
            return first
    m = allowed.size
    k = np.empty(m, np.int64)
    wins = np.empty(m, np.int64)
    sumsq = np.empty(m, np.int64)
    stats[SCANS] += 1
    scan(mt, cands, allowed, green, counts, k, wins, sumsq)
    lb = np.empty(m, np.int64)
    live = 0
    for j in range(m):
        if k[j] == 0 and wins[j] == 0:
            lb[j] = INF  # learns nothing
        else:
            lb[j] = guess_lb(n, k[j], wins[j], left, cmax)
        if lb[j] < beta:
            live += 1
    idx = np.empty(live, np.int64)
    rank = np.empty(live, np.int64)
    live = 0
    lowest = INF
    for j in range(m):
        if lb[j] < beta:
            idx[live] = j
            rank[live] = (lb[j] << 32) | sumsq[j]
            live += 1
        elif lb[j] < lowest:
            lowest = lb[j]
    ordered = idx[np.argsort(rank, kind="mergesort")]
    by_shown = allowed[:0]  # the allowed guesses by the patterns they show on cands, most first (when needed)
    shown = k[:0]
    scanned = 0  # buckets scanned at this node (normal mode); from params[6] on, read from block:
    block = mt[:0, :0]  # cands' rows of mt, columns in by_shown order
    columns = allowed[:0]
    shown_of = np.empty(0, np.int64)  # hard mode: each guess's patterns shown on cands, and its column in block
    column_of = np.empty(0, np.int64)
    row_of = np.empty(0, np.int64)  # each answer's row in block
    most = 0  # the most tile patterns any allowed guess shows on cands, so on any part of it
    for j in range(m):
        if k[j] + wins[j] > most:
            most = k[j] + wins[j]

    order = np.empty(n, cands.dtype)
    starts = np.empty(n, np.int64)
    sizes = np.empty(n, np.int64)
    patterns = np.empty(n, np.int64)
    hashes = np.empty(n, np.uint64)
    bounds = np.empty(n, np.int64)
    solved = np.zeros(n, np.bool_)
    run_rank = -1
    run_sigs = np.empty(16, np.uint64)
    n_sigs = 0
    best = beta
    best_guess = -1
    searched = 0
    for j in ordered:
        if lb[j] >= best:
            lowest = min(lowest, lb[j])
            break
        if width > 0 and searched >= width:
            break
        g = allowed[j]
        nb = split(mt, cands, g, green, keys, tally, order, starts, sizes, patterns, hashes)
        if not hard:
            sig = np.uint64(wins[j])
            for b in range(nb):
                sig += mix64(hashes[b])
            r = (lb[j] << 32) | sumsq[j]
            if r != run_rank:
                run_rank = r
                n_sigs = 0
            duplicate = False
            for s in range(min(n_sigs, run_sigs.size)):
                if run_sigs[s] == sig:
                    duplicate = True
                    break
            if duplicate:
                continue
            if n_sigs < run_sigs.size:
                run_sigs[n_sigs] = sig
            n_sigs += 1
        searched += 1
        total = lb[j]
        if cmax > 1:  # the bound per bucket, from the classes each holds
            total = n
            for b in range(nb):
                total += bucket_lb(sizes[b], left - 1, class_max(order[starts[b] : starts[b] + sizes[b]], cls,
                                                                   class_tally))
            if total >= best:
                lowest = min(lowest, total)
                continue
        # Tighten each bucket's bound from what is known cheaply before searching any of them: its
        # memo entry (exact cost or proven floor), else, without a candidate that splits the rest
        # into singletons, 2m instead of 2m - 1. A guess can fail here, with no search at all.
        failed = False
        nbig = 0
        for b in range(nb):
            size = sizes[b]
            if size <= 2:
                break  # largest first: the rest are exact already (1 or 3; with classes 1, 2 or 3)
            nbig += 1
            c = class_max(order[starts[b] : starts[b] + size], cls, class_tally) if cmax > 1 else 1
            base = bucket_lb(size, left - 1, c)
            bound = base
            solved[b] = False
            if base < INF:
                if not hard:
                    child_key = node_key(hashes[b], left - 1, allowed_hash)
                    known = exact.get(child_key, -1)
                    solved[b] = known >= 0
                    bound = (known >> GUESS_BITS) if known >= 0 else max(base, floor.get(child_key, 0))
                if c == 1 and part_lb(size, most) > bound:
                    bound = part_lb(size, most)
                if bound == base and c == 1 and perfect_candidate(
                        mt, order[starts[b] : starts[b] + size], answer_guess, stamp, clock) < 0:
                    bound = base + 1  # the best first guess wins one and leaves a pair, or wins none
            bounds[b] = bound
            total += bound - base
            if total >= best:
                failed = True
                break
        if failed:
            lowest = min(lowest, total)
            continue
        if cmax == 1:
            for b in range(nbig):
                size = sizes[b]
                if solved[b] or size < params[5]:
                    continue
                child = order[starts[b] : starts[b] + size]
                if hard:
                    child_hash = hard_hash(links, allowed, allowed_hash, codes, g, patterns[b], n_symbols, guess_keys)
                else:
                    child_hash = allowed_hash
                child_key = node_key(hashes[b], left - 1, child_hash)
                if hard:  # the first pass had no key to read the memo with
                    known = exact.get(child_key, -1)
                    bound = (known >> GUESS_BITS) if known >= 0 else max(bounds[b], floor.get(child_key, 0))
                    solved[b] = known >= 0
                    if bound > bounds[b]:
                        total += bound - bounds[b]
                        bounds[b] = bound
                        if total >= best:
                            failed = True
                            break
                if child_key in floor or solved[b]:
                    continue  # scanned or searched before: its bound is in bounds[b] already
                stats[BOUND_SCANS] += 1
                if stats[BOUND_SCANS] % CHECK_EVERY == 0 and deadline > 0 and _timed_out(deadline):
                    stats[ABORTED] = 1
                    return INF
                if left == 3:  # two attempts: solved here, as its own search would, by the first perfect splitter
                    if bounds[b] != 2 * size:
                        continue  # 2m - 1, a candidate splits the rest; or more, no guess can
                    child_allowed = hard_filter(allowed, codes, g, patterns[b], n_symbols) if hard else allowed
                    splitter = perfect_splitter(mt, child, child_allowed, green, stamp, clock)
                    if splitter >= 0:
                        exact[child_key] = ((2 * size) << GUESS_BITS) | splitter
                        solved[b] = True
                        continue
                    floor[child_key] = INF
                    total = INF
                    failed = True
                    break
                if by_shown.size == 0:
                    rank_shown = np.argsort(-(k + wins), kind="mergesort")
                    by_shown = allowed[rank_shown]
                    shown = (k + wins)[rank_shown]
                    if hard:  # where each guess stands in that order, to scan a child's allowed guesses in it
                        shown_of = np.zeros(mt.shape[1], np.int64)
                        column_of = np.zeros(mt.shape[1], np.int64)
                        for c in range(m):
                            shown_of[by_shown[c]] = shown[c]
                            column_of[by_shown[c]] = c
                scanned += 1
                if scanned == params[6]:  # many buckets to scan here: the set's rows in that order, once
                    block = np.empty((n, m), mt.dtype)
                    row_of = np.empty(mt.shape[0], np.int64)
                    for i in range(n):
                        row = mt[cands[i]]
                        for c in range(m):
                            block[i, c] = row[by_shown[c]]
                        row_of[cands[i]] = i
                    columns = np.arange(m).astype(allowed.dtype)
                if hard:  # the child's allowed guesses, in the order of the patterns they show here
                    guesses = hard_filter(by_shown, codes, g, patterns[b], n_symbols)
                    guesses_shown = shown_of[guesses]
                    if scanned >= params[6]:
                        guesses = column_of[guesses].astype(allowed.dtype)
                else:
                    guesses = columns if scanned >= params[6] else by_shown
                    guesses_shown = shown
                enough = bounds[b] + best - total  # refutes g: the scan may stop once its bound is past it
                if scanned >= params[6]:
                    rows = np.empty(size, cands.dtype)
                    for i in range(size):
                        rows[i] = row_of[child[i]]
                    first = least_lb_scan(block, rows, guesses, green, seen, left - 1, bounds[b], guesses_shown,
                                          enough)
                else:
                    first = least_lb_scan(mt, child, guesses, green, seen, left - 1, bounds[b], guesses_shown,
                                          enough)
                if first <= bounds[b]:
                    continue
                floor[child_key] = first
                total += first - bounds[b]
                bounds[b] = first
                if total >= best:
                    failed = True
                    break
            if failed:
                lowest = min(lowest, total)
                continue
        for b in range(nbig):
            size = sizes[b]
            if solved[b]:
                continue  # its exact cost is in total already
            rest = total - bounds[b]
            child = order[starts[b] : starts[b] + size].copy()
            sub = -1
            if hard:  # the memo read without the child's allowed guesses, which are filtered only to search
                child_hash = hard_hash(links, allowed, allowed_hash, codes, g, patterns[b], n_symbols, guess_keys)
                child_key = node_key(hashes[b], left - 1, child_hash)
                known = exact.get(child_key, -1)
                if known >= 0:
                    sub = known >> GUESS_BITS
                elif floor.get(child_key, 0) >= best - rest and cmax == 1:
                    sub = max(2 * size - 1, floor[child_key])  # what the search would return at once
            else:
                child_hash = allowed_hash
            if sub < 0:
                child_allowed = hard_filter(allowed, codes, g, patterns[b], n_symbols) if hard else allowed
                sub = search(mt, answer_guess, codes, keys, guess_keys, exact, floor, links, counts, seen, tally,
                             stamp, clock, params, stats, deadline, cls, class_tally, child, left - 1, child_allowed,
                             child_hash, best - rest)
            if stats[ABORTED]:
                return INF
            total = rest + sub
            if total >= best:
                failed = True
                break
        if failed:
            lowest = min(lowest, total)
        else:
            best = total
            best_guess = g
    if best_guess >= 0:
        exact[key] = (best << GUESS_BITS) | best_guess
        return best
    lowest = max(lowest, beta)
    if lowest > floor.get(key, 0):
        floor[key] = lowest
    return lowest
