"""random-consistent: uniform over the candidates, deterministic per (seed, game, history)."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest

from guessgym.baselines import make_baseline
from guessgym.envs.env import GuessEnv
from guessgym.envs.game import nerdle


def _games(agent, game, answers) -> list[list[str]]:
    env = GuessEnv(game=game)
    out = []
    for a in answers:
        obs, info = env.reset(options={"answer": a})
        agent.begin(game)
        done, guesses = False, []
        while not done:
            action = agent.act(obs, info)
            assert game.guesses[action] in {game.answers[i] for i in agent.state.candidates.indices}
            obs, _, done, _, info = env.step(action)
            guesses.append(info["guess"])
        out.append(guesses)
    return out


def test_deterministic_per_seed_and_history_regardless_of_order() -> None:
    game = nerdle(6)
    answers = list(range(0, 206, 9))
    a = _games(make_baseline("random-consistent", seed=3), game, answers)
    b = _games(make_baseline("random-consistent", seed=3), game, answers[::-1])[::-1]
    c = _games(pickle.loads(pickle.dumps(make_baseline("random-consistent", seed=3))), game, answers)
    assert a == b == c
    other = _games(make_baseline("random-consistent", seed=4), game, answers)
    assert other != a


def test_roughly_uniform_over_candidates() -> None:
    game = nerdle(6)
    firsts = Counter()
    for seed in range(600):
        agent = make_baseline("random-consistent", seed=seed)
        agent.begin(game)
        firsts[agent.propose()] += 1
    # 206 candidates, 600 draws: many distinct openers, none dominating
    assert len(firsts) > 120 and max(firsts.values()) < 15


def test_seed_must_be_an_int() -> None:
    with pytest.raises(TypeError):
        make_baseline("random-consistent", seed="0")
