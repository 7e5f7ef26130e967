"""Every baseline plays every answer of small games through the real environment.

* every supported baseline finishes every game when given enough attempts, guessing only legal
  actions (no hard-mode violation in hard games);
* the strong solvers win every game within the normal six attempts where the measurement says
  they do (Mini Nerdle, a 50-answer Wordle, Micro Nerdle for least-worst/expected/entropy).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from guessgym.agents.base import Agent, UnsupportedGameError
from guessgym.baselines import BASELINES, make_baseline
from guessgym.envs.env import GuessEnv
from guessgym.envs.game import Game, nerdle, wordle

ALL = sorted(BASELINES)


@cache
def _wordle50(hard: bool = False, max_attempts: int = 6) -> Game:
    nyt = wordle()
    return wordle(answers=nyt.answers[::46][:50], guesses=nyt.guesses, hard_mode=hard, max_attempts=max_attempts)


def _kwargs(name: str, game: Game) -> dict:
    """unique-chars needs openers that the game can play (its paper's are classic-only)."""
    if name != "unique-chars":
        return {}
    if game.kind == "wordle":
        return {"openers": ("raise", "mount")}
    return {"openers": {5: ("1+2=3",), 6: ("4*7=28", "10-9=1")}[game.length]}


def play_all(agent: Agent, game: Game) -> np.ndarray:
    """Guesses used for every answer (``max_attempts + 1`` for a loss)."""
    env = GuessEnv(game=game)
    out = []
    for answer in range(len(game.answers)):
        obs, info = env.reset(options={"answer": answer})
        agent.begin(game)
        done, steps, reward = False, 0, 0.0
        while not done:
            action = agent.act(obs, info)
            assert obs["action_mask"][action], "the agent chose a masked action"
            obs, reward, done, _, info = env.step(action)
            assert not info["invalid_action"], info["invalid_reason"]
            steps += 1
        out.append(steps if reward > 0 else game.max_attempts + 1)
    return np.array(out)


GAMES = {
    "micro-nerdle": lambda: nerdle(5, max_attempts=12),
    "mini-nerdle": lambda: nerdle(6, max_attempts=12),
    "mini-nerdle-hard": lambda: nerdle(6, max_attempts=12, hard_mode=True),
    "wordle-50": lambda: _wordle50(False, 12),
    "wordle-50-hard": lambda: _wordle50(True, 12),
}


@pytest.mark.parametrize("game_name", sorted(GAMES))
@pytest.mark.parametrize("name", ALL)
def test_every_baseline_solves_every_answer(name: str, game_name: str) -> None:
    game = GAMES[game_name]()
    agent = make_baseline(name, **_kwargs(name, game))
    if name == "clique" and (game.kind != "wordle" or game.hard_mode):
        with pytest.raises(UnsupportedGameError):
            agent.begin(game)
        return
    steps = play_all(agent, game)
    assert (steps <= game.max_attempts).all(), (
        f"unsolved: {[game.answers[i] for i in np.flatnonzero(steps > game.max_attempts)]}"
    )


# Measured: these never need more than the listed number of guesses.
WINS_WITHIN = [
    ("least-worst", "micro-nerdle", 5),
    ("expected-size", "micro-nerdle", 5),
    ("pattern-entropy", "micro-nerdle", 5),
    ("least-worst", "mini-nerdle", 4),
    ("expected-size", "mini-nerdle", 3),
    ("min-average", "mini-nerdle", 4),
    ("pattern-entropy", "mini-nerdle", 4),
    ("unique-chars", "mini-nerdle", 4),
    ("least-worst", "wordle-50", 3),
    ("expected-size", "wordle-50", 3),
    ("min-average", "wordle-50", 3),
    ("pattern-entropy", "wordle-50", 3),
    ("position-entropy", "wordle-50", 4),
    ("clique", "wordle-50", 6),
    ("least-worst", "wordle-50-hard", 4),
    ("min-average", "wordle-50-hard", 3),
]


@pytest.mark.parametrize(("name", "game_name", "limit"), WINS_WITHIN)
def test_strong_solvers_win_within_their_measured_bound(name: str, game_name: str, limit: int) -> None:
    game = GAMES[game_name]()
    steps = play_all(make_baseline(name, **_kwargs(name, game)), game)
    assert steps.max() <= limit


def test_min_average_depth2_solves_mini_nerdle() -> None:
    game = nerdle(6)
    steps = play_all(make_baseline("min-average", depth=2, max_depth2_candidates=None), game)
    assert steps.max() <= 4


def test_least_worst_hard_mode_variants_stay_legal_on_wordle_hard() -> None:
    game = _wordle50(True, 6)
    for kwargs in ({}, {"hard_pool": "all"}, {"tie_break": "first", "order": "game"}):
        steps = play_all(make_baseline("least-worst", **kwargs), game)
        assert steps.max() <= 6


@pytest.mark.parametrize("name", ALL)
def test_same_results_when_replayed_with_a_warm_memo(name: str) -> None:
    game = nerdle(6)
    if name == "clique":
        game = _wordle50()
    agent = make_baseline(name, **_kwargs(name, game))
    assert np.array_equal(play_all(agent, game), play_all(agent, game))
