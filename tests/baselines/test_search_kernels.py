"""The exact search's compiled kernels against slow obvious references: the hard-mode rule, the set
hash and memo tables, the bucket scan, and the lower bounds on small brute-forced games."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from guessgym.baselines import search_kernels as K
from guessgym.baselines.memo_tables import new_memo, set_hash
from guessgym.envs.candidates import hard_filter
from guessgym.envs.game import nerdle, wordle
from guessgym.envs.matrix import PatternMatrix
from guessgym.envs.scoring import num_patterns, score

WORDS = ["crane", "crate", "slate", "plate", "trace", "caret", "react", "stare", "tears", "rates", "arise",
         "raise", "store", "stone", "tones", "notes", "onset", "steno", "ample", "maple", "eerie", "geese"]
GAME = wordle(answers=WORDS, guesses=WORDS)


def allowed_by_strings(guess: str, played: str, pattern: int) -> bool:
    tiles = [(pattern // 3**i) % 3 for i in range(len(played))]
    if any(t == 2 and guess[i] != played[i] for i, t in enumerate(tiles)):
        return False
    shown = Counter(played[i] for i, t in enumerate(tiles) if t > 0)
    return all(guess.count(letter) >= n for letter, n in shown.items())


@given(st.integers(0, len(WORDS) - 1), st.integers(0, len(WORDS) - 1), st.sets(st.integers(0, len(WORDS) - 1)))
def test_hard_filter_is_the_rule_on_strings(guess: int, answer: int, allowed: set[int]) -> None:
    pattern = score(WORDS[guess], WORDS[answer])
    subset = np.array(sorted(allowed), dtype=np.int64)
    kept = hard_filter(subset, GAME.guess_codes, guess, pattern, GAME.n_symbols).tolist()
    assert kept == [h for h in sorted(allowed) if allowed_by_strings(WORDS[h], WORDS[guess], pattern)]


@given(st.permutations(list(range(12))), st.integers(1, 11))
def test_the_set_hash_ignores_order_and_tells_sets_apart(order: list[int], cut: int) -> None:
    keys = np.random.default_rng(K.KEY_SEED).integers(0, 2**63, size=12, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    whole = set_hash(np.array(sorted(order), dtype=np.int64), keys)
    assert set_hash(np.array(order, dtype=np.int64), keys) == whole
    assert set_hash(np.array(order[:cut], dtype=np.int64), keys) != whole


def test_memo_merge_keeps_exact_values_and_raises_lower_bounds() -> None:
    memo = new_memo()
    memo[np.uint64(1)] = 5
    added = K.memo_merge(memo, np.array([1, 2], dtype=np.uint64), np.array([9, 7], dtype=np.int64), False)
    assert added == 1 and memo[np.uint64(1)] == 5 and memo[np.uint64(2)] == 7
    K.memo_merge(memo, np.array([1], dtype=np.uint64), np.array([9], dtype=np.int64), True)
    keys, values = K.memo_items(memo)
    assert dict(zip(keys.tolist(), values.tolist())) == {1: 9, 2: 7}
    assert len(new_memo("bool")) == 0


def test_the_scan_counts_buckets_and_wins_as_the_strings_do() -> None:
    game = nerdle(5)
    mt = np.ascontiguousarray(PatternMatrix.for_game(game, cache=False).dense.T)
    cands = np.arange(0, len(game.answers), 3, dtype=np.int64)
    guesses = np.arange(len(game.guesses), dtype=np.int64)
    out_k, out_wins, out_sumsq = (np.zeros(len(guesses), np.int64) for _ in range(3))
    counts = np.zeros((K.CHUNK, num_patterns(game.length)), np.uint16)
    K.scan(mt, cands, guesses, game.solved_pattern, counts, out_k, out_wins, out_sumsq)
    for g in range(0, len(guesses), 7):
        buckets = Counter(score(game.guesses[g], game.answers[a]) for a in cands)
        wins = buckets.pop(game.solved_pattern, 0)
        assert (out_k[g], out_wins[g]) == (len(buckets), wins)
        assert out_sumsq[g] == sum(n * n for n in buckets.values()) + wins * wins
    assert not counts.any()  # the scratch table is left zeroed


def least_lb_by_counting(mt: np.ndarray, cands: np.ndarray, guesses: np.ndarray, green: int, left: int) -> int:
    """The least ``guess_lb`` over ``guesses``, each guess's buckets counted with a Counter."""
    best = K.INF
    for g in guesses:
        buckets = Counter(int(mt[a, g]) for a in cands)
        wins = buckets.pop(green, 0)
        if buckets or wins:
            best = min(best, K.guess_lb(len(cands), len(buckets), wins, left))
    return best


