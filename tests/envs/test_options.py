"""Every keyword argument of the games and environments is type-checked, with a message that says
which argument, what was given and what is allowed (``hard_mode="False"`` once meant hard mode)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import guessgym  # noqa: F401
from guessgym.envs.engine import RewardConfig
from guessgym.envs.env import GuessEnv
from guessgym.envs.game import make_game, nerdle, wordle
from guessgym.envs.vector import BatchedGuessEnv

BAD = [
    # (argument, value, error type, words the message must contain)
    ("hard_mode", "False", TypeError, ["hard_mode", "'False' (str)", "True or False"]),
    ("hard_mode", 1, TypeError, ["hard_mode", "1 (int)", "bool"]),
    ("hard_mode", None, TypeError, ["hard_mode", "None", "bool"]),
    ("matrix_cache", "no", TypeError, ["matrix_cache", "'no' (str)", "bool"]),
    ("max_attempts", 6.0, TypeError, ["max_attempts", "6.0 (float)", "int"]),
    ("max_attempts", "6", TypeError, ["max_attempts", "'6' (str)", "int"]),
    ("max_attempts", True, TypeError, ["max_attempts", "True (bool)", "int"]),
    ("max_attempts", 0, ValueError, ["max_attempts", "at least 1", "0"]),
    ("length", 5.0, TypeError, ["length", "5.0 (float)", "int"]),
    ("length", "5", TypeError, ["length", "'5' (str)", "int"]),
    ("kind", "chess", ValueError, ["kind", "'wordle', 'nerdle'", "'chess'"]),
    ("word_list", "nytimes", ValueError,
     ["word_list", "'nyt', 'original', 'nyt2022', 'nyt2023', 'english'", "'nytimes'"]),
    ("reward_mode", "dense", ValueError, ["reward_mode", "'sparse', 'shaped'", "'dense'"]),
    ("reward_mode", 1, TypeError, ["reward_mode", "1 (int)"]),
    ("win_reward", "1", TypeError, ["win_reward", "'1' (str)", "number"]),
    ("step_penalty", True, TypeError, ["step_penalty", "True (bool)", "number"]),
    ("loss_reward", float("nan"), ValueError, ["loss_reward", "finite"]),
    ("answers", 5, TypeError, ["answers", "5 (int)", "path"]),
]


@pytest.mark.parametrize(("name", "value", "error", "words"), BAD, ids=[f"{b[0]}={b[1]!r}" for b in BAD])
def test_bad_values_are_named(name: str, value: Any, error: type[Exception], words: list[str]) -> None:
    wordle_only = name == "word_list"
    env_id = "guessgym/Wordle-v1" if wordle_only else "guessgym/MicroNerdle-v1"
    batched = {"kind": "wordle", "length": 5} if wordle_only else {"kind": "nerdle", "length": 5}
    batched[name] = value
    for make in (lambda: gym.make(env_id, **{name: value}),
                 lambda: BatchedGuessEnv(2, **batched)):
        with pytest.raises(error) as info:
            make()
        for word in words:
            assert word in str(info.value), (word, str(info.value))


def test_game_factories_check_their_arguments() -> None:
    with pytest.raises(TypeError, match="hard_mode must be a bool"):
        wordle(hard_mode="False")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="length must be an int, got 6.0"):
        nerdle(6.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="hard_mode must be a bool"):
        make_game("guessgym/Wordle-v1", hard_mode="True")
    with pytest.raises(TypeError, match="game must be a guessgym Game"):
        GuessEnv(game="wordle")


def test_numpy_scalars_are_accepted_as_plain_types() -> None:
    game = make_game(kind="nerdle", length=np.int64(5), max_attempts=np.int32(4), hard_mode=np.bool_(True))
    assert (game.length, game.max_attempts, game.hard_mode) == (5, 4, True)
    assert type(game.max_attempts) is int and type(game.hard_mode) is bool
    assert RewardConfig(win_reward=np.float32(2.0), step_penalty=-1).step_penalty == -1.0


def test_false_means_easy_mode() -> None:
    env = gym.make("guessgym/WordleHard-v1", hard_mode=False)
    assert env.unwrapped.game.hard_mode is False


def test_nerdle_guess_presets_are_named_for_an_unknown_string() -> None:
    with pytest.raises(ValueError, match=r"guesses must be one of 'answers', 'all'.*'bogus' \(no such file\)"):
        nerdle(5, guesses="bogus")


def test_custom_nerdle_answers_are_named_apart_from_the_full_game() -> None:
    full = nerdle(5)
    custom = nerdle(5, answers=full.answers[:10])
    assert full.name == "micro-nerdle" and custom.name == "micro-nerdle-custom-answers"


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("\ufeffcrane\nslate\n".encode("utf-8"), ("crane", "slate")),  # UTF-8 with a byte-order mark
        ("crane\nslate\n".encode("utf-16"), ("crane", "slate")),  # UTF-16 with a byte-order mark
    ],
)
def test_word_files_with_a_byte_order_mark(tmp_path: Path, content: bytes, words: tuple[str, ...]) -> None:
    path = tmp_path / "answers.txt"
    path.write_bytes(content)
    assert wordle(answers=path).answers == words


def test_word_file_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("cr\xe2ne\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"answer file .*latin1.txt' is not utf-8 text \(byte 2"):
        wordle(answers=bad)
    with pytest.raises(ValueError, match=r"answer file .* is a directory"):
        wordle(answers=tmp_path)
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(ValueError, match=r"answer file .*fifo is not a regular file"):  # it would block
        wordle(answers=tmp_path / "fifo")
    with pytest.raises(FileNotFoundError, match=r"answer file .*nope.txt' does not exist"):
        wordle(answers=tmp_path / "nope.txt")


@pytest.mark.parametrize("env_id", ["guessgym/Wordle-v1", "guessgym/Absurdle-v0", "guessgym/Quordle-v0",
                                    "guessgym/WordleChat-v0"])
@pytest.mark.parametrize("options", ["x", 5, ["answer"], ("answer", 1)])
def test_reset_options_that_are_not_a_dict_are_a_type_error(env_id: str, options: object) -> None:
    """Issue 22: ``reset(options=...)`` that is not a dict gave AttributeErrors and 'int is not iterable'."""
    env = gym.make(env_id)
    with pytest.raises(TypeError, match=r"reset\(options=\.\.\.\) must be a dict or None"):
        env.reset(seed=0, options=options)


def test_limits_that_cannot_be_allocated_are_refused_with_a_message() -> None:
    from guessgym.envs.vector import BatchedGuessEnv

    with pytest.raises(ValueError, match="max_attempts must be at most 1000"):
        gym.make("guessgym/Wordle-v1", max_attempts=10**10)
    with pytest.raises(ValueError, match="need .* GiB .* more than can be allocated; use fewer games"):
        BatchedGuessEnv(10**10, game=make_game("guessgym/MicroNerdle-v1"))
