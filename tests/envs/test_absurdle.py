"""Absurdle: the host's choice checked by hand on a small list, the game's end, both checkers,
pickling, bad input, baselines in the shared evaluation loop."""

from __future__ import annotations

import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import guessgym  # noqa: F401
from guessgym.agents.registry import make_agent
from guessgym.envs.absurdle import AbsurdleEnv, host_choice
from guessgym.envs.game import wordle
from guessgym.envs.scoring import pattern_to_tiles, score, tiles_to_pattern
from guessgym.evaluation.evaluate import evaluate
from guessgym.evaluation.report import result_markdown

WORDS = ["crane", "crate", "grate", "slate", "plate", "place", "plane", "spare"]


def test_the_host_keeps_the_largest_bucket_by_hand() -> None:
    # "slate" against the list, worked out by hand (s l a t e against each word):
    tiles = {w: pattern_to_tiles(score("slate", w), 5) for w in WORDS}
    assert tiles == {"crane": "BBGBG", "crate": "BBGGG", "grate": "BBGGG", "slate": "GGGGG", "plate": "BGGGG",
                     "place": "BGGBG", "plane": "BGGBG", "spare": "GBGBG"}
    env = AbsurdleEnv(answers=WORDS)
    env.reset()
    _, reward, terminated, _, info = env.step(env.game.guess_index["slate"])
    # buckets: BBGGG {crate, grate} and BGGBG {place, plane} tie at 2; BBGGG has 3 greens, BGGBG 3 greens,
    # both no yellow: the smaller pattern code wins
    first, second = tiles_to_pattern("BBGGG"), tiles_to_pattern("BGGBG")
    expected = min(first, second)
    assert info["pattern"] == expected and info["candidates"] == 2 and not terminated and reward == 0.0
    kept = sorted(env.game.answers[a] for a in env.candidates)
    assert kept == (["crate", "grate"] if expected == first else ["place", "plane"])


def test_ties_go_to_the_least_information() -> None:
    # one answer per bucket: the pattern with the fewest greens, then yellows, is kept
    answers = ["crane", "crate", "grate", "slate"]
    patterns = np.array([score("crane", a) for a in answers])
    assert pattern_to_tiles(host_choice(patterns, 5), 5) == "BBGBG"  # slate's: 2 greens, the fewest
    assert host_choice(np.array([score("crane", "crane")]), 5) == tiles_to_pattern("GGGGG")  # the only one left


def test_the_host_concedes_only_the_last_answer() -> None:
    env = AbsurdleEnv(answers=WORDS)
    env.reset()
    played = []
    while True:
        guess = env.game.answers[int(env.candidates[0])]
        played.append(guess)
        _, reward, terminated, _, info = env.step(env.game.guess_index[guess])
        if terminated:
            break
        assert info["candidates"] >= 1 and info["tiles"] != "GGGGG"
    assert reward == 1.0 and info["answer"] == played[-1] and info["candidates_left"] == [played[-1]]


def test_a_capped_game_is_lost_at_its_limit() -> None:
    env = AbsurdleEnv(answers=WORDS, max_attempts=1, loss_reward=-1.0)
    obs, info = env.reset()
    assert obs["board"].shape == (5,)
    _, reward, terminated, _, info = env.step(env.game.guess_index["slate"])
    assert terminated and reward == -1.0 and info["answer"] == "" and len(info["candidates_left"]) == 2
    with pytest.raises(RuntimeError, match="after the game ended"):
        env.step(0)


@pytest.mark.parametrize("env_id", ["guessgym/Absurdle-v0"])
def test_both_checkers_and_pickling(env_id: str) -> None:
    env = gym.make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gym_check_env(env.unwrapped)
        sb3_check_env(env, warn=True)
    raw = env.unwrapped
    raw.reset(seed=0)
    raw.step(10)
    copy = pickle.loads(pickle.dumps(raw))
    for action in (20, 30):
        a, b = raw.step(action), copy.step(action)
        assert a[1:4] == b[1:4] and a[4]["tiles"] == b[4]["tiles"] and (a[0]["tiles"] == b[0]["tiles"]).all()


