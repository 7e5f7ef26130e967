"""Answers come from their own stream: seeded, reproducible, and out of reach of a same-seeded agent."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import DeprecatedEnv

import guessgym  # noqa: F401  (registers the ids)
from guessgym.envs.answer_stream import BLOCK, AnswerStream
from guessgym.envs.registration import ENV_SPECS, SUPERSEDED, current_id
from guessgym.envs.vector import BatchedGuessEnv

NERDLE_IDS = ["guessgym/MiniNerdle-v1", "guessgym/Nerdle-v1"]


def answers_of(env: gym.Env, seed: int | None, episodes: int) -> list[int]:
    """The answer indices of ``episodes`` episodes, the first reset seeded with ``seed``."""
    out = []
    for k in range(episodes):
        env.reset(seed=seed if k == 0 else None)
        out.append(int(env.unwrapped.engine.status[0, 0]))
    return out


@pytest.mark.parametrize("env_id", NERDLE_IDS)
def test_a_same_seeded_action_space_does_not_guess_the_answer(env_id: str) -> None:
    """The Gymnasium idiom ``env.reset(seed=s); env.action_space.seed(s)``: v0 won 200 of 200."""
    env = gym.make(env_id)
    per_episode_seed = 0
    for s in range(200):
        env.reset(seed=s)
        env.action_space.seed(s)
        per_episode_seed += env.step(env.action_space.sample())[1] > 0
    once_seeded = 0
    env.reset(seed=7)
    env.action_space.seed(7)
    for _ in range(200):  # nor do the streams fall into step in later episodes
        once_seeded += env.step(env.action_space.sample())[1] > 0
        env.reset()
    n = len(env.unwrapped.answers)
    # one uniform guess wins with probability 1/n (n = 206 and 17,723): 200 tries win about 1 game
    assert per_episode_seed <= 8 and once_seeded <= 8, (per_episode_seed, once_seeded, n)


@pytest.mark.parametrize("env_id", sorted(ENV_SPECS))
def test_answers_are_the_documented_child_stream(env_id: str) -> None:
    env = gym.make(env_id)
    n = len(env.unwrapped.answers)
    stream = AnswerStream.from_seed(11)
    expected = [stream.draw(n) for _ in range(BLOCK + 5)]  # across a block boundary
    assert answers_of(env, 11, BLOCK + 5) == expected
    assert answers_of(env, 11, 3) == expected[:3]  # reseeding restarts the stream


def test_answers_do_not_depend_on_the_action_space_or_np_random_use() -> None:
    env = gym.make("guessgym/MiniNerdle-v1")
    plain = answers_of(env, 3, 10)
    env.reset(seed=3)
    seen = []
    for _ in range(10):
        seen.append(int(env.unwrapped.engine.status[0, 0]))
        env.action_space.sample()
        env.unwrapped.np_random.random()  # the user's own draws from np_random
        env.reset()
    assert seen == plain


def test_a_replaced_np_random_reseeds_the_answers() -> None:
    env = gym.make("guessgym/MiniNerdle-v1")
    expected = answers_of(env, 5, 4)
    env.reset(seed=99)
    env.unwrapped.np_random = np.random.default_rng(5)  # Gymnasium's setter, as seeding.np_random(5)
    got = []
    for _ in range(4):
        env.reset()
        got.append(int(env.unwrapped.engine.status[0, 0]))
    assert got == expected


def test_unseeded_envs_differ() -> None:
    a, b = gym.make("guessgym/Wordle-v1"), gym.make("guessgym/Wordle-v1")
    assert answers_of(a, None, 8) != answers_of(b, None, 8)


def test_pickled_env_continues_the_answer_stream() -> None:
    env = gym.make("guessgym/MiniNerdle-v1")
    answers_of(env, 2, 5)
    clone = pickle.loads(pickle.dumps(env))
    assert answers_of(env, None, BLOCK) == answers_of(clone, None, BLOCK)


def test_stream_state_round_trip_mid_block() -> None:
    stream = AnswerStream.from_seed(4)
    for _ in range(BLOCK // 2):
        stream.draw(100)
    restored = AnswerStream.restored(stream.get_state())
    assert [restored.draw(100) for _ in range(2 * BLOCK)] == [stream.draw(100) for _ in range(2 * BLOCK)]


def test_draws_cover_the_range_uniformly() -> None:
    stream = AnswerStream.from_seed(0)
    counts = np.bincount([stream.draw(7) for _ in range(70_000)], minlength=7)
    assert counts.size == 7 and counts.min() > 9_500 and counts.max() < 10_500


def test_batched_sub_games_use_the_single_env_streams() -> None:
    venv = BatchedGuessEnv(3, game=gym.make("guessgym/MiniNerdle-v1").unwrapped.game)
    venv.reset(seed=20)
    singles = [answers_of(gym.make("guessgym/MiniNerdle-v1"), 20 + i, 1)[0] for i in range(3)]
    assert venv.engine.status[:, 0].tolist() == singles


def test_batched_state_of_the_previous_version_is_refused() -> None:
    venv = BatchedGuessEnv(2, game=gym.make("guessgym/MicroNerdle-v1").unwrapped.game)
    venv.reset(seed=0)
    state = venv.get_state()
    state["rngs"] = state.pop("answer_streams")
    with pytest.raises(ValueError, match="guessgym < 0.3"):
        venv.set_state(state)


def test_previous_ids_name_their_successor() -> None:
    assert set(SUPERSEDED.values()) == set(ENV_SPECS)
    for old, new in SUPERSEDED.items():
        assert current_id(old) == new and current_id(new) == new
        with pytest.raises(DeprecatedEnv, match=new.split("/")[1]), pytest.warns(DeprecationWarning):
            gym.make(old)


# ---- observation masks: read-only, and never shared with an observation the caller holds ----------


@pytest.mark.parametrize("env_id", ["guessgym/Wordle-v1", "guessgym/WordleHard-v1", "guessgym/MicroNerdle-v1"])
def test_held_masks_never_share_memory(env_id: str) -> None:
    env = gym.make(env_id)
    rng = np.random.default_rng(0)
    kept = []
    obs, info = env.reset(seed=1)
    kept.append(obs["action_mask"])
    for _ in range(30):
        allowed = np.flatnonzero(obs["action_mask"])
        obs, _, terminated, _, info = env.step(int(rng.choice(allowed)))
        assert info["action_mask"] is obs["action_mask"]
        kept.append(obs["action_mask"])
        if terminated:
            assert not obs["action_mask"].any()
            obs, info = env.reset()
            kept.append(obs["action_mask"])
    for i, a in enumerate(kept):
        assert not a.flags.writeable
        with pytest.raises(ValueError):
            a[0] = 1
        for b in kept[i + 1 :]:
            assert not np.shares_memory(a, b)


def test_an_unheld_mask_is_reused_and_keeps_its_content() -> None:
    env = gym.make("guessgym/Wordle-v1")
    env.reset(seed=0)
    obs, *_ = env.step(2)  # (the env checker keeps the reset and first step's data)
    obs, *rest = env.step(3)
    first = id(obs["action_mask"])
    del obs, rest
    obs, *_ = env.step(0)
    assert id(obs["action_mask"]) == first and obs["action_mask"].all()
    view = obs["action_mask"][:10]  # a view holds its base: the next mask must be new memory
    obs, *_ = env.step(1)
    assert not np.shares_memory(view, obs["action_mask"]) and view.all()


def test_the_usual_loop_alternates_between_pooled_masks() -> None:
    """``obs, ... = env.step(a)`` holds the previous observation while the next step runs."""
    env = gym.make("guessgym/Wordle-v1")
    obs, info = env.reset(seed=0)
    pooled = env.unwrapped._masks._pools
    for a in range(40):
        previous = obs["action_mask"]
        obs, _, terminated, _, info = env.step(a)
        assert not np.shares_memory(previous, obs["action_mask"])
        assert any(obs["action_mask"] is kept for kept in pooled[terminated])  # reused, not a new copy
        if terminated:
            obs, info = env.reset()
        del previous
    assert len(pooled[False]) == 2  # two arrays alternate
