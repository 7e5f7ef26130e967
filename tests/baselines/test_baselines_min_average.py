"""Min-average (expectimin) of nerdle_min_average_report.txt: hand-checked toys, a brute-force
reference of Algorithms 9/10, the classic Nerdle opener, and the depth-2 fallback."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from guessgym.baselines import make_baseline
from guessgym.baselines.min_average import depth1_values, depth2_values
from guessgym.envs.game import nerdle, wordle
from guessgym.envs.matrix import PatternMatrix
from guessgym.envs.scoring import score

TOY = ["abc", "abd", "abe", "xyz"]


def test_toy_values_by_hand() -> None:
    game = wordle(3, answers=TOY)
    m = PatternMatrix.for_game(game, cache=False)
    cands = np.arange(4)
    # depth 1, sum(s^2) / sum(s):
    #   abc -> abc GGG, abd GG_, abe GG_, xyz ___: buckets 1, 2, 1 -> 6/4 = 1.5 (abd, abe alike)
    #   xyz -> ___ for abc, abd, abe, GGG for xyz: buckets 3, 1 -> 10/4 = 2.5
    assert list(depth1_values(m, cands)) == [1.5, 1.5, 1.5, 2.5]
    # depth 2: abc's buckets {abc}, {abd, abe}, {xyz} all have value 1 (one or two equations),
    # so nr/dr = 3/3 = 1. xyz's bucket {abc, abd, abe}: any inner guess splits it 1 + 2 -> value
    # (1 + 4)/3 = 5/3; {xyz} -> 1; nr/dr = (25/9 + 1) / (5/3 + 1) = 17/12.
    assert depth2_values(m, cands) == pytest.approx([1.0, 1.0, 1.0, 17 / 12], rel=1e-12)
    for depth in (1, 2):
        agent = make_baseline("min-average", depth=depth)
        agent.begin(game)
        assert game.guesses[agent.propose()] == "abc"  # first strictly smaller value wins


def _reference_value(guess: str, cands: list[str], depth: int) -> Fraction:
    """Algorithms 9/10 literally, with exact fractions: a computer node's value is
    sum(v^2)/sum(v) over its feedback children; a user node takes the minimum over the
    remaining equations."""
    buckets: dict[int, list[str]] = {}
    for c in cands:
        buckets.setdefault(score(guess, c), []).append(c)
    if depth == 1:
        values = [Fraction(len(b)) for b in buckets.values()]
    else:
        values = [min(_reference_value(g, b, depth - 1) for g in b) for b in buckets.values()]
    return sum(v * v for v in values) / sum(values)


@pytest.mark.parametrize("seed", range(6))
def test_kernels_match_a_brute_force_expectimin(seed: int) -> None:
    game = nerdle(6)
    rng = np.random.default_rng(seed)
    cands = np.sort(rng.choice(len(game.answers), size=int(rng.integers(3, 40)), replace=False))
    words = [game.answers[i] for i in cands]
    m = PatternMatrix.for_game(game)
    for depth, fn in ((1, depth1_values), (2, depth2_values)):
        got = fn(m, cands)
        want = [float(_reference_value(w, words, depth)) for w in words]
        assert got == pytest.approx(want, rel=1e-12)


def test_depth2_can_disagree_with_depth1_and_uses_its_own_values() -> None:
    # find a candidate set of Mini Nerdle where the two depths choose differently, and check that
    # each agent plays the first minimiser of its own values
    game = nerdle(6)
    m = PatternMatrix.for_game(game)
    rng = np.random.default_rng(0)
    for _ in range(200):
        cands = np.sort(rng.choice(len(game.answers), size=25, replace=False))
        v1, v2 = depth1_values(m, cands), depth2_values(m, cands)
        if np.argmin(v1) != np.argmin(v2):
            break
    else:
        pytest.fail("no disagreement found")
    from guessgym.agents.base import SolverState
    from guessgym.envs.candidates import Candidates

    state = SolverState(game, Candidates(game, cands, m), 1, [], None)
    for depth, values in ((1, v1), (2, v2)):
        agent = make_baseline("min-average", depth=depth)
        agent.begin(game)
        assert agent.choose(state) == game.answer_to_guess[cands[int(np.argmin(values))]]


def test_depth2_falls_back_to_depth1_on_large_sets() -> None:
    agent = make_baseline("min-average", depth=2, max_depth2_candidates=10)
    assert agent.effective_depth(10) == 2 and agent.effective_depth(11) == 1
    assert make_baseline("min-average", depth=2, max_depth2_candidates=None).effective_depth(10**6) == 2
    assert make_baseline("min-average", depth=1).effective_depth(3) == 1
    game = nerdle(6)
    deep, shallow = agent, make_baseline("min-average")
    deep.begin(game)
    shallow.begin(game)
    assert deep.propose() == shallow.propose()  # 206 candidates > 10: the depth-1 choice


def test_classic_nerdle_opener_is_48_32_16_not_48_16_32() -> None:
    game = nerdle(8)
    agent = make_baseline("min-average")
    agent.begin(game)
    assert game.guesses[agent.propose()] == "48-32=16"
    values = agent.values(agent.state)
    assert values[game.answer_index["48-32=16"]] == pytest.approx(31.110026519, abs=1e-8)
    # the report's opener (section 9.3) is worse at depth 1, and its largest bucket is 116 > 110
    assert values[game.answer_index["48-16=32"]] == pytest.approx(32.994696158, abs=1e-8)
    row = agent.matrix.row(game.guess_index["48-16=32"])
    assert max(Counter(row.tolist()).values()) == 116
