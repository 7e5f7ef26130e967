"""The value-based updates that compute only what their losses use (training/value_based.py): DQN's
trains to the bit as stable-baselines3's does with the guess Q-policy, QR-DQN's as sb3-contrib's to
rounding; the heads' one-guess scores are their full scores' numbers, gradients included."""

from __future__ import annotations

import pytest
import torch as th
from sb3_contrib import QRDQN
from stable_baselines3 import DQN

from guessgym.agents.policies import GuessQPolicy, GuessQuantilePolicy, GuessScoringHead
from guessgym.envs.game import Game, make_game, nerdle, wordle
from guessgym.envs.vector import BatchedGuessEnv
from guessgym.training.benchmark.runner import algorithm_class
from guessgym.training.sb3_vec import BatchedVecEnv
from guessgym.training.value_based import GuessDQN, GuessQRDQN

th.set_num_threads(1)

NOT_ALL_ANSWERS = wordle(answers=["crane", "slate", "pious", "mamma"],
                         guesses=["crane", "slate", "pious", "mamma", "adieu", "lllll", "tares"])


@pytest.mark.parametrize("game", [nerdle(5), NOT_ALL_ANSWERS, make_game("guessgym/Wordle500-v0")],
                         ids=["every-guess-an-answer", "some-guesses-no-answer", "wordle-500"])
@pytest.mark.parametrize("outputs", [1, 7])
@pytest.mark.parametrize("guess_bias", [False, True])
def test_one_guess_scores_are_the_full_scores_numbers_and_gradients(game: Game, outputs: int,
                                                                    guess_bias: bool) -> None:
    th.manual_seed(outputs)
    head = GuessScoringHead(16, game, candidate_prior=1.5, guess_bias=guess_bias, n_outputs=outputs)
    th.nn.init.normal_(head.linear.weight)
    if head.guess_bias is not None:
        th.nn.init.normal_(head.guess_bias)
    latent = th.randn(33, 16, requires_grad=True)
    candidates = (th.rand(33, len(game.answers)) < 0.4).float()
    guesses = th.randint(0, len(game.guesses), (33,))
    full = head(latent, candidates)
    picked = (full.gather(2, guesses[:, None, None].expand(33, outputs, 1)).squeeze(2) if outputs > 1
              else full.gather(1, guesses[:, None]).squeeze(1))
    mine = head.score_guesses(latent, candidates, guesses)
    assert th.equal(mine, picked)
    weights = th.randn(picked.shape)
    params = [latent, *head.parameters()]
    for theirs, ours in zip(th.autograd.grad((picked * weights).sum(), params),
                            th.autograd.grad((mine * weights).sum(), params), strict=True):
        if ours.shape == (len(game.guesses),):  # the per-guess bias: a batch's rows summed in another order
            assert th.allclose(ours, theirs, rtol=1e-6, atol=1e-6)
        else:
            assert th.equal(ours, theirs)
    mean = full.mean(dim=1) if outputs > 1 else full
    assert th.allclose(head.mean_scores(latent, candidates), mean, rtol=1e-5, atol=1e-5)


def test_one_guess_scores_refuse_a_batch_they_were_not_given() -> None:
    head = GuessScoringHead(8, nerdle(5))
    with pytest.raises(ValueError, match="one guess per state"):
        head.score_guesses(th.zeros(4, 8), None, th.zeros(3, dtype=th.long))
    with pytest.raises(RuntimeError, match="candidate context and latent batch sizes differ"):
        head.score_guesses(th.zeros(4, 8), th.zeros(5, len(nerdle(5).answers)), th.zeros(4, dtype=th.long))


def _learned(cls: type, policy: type, game: Game, **extra: object) -> th.nn.Module:
    env = BatchedVecEnv(BatchedGuessEnv(8, game=game, track_candidates=False))
    model = cls(policy, env, policy_kwargs={"game": game, "net_arch": [32], **extra}, seed=3, device="cpu",
                learning_starts=200, buffer_size=5_000, batch_size=32, train_freq=2, gradient_steps=2,
                target_update_interval=100, verbose=0)
    model.learn(1_200)
    return model.policy


@pytest.mark.parametrize("game", [nerdle(5), NOT_ALL_ANSWERS], ids=["nerdle-5", "some-guesses-no-answer"])
def test_dqn_trains_to_the_bit_as_stable_baselines3_does(game: Game) -> None:
    ours = _learned(GuessDQN, GuessQPolicy, game, candidate_prior=1.0)
    theirs = _learned(DQN, GuessQPolicy, game, candidate_prior=1.0)
    for (name, mine), (_, reference) in zip(ours.state_dict().items(), theirs.state_dict().items(), strict=True):
        assert th.equal(mine, reference), name


def test_qrdqn_trains_as_sb3_contrib_does_to_rounding() -> None:
    ours = _learned(GuessQRDQN, GuessQuantilePolicy, nerdle(5), n_quantiles=5)
    theirs = _learned(QRDQN, GuessQuantilePolicy, nerdle(5), n_quantiles=5)
    for (name, mine), (_, reference) in zip(ours.state_dict().items(), theirs.state_dict().items(), strict=True):
        assert th.allclose(mine, reference, rtol=1e-4, atol=1e-5), name


def test_the_benchmark_runs_the_value_based_updates_that_compute_what_they_use() -> None:
    assert algorithm_class("dqn") is GuessDQN and algorithm_class("qrdqn") is GuessQRDQN
