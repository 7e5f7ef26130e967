"""The exact solver: against every tree of tiny games, never worse than a greedy baseline, and the
published Micro Nerdle optimum (2.94 by dynamic programming)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import guessgym  # noqa: F401
from guessgym.agents.base import UnsupportedGameError
from guessgym.agents.evaluate import evaluate
from guessgym.agents.registry import make_agent
from guessgym.agents.trees import record_tree, verify_tree
from guessgym.baselines.optimal import INFEASIBLE, solve
from guessgym.envs.game import Game, nerdle, wordle
from guessgym.envs.scoring import all_green, score


def brute_force(game: Game, max_attempts: int) -> int:
    """The minimum total over every tree, by plain recursion over every guess (no bounds, no memo)."""
    green = all_green(game.length)

    def best(cands: tuple[str, ...], left: int) -> int:
        if len(cands) == 1:
            return 1 if left >= 1 else INFEASIBLE
        if left <= 1:
            return INFEASIBLE
        out = INFEASIBLE
        for guess in game.guesses:
            buckets: dict[int, list[str]] = {}
            for a in cands:
                buckets.setdefault(score(guess, a), []).append(a)
            if len(buckets) == 1 and green not in buckets:
                continue
            total = len(cands) + sum(best(tuple(b), left - 1) for p, b in buckets.items() if p != green)
            out = min(out, total)
        return out

    return best(game.answers, max_attempts)


WORDS = ["crane", "crate", "grate", "slate", "plate", "place", "space", "spade", "shade", "share", "stare",
         "scare", "score", "store", "stone", "shone", "phone", "prone", "drone", "crone"]


@pytest.mark.parametrize("seed", range(12))
def test_equal_to_brute_force_on_tiny_games(seed: int) -> None:
    rng = np.random.default_rng(seed)
    answers = sorted(rng.choice(WORDS, size=int(rng.integers(3, 8)), replace=False).tolist())
    extra = sorted(set(rng.choice(WORDS, size=3, replace=False).tolist()) - set(answers))
    game = wordle(answers=answers, guesses=answers + extra)
    for attempts in (2, 3, 6):
        expected = brute_force(game, attempts)
        if expected >= INFEASIBLE:
            with pytest.raises(ValueError, match="no tree solves every answer"):
                solve(game, max_attempts=attempts)
            continue
        result = solve(game, max_attempts=attempts)
        assert result.total == expected, (answers, extra, attempts)
        assert result.tree.max_depth <= attempts
        check = verify_tree(result.tree, gym.make("guessgym/Wordle-v1", game=game))
        assert check.ok and check.total == expected


@pytest.mark.parametrize(("length", "total"), [(5, 374), (6, 544)])
def test_small_nerdle_optima_beat_or_equal_every_greedy_baseline(length: int, total: int) -> None:
    game = nerdle(length)
    result = solve(game)
    assert result.total == total  # Micro: 374 / 127 = 2.9449, the published 2.94
    env_id = {5: "guessgym/MicroNerdle-v1", 6: "guessgym/MiniNerdle-v1"}[length]
    assert verify_tree(result.tree, gym.make(env_id)).ok
    for name in ("least-worst", "expected-size", "min-average", "pattern-entropy", "position-entropy"):
        records = evaluate(make_agent(name), game, progress=False).records
        greedy = sum(r.guesses if r.solved else game.max_attempts + 1 for r in records)
        assert result.total <= greedy, name
    assert result.total < record_tree(make_agent("least-worst"), game).total


def test_options_fixed_opener_and_attempt_limit() -> None:
    game = nerdle(5)
    free = solve(game)
    fixed = solve(game, opener="8-1=7")
    assert fixed.tree.root.guess == "8-1=7" and fixed.total >= free.total
    tight = solve(game, max_attempts=4)
    assert tight.tree.max_depth <= 4 and tight.total >= free.total
    with pytest.raises(UnsupportedGameError, match="hard mode"):
        solve(nerdle(5, hard_mode=True))
