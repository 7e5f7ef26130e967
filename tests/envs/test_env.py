"""The Gymnasium environment, over every registered id: API checkers, determinism, pickling,
vector envs, bad input, the documented info keys, hard mode, rewards and masks."""

from __future__ import annotations

import math
import pickle
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from gymnasium.utils.env_checker import data_equivalence
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from guessgym import envs
from guessgym.envs.candidates import HardModeRule
from guessgym.envs.env import END_INFO_KEYS, INFO_KEYS, GuessEnv
from guessgym.envs.game import nerdle
from guessgym.envs.scoring import pattern_to_tiles, score

MaskedAction = Callable[[np.random.Generator, np.ndarray], int]

HARD_VARIANTS = [
    ("guessgym/WordleHard-v1", {}),
    ("guessgym/MiniNerdle-v1", {"hard_mode": True}),
    ("guessgym/Nerdle-v1", {"hard_mode": True}),
]


def documented_info_keys() -> list[str]:
    """The keys listed in the "## Information" section of GuessEnv's docstring."""
    doc = GuessEnv.__doc__ or ""
    section = doc.split("## Information", 1)[1].split("\n    ##", 1)[0]
    return re.findall(r'^\s*\*\s*``"(\w+)"``', section, flags=re.MULTILINE)


def answer_action(env: gym.Env, answer: int) -> int:
    return int(env.unwrapped.game.answer_to_guess[answer])


def wrong_action(rng: np.random.Generator, info: dict[str, Any], avoid: int) -> int:
    """A random allowed action other than ``avoid`` (the answer)."""
    allowed = np.flatnonzero(info["action_mask"])
    allowed = allowed[allowed != avoid]
    assert allowed.size, "no wrong action is allowed here"
    return int(allowed[rng.integers(allowed.size)])


