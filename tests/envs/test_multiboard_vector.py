"""The batched multi-board vector env against gymnasium's SyncVectorEnv of MultiBoardEnv: the same
observations, rewards, terminations and infos for the same seeds and actions, wins, losses and
autoresets included; its options and bad input."""

from __future__ import annotations

import pickle
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import guessgym  # noqa: F401
from guessgym.envs import BatchedMultiBoardEnv


def assert_same(x: dict[str, Any], y: dict[str, Any], where: str) -> None:
    assert x.keys() == y.keys(), where
    for key in x:
        a, b = x[key], y[key]
        if isinstance(a, np.ndarray) and a.dtype != object:
            assert a.dtype == b.dtype and np.array_equal(a, b), f"{where}: {key}"
        else:
            assert [repr(v) for v in a] == [repr(v) for v in b], f"{where}: {key}"


def mixed_actions(venv: BatchedMultiBoardEnv, rng: np.random.Generator) -> np.ndarray:
    """Half the time the answer of an unsolved board (wins happen), else any guess."""
    n_guesses = len(venv.game.guesses)
    actions = rng.integers(0, n_guesses, venv.num_envs)
    answers = venv.current_answers()
    for i in range(venv.num_envs):
        unsolved = np.flatnonzero(~venv._solved[i])
        if unsolved.size and rng.random() < 0.5:
            actions[i] = venv.game.answer_to_guess[answers[i, rng.choice(unsolved)]]
    return actions


@pytest.mark.parametrize("env_id,num_envs,kwargs", [
    ("guessgym/Quordle-v0", 4, {}),
    ("guessgym/Dordle-v0", 3, {"board_reward": 0.25, "step_penalty": -0.01, "loss_reward": -1.0}),
    ("guessgym/DoubleNerdle-v0", 3, {"kind": "nerdle", "length": 6}),
])
def test_equals_sync_vector_env(env_id: str, num_envs: int, kwargs: dict[str, Any]) -> None:
    sync = gym.make_vec(env_id, num_envs, vectorization_mode="sync", **kwargs)
    batched = gym.make_vec(env_id, num_envs, vectorization_mode="vector_entry_point", **kwargs)
    assert isinstance(batched, BatchedMultiBoardEnv)
    assert batched.single_observation_space == sync.single_observation_space
    assert batched.observation_space == sync.observation_space and batched.action_space == sync.action_space
    rng = np.random.default_rng(0)
    wins = losses = 0
    for episode_seed in (11, 12):
        obs_s, info_s = sync.reset(seed=episode_seed)
        obs_b, info_b = batched.reset(seed=episode_seed)
        assert_same(obs_s, obs_b, "reset obs")
        assert_same(info_s, info_b, "reset info")
        for t in range(40):
            actions = mixed_actions(batched, rng)
            s, b = sync.step(actions), batched.step(actions)
            assert_same(s[0], b[0], f"obs {t}")
            assert_same(s[4], b[4], f"info {t}")
            for k in (1, 2, 3):
                assert s[k].dtype == b[k].dtype and np.array_equal(s[k], b[k]), f"step {t}: {k}"
            if b[2].any():
                won = b[0]["solved"].all(axis=1) & b[2]
                wins += int(won.sum())
                losses += int((b[2] & ~won).sum())
            assert batched.observation_space.contains(b[0])
    assert wins > 0 and losses > 0  # both ends of a game were compared


