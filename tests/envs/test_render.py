"""Every render mode of every registered environment."""

from __future__ import annotations

import re
import warnings

import gymnasium as gym
import numpy as np
import pytest

from guessgym.envs.render import GAP, MARGIN, TILE

ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def play_two(env: gym.Env) -> list[str]:
    """Reset on answer 0 and play two allowed guesses that are not the answer; return them."""
    game = env.unwrapped.game
    _, info = env.reset(seed=0, options={"answer": 0})
    played = []
    for pick in (0, -1):
        allowed = info["action_mask"].astype(bool)
        allowed[game.answer_to_guess[0]] = False
        action = int(np.flatnonzero(allowed)[pick])
        _, _, _, _, info = env.step(action)
        assert not info["invalid_action"]
        played.append(game.guesses[action])
    return played


def tile_corner(image: np.ndarray, row: int, col: int) -> tuple[int, ...]:
    """The colour of a tile, read away from its letter and border."""
    y = MARGIN + row * (TILE + GAP) + 4
    x = MARGIN + col * (TILE + GAP) + 4
    return tuple(int(v) for v in image[y, x])


def test_ansi(env_id: str) -> None:
    env = gym.make(env_id, render_mode="ansi")
    game = env.unwrapped.game
    env.reset(seed=0)
    empty = env.render()
    assert isinstance(empty, str) and len(empty.splitlines()) == game.max_attempts
    played = play_two(env)
    text = env.render()
    assert isinstance(text, str)
    lines = [ANSI_ESCAPE.sub("", line).replace(" ", "") for line in text.splitlines()]
    assert len(lines) == game.max_attempts
    assert lines[0] == played[0].upper() and lines[1] == played[1].upper()
    assert lines[2] == "." * game.length  # empty rows
    assert "\x1b[" in text  # coloured
    env.close()


def test_rgb_array(env_id: str) -> None:
    env = gym.make(env_id, render_mode="rgb_array")
    game = env.unwrapped.game
    env.reset(seed=0, options={"answer": 0})
    before = env.render()
    assert isinstance(before, np.ndarray) and before.dtype == np.uint8 and before.ndim == 3 and before.shape[2] == 3
    height = 2 * MARGIN + game.max_attempts * TILE + (game.max_attempts - 1) * GAP
    width = 2 * MARGIN + game.length * TILE + (game.length - 1) * GAP
    assert before.shape == (height, width, 3)
    empty_colour = tile_corner(before, 0, 0)
    _, _, _, _, info = env.step(int(np.flatnonzero(game.guess_is_answer)[-1]))
    after = env.render()
    assert after.shape == before.shape
    tiles = info["tiles"]
    colours = [tile_corner(after, 0, c) for c in range(game.length)]
    assert all(colour != empty_colour for colour in colours)  # the first row is coloured now
    for c, colour in enumerate(colours):  # one colour per tile kind
        assert all((colours[d] == colour) == (tiles[d] == tiles[c]) for d in range(game.length))
        if tiles[c] == "G":
            r, g, b = colour
            assert g > r and g > b  # green is green
    assert tile_corner(after, 1, 0) == empty_colour  # the second row is still empty
    assert np.array_equal(after[-MARGIN - TILE :], before[-MARGIN - TILE :])
    env.close()


def test_rgb_array_after_a_win_is_all_green(env_id: str) -> None:
    env = gym.make(env_id, render_mode="rgb_array")
    game = env.unwrapped.game
    env.reset(seed=0, options={"answer": 3})
    env.step(int(game.answer_to_guess[3]))
    image = env.render()
    colours = {tile_corner(image, 0, c) for c in range(game.length)}
    assert len(colours) == 1
    r, g, b = colours.pop()
    assert g > r and g > b


