"""The vocabulary-independent guess policy: structure, parameter count, candidate features, and
that MaskablePPO, PPO and A2C all construct and run with it."""

from __future__ import annotations

import numpy as np
import pytest
import torch as th
from sb3_contrib import MaskablePPO
from stable_baselines3 import A2C, PPO

from guessgym.agents.guess_encoding import dense_guess_encoding
from guessgym.agents.model_files import save_model
from guessgym.agents.policies import (
    GuessActorCriticPolicy,
    GuessFeaturesExtractor,
    MaskableGuessPolicy,
    count_parameters,
    default_candidate_prior,
)
from guessgym.envs.env import GuessEnv
from guessgym.envs.game import make_game, nerdle, wordle
from guessgym.envs.vector import BatchedGuessEnv
from guessgym.training.sb3_vec import BatchedVecEnv

th.set_num_threads(1)

TINY_ANSWERS = ["crane", "slate", "trace", "crate", "react", "caret", "stale", "least", "tales", "steal"]
TINY_GUESSES = TINY_ANSWERS + ["adieu", "pious", "lymph", "ghoul"]


def _policy(game, cls=MaskableGuessPolicy, **kwargs):
    env = BatchedVecEnv(BatchedGuessEnv(2, game=game, track_candidates=False))
    return cls(env.observation_space, env.action_space, lambda _: 3e-4, game=game, **kwargs), env


def _obs_tensor(obs: dict[str, np.ndarray]) -> dict[str, th.Tensor]:
    return {k: th.as_tensor(v) for k, v in obs.items() if k != "action_mask"}


def test_parameter_count_does_not_depend_on_the_vocabulary() -> None:
    small = wordle(answers=TINY_ANSWERS, guesses=TINY_GUESSES)
    full = wordle()
    assert len(full.guesses) == 12_947 and len(small.guesses) == 14
    for cls in (MaskableGuessPolicy, GuessActorCriticPolicy):
        p_small, _ = _policy(small, cls)
        p_full, _ = _policy(full, cls)
        assert count_parameters(p_small) == count_parameters(p_full)
        # no parameter tensor has a vocabulary-sized dimension
        for p in p_full.parameters():
            assert len(full.guesses) not in p.shape and len(full.answers) not in p.shape
    # the optional per-guess bias is the one thing that grows, by exactly one scalar per guess
    p_bias, _ = _policy(full, guess_bias=True)
    assert count_parameters(p_bias) == count_parameters(p_full) + len(full.guesses)


def test_logits_are_scores_of_a_fixed_guess_encoding() -> None:
    game = nerdle(5)
    policy, env = _policy(game, candidate_prior=2.0)
    head = policy.action_net
    assert not any("encoding" in n for n, _ in policy.named_parameters())
    # the encoding is one-hot symbol-in-position, symbol presence and "is an answer"
    enc = dense_guess_encoding(game)
    assert enc.shape == (len(game.guesses), game.length * game.n_symbols + game.n_symbols + 1)
    codes = game.guess_codes
    for g in (0, 17, len(game.guesses) - 1):
        onehot = np.zeros((game.length, game.n_symbols))
        onehot[np.arange(game.length), codes[g]] = 1
        assert np.array_equal(enc[g, : game.length * game.n_symbols], onehot.ravel())
        assert np.array_equal(enc[g, game.length * game.n_symbols : -1], onehot.max(0))
        assert enc[g, -1] == 1.0
    obs = env.reset()
    with th.no_grad():
        logits = policy.action_logits(_obs_tensor(obs))
        # the extractor reads raw codes: the same features as from SB3's one-hot of every cell
        features = policy.features_extractor(_obs_tensor(obs))
        latent = policy.mlp_extractor.forward_actor(features)
        z = head.linear(latent)
        d = enc.shape[1]
        manual = z[:, :d] @ th.as_tensor(enc).T + z[:, d : d + 1] * policy.features_extractor.guess_context
    assert logits.shape == (2, len(game.guesses))
    assert th.allclose(logits, manual, atol=1e-5)
    # the parameters are not stored with the vocabulary-sized buffers
    assert all(len(game.guesses) not in v.shape for v in policy.state_dict().values())


@pytest.mark.parametrize(
    "game",
    [nerdle(6), wordle(answers=TINY_ANSWERS, guesses=TINY_GUESSES, hard_mode=True), wordle()],
    ids=["mini-nerdle", "tiny-wordle-hard", "wordle"],
)
def test_candidate_features_equal_the_environment_candidates(game) -> None:
    """The candidates read from the tiles alone are exactly GuessEnv's candidate set."""
    extractor = GuessFeaturesExtractor(GuessEnv(game=game).observation_space, game)
    rng = np.random.default_rng(0)
    n_games = 12 if len(game.answers) > 1000 else 30
    for episode in range(n_games):
        env = GuessEnv(game=game)
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            allowed = np.flatnonzero(obs["action_mask"])
            obs, _, done, _, info = env.step(int(rng.choice(allowed)))
            extractor({"board": th.as_tensor(obs["board"][None]), "tiles": th.as_tensor(obs["tiles"][None])})
            found = np.flatnonzero(extractor.guess_context[0].numpy())
            assert np.array_equal(found, env.candidates), (episode, env.board_rows())


