"""The TextGuess and TerminateOnInvalidAction wrappers."""

from __future__ import annotations

import pickle
from collections.abc import Callable

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import data_equivalence

from guessgym import envs
from guessgym.envs.wrappers import TerminateOnInvalidAction, TextGuess

MaskedAction = Callable[[np.random.Generator, np.ndarray], int]


def test_exported_from_the_package() -> None:
    assert envs.TextGuess is TextGuess and envs.TerminateOnInvalidAction is TerminateOnInvalidAction
    assert {"TextGuess", "TerminateOnInvalidAction"} <= set(envs.__all__)


# ---- TextGuess ----------------------------------------------------------------------------------------


def test_text_action_space(env_id: str) -> None:
    env = TextGuess(gym.make(env_id))
    game = env.unwrapped.game
    space = env.action_space
    assert isinstance(space, spaces.Text)
    assert space.min_length == space.max_length == game.length
    assert set(game.alphabet) <= set(space.character_set)
    for guess in game.guesses[:50]:
        assert space.contains(guess)
    if game.kind == "wordle":
        assert space.contains(game.guesses[0].upper())
    sample = space.sample()
    assert isinstance(sample, str) and len(sample) == game.length


def test_playing_text_guesses(env_id: str) -> None:
    env = TextGuess(gym.make(env_id))
    game = env.unwrapped.game
    answer = game.answers[len(game.answers) // 2]
    other = next(g for g in game.guesses if g != answer)
    typed_answers = [answer, f"  {answer} "]
    if game.kind == "wordle":
        typed_answers.append(answer.upper())
    else:
        typed_answers.append(" ".join(answer))  # spaces between symbols are ignored
    for typed in typed_answers:
        env.reset(seed=0, options={"answer": answer})
        _, reward, terminated, _, info = env.step(other)
        assert info["guess"] == other and not terminated
        _, reward, terminated, truncated, info = env.step(typed)
        assert terminated and not truncated and reward == 1.0 and info["guess"] == answer


def test_guess_to_action_round_trip(env_id: str) -> None:
    env = TextGuess(gym.make(env_id))
    game = env.unwrapped.game
    rng = np.random.default_rng(0)
    for index in rng.choice(len(game.guesses), size=30, replace=False):
        text = env.action_to_guess(int(index))
        assert text == game.guesses[index]
        assert env.guess_to_action(text) == index
    with pytest.raises(ValueError, match=f"0..{len(game.guesses) - 1}"):
        env.action_to_guess(len(game.guesses))


WORDLE_ERRORS = [
    ("xyzzy", "'xyzzy' is not in the word list (12947 allowed guesses)"),
    ("cran", "'cran' has length 4, this game needs 5"),
    ("cranes", "'cranes' has length 6, this game needs 5"),
    ("cr4ne", "'cr4ne' is not in the word list"),
    ("", "'' has length 0"),
]
NERDLE_ERRORS = [
    ("12+34=47", "'12+34=47' is not a valid equation: the left side equals 46 but the right side says 47"),
    ("1+1=2", "'1+1=2' has length 5, this game needs 8"),
    ("0+12/3=4", "'0+12/3=4' is a true equation but not in this game's guess vocabulary ('answers', 17723 equations)"),
    ("ab+cd=ef", "'ab+cd=ef' is not a valid equation: 'a' is not a Nerdle symbol"),
    ("12+34=046", "has length 9"),
    ("12++4=16", "no two operators in a row"),
]


@pytest.mark.parametrize(("text", "message"), WORDLE_ERRORS)
def test_wordle_text_errors_name_the_guess(text: str, message: str) -> None:
    env = TextGuess(gym.make("guessgym/Wordle-v1"))
    env.reset(seed=0)
    with pytest.raises(ValueError) as excinfo:
        env.step(text)
    assert message in str(excinfo.value)
    _, _, _, _, info = env.step("crane")  # nothing was used up by the bad guess
    assert info["attempt"] == 1


@pytest.mark.parametrize(("text", "message"), NERDLE_ERRORS)
def test_nerdle_text_errors_name_the_guess(text: str, message: str) -> None:
    env = TextGuess(gym.make("guessgym/Nerdle-v1"))
    env.reset(seed=0)
    with pytest.raises(ValueError) as excinfo:
        env.step(text)
    assert message in str(excinfo.value)


def test_non_string_actions_are_a_type_error() -> None:
    env = TextGuess(gym.make("guessgym/Wordle-v1"))
    env.reset(seed=0)
    with pytest.raises(TypeError, match="expects the guess as a string"):
        env.step(3)  # type: ignore[arg-type]


def test_every_valid_equation_with_the_all_vocabulary() -> None:
    env = TextGuess(gym.make("guessgym/Nerdle-v1", guesses="all"))
    env.reset(seed=0, options={"answer": "6-1+9=14"})
    _, _, _, _, info = env.step("0+12/3=4")
    assert info["guess"] == "0+12/3=4" and info["attempt"] == 1
    assert info["tiles"] == "BYGBBBYG"  # 1 and 4 in place; + and = elsewhere


def test_hard_mode_violations_pass_through_as_invalid_actions() -> None:
    env = TextGuess(gym.make("guessgym/WordleHard-v1"))
    env.reset(seed=0, options={"answer": "shire"})
    env.step("RAISE")
    _, reward, terminated, _, info = env.step("moult")
    assert info["invalid_action"] and reward == -0.1 and not terminated
    assert "position 3 must be 'i'" in info["invalid_reason"]


def test_text_wrapper_pickles() -> None:
    env = TextGuess(gym.make("guessgym/MiniNerdle-v1"))
    env.reset(seed=0, options={"answer": "3*4=12"})
    env.step("12/4=3")
    clone = pickle.loads(pickle.dumps(env))
    assert data_equivalence(env.step("3*4=12"), clone.step("3*4=12"), exact=True)


def test_text_wrapper_needs_a_guess_env() -> None:
    with pytest.raises(TypeError, match="need a guessgym GuessEnv"):
        TextGuess(gym.make("CartPole-v1"))


# ---- TerminateOnInvalidAction -------------------------------------------------------------------------


def test_invalid_action_ends_the_episode() -> None:
    env = TerminateOnInvalidAction(gym.make("guessgym/WordleHard-v1"))
    gi = env.unwrapped.game.guess_index
    for _ in range(2):  # twice: reset clears the end
        obs, info = env.reset(seed=0, options={"answer": "shire"})
        assert env.action_masks().all()
        obs, reward, terminated, truncated, info = env.step(gi["raise"])
        assert not terminated and reward == 0.0
        obs, reward, terminated, truncated, info = env.step(gi["moult"])
        assert terminated is True and truncated is False and reward == -0.1 and type(reward) is float
        assert info["invalid_action"] is True and "position 3 must be 'i'" in info["invalid_reason"]
        assert info["answer"] == "shire" and info["attempt"] == 1
        assert not info["action_mask"].any() and not obs["action_mask"].any() and not env.action_masks().any()
        assert env.observation_space.contains(obs)
        with pytest.raises(RuntimeError, match="reset"):
            env.step(gi["shire"])


def test_custom_penalty_and_text_composition() -> None:
    env = TerminateOnInvalidAction(TextGuess(gym.make("guessgym/WordleHard-v1")), penalty=-5.0)
    env.reset(seed=0, options={"answer": "shire"})
    env.step("raise")
    _, reward, terminated, _, info = env.step("MOULT")
    assert terminated and reward == -5.0 and info["invalid_action"]


def test_valid_play_is_unchanged(env_id: str, masked_action: MaskedAction) -> None:
    plain = gym.make(env_id)
    wrapped = TerminateOnInvalidAction(gym.make(env_id))
    rng = np.random.default_rng(1)
    a, b = plain.reset(seed=2), wrapped.reset(seed=2)
    assert data_equivalence(a, b, exact=True)
    info = a[1]
    for _ in range(20):
        action = masked_action(rng, info["action_mask"])
        a, b = plain.step(action), wrapped.step(action)
        assert data_equivalence(a, b, exact=True)
        np.testing.assert_array_equal(wrapped.action_masks(), plain.unwrapped.action_masks())
        info = a[-1]
        if a[2]:
            a, b = plain.reset(), wrapped.reset()
            assert data_equivalence(a, b, exact=True)
            info = a[1]
