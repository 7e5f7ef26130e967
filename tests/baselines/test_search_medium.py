"""The exact search's bucket bounds (issue 52): a guess's buckets are bounded by a scan of their own
before any is searched (from 16 answers, and from a copy of the set's rows after 8 such scans; here
from 3 answers and the first scan, so that these paths work on games a plain recursion can value),
and every bucket by the most tile patterns any guess shows on the whole set.
Against a plain memoised recursion over every guess, in normal and hard mode, on sets of real Wordle
answers from a few rhyming families (fight, light, might; bound, found; ...), which no guess
separates at once: the totals are the same, and every value and lower bound the search leaves in
its memo holds for the set it is stored under."""

from __future__ import annotations

import numpy as np
import pytest

from guessgym.baselines import search_kernels as K
from guessgym.baselines.optimal import INF, ExactSearch, SearchKernel
from guessgym.envs.candidates import HardModeRule
from guessgym.envs.game import Game, make_game, wordle
from guessgym.envs.scoring import all_green

State = tuple[tuple[int, ...], int, tuple[int, ...]]  # candidates, attempts left, guesses allowed


def reference_costs(game: Game, left: int) -> tuple[int, dict[State, int]]:
    """The fewest total guesses over every answer within ``left`` attempts, and that of every state
    it reached: every allowed guess at every state, memoised by the state, no bound of any kind (a
    guess's sum stops only once it is no longer the least)."""
    green = all_green(game.length)
    patterns = np.array([[game.score(g, a) for a in game.answers] for g in game.guesses])
    every = tuple(range(len(game.guesses)))
    rules: dict[tuple[int, ...], HardModeRule | None] = {every: HardModeRule(game) if game.hard_mode else None}
    memo: dict[State, int] = {}

    def best(cands: tuple[int, ...], left: int, allowed: tuple[int, ...]) -> int:
        if len(cands) == 1:
            return 1 if left >= 1 else INF
        if left <= 1:
            return INF
        if (cands, left, allowed) in memo:
            return memo[cands, left, allowed]
        out = INF
        for g in allowed:
            buckets: dict[int, list[int]] = {}
            for a in cands:
                buckets.setdefault(int(patterns[g, a]), []).append(a)
            if len(buckets) == 1 and green not in buckets:
                continue
            total = len(cands)
            for pattern, bucket in buckets.items():
                if pattern == green:
                    continue
                then, rule = allowed, rules[allowed]
                if rule is not None:
                    rule = rule.copy()
                    rule.add(g, pattern)
                    then = tuple(h for h in every if rule.violation(h) is None)
                    rules.setdefault(then, rule)
                total += best(tuple(bucket), left - 1, then)
                if total >= out:
                    break
            out = min(out, total)
        memo[cands, left, allowed] = out
        return out

    return best(tuple(range(len(game.answers))), left, every), memo


def memo_entries_hold(kernel: SearchKernel, truth: dict[State, int]) -> int:
    """Check every state the reference valued against the search's memo: an exact entry equals its
    value, a lower bound does not pass it. Returns how many states the memo held."""
    held = 0
    for (cands, left, allowed), value in truth.items():
        exact, floor = K.probe(kernel.exact, kernel.floor, np.array(cands, np.int32), kernel.keys, left,
                               np.array(allowed, np.int32), kernel.guess_keys, kernel.game.hard_mode)
        if exact >= 0:
            assert exact >> K.GUESS_BITS == value, (cands, left)
        assert floor <= value, (cands, left, floor, value)
        held += exact >= 0 or floor > 0
    return held


#: Rhyming families of the NYT answers; each game takes three of them whole.
FAMILIES = ("ight", "ound", "aste", "atch", "ill", "ake", "ore", "ash", "unk", "ack", "ank", "ump", "ail")


@pytest.mark.parametrize(("hard_mode", "seed"), [(False, 0), (False, 1), (False, 2), (False, 3), (True, 0), (True, 1)])
def test_the_search_with_its_bucket_bounds_equals_the_plain_recursion(seed: int, hard_mode: bool) -> None:
    nyt = make_game("guessgym/Wordle-v1")
    rng = np.random.default_rng(5200 + seed)
    answers = sorted(a for a in nyt.answers if a.endswith(tuple(rng.choice(FAMILIES, size=3, replace=False))))
    guesses = sorted(set(answers) | set(rng.choice(nyt.guesses, size=4, replace=False).tolist()))
    game = wordle(answers=answers, guesses=guesses, hard_mode=hard_mode)
    kernel = SearchKernel(game, ExactSearch(game).mt, 0, 0.0, None, scan_min=3, block_after=1)
    everyone = np.arange(len(game.answers), dtype=np.int32)
    held = 0
    for left in (3, 4, 5, 6):
        total, truth = reference_costs(game, left)
        assert kernel.cost(everyone, left, kernel.all_guesses, INF) == total, left
        held += memo_entries_hold(kernel, truth)
    assert kernel.stats[K.BOUND_SCANS] > 0 and held >= 10  # the bucket scans took part; the memo was checked


def test_the_bucket_scan_over_guesses_sorted_by_what_they_show_stops_at_the_same_bound() -> None:
    """With more guesses than one chunk of the bit table, a bucket's scan takes its guesses by how
    many patterns each shows on the whole set, most first, and stops where none left can go lower:
    the ``-ing`` family with 520 other guesses, where a wrong stop leaves a floor above the truth."""
    nyt = make_game("guessgym/Wordle-v1")
    answers = sorted(a for a in nyt.answers if a.endswith("ing"))
    others = np.random.default_rng(0).choice(sorted(set(nyt.guesses) - set(answers)), size=520, replace=False)
    game = wordle(answers=answers, guesses=sorted(set(answers) | set(others.tolist())))
    kernel = SearchKernel(game, ExactSearch(game).mt, 0, 0.0, None, scan_min=3, block_after=1)
    total, truth = reference_costs(game, 4)
    assert kernel.cost(np.arange(len(answers), dtype=np.int32), 4, kernel.all_guesses, INF) == total
    assert memo_entries_hold(kernel, truth) >= 5 and len(game.guesses) > 2 * K.BYTE_CHUNK


def test_a_part_costs_at_least_what_the_most_patterns_on_the_whole_allow() -> None:
    """:func:`search_kernels.part_lb`: every bucket of every guess of every state the plain recursion
    valued costs at least ``part_lb(size, most)``, ``most`` being the most patterns a guess shows on
    the state's whole set (rhyming families, where no guess shows many)."""
    nyt = make_game("guessgym/Wordle-v1")
    answers = sorted(a for a in nyt.answers if a.endswith(("ack", "ank")))
    game = wordle(answers=answers, guesses=answers)
    patterns = np.array([[game.score(g, a) for a in game.answers] for g in game.guesses])
    green = all_green(game.length)
    _, truth = reference_costs(game, 6)
    checked = 0
    for (cands, left, allowed), _ in truth.items():
        rows = patterns[np.ix_(allowed, cands)]
        most = max(len(set(row.tolist())) for row in rows)
        for row in rows:
            for pattern in set(row.tolist()) - {green}:
                part = tuple(c for c, p in zip(cands, row, strict=True) if p == pattern)
                if len(part) >= 2 and left - 1 >= 2 and (part, left - 1, allowed) in truth:
                    assert truth[part, left - 1, allowed] >= K.part_lb(len(part), most), (part, most)
                    checked += 1
    assert checked > 100
