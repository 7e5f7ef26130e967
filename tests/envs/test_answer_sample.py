"""Seeded answer samples (``answer_sample``, ``sample_seed``), closed Wordle games (``guesses="answers"``)
and the benchmark's registered ids built from them."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import guessgym  # noqa: F401  (registers the ids)
from guessgym.envs.env import games_of_spaces, observation_space
from guessgym.envs.game import held_out_answers, make_game, nerdle, sample_answers, wordle
from guessgym.envs.registration import BENCHMARK_SPECS, ENV_SPECS

#: The benchmark ids' games, pinned: a change to the sampling (or to numpy's permutation) changes a
#: benchmark tier and must be a new protocol version, not a silent drift.
FINGERPRINTS = {
    "guessgym/Wordle100-v0": "5ce9936f377477daee0907a1",
    "guessgym/Wordle500-v0": "b28e5d48a76efe525b916e37",
    "guessgym/WordleHalf-v0": "f19147c56feb0b1bc4061bf1",
    "guessgym/Wordle500Train-v0": "15be229d1f8f905d95dd9911",
    "guessgym/WordleTrain-v0": "7d543d5920886881f8e55cb3",
    "guessgym/WordleHardTrain-v0": "7d543d5920886881f8e55cb3",  # the fingerprint is of the lists, not the mode
    "guessgym/WordleHalfTrain-v0": "0b333a8cdd9960831b8e4534",
}


def test_a_sample_is_the_head_of_a_seeded_permutation_in_list_order() -> None:
    full = wordle()
    sample = make_game(answer_sample=100, guesses="answers")
    order = np.random.default_rng(0).permutation(len(full.answers))[:100]
    assert sample.answers == tuple(full.answers[i] for i in sorted(order))
    assert sample.guesses == sample.answers and sample.name == "wordle-5-nyt-sample100-closed"
    bigger = make_game(answer_sample=500, guesses="answers")
    assert set(sample.answers) < set(bigger.answers)  # nested: a larger sample holds every smaller one
    other = make_game(answer_sample=100, sample_seed=1, guesses="answers")
    assert other.answers != sample.answers and other.name.endswith("-seed1-closed")


def test_an_open_sample_keeps_every_guess() -> None:
    half = make_game("guessgym/Wordle-v1", answer_sample=1155)
    assert half.guesses == wordle().guesses and len(half.answers) == 1155


def test_nerdle_samples_are_closed_by_default() -> None:
    game = make_game("guessgym/MiniNerdle-v1", answer_sample=50)
    assert game.guesses == game.answers and set(game.answers) < set(nerdle(6).answers)
    assert len(make_game("guessgym/MiniNerdle-v1", answer_sample=50, guesses="all").guesses) > 206


@pytest.mark.parametrize(("options", "full_options"), [
    ({"held_out": 462}, {}),
    ({"answer_sample": 500, "guesses": "answers", "held_out": 100}, {"answer_sample": 500, "guesses": "answers"}),
    ({"held_out": 30, "sample_seed": 3}, {}),
])
def test_held_out_answers_are_the_tail_of_the_sample_and_stay_guesses(options: dict, full_options: dict) -> None:
    """The split (held_out): training's answers are the head of the seeded permutation, the held-out ones its
    tail; together the whole sample, never shared; every held-out answer is still a guess, so a policy trained on
    the training side plays the held-out game with the same action space."""
    train = make_game("guessgym/Wordle-v1", **options)
    full = make_game("guessgym/Wordle-v1", **full_options)
    held = held_out_answers(full, train)
    size = options.get("answer_sample", 2309)
    order = np.random.default_rng(options.get("sample_seed", 0)).permutation(2309)
    base = wordle().answers
    assert set(train.answers) == {base[i] for i in order[:size - options["held_out"]]}
    assert set(held.answers) == {base[i] for i in order[size - options["held_out"]:size]}
    assert not set(train.answers) & set(held.answers) and len(held.answers) == options["held_out"]
    assert set(held.answers) <= set(train.guesses) and held.guesses == train.guesses == full.guesses
    assert list(held.answers) == sorted(held.answers, key=full.answers.index)  # in the list's order


def test_a_split_that_leaves_nothing_or_everything_out_is_refused() -> None:
    with pytest.raises(ValueError, match="held_out must be 0 to 2308, got 2309"):
        make_game("guessgym/Wordle-v1", held_out=2309)
    with pytest.raises(ValueError, match="held_out must be 0 to 99, got 100"):
        make_game("guessgym/Wordle-v1", answer_sample=100, held_out=100)
    with pytest.raises(ValueError, match="leaves no answer"):
        held_out_answers(wordle(), wordle())
    with pytest.raises(ValueError, match="not a split"):
        held_out_answers(make_game(answer_sample=10), wordle())
    assert make_game("guessgym/WordleHalf-v0").answers == make_game("guessgym/Wordle-v1", held_out=1154).answers


def test_wordle_closed_game() -> None:
    closed = wordle(guesses="answers")
    assert closed.guesses == closed.answers == wordle().answers and closed.name == "wordle-5-nyt-closed"
    with pytest.raises(ValueError, match="'all' is a Nerdle preset"):
        wordle(guesses="all")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"answer_sample": 0}, "answer_sample must be 1 to 2309, got 0"),
    ({"answer_sample": 2310}, "answer_sample must be 1 to 2309, got 2310"),
    ({"answer_sample": 10, "sample_seed": -1}, "sample_seed must be at least 0"),
    ({"sample_seed": -1}, "sample_seed must be at least 0"),
])
def test_bad_samples_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_game("guessgym/Wordle-v1", **kwargs)
    with pytest.raises(TypeError, match="answer_sample must be an int"):
        make_game("guessgym/Wordle-v1", answer_sample=10.0)
    with pytest.raises(TypeError, match="answer_sample must be an int"):
        sample_answers(wordle(), True, closed=True)  # type: ignore[arg-type]


@pytest.mark.parametrize("env_id", sorted(BENCHMARK_SPECS))
def test_benchmark_ids_are_registered_games(env_id: str) -> None:
    assert env_id not in ENV_SPECS
    env = gym.make(env_id)
    game = env.unwrapped.game
    assert game.fingerprint == FINGERPRINTS[env_id]
    assert env.action_space.n == len(game.guesses)
    check_env(env.unwrapped, skip_render_check=True)
    vec = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point")
    assert vec.unwrapped.game.fingerprint == game.fingerprint
    vec.close()


def test_the_games_of_spaces_are_those_built() -> None:
    a = make_game("guessgym/Wordle100-v0")
    b = make_game(answer_sample=100, sample_seed=7, guesses="answers")
    space_a = observation_space(a)
    assert a in games_of_spaces(space_a, gym.spaces.Discrete(100))
    observation_space(b)
    assert {g.fingerprint for g in games_of_spaces(space_a, gym.spaces.Discrete(100))} >= {a.fingerprint, b.fingerprint}
    assert games_of_spaces(gym.spaces.Discrete(3), gym.spaces.Discrete(100)) == []


def test_the_games_in_play_are_bounded() -> None:
    """A run of randomised games (the general policy's training) builds thousands of spaces; only the
    latest games are remembered."""
    from guessgym.envs import env as env_module

    micro = make_game("guessgym/MicroNerdle-v1")
    for seed in range(env_module.MAX_BUILT_GAMES + 6):
        observation_space(sample_answers(micro, 20, seed, closed=True))
    assert len(env_module._BUILT) <= env_module.MAX_BUILT_GAMES
    latest = sample_answers(micro, 20, env_module.MAX_BUILT_GAMES + 5, closed=True)
    assert latest.fingerprint in {g.fingerprint for g in games_of_spaces(observation_space(latest),
                                                                        gym.spaces.Discrete(20))}
