"""Multi-board games: both checkers, seeding, pickling, scoring board by board against the
single-board game, the end of a game, bad input, and the multi-board baseline."""

from __future__ import annotations

import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from hypothesis import given, settings
from hypothesis import strategies as st
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import guessgym  # noqa: F401  (registers the ids)
from guessgym.baselines.multiboard import MultiBoardExpectedSize
from guessgym.envs.env import GuessEnv
from guessgym.envs.game import nerdle
from guessgym.envs.multiboard import MultiBoardEnv
from guessgym.envs.registration import MULTIBOARD_ENV_SPECS

IDS = sorted(MULTIBOARD_ENV_SPECS)


@pytest.mark.parametrize("env_id", IDS)
def test_both_checkers(env_id: str) -> None:
    env = gym.make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gym_check_env(env.unwrapped)
        sb3_check_env(env, warn=True)


@pytest.mark.parametrize(("env_id", "boards", "attempts"), [
    ("guessgym/Dordle-v0", 2, 7), ("guessgym/Quordle-v0", 4, 9), ("guessgym/Octordle-v0", 8, 13),
    ("guessgym/Sedecordle-v0", 16, 21), ("guessgym/DoubleNerdle-v0", 2, 7), ("guessgym/QuadNerdle-v0", 4, 9),
])
def test_the_real_games_defaults(env_id: str, boards: int, attempts: int) -> None:
    env = gym.make(env_id).unwrapped
    assert (env.boards, env.game.max_attempts) == (boards, attempts)
    obs, info = env.reset(seed=0)
    assert obs["board"].shape == (boards * attempts * env.game.length,) and len(set(env.engine.answer)) == boards
    assert gym.make(env_id, max_attempts=20).unwrapped.game.max_attempts == 20


SMALL = nerdle(5)  # 127 answers


@settings(max_examples=60, deadline=None)
@given(answers=st.lists(st.integers(0, 126), min_size=3, max_size=3, unique=True),
       guesses=st.lists(st.integers(0, 126), min_size=1, max_size=8))
def test_each_board_is_scored_as_the_single_board_game(answers: list[int], guesses: list[int]) -> None:
    env = MultiBoardEnv(game=SMALL, boards=3, max_attempts=8, board_reward=0.5)
    env.reset(options={"answers": answers})
    singles = [GuessEnv(game=SMALL.replace(max_attempts=8)) for _ in answers]
    for single, answer in zip(singles, answers):
        single.reset(options={"answer": answer})
    solved = [False] * 3
    for turn, g in enumerate(guesses, 1):
        obs, reward, terminated, _, info = env.step(g)
        newly = 0
        for b, single in enumerate(singles):
            if solved[b]:
                assert info["tiles"][b] == "" and info["patterns"][b] == -1  # a solved board gets no more guesses
                continue
            _, _, _, _, expected = single.step(g)
            assert info["tiles"][b] == expected["tiles"] and info["candidates"][b] == expected["candidates"]
            if expected["pattern"] == SMALL.solved_pattern:
                solved[b] = True
                newly += 1
        assert info["solved"].tolist() == solved and obs["solved"].tolist() == [int(s) for s in solved]
        won = all(solved)
        assert terminated == (won or turn == 8)
        assert reward == pytest.approx(0.5 * newly + (1.0 if won else 0.0))
        board = obs["board"].reshape(3, 8, 5)
        for b, single in enumerate(singles):
            rows = single.unwrapped.board_rows()
            assert len(rows) == int((board[b] > 0).any(axis=1).sum())  # each board holds the guesses it received
        if terminated:
            assert info["answers"] == [SMALL.answers[a] for a in answers]
            with pytest.raises(RuntimeError, match="after the game ended"):
                env.step(0)
            break


def test_seeded_resets_and_pickling_reproduce_games() -> None:
    env = gym.make("guessgym/Quordle-v0").unwrapped
    first = env.reset(seed=7)[0]
    answers = env.engine.answer.copy()
    assert (env.reset(seed=7)[0]["board"] == first["board"]).all() and (env.engine.answer == answers).all()
    env.reset(seed=8)
    assert not (env.engine.answer == answers).all()
    env.reset(seed=7)
    env.step(10)
    copy = pickle.loads(pickle.dumps(env))
    for action in (20, 30, 40):
        a, b = env.step(action), copy.step(action)
        assert (a[0]["tiles"] == b[0]["tiles"]).all() and a[1:4] == b[1:4] and a[4]["tiles"] == b[4]["tiles"]