def rollout(env_id: str, seed: int, masked_action: MaskedAction, steps: int = 25, **kwargs: Any) -> list[Any]:
    """Everything an agent sees over ``steps`` steps; a fifth of the actions ignore the mask."""
    env = gym.make(env_id, **kwargs)
    rng = np.random.default_rng([seed, 2024])
    obs, info = env.reset(seed=seed)
    trace: list[Any] = [("reset", obs, info)]
    for _ in range(steps):
        if rng.random() < 0.2:
            action = int(rng.integers(env.action_space.n))
        else:
            action = masked_action(rng, info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((action, obs, reward, terminated, truncated, info))
        if terminated or truncated:
            obs, info = env.reset()
            trace.append(("reset", obs, info))
    env.close()
    return trace


# ---- registration and the API checkers ---------------------------------------------------------------


def test_registration(env_id: str) -> None:
    spec = gym.spec(env_id)
    assert spec.entry_point == "guessgym.envs.env:GuessEnv"
    assert spec.kwargs == envs.ENV_SPECS[env_id]
    env = gym.make(f"envs:{env_id}")
    assert isinstance(env.unwrapped, GuessEnv)
    env.close()


def test_registered_games() -> None:
    made = {env_id: gym.make(env_id).unwrapped.game for env_id in envs.ENV_SPECS}
    assert made["guessgym/Wordle-v1"].name == "wordle-5-nyt" and not made["guessgym/Wordle-v1"].hard_mode
    assert made["guessgym/WordleHard-v1"].hard_mode
    assert [made[f"guessgym/{n}Nerdle-v1"].length for n in ("", "Midi", "Mini", "Micro")] == [8, 7, 6, 5]


def test_gymnasium_check_env(env_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    env = gym.make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        gym_check_env(env.unwrapped)
    env.close()


def test_stable_baselines3_check_env(env_id: str) -> None:
    env = gym.make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(env, warn=True)
    env.close()


# ---- determinism, pickling, vector envs -----------------------------------------------------------


def test_same_seed_same_rollout(env_id: str, masked_action: MaskedAction) -> None:
    first = rollout(env_id, 7, masked_action)
    second = rollout(env_id, 7, masked_action)
    assert data_equivalence(first, second, exact=True)
    other = rollout(env_id, 8, masked_action)
    assert ended_answers(first) and ended_answers(first) != ended_answers(other)


def ended_answers(trace: list[Any]) -> list[str]:
    return [step[-1]["answer"] for step in trace if len(step) == 6 and "answer" in step[-1]]


def test_pickle_mid_episode_continues_identically(env_id: str, masked_action: MaskedAction) -> None:
    env = gym.make(env_id)
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=4)
    steps = 0
    while steps < 2:
        obs, _, terminated, _, info = env.step(masked_action(rng, info["action_mask"]))
        steps += 1
        if terminated:
            obs, info = env.reset()
            steps = 0
    for original in (env, env.unwrapped):
        clone = pickle.loads(pickle.dumps(original))
        assert clone.unwrapped.history == original.unwrapped.history
        copy_rng = np.random.default_rng(9)
        a_info = info
        for _ in range(12):
            action = masked_action(copy_rng, a_info["action_mask"])
            a = original.step(action)
            b = clone.step(action)
            assert data_equivalence(a, b, exact=True)
            a_info = a[-1]
            if a[2] or a[3]:
                a_reset, b_reset = original.reset(), clone.reset()  # the RNG state travelled too
                assert data_equivalence(a_reset, b_reset, exact=True)
                a_info = a_reset[1]
        obs, info = original.reset(seed=4)
        for _ in range(2):
            obs, _, terminated, _, info = original.step(masked_action(rng, info["action_mask"]))
            if terminated:
                obs, info = original.reset()
    env.close()


def test_make_vec_sync(env_id: str, masked_action: MaskedAction) -> None:
    vec = gym.make_vec(env_id, num_envs=2, vectorization_mode="sync")
    game = vec.unwrapped.envs[0].unwrapped.game
    obs, info = vec.reset(seed=0)
    cells = game.max_attempts * game.length
    assert obs["board"].shape == (2, cells) and obs["tiles"].shape == (2, cells)
    assert obs["action_mask"].shape == (2, len(game.guesses))
    assert info["action_mask"].shape == (2, len(game.guesses))
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(20):
        actions = np.array([masked_action(rng, m) if m.any() else 0 for m in info["action_mask"]])
        obs, rewards, terminated, truncated, info = vec.step(actions)
        assert rewards.shape == (2,) and terminated.dtype == bool and not truncated.any()
        assert vec.observation_space.contains(obs)
        finished += int(terminated.sum())
    assert finished > 0
    vec.close()


# ---- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["-1", "n", "n+7", 1.5, "3", None, True, [1], np.array([1, 2])])
def test_out_of_space_actions_raise(env_id: str, bad: Any) -> None:
    env = gym.make(env_id)
    n = env.action_space.n
    action = {"-1": -1, "n": n, "n+7": n + 7}.get(bad, bad) if isinstance(bad, str) else bad
    obs, info = env.reset(seed=0)
    with pytest.raises(ValueError, match=re.escape(f"0..{n - 1}")) as excinfo:
        env.step(action)
    assert f"Discrete({n})" in str(excinfo.value)
    # the failed call changed nothing
    obs, _, _, _, info = env.step(0)
    assert info["attempt"] == 1 or info["invalid_action"]
    env.close()


def test_numpy_integer_actions_are_accepted(env_id: str) -> None:
    env = gym.make(env_id)
    env.reset(seed=0)
    for action in (np.int64(1), np.int32(2), np.array(3)):
        _, _, terminated, _, info = env.step(action)
        if terminated:
            break
    env.close()


def test_step_after_the_end_raises(env_id: str) -> None:
    env = gym.make(env_id)
    env.reset(seed=0, options={"answer": 0})
    _, reward, terminated, _, _ = env.step(answer_action(env, 0))
    assert terminated and reward == 1.0
    with pytest.raises(RuntimeError, match="after the game ended"):
        env.step(0)
    fresh = gym.make(env_id).unwrapped
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        fresh.step(0)  # never reset: not "after the game ended"
    env.close()


def test_reset_answer_by_string_and_index(env_id: str) -> None:
    env = gym.make(env_id)
    game = env.unwrapped.game
    k = len(game.answers) // 3
    text = game.answers[k]
    options = [text, k, np.int64(k), f" {text} "]
    if game.kind == "wordle":
        options.append(text.upper())
    for option in options:
        _, info = env.reset(seed=1, options={"answer": option})
        assert "answer" not in info
        _, reward, terminated, truncated, info = env.step(answer_action(env, k))
        assert terminated and not truncated and reward == 1.0
        assert info["answer"] == text and info["tiles"] == "G" * game.length and info["candidates"] == 1
    _, info = env.reset(options={"answer": None})  # None: drawn at random
    env.close()


def test_bad_reset_answers_name_the_value(env_id: str) -> None:
    env = gym.make(env_id)
    game = env.unwrapped.game
    n = len(game.answers)
    not_an_answer = next((g for g in game.guesses if g not in game.answer_index), "x" * game.length)
    for bad in ("x" * game.length, not_an_answer):
        with pytest.raises(ValueError, match=re.escape(repr(bad))):
            env.reset(options={"answer": bad})
    for bad in (n, -1, n + 100):
        with pytest.raises(ValueError, match=rf"answer index {bad} is out of range; expected 0\.\.{n - 1}"):
            env.reset(options={"answer": bad})
    with pytest.raises(ValueError, match="'answr'"):
        env.reset(options={"answr": 0})
    with pytest.raises(TypeError, match="float"):
        env.reset(options={"answer": 2.5})
    env.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"reward_mode": "dense"}, "reward_mode must be one of 'sparse', 'shaped'; got 'dense'"),
        ({"render_mode": "video"}, "render_mode 'video' is not supported"),
        ({"kind": "chess"}, "kind must be one of 'wordle', 'nerdle'; got 'chess'"),
        ({"kind": "nerdle", "word_list": "nyt"}, "word_list applies to Wordle only"),
        ({"length": 12}, "Wordle length must be 3 to 9, got 12"),
    ],
)
def test_bad_constructor_arguments(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        GuessEnv(**kwargs)


def test_custom_games_through_make(isolated_cache: Path) -> None:
    env = gym.make("guessgym/Wordle-v1", answers=["cigar", "rebut"], guesses=["cigar", "rebut", "crane"],
                   max_attempts=3)
    assert env.action_space.n == 3 and env.observation_space["board"].shape == (15,)
    env = gym.make("guessgym/Wordle-v1", length=4)
    assert env.unwrapped.game.name == "wordle-4-english"
    env = gym.make("guessgym/Wordle-v1", game=nerdle(6))
    assert env.unwrapped.game.name == "mini-nerdle"


# ---- info keys --------------------------------------------------------------------------------------


def test_documented_info_keys_match_the_constants() -> None:
    documented = documented_info_keys()
    assert documented == list(INFO_KEYS) + list(END_INFO_KEYS)
    assert documented[-1] == "answer"


def test_info_keys_are_the_documented_ones(env_id: str, masked_action: MaskedAction) -> None:
    documented = set(documented_info_keys())
    during = documented - {"answer"}
    env = gym.make(env_id)
    rng = np.random.default_rng(2)
    for episode in range(3):
        obs, info = env.reset(seed=episode)
        assert set(info) == during
        terminated = False
        while not terminated:
            obs, _, terminated, _, info = env.step(masked_action(rng, info["action_mask"]))
            assert set(info) == (documented if terminated else during)
    env.close()


def test_info_values(env_id: str) -> None:
    env = gym.make(env_id)
    game = env.unwrapped.game
    obs, info = env.reset(seed=0, options={"answer": 0})
    assert info["attempt"] == 0 and info["guess"] == "" and info["tiles"] == "" and info["pattern"] == -1
    assert info["candidates"] == len(game.answers) and info["invalid_action"] is False
    assert info["invalid_reason"] == ""
    action = int(np.flatnonzero(~game.guess_is_answer)[0]) if (~game.guess_is_answer).any() else answer_action(env, 1)
    obs, _, _, _, info = env.step(action)
    guess = game.guesses[action]
    expected = score(guess, game.answers[0])
    assert info["attempt"] == 1 and info["guess"] == guess and info["pattern"] == expected
    assert info["tiles"] == pattern_to_tiles(expected, game.length)
    assert info["candidates"] == sum(score(guess, a) == expected for a in game.answers)
    assert isinstance(info["attempt"], int) and isinstance(info["pattern"], int) and isinstance(info["candidates"], int)
    assert isinstance(info["invalid_action"], bool) and isinstance(info["invalid_reason"], str)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (len(game.guesses),)
    # the board shows the guess and its tiles in the first row
    row = obs["board"][: game.length]
    assert "".join(game.alphabet[c - 1] for c in row) == guess
    assert "".join("BYG"[t - 1] for t in obs["tiles"][: game.length]) == info["tiles"]
    assert not obs["board"][game.length :].any() and not obs["tiles"][game.length :].any()
    assert env.observation_space.contains(obs)
    assert env.unwrapped.history == [(action, expected)]
    assert 0 in env.unwrapped.candidates
    env.close()


# ---- hard mode ----------------------------------------------------------------------------------


def test_hard_mode_violation_is_rejected_without_using_an_attempt() -> None:
    env = gym.make("guessgym/WordleHard-v1")
    game = env.unwrapped.game
    gi = game.guess_index
    assert "``invalid_action_penalty`` (default -0.1)" in GuessEnv.__doc__
    env.reset(seed=0, options={"answer": "shire"})
    obs1, reward1, _, _, info1 = env.step(gi["raise"])
    assert reward1 == 0.0 and info1["tiles"] == pattern_to_tiles(score("raise", "shire"), 5)
    for _ in range(10):  # however often: never an attempt, never the end
        obs2, reward2, terminated, truncated, info2 = env.step(gi["moult"])
        assert reward2 == -0.1 == env.unwrapped.rewards.invalid_action_penalty
        assert not terminated and not truncated
        assert info2["invalid_action"] is True
        assert "'moult'" in info2["invalid_reason"] and "position 3 must be 'i'" in info2["invalid_reason"]
        assert info2["attempt"] == 1 and info2["guess"] == "" and info2["pattern"] == -1 and info2["tiles"] == ""
        assert info2["candidates"] == info1["candidates"]
        for key in ("board", "tiles", "action_mask"):
            np.testing.assert_array_equal(obs2[key], obs1[key])
        assert env.unwrapped.history == [(gi["raise"], score("raise", "shire"))]
    _, reward3, terminated, _, info3 = env.step(gi["shire"])
    assert terminated and reward3 == 1.0 and info3["attempt"] == 2 and info3["invalid_action"] is False
    env.close()


def test_hard_mode_penalty_is_configurable() -> None:
    env = gym.make("guessgym/WordleHard-v1", invalid_action_penalty=-1.0)
    gi = env.unwrapped.game.guess_index
    env.reset(seed=0, options={"answer": "shire"})
    env.step(gi["raise"])
    assert env.step(gi["moult"])[1] == -1.0


@pytest.mark.parametrize(("env_id_", "kwargs"), HARD_VARIANTS, ids=[f"{e}{k}" for e, k in HARD_VARIANTS])
def test_hard_mode_masks_agree_with_the_rule(env_id_: str, kwargs: dict[str, Any], masked_action: MaskedAction) -> None:
    env = gym.make(env_id_, **kwargs)
    game = env.unwrapped.game
    assert game.hard_mode
    rng = np.random.default_rng(12)
    checked = 0
    for episode in range(3):
        obs, info = env.reset(seed=episode)
        terminated = False
        while not terminated:
            rule = HardModeRule(game)
            for g, p in env.unwrapped.history:
                rule.add(g, p)
            allowed = np.array([rule.violation(i) is None for i in range(len(game.guesses))])
            np.testing.assert_array_equal(info["action_mask"].astype(bool), allowed)
            np.testing.assert_array_equal(obs["action_mask"].astype(bool), allowed)
            np.testing.assert_array_equal(env.unwrapped.action_masks(), allowed)
            checked += 1
            if not allowed.all():  # a forbidden action is rejected, on a copy
                clone = pickle.loads(pickle.dumps(env))
                forbidden = int(rng.choice(np.flatnonzero(~allowed)))
                _, reward, term, _, clone_info = clone.step(forbidden)
                assert clone_info["invalid_action"] and not term
                assert reward == env.unwrapped.rewards.invalid_action_penalty
            obs, _, terminated, _, info = env.step(masked_action(rng, info["action_mask"]))
            assert info["invalid_action"] is False
    assert checked >= 6
    env.close()


# ---- rewards, termination, masks -------------------------------------------------------------------


def test_sparse_rewards_win_and_loss(env_id: str) -> None:
    rng = np.random.default_rng(3)
    env = gym.make(env_id, win_reward=2.0, loss_reward=-1.0, step_penalty=-0.25)
    _, info = env.reset(seed=0, options={"answer": 5})
    target = answer_action(env, 5)
    for _ in range(2):
        _, reward, terminated, truncated, info = env.step(wrong_action(rng, info, target))
        assert reward == -0.25 and not terminated and not truncated
    _, reward, terminated, truncated, info = env.step(target)
    assert terminated and not truncated and reward == 2.0 - 0.25 and info["attempt"] == 3

    env = gym.make(env_id, max_attempts=3, loss_reward=-1.0)
    _, info = env.reset(seed=0, options={"answer": 5})
    rewards, flags = [], []
    for _ in range(3):
        _, reward, terminated, truncated, info = env.step(wrong_action(rng, info, target))
        rewards.append(reward)
        flags.append((terminated, truncated))
    assert rewards == [0.0, 0.0, -1.0]
    assert flags == [(False, False), (False, False), (True, False)]
    assert info["answer"] == env.unwrapped.game.answers[5]
    env.close()


@pytest.mark.parametrize("win_reward", [1.0, 0.5])
def test_shaped_rewards_add_up_to_one_plus_the_win_reward(env_id: str, win_reward: float) -> None:
    env = gym.make(env_id, reward_mode="shaped", win_reward=win_reward)
    game = env.unwrapped.game
    rng = np.random.default_rng(4)
    for k in rng.choice(len(game.answers), size=3, replace=False):
        _, info = env.reset(seed=0, options={"answer": int(k)})
        target = answer_action(env, int(k))
        rewards = []
        for _ in range(int(rng.integers(0, 4))):
            _, reward, terminated, _, info = env.step(wrong_action(rng, info, target))
            rewards.append(reward)
            assert reward >= 0.0 and not terminated
        _, reward, terminated, _, info = env.step(target)
        rewards.append(reward)
        assert terminated and all(type(r) is float for r in rewards)
        assert math.isclose(sum(rewards), 1.0 + win_reward, rel_tol=1e-9)


def test_shaped_rewards_of_a_lost_game(env_id: str) -> None:
    env = gym.make(env_id, reward_mode="shaped", max_attempts=2)
    game = env.unwrapped.game
    rng = np.random.default_rng(5)
    _, info = env.reset(seed=0, options={"answer": 0})
    total = 0.0
    for _ in range(2):
        _, reward, terminated, _, info = env.step(wrong_action(rng, info, answer_action(env, 0)))
        total += reward
    assert terminated
    expected = (math.log(len(game.answers)) - math.log(info["candidates"])) / math.log(len(game.answers))
    assert math.isclose(total, expected, rel_tol=1e-9, abs_tol=1e-12)


def test_masks_agree_and_flags_are_python_types(env_id: str, masked_action: MaskedAction) -> None:
    env = gym.make(env_id)
    base = env.unwrapped
    rng = np.random.default_rng(6)
    obs, info = env.reset(seed=3)
    for _ in range(40):
        np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
        np.testing.assert_array_equal(base.action_masks(), info["action_mask"].astype(bool))
        assert base.action_masks().dtype == bool
        if not base.game.hard_mode:
            assert info["action_mask"].all()
        action = masked_action(rng, info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        assert type(reward) is float and type(terminated) is bool and type(truncated) is bool
        assert truncated is False
        assert env.observation_space.contains(obs)
        if terminated:
            # nothing is allowed once the game is over
            assert not info["action_mask"].any() and not obs["action_mask"].any() and not base.action_masks().any()
            won = info["tiles"] == "G" * base.game.length
            assert won or info["attempt"] == base.game.max_attempts
            obs, info = env.reset()
    env.close()
