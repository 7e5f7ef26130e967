"""The published optimal Wordle totals, each reproduced by the exact solver with its fixed opener
(slow: seconds to ten minutes per row; run with ``pytest -m slow``)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

import guessgym  # noqa: F401
from guessgym.baselines.optimal import solve
from guessgym.evaluation.tree_checks import verify_tree

PUBLISHED: list[tuple[str, dict[str, Any], str, int, int]] = [
    ("guessgym/Wordle-v1", {}, "salet", 7897, 5),
    ("guessgym/WordleHard-v1", {}, "salet", 8099, 6),
    ("guessgym/Wordle-v1", {"word_list": "original"}, "salet", 7920, 5),
    ("guessgym/Wordle-v1", {"word_list": "nyt2022"}, "tarse", 7883, 6),
    ("guessgym/Wordle-v1", {"word_list": "nyt2023"}, "tarse", 11219, 6),
    ("guessgym/WordleHard-v1", {"word_list": "nyt2023"}, "tarse", 11627, 6),
]


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "kwargs", "opener", "total", "max_depth"), PUBLISHED)
def test_the_published_optimal_totals(env_id: str, kwargs: dict[str, Any], opener: str, total: int,
                                      max_depth: int) -> None:
    env = gym.make(env_id, **kwargs)
    result = solve(env.unwrapped.game, opener=opener)
    assert result.total == total and result.proven and result.tree.max_depth <= max_depth
    check = verify_tree(result.tree, env)
    assert check.ok and check.total == total


@pytest.mark.slow
def test_a_near_optimal_tree_of_wordle_is_within_0_3_percent() -> None:
    env = gym.make("guessgym/Wordle-v1")
    result = solve(env.unwrapped.game, opener="salet", width=3)
    assert 7897 <= result.total <= 7897 * 1.003 and verify_tree(result.tree, env).ok