@pytest.mark.parametrize(("options", "error", "message"), [
    ({"boards": 1}, ValueError, "boards must be 2 to 32"),
    ({"boards": 4, "hard_mode": True}, ValueError, "hard mode is not defined for multi-board"),
    ({"boards": 4, "kind": "nerdle", "length": 5, "answers": ["2*3=6", "9-1=8", "1+2=3"]}, ValueError,
     "4 boards need 4 distinct answers"),
    ({"boards": 2, "colour": 1}, TypeError, "unknown environment argument"),
])
def test_bad_options_are_named(options: dict, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        MultiBoardEnv(**options)


def test_bad_resets_and_actions_are_named() -> None:
    env = MultiBoardEnv(game=SMALL, boards=2)
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(0)
    with pytest.raises(ValueError, match="must hold 2 answers"):
        env.reset(options={"answers": ["2*3=6"]})
    with pytest.raises(ValueError, match="must be distinct"):
        env.reset(options={"answers": ["2*3=6", "2*3=6"]})
    with pytest.raises(ValueError, match="not in this game's answer list"):
        env.reset(options={"answers": ["2*3=6", "0+1=1"]})
    env.reset(seed=0)
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(len(SMALL.guesses))


def test_the_multi_board_baseline_wins_and_solves_known_boards_at_once() -> None:
    env = gym.make("guessgym/Quordle-v0").unwrapped
    agent = MultiBoardExpectedSize()
    wins, attempts = 0, []
    for seed in range(25):
        obs, info = env.reset(seed=seed)
        agent.begin(env.game)
        done = False
        while not done:
            sets_before = None if agent.sets is None else [len(s) for s in agent.sets]
            action = agent.act(obs, info)
            known = [b for b in range(4) if not obs["solved"][b] and agent.sets[b].indices.size == 1]
            if known:  # a board down to one candidate is played at once
                assert env.game.guesses[action] == env.game.answers[agent.sets[known[0]].indices[0]]
            obs, _, done, _, info = env.step(action)
            assert sets_before is None or all(len(s) <= n for s, n in zip(agent.sets, sets_before))
        wins += bool(info["solved"].all())
        attempts.append(info["attempt"])
    assert wins == 25 and np.mean(attempts) < 7.5


# ---- the shared evaluation loop ----------------------------------------------------------------------
def test_the_shared_loop_plays_multiboard_games_the_same_on_every_backend(capsys: pytest.CaptureFixture[str]) -> None:
    from guessgym.agents.registry import make_agent
    from guessgym.cli import main
    from guessgym.evaluation.evaluate import evaluate

    agent = make_agent("multi-expected-size")
    serial = evaluate(agent, "guessgym/Quordle-v0", sample=12, seed=3, record_guesses=True)
    parallel = evaluate(agent, "guessgym/Quordle-v0", sample=12, seed=3, record_guesses=True, n_jobs=2,
                        backend="process")
    assert serial.records == parallel.records and serial.n_games == 12 and serial.game == "wordle-5-nyt-4boards"
    assert serial.meta["boards"] == 4 and serial.max_attempts == 9
    for record in serial.records:  # each game: four distinct answers, each the last guess on its board at most once
        boards = record.answer.split("+")
        assert len(set(boards)) == 4 and set(boards) <= set(record.played) and record.solved
    other_seed = evaluate(agent, "guessgym/Quordle-v0", sample=12, seed=4)
    assert [r.answer for r in other_seed.records] != [r.answer for r in serial.records]
    with pytest.raises(ValueError, match="give sample=N"):
        evaluate(agent, "guessgym/Quordle-v0", answers=["crane"])
    with pytest.raises(ValueError, match="unknown \\['colour'\\]"):
        evaluate(agent, "guessgym/Quordle-v0", sample=2, env_kwargs={"colour": 1})
    assert main(["evaluate", "--agent", "multi-expected-size", "--env", "guessgym/DoubleNerdle-v0",
                 "--env-kwargs", "length=6", "--answers", "5", "--no-progress"]) == 0
    assert "| multi-expected-size | mini-nerdle-2boards | 5 | 100.00 |" in capsys.readouterr().out
    assert main(["evaluate", "--agent", "expected-size", "--env", "guessgym/Dordle-v0", "--answers", "2",
                 "--no-progress"]) == 2


def test_stable_baselines3_trains_on_a_multiboard_game(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """MaskablePPO with SB3's own MultiInputPolicy on Micro Nerdle with 2 boards: a few updates,
    masks read from the env, the model saved, reloaded and played to the end of a game."""
    from sb3_contrib import MaskablePPO

    env = MultiBoardEnv(boards=2, kind="nerdle", length=5)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [32]}, device="cpu")
    model.learn(total_timesteps=128)
    model.save(tmp_path / "multi")
    loaded = MaskablePPO.load(tmp_path / "multi", device="cpu")
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        action, _ = loaded.predict(obs, action_masks=env.action_masks(), deterministic=True)
        obs, _, done, _, info = env.step(int(action))
    assert info["attempt"] <= env.game.max_attempts and "answers" in info