def test_human_prints_on_reset_and_step(env_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    env = gym.make(env_id, render_mode="human")
    env.reset(seed=0)
    assert capsys.readouterr().out.count("\n") >= env.unwrapped.game.max_attempts
    played = play_two(env)
    out = ANSI_ESCAPE.sub("", capsys.readouterr().out).replace(" ", "")
    assert played[0].upper() in out and played[1].upper() in out
    assert env.render() is None
    env.close()


def test_render_without_a_mode_warns_and_returns_none(env_id: str) -> None:
    env = gym.make(env_id)
    env.reset(seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert env.unwrapped.render() is None
    assert any("render_mode" in str(w.message) for w in caught)
    env.close()


def board_size(rows: int, length: int) -> tuple[int, int]:
    """The (height, width) of one board image."""
    return 2 * MARGIN + rows * TILE + (rows - 1) * GAP, 2 * MARGIN + length * TILE + (length - 1) * GAP


@pytest.mark.parametrize(("env_id", "grid"), [("guessgym/Dordle-v0", (1, 2)), ("guessgym/Octordle-v0", (2, 4)),
                                              ("guessgym/Sedecordle-v0", (2, 8))])
def test_multiboard_rgb_array_draws_each_board_in_a_grid(env_id: str, grid: tuple[int, int]) -> None:
    env = gym.make(env_id, render_mode="rgb_array")
    base = env.unwrapped
    game = base.game
    answers = list(range(base.boards))
    env.reset(seed=0, options={"answers": answers})
    empty = env.render()
    height, width = board_size(game.max_attempts, game.length)
    assert empty.shape == (grid[0] * height, grid[1] * width, 3)
    env.step(int(game.answer_to_guess[1]))  # solves board 2 and colours every board's first row
    image = env.render()
    for board in range(base.boards):
        y, x = divmod(board, grid[1])
        tile = image[y * height :, x * width :]
        colours = {tile_corner(tile, 0, c) for c in range(game.length)}
        assert tile_corner(tile, 0, 0) != tile_corner(empty[y * height :, x * width :], 0, 0)
        if board == 1:
            assert len(colours) == 1 and tile_corner(tile, 0, 0)[1] > tile_corner(tile, 0, 0)[0]  # all green
        assert tile_corner(tile, 1, 0) == tile_corner(empty, 1, 0)  # the second row is empty
    env.step(int(game.answer_to_guess[0]))
    after = env.render()
    solved = after[:height, width : 2 * width]
    assert tile_corner(solved, 1, 0) == tile_corner(empty, 1, 0)  # a solved board takes no more rows
    env.close()


def test_absurdle_rgb_array_grows_with_an_uncapped_game_and_is_fixed_when_capped() -> None:
    env = gym.make("guessgym/Absurdle-v0", render_mode="rgb_array")
    game = env.unwrapped.game
    env.reset(seed=0)
    assert env.render().shape[:2] == board_size(6, game.length)
    for word in ("crane", "spilt", "dough", "bawdy", "fjord", "gucky"):
        _, _, terminated, _, info = env.step(game.guess_index[word])
        if terminated:
            break
    image = env.render()
    played = info["attempt"]
    assert image.shape[:2] == board_size(max(6, played + (not terminated)), game.length)
    assert tile_corner(image, played - 1, 0) != (255, 255, 255)
    capped = gym.make("guessgym/Absurdle-v0", render_mode="rgb_array", max_attempts=4)
    capped.reset(seed=0)
    assert capped.render().shape[:2] == board_size(4, game.length)


def test_chat_rgb_array_is_the_board_of_the_guesses_played() -> None:
    chat = gym.make("guessgym/WordleChat-v0", render_mode="rgb_array")
    plain = gym.make("guessgym/Wordle-v1", render_mode="rgb_array")
    game = plain.unwrapped.game
    chat.reset(seed=0, options={"answer": "crane"})
    plain.reset(seed=0, options={"answer": "crane"})
    for word in ("slate", "brick"):
        chat.step(f"My guess: [{word}]")
        plain.step(game.guess_index[word])
    assert np.array_equal(chat.render(), plain.render())
