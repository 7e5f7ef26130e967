"""The value-based guess policies: DQN's and QR-DQN's Q-networks value guesses through the shared
guess encoding (no guess-sized layer), learn, choose only allowed guesses in hard mode, and save."""

from __future__ import annotations

import numpy as np
import pytest
import torch as th
from sb3_contrib import QRDQN
from stable_baselines3 import DQN

from guessgym.agents.guess_encoding import dense_guess_encoding
from guessgym.agents.policies import GuessQNetwork, GuessQPolicy, GuessQuantilePolicy, count_parameters
from guessgym.envs.game import make_game, nerdle, wordle
from guessgym.envs.vector import BatchedGuessEnv
from guessgym.training.sb3_vec import BatchedVecEnv

th.set_num_threads(1)

ALGORITHMS = {"dqn": (DQN, GuessQPolicy, {}), "qrdqn": (QRDQN, GuessQuantilePolicy, {"n_quantiles": 5})}


def _model(algo: str, game, n_envs: int = 4, **kwargs):  # type: ignore[no-untyped-def]
    cls, policy, extra = ALGORITHMS[algo]
    env = BatchedVecEnv(BatchedGuessEnv(n_envs, game=game, track_candidates=False))
    return cls(policy, env, policy_kwargs={"game": game, "net_arch": [16], **extra, **kwargs}, seed=0,
               device="cpu", learning_starts=32, buffer_size=1000, batch_size=16, train_freq=4, verbose=0), env


@pytest.mark.parametrize("algo", list(ALGORITHMS))
def test_the_q_network_has_no_guess_sized_parameter(algo: str) -> None:
    small, _ = _model(algo, nerdle(5))
    full, _ = _model(algo, make_game("guessgym/Wordle-v1"))
    q_net = full.policy.q_net if algo == "dqn" else full.policy.quantile_net
    assert isinstance(q_net, GuessQNetwork)
    for p in full.policy.parameters():
        assert 12_947 not in p.shape and 2_309 not in p.shape
    # the same network size for any list of the same length and alphabet
    tiny = wordle(answers=["crane", "slate"], guesses=["crane", "slate", "adieu"])
    assert count_parameters(_model(algo, tiny)[0].policy) == count_parameters(full.policy)
    assert count_parameters(small.policy) > 0


@pytest.mark.parametrize("algo", list(ALGORITHMS))
def test_values_are_scores_of_the_guess_encoding(algo: str) -> None:
    game = nerdle(5)
    model, env = _model(algo, game, candidate_prior=1.5)
    q_net = model.policy.q_net if algo == "dqn" else model.policy.quantile_net
    obs = {k: th.as_tensor(v) for k, v in env.reset().items()}
    with th.no_grad():
        values = q_net(obs)
        z = q_net.head.linear(q_net.trunk(q_net.extract_features(obs, q_net.features_extractor)))
    width = dense_guess_encoding(game).shape[1]
    z = z.reshape(len(env.reset()["board"]), -1, width + 1)
    manual = z[..., :width] @ th.as_tensor(dense_guess_encoding(game)).T
    manual = manual + z[..., width : width + 1] * q_net.features_extractor.guess_context[:, None, :]
    assert th.allclose(values.reshape(manual.shape), manual, atol=1e-5)
    # the candidate prior is every output's initial bonus of a possible answer
    assert th.allclose(q_net.head.linear.bias.view(-1, width + 1)[:, width], th.tensor(1.5))


@pytest.mark.parametrize("algo", list(ALGORITHMS))
def test_value_policies_learn_save_and_load(algo: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    model, env = _model(algo, nerdle(5))
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(256)
    assert any(not th.equal(a, b) for a, b in zip(before, model.policy.parameters()))
    model.save(tmp_path / "model")
    loaded = type(model).load(tmp_path / "model", device="cpu")
    obs = env.reset()
    assert np.array_equal(model.predict(obs, deterministic=True)[0], loaded.predict(obs, deterministic=True)[0])


@pytest.mark.parametrize("algo", list(ALGORITHMS))
def test_greedy_choices_are_allowed_guesses_in_hard_mode(algo: str) -> None:
    game = make_game("guessgym/WordleHard-v1")
    model, venv = _model(algo, game, n_envs=8)
    obs = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(12):
        masks = venv.action_masks()
        actions, _ = model.predict(obs, deterministic=True)
        assert masks[np.arange(8), actions].all()
        # move on by random allowed guesses, so later states have hard-mode constraints
        obs, *_ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