def test_bad_input_is_named() -> None:
    env = AbsurdleEnv(answers=WORDS)
    with pytest.raises(ValueError, match="Absurdle has no fixed answer"):
        env.reset(options={"answer": "crane"})
    with pytest.raises(ValueError, match="hard mode is not defined for Absurdle"):
        AbsurdleEnv(hard_mode=True)
    with pytest.raises(TypeError, match="not both"):
        AbsurdleEnv(game=wordle(), length=5)
    with pytest.raises(ValueError, match="no answers to choose"):
        evaluate(make_agent("least-worst"), "guessgym/Absurdle-v0", answers=["crane"])


@pytest.mark.parametrize("name", ["least-worst", "expected-size", "most-buckets", "min-average"])
def test_baselines_win_absurdle_in_the_shared_loop(name: str) -> None:
    result = evaluate(make_agent(name), "guessgym/Absurdle-v0", record_guesses=True)
    record = result.records[0]
    assert result.n_games == 1 and record.solved and record.played[-1] == record.answer
    assert result.meta["absurdle"] == {"max_attempts": None} and record.guesses <= 6
    env = gym.make("guessgym/Absurdle-v0").unwrapped
    env.reset()
    for guess in record.played:  # replayed: the same host answers, the same end
        _, _, terminated, _, info = env.step(env.game.guess_index[guess])
    assert terminated and info["answer"] == record.answer


def test_with_commutative_answers_the_host_concedes_only_when_it_must() -> None:
    # 1+2=3 and 2+1=3 are won together; the winning bucket is the largest, yet the host keeps 9-5=4
    from guessgym.envs.game import nerdle

    game = nerdle(5, answers=["1+2=3", "2+1=3", "9-5=4"], guesses="answers", commutative=True)
    env = AbsurdleEnv(game=game)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(game.guess_index["1+2=3"])
    assert not terminated and reward == 0.0 and [game.answers[a] for a in env.candidates] == ["9-5=4"]
    _, reward, terminated, _, info = env.step(game.guess_index["9-5=4"])
    assert terminated and reward == 1.0 and info["answer"] == "9-5=4"
    # when every answer left is a rearrangement of the guess, all green is the only bucket
    env.reset(seed=0)
    env.step(game.guess_index["9-5=4"])
    assert sorted(game.answers[a] for a in env.candidates) == ["1+2=3", "2+1=3"]
    _, reward, terminated, _, info = env.step(game.guess_index["2+1=3"])
    assert terminated and info["tiles"] == "GGGGG" and sorted(info["candidates_left"]) == ["1+2=3", "2+1=3"]


@pytest.mark.parametrize("env_id", ["guessgym/Absurdle-v0", "guessgym/Wordle-v1", "guessgym/Quordle-v0",
                                    "guessgym/MicroNerdle-v1"])
def test_one_penalty_convention_for_every_env(env_id: str) -> None:
    """Issue 22, item 9: the docs said a negative step_penalty rewards finishing sooner while the
    code paid +0.1 a guess for -0.1 (and Absurdle has no cap: an agent learned never to finish).
    Every penalty is now added, 0 or negative; a positive one is refused, naming the change."""
    with pytest.raises(ValueError, match=r"step_penalty must be 0 or negative .*write -0.1"):
        gym.make(env_id, step_penalty=0.1)
    env = gym.make(env_id, step_penalty=-0.1)
    _, info = env.reset(seed=0)
    game = env.unwrapped.game
    losing = next(g for g in range(len(game.guesses)) if not game.guess_is_answer[g]) \
        if not game.guess_is_answer.all() else 0
    _, reward, terminated, _, _ = env.step(losing)
    assert not terminated and reward == pytest.approx(-0.1)
    if "Quordle" not in env_id:
        vec = gym.make_vec(env_id, 2, vectorization_mode="sync", step_penalty=-0.1)
        vec.reset(seed=0)
        _, rewards, _, _, _ = vec.step(np.array([losing, losing]))
        assert rewards.tolist() == pytest.approx([-0.1, -0.1])


def test_the_table_of_an_uncapped_game_counts_no_loss_as_limit_plus_one() -> None:
    """Issue 24: Absurdle's table said "mean (X = 6)" for a game with no attempt limit."""
    uncapped = evaluate(make_agent("least-worst"), "guessgym/Absurdle-v0", env_kwargs={"answers": WORDS})
    assert "no attempt limit" in result_markdown(uncapped) and "(X = " not in result_markdown(uncapped)
    capped = evaluate(make_agent("least-worst"), "guessgym/Absurdle-v0", env_kwargs={"answers": WORDS},
                      max_attempts=6)
    assert "mean (X = 7)" in result_markdown(capped)