def test_fixed_answers_and_views() -> None:
    venv = BatchedMultiBoardEnv(2, boards=2, render_mode="ansi")
    game = venv.game
    venv.reset(seed=0, options={"answers": ["crane", "slate"]})
    assert venv.current_answers().tolist() == [[game.answer_index["crane"], game.answer_index["slate"]]] * 2
    venv.reset(options={"answers": [["crane", "slate"], ["plate", "grate"]]})
    crane, slate = game.guess_index["crane"], game.guess_index["slate"]
    obs, reward, terminated, _, info = venv.step(np.array([crane, slate]))
    assert info["tiles"][0][0] == "GGGGG" and obs["solved"].tolist() == [[1, 0], [0, 0]]
    obs, reward, terminated, _, info = venv.step(np.array([slate, slate]))
    assert terminated.tolist() == [True, False] and reward[0] == 1.0
    assert info["answers"][0] == ["crane", "slate"] and info["_answers"].tolist() == [True, False]
    assert obs["action_mask"][0].sum() == 0 and obs["action_mask"][1].all()
    assert venv.action_masks().tolist() == [[False] * len(game.guesses), [True] * len(game.guesses)]
    text = venv.render()
    assert text is not None and "board 1 (solved)" in text[0] and "crane  GGGGG" in text[0]
    assert [len(c) for c in venv.candidates_of(0)] == [1, 1]
    # the next step starts sub-game 0 anew and ignores its action
    obs, reward, terminated, _, info = venv.step(np.array([0, 0]))
    assert info["attempt"].tolist() == [0, 3] and reward[0] == 0.0 and not obs["solved"][0].any()
    clone = pickle.loads(pickle.dumps(venv))
    assert np.array_equal(clone.current_answers(), venv.current_answers())


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        BatchedMultiBoardEnv(0)
    with pytest.raises(ValueError, match="hard mode is not defined for multi-board"):
        BatchedMultiBoardEnv(2, hard_mode=True)
    venv = BatchedMultiBoardEnv(2, boards=2)
    with pytest.raises(ValueError, match="unknown reset option"):
        venv.reset(options={"answer": "crane"})
    with pytest.raises(ValueError, match="2 such lists .*got 3 lists"):
        venv.reset(options={"answers": [["crane", "slate"], ["crane", "slate"], ["crane", "slate"]]})
    with pytest.raises(ValueError, match="distinct"):
        venv.reset(options={"answers": ["crane", "crane"]})
    venv.reset(seed=0)
    with pytest.raises(ValueError, match="expected 2 actions"):
        venv.step(np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="outside the action space"):
        venv.step(np.array([0, 10**6]))
    with pytest.raises(ValueError, match="integers"):
        venv.step(np.array([0.5, 1.0]))


def test_stable_baselines3_adapter_equals_dummy_vec_env_and_trains() -> None:
    """The SB3 adapter over the batched env gives DummyVecEnv's observations, rewards, dones and
    terminal observations for the same seeds and actions; MaskablePPO trains on it."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from guessgym.envs.multiboard import MultiBoardEnv
    from guessgym.training.sb3_vec import BatchedVecEnv

    options = {"boards": 2, "kind": "nerdle", "length": 6, "board_reward": 0.25}
    dummy = DummyVecEnv([lambda: MultiBoardEnv(**options) for _ in range(3)])
    batched = BatchedVecEnv(BatchedMultiBoardEnv(3, **options))
    dummy.seed(5)
    batched.seed(5)
    obs_d, obs_b = dummy.reset(), batched.reset()
    keys = ["board", "tiles", "solved"]
    assert all(np.array_equal(obs_d[k], obs_b[k]) for k in keys) and set(obs_b) == set(keys)
    rng = np.random.default_rng(1)
    venv = batched.venv
    ends = wins = 0
    for _ in range(60):
        actions = mixed_actions(venv, rng)
        obs_d, rew_d, done_d, info_d = dummy.step(actions)
        obs_b, rew_b, done_b, info_b = batched.step(actions)
        assert all(np.array_equal(obs_d[k], obs_b[k]) for k in keys)
        assert np.allclose(rew_d, rew_b) and np.array_equal(done_d, done_b)
        for i in np.flatnonzero(done_b):
            terminal = info_b[i]["terminal_observation"]
            assert all(np.array_equal(info_d[i]["terminal_observation"][k], terminal[k]) for k in keys)
            ends += 1
            wins += info_b[i]["is_success"]
            assert info_b[i]["is_success"] == bool(terminal["solved"].all())
    assert ends > 0 and 0 < wins < ends

    model = MaskablePPO("MultiInputPolicy", batched, n_steps=16, batch_size=24, n_epochs=1, seed=0, verbose=0)
    model.learn(48)
    batched.reset()
    action, _ = model.predict(batched.reset(), action_masks=batched.action_masks())
    assert action.shape == (3,)
    state = batched.get_state()
    before = batched.step(action)
    batched.set_state(state)
    after = batched.step(action)
    assert all(np.array_equal(before[0][k], after[0][k]) for k in keys) and np.array_equal(before[1], after[1])