def test_candidate_prior_makes_candidates_likely() -> None:
    game = wordle()
    policy, env = _policy(game, candidate_prior=default_candidate_prior(game))
    with th.no_grad():
        probs = th.softmax(policy.action_logits(_obs_tensor(env.reset())), dim=1)[0]
    assert probs[th.as_tensor(game.guess_is_answer)].sum() > 0.5
    uniform, env = _policy(game, candidate_prior=0.0)
    with th.no_grad():
        probs = th.softmax(uniform.action_logits(_obs_tensor(env.reset())), dim=1)[0]
    assert probs.max() < 10 / len(game.guesses)


def test_set_game_retargets_the_same_network() -> None:
    small = wordle(answers=TINY_ANSWERS, guesses=TINY_GUESSES)
    policy, _ = _policy(small)
    before = {k: v.clone() for k, v in policy.state_dict().items()}
    full = wordle()
    policy.set_game(full)
    venv = BatchedVecEnv(BatchedGuessEnv(3, game=full, track_candidates=False))
    with th.no_grad():
        logits = policy.action_logits(_obs_tensor(venv.reset()))
    assert logits.shape == (3, len(full.guesses))
    assert all(th.equal(before[k], v) for k, v in policy.state_dict().items())
    with pytest.raises(ValueError):
        policy.set_game(wordle(length=6))


@pytest.mark.parametrize("algo", ["maskable_ppo", "ppo", "a2c"])
def test_algorithms_construct_and_learn_a_few_steps(algo: str) -> None:
    game = nerdle(5)
    env = BatchedVecEnv(BatchedGuessEnv(4, game=game, track_candidates=False))
    kwargs = dict(policy_kwargs={"game": game, "net_arch": {"pi": [16], "vf": [16]}}, seed=0, device="cpu", n_steps=16)
    if algo == "maskable_ppo":
        model = MaskablePPO(MaskableGuessPolicy, env, batch_size=32, n_epochs=1, **kwargs)
    elif algo == "ppo":
        model = PPO(GuessActorCriticPolicy, env, batch_size=32, n_epochs=1, **kwargs)
    else:
        model = A2C(GuessActorCriticPolicy, env, **kwargs)
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(128)
    assert model.num_timesteps >= 128
    assert any(not th.equal(a, b) for a, b in zip(before, model.policy.parameters()))


def test_maskable_policy_respects_masks_in_hard_mode() -> None:
    """With hard-mode masks, MaskablePPO's sampled actions are always allowed."""
    game = wordle(answers=TINY_ANSWERS, guesses=TINY_GUESSES, hard_mode=True)
    venv = BatchedVecEnv(BatchedGuessEnv(8, game=game, track_candidates=False))
    model = MaskablePPO(
        MaskableGuessPolicy,
        venv,
        n_steps=8,
        batch_size=32,
        n_epochs=1,
        seed=1,
        policy_kwargs={"game": game, "net_arch": {"pi": [16], "vf": [16]}},
    )
    obs = venv.reset()
    for _ in range(30):
        masks = venv.action_masks()
        actions, _ = model.predict(obs, action_masks=masks)
        assert masks[np.arange(8), actions].all()
        obs, *_ = venv.step(actions)


def test_policy_accepts_guessenv_observation_with_mask() -> None:
    """The policy also works on GuessEnv's full observation space (the mask key is ignored)."""
    game = nerdle(5)
    env = GuessEnv(game=game)
    policy = MaskableGuessPolicy(
        env.observation_space, env.action_space, lambda _: 3e-4, game=game, net_arch={"pi": [8], "vf": [8]}
    )
    obs, _ = env.reset(seed=0)
    action, _ = policy.predict(obs, action_masks=env.action_masks())
    assert 0 <= int(action) < len(game.guesses)


def test_wrong_game_is_rejected() -> None:
    game = nerdle(5)
    env = BatchedVecEnv(BatchedGuessEnv(2, game=nerdle(6), track_candidates=False))
    with pytest.raises(ValueError):
        MaskableGuessPolicy(env.observation_space, env.action_space, lambda _: 3e-4, game=game)
    with pytest.raises(ValueError, match="unknown environment id 'mini'"):  # a string is a registered id
        MaskableGuessPolicy(env.observation_space, env.action_space, lambda _: 3e-4, game="mini")
    with pytest.raises(TypeError, match="must contain game="):
        MaskableGuessPolicy(env.observation_space, env.action_space, lambda _: 3e-4, game=6)


