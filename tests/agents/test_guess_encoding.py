"""The guess encoding as sums over each guess's features: the same function as the dense product
with the encoding (forward and gradient), and hard mode's allowed guesses equal to the rules'."""

from __future__ import annotations

import numpy as np
import pytest
import torch as th

from guessgym.agents.guess_encoding import (
    SparseSums,
    dense_guess_encoding,
    encoding_width,
    guess_encoding,
    hard_mode_index,
)
from guessgym.agents.policies import GuessFeaturesExtractor
from guessgym.envs.env import GuessEnv
from guessgym.envs.game import make_game, nerdle, wordle

th.set_num_threads(1)


def _slow_encoding(game) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The encoding written out guess by guess: symbol per position, symbols present, is an answer."""
    L, S = game.length, game.n_symbols
    out = np.zeros((len(game.guesses), L * S + S + 1), dtype=np.float32)
    for g, codes in enumerate(game.guess_codes):
        for position, symbol in enumerate(codes):
            out[g, position * S + symbol] = 1.0
            out[g, L * S + symbol] = 1.0
        out[g, -1] = float(game.guess_is_answer[g])
    return out


@pytest.mark.parametrize("game_id", ["guessgym/MicroNerdle-v1", "guessgym/Wordle500-v0", "guessgym/Wordle-v1"])
def test_the_sums_are_the_dense_product_on_every_guess(game_id: str) -> None:
    game = make_game(game_id)
    dense = th.as_tensor(_slow_encoding(game))
    assert np.array_equal(dense_guess_encoding(game), dense.numpy())
    sums = guess_encoding(game)
    rng = th.Generator().manual_seed(0)
    for batch in (1, 7, 64):
        z = th.randn(batch, encoding_width(game), generator=rng, requires_grad=True)
        out = sums(z)
        reference = z.detach() @ dense.T
        assert out.shape == (batch, len(game.guesses))
        assert th.allclose(out, reference, atol=1e-5, rtol=0), (out - reference).abs().max()
        upstream = th.randn(batch, len(game.guesses), generator=rng)
        out.backward(upstream)
        expected = upstream @ dense  # d(z @ E^T)/dz
        assert z.grad is not None
        assert th.allclose(z.grad, expected, atol=1e-5 * float(expected.abs().max()), rtol=0)


def test_the_gradient_passes_torch_gradcheck_on_a_small_game() -> None:
    game = nerdle(5)
    sums = guess_encoding(game)
    z = th.randn(3, encoding_width(game), dtype=th.float64, requires_grad=True)
    assert th.autograd.gradcheck(sums, (z,))


def test_bad_weights_and_indices_are_named() -> None:
    sums = guess_encoding(nerdle(5))
    with pytest.raises(ValueError, match=r"expected weights of shape \(batch, "):
        sums(th.zeros(2, 3))
    with pytest.raises(ValueError, match="expected a \\(rows, k\\) index of columns 0..4"):
        SparseSums(np.array([[0, 5]]), 4)


@pytest.mark.parametrize("game", [
    make_game("guessgym/WordleHard-v1"),
    wordle(answers=["eerie", "sheep", "steep", "geese", "emcee", "melee"],
           guesses=["eerie", "sheep", "steep", "geese", "emcee", "melee", "eeeee", "sweet", "tepee"],
           hard_mode=True),
], ids=["wordle-hard", "repeated-letters"])
def test_hard_mode_allowed_guesses_equal_the_environment_masks(game) -> None:  # type: ignore[no-untyped-def]
    extractor = GuessFeaturesExtractor(GuessEnv(game=game).observation_space, game, hard_mode_mask=True)
    rng = np.random.default_rng(0)
    states = 0
    for episode in range(12):
        env = GuessEnv(game=game)
        obs, _ = env.reset(seed=episode)
        done = False
        while not done:
            extractor({"board": th.as_tensor(obs["board"][None]), "tiles": th.as_tensor(obs["tiles"][None])})
            assert extractor.guess_legal is not None
            assert np.array_equal(extractor.guess_legal[0].numpy(), obs["action_mask"].astype(bool))
            states += 1
            obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert states > 24
    # each guess's requirement columns: its L symbols in place and one per copy of each symbol
    index = hard_mode_index(game)
    assert index.shape == (len(game.guesses), 2 * game.length)
    assert all(len(set(row)) == len(row) for row in index.tolist())