def random_plain_game(rng: np.random.Generator, m: int, n_patterns: int, n_answers: int = 80) -> np.ndarray:
    """A random pattern matrix (answers x guesses) of a plain game: few patterns per guess, so that
    buckets collide as in a real bucket, and guess ``a`` all green on answer ``a`` alone."""
    green = n_patterns - 1
    few = rng.integers(1, 4)
    mt = rng.integers(0, few + 1, size=(n_answers, m)).astype(np.uint16) * (green // (few + 1))
    for a in range(min(n_answers, m)):
        mt[a, a] = green
    return mt


def scratch_table(n_patterns: int, bits: bool) -> np.ndarray:
    """The table :func:`least_lb_scan` is given: the search's own, or one bit a pattern (the way
    Nerdle's pattern counts always take, tried on Wordle's count too)."""
    return np.zeros((K.BIT_CHUNK, -(-n_patterns // 64)), np.uint64) if bits else K.scan_table(n_patterns)


@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.integers(1, 300), st.sampled_from([243, 6561]),
       st.booleans(), st.integers(2, 6), st.booleans())
def test_the_bit_table_scan_gives_the_least_guess_bound_of_the_counts(seed: int, n: int, m: int, n_patterns: int,
                                                                       subset: bool, left: int, bits: bool) -> None:
    """:func:`least_lb_scan` on random matrices of a plain game (each guess all green on at most
    one answer, its own): small and large sets (its ways of counting), Wordle's and Nerdle's
    pattern counts with a byte or a bit per pattern, every guess (read in place) or a subset (hard
    mode's allowed guesses)."""
    rng = np.random.default_rng(seed)
    green = n_patterns - 1
    mt = random_plain_game(rng, m, n_patterns)
    cands = np.sort(rng.choice(mt.shape[0], size=min(n, mt.shape[0]), replace=False)).astype(np.int32)
    guesses = np.arange(m, dtype=np.int32)
    if subset:
        guesses = np.sort(rng.choice(m, size=rng.integers(1, m + 1), replace=False)).astype(np.int32)
    seen = scratch_table(n_patterns, bits)
    got = K.least_lb_scan(mt, cands, guesses, green, seen, left)
    assert got == least_lb_by_counting(mt, cands, guesses, green, left)
    assert not seen.any()  # the table is left zeroed


@given(st.integers(0, 2**32 - 1), st.integers(2, 60), st.integers(1, 300), st.sampled_from([243, 6561]),
       st.integers(3, 6), st.integers(0, 400), st.booleans())
def test_a_part_scanned_by_what_the_whole_shows_stops_at_the_least_or_past_enough(
        seed: int, n: int, m: int, n_patterns: int, left: int, enough: int, bits: bool) -> None:
    """A part of a set scanned with its guesses sorted by the patterns each shows on the whole
    (``shown``) gives the least bound when that is below ``enough``; otherwise a bound that is at
    least ``enough`` and never above the least."""
    rng = np.random.default_rng(seed)
    green = n_patterns - 1
    mt = random_plain_game(rng, m, n_patterns)
    whole = np.sort(rng.choice(mt.shape[0], size=rng.integers(n, mt.shape[0] + 1), replace=False)).astype(np.int32)
    part = np.sort(rng.choice(whole, size=n, replace=False)).astype(np.int32)
    shows = np.array([len(set(mt[whole, g].tolist())) for g in range(m)])
    rank = np.argsort(-shows, kind="mergesort")
    guesses, shown = rank.astype(np.int32), shows[rank]
    seen = scratch_table(n_patterns, bits)
    got = K.least_lb_scan(mt, part, guesses, green, seen, left, 0, shown, enough)
    least = least_lb_by_counting(mt, part, guesses, green, left)
    assert got == least if least < enough else enough <= got <= least
    assert not seen.any()


@given(st.integers(1, 40), st.integers(0, 6))
def test_the_lower_bounds_hold_their_stated_form(m: int, left: int) -> None:
    bound = K.bucket_lb(m, left)
    if left == 0:
        assert bound == K.INF
    elif m == 1:
        assert bound == 1
    else:
        assert bound == (K.INF if left == 1 else 2 * m - 1)  # one answer won by the next guess, the rest in two