def test_a_game_given_as_an_id_or_found_from_the_spaces() -> None:
    env = BatchedVecEnv(BatchedGuessEnv(2, game=nerdle(6), track_candidates=False))
    by_id = MaskableGuessPolicy(env.observation_space, env.action_space, lambda _: 3e-4, game="guessgym/MiniNerdle-v1")
    assert by_id.game.fingerprint == nerdle(6).fingerprint
    # No game (rl-zoo3's Optuna samples replace policy_kwargs): the one game of these spaces in play.
    odd = make_game("guessgym/MiniNerdle-v1", answer_sample=37, sample_seed=20261203)
    env = BatchedVecEnv(BatchedGuessEnv(2, game=odd, track_candidates=False))
    found = MaskableGuessPolicy(env.observation_space, env.action_space, lambda _: 3e-4)
    assert found.game is odd
    BatchedGuessEnv(1, game=make_game("guessgym/MiniNerdle-v1", answer_sample=37, sample_seed=20261203,
                                      hard_mode=True), track_candidates=False)
    with pytest.raises(TypeError, match="several games of these spaces are in play"):
        MaskableGuessPolicy(env.observation_space, env.action_space, lambda _: 3e-4)


def test_fast_sampler_follows_the_distribution_and_never_draws_masked_actions() -> None:
    from guessgym.agents.guess_distributions import inverse_cdf_sample

    gen_state = th.get_rng_state()
    th.manual_seed(0)
    probs = th.tensor([[0.0, 0.5, 0.0, 0.25, 0.25, 0.0]]).repeat(20_000, 1)
    draws = inverse_cdf_sample(probs)
    counts = th.bincount(draws, minlength=6).float() / len(draws)
    assert counts[[0, 2, 5]].sum() == 0
    assert th.allclose(counts, probs[0], atol=0.02)
    th.set_rng_state(gen_state)


# ---- split features --------------------------------------------------------------------------------
def test_split_features_keep_the_size_independent_of_the_vocabulary() -> None:
    small = wordle(answers=TINY_ANSWERS, guesses=TINY_GUESSES)
    full = wordle()
    plain, _ = _policy(full)
    p_small, _ = _policy(small, split_features=True)
    p_full, _ = _policy(full, split_features=True)
    assert count_parameters(p_small) == count_parameters(p_full) > count_parameters(plain)
    for p in p_full.parameters():
        assert len(full.guesses) not in p.shape and len(full.answers) not in p.shape


def test_a_head_weighing_only_the_expected_bucket_plays_the_expected_size_choice() -> None:
    from guessgym.agents.policies import SPLIT_INPUTS
    from guessgym.agents.split_features import SplitFeatures

    game = nerdle(5)
    policy, env = _policy(game, split_features=True)
    head = policy.action_net
    with th.no_grad():  # every score zero but -100 x the expected-bucket feature
        head.linear.weight.zero_()
        head.linear.bias.zero_()
        head.linear.bias[head.encoding_dim + 1 + 2] = -100.0
    obs = env.reset()
    for step in range(3):
        with th.no_grad():
            logits = policy.action_logits(_obs_tensor(obs))
        cands = policy.pi_features_extractor.guess_context[0].numpy()
        expected = SplitFeatures(game)(np.flatnonzero(cands))[:, 2]
        choice = int(logits[0].argmax())
        assert expected[choice] == expected.min()
        sets, rows = policy.pi_features_extractor.guess_split
        assert sorted(set(rows.tolist())) == list(range(len(sets)))  # one entry per distinct candidate set
        assert all(f.shape == (len(game.guesses), SPLIT_INPUTS) for f in sets)
        if step == 0:
            assert len(sets) == 1  # both games start with every answer
        obs, *_ = env.step(np.array([choice, choice]))


def test_split_features_learn_and_retarget(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from guessgym.agents.learned import load_agent

    game = nerdle(5)
    env = BatchedVecEnv(BatchedGuessEnv(4, game=game, track_candidates=False))
    model = MaskablePPO(MaskableGuessPolicy, env, batch_size=32, n_epochs=1, n_steps=16, seed=0, device="cpu",
                        policy_kwargs={"game": game, "net_arch": {"pi": [16], "vf": [16]}, "split_features": True})
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(128)
    assert any(not th.equal(a, b) for a, b in zip(before, model.policy.parameters()))
    save_model(model, tmp_path / "split.zip")
    agent = load_agent(tmp_path / "split.zip")
    model.save(tmp_path / "plain.zip")  # SB3's own save: no game inside, so the game is given
    assert load_agent(tmp_path / "plain.zip", game=game).model.num_timesteps == agent.model.num_timesteps
    assert agent.model.policy.action_net.split_features
    from guessgym.evaluation.evaluate import evaluate

    serial = evaluate(agent, game, sample=12, seed=3)
    in_processes = evaluate(agent, game, sample=12, seed=3, n_jobs=2, backend="process")  # the agent is pickled
    assert in_processes.distribution == serial.distribution
    other = nerdle(5, guesses="all")  # another vocabulary of the same game
    agent.model.policy.set_game(other)
    venv = BatchedVecEnv(BatchedGuessEnv(2, game=other, track_candidates=False))
    with th.no_grad():
        assert agent.model.policy.action_logits(_obs_tensor(venv.reset())).shape == (2, len(other.guesses))


def test_split_features_need_candidate_features() -> None:
    with pytest.raises(ValueError, match="split_features needs candidate_features"):
        _policy(nerdle(5), split_features=True, candidate_features=False)


def test_a_split_prior_starts_the_policy_at_the_greedy_expected_left_choice(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from guessgym.agents.learned import LearnedAgent
    from guessgym.agents.split_features import FEATURES, SplitFeatures
    from guessgym.evaluation.evaluate import evaluate

    game = nerdle(6)
    env = BatchedVecEnv(BatchedGuessEnv(2, game=game, track_candidates=False))
    kwargs = {"game": game, "net_arch": {"pi": [16], "vf": [16]}, "split_features": True}
    untrained = MaskablePPO(MaskableGuessPolicy, env, seed=0, device="cpu",
                            policy_kwargs={**kwargs, "split_prior": {"log expected left": -3000.0}})
    column = FEATURES.index("log expected left")
    assert untrained.policy.action_net.linear.bias[untrained.policy.action_net.encoding_dim + 1 + column] == -3000
    obs = env.reset()
    for _ in range(3):  # every choice has the fewest expected candidates left (the prior outweighs the rest)
        with th.no_grad():
            logits = untrained.policy.action_logits(_obs_tensor(obs))
        choice = int(logits[0].argmax())
        cands = np.flatnonzero(untrained.policy.pi_features_extractor.guess_context[0].numpy())
        left = SplitFeatures(game)(cands)[:, column]
        assert left[choice] == left.min()
        obs, *_ = env.step(np.array([choice, choice]))
    # so it plays far better than an untrained policy without the prior (Mini Nerdle's optimum: 544)
    plain = MaskablePPO(MaskableGuessPolicy, env, seed=0, device="cpu", policy_kwargs=kwargs)
    with_prior = evaluate(LearnedAgent(untrained), game, progress=False).total_guesses
    assert with_prior < evaluate(LearnedAgent(plain), game, progress=False).total_guesses and with_prior <= 560


@pytest.mark.parametrize("changes, message", [
    ({"split_prior": {"log expected": -3.0}}, r"unknown split feature\(s\) \['log expected'\]"),
    ({"split_prior": {"entropy": "high"}}, r"split_prior\['entropy'\] must be a number from -1e\+06 to 1e\+06"),
    ({"split_prior": {"entropy": 1.0}, "split_features": False}, "split_prior needs split_features=True"),
])
def test_bad_split_priors_are_named(changes: dict, message: str) -> None:
    kwargs = {"split_features": True, **changes}
    with pytest.raises(ValueError, match=message):
        _policy(nerdle(5), **kwargs)


def test_the_shipped_split_prior_makes_the_sampled_policy_play_the_last_candidate() -> None:
    # configs/wordle.toml: most buckets, then fewest candidates left. Most buckets alone is as good
    # greedily, but every guess ties on it once one candidate is left, so a *sampled* policy (what
    # PPO's rollouts play) rarely plays the answer; the second term fixes that.
    from guessgym.agents.learned import LearnedAgent
    from guessgym.evaluation.evaluate import evaluate

    game = nerdle(6)
    env = BatchedVecEnv(BatchedGuessEnv(2, game=game, track_candidates=False))
    kwargs = {"game": game, "net_arch": {"pi": [16], "vf": [16]}, "split_features": True}

    def sampled(prior: dict[str, float]) -> float:
        model = MaskablePPO(MaskableGuessPolicy, env, seed=0, device="cpu",
                            policy_kwargs={**kwargs, "split_prior": prior})
        return evaluate(LearnedAgent(model, deterministic=False, seed=1), game, progress=False).win_rate

    shipped = sampled({"log buckets": 600.0, "log expected left": -300.0})
    buckets_only = sampled({"log buckets": 600.0})
    assert shipped == 1.0 and buckets_only < 0.5, (shipped, buckets_only)
