"""The batched vector environment: Gymnasium vector API conformance and exact equivalence with
``GuessEnv`` stepped one game at a time (through ``gymnasium.make_vec(..., "sync")``)."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv

from guessgym import envs
from guessgym.envs.env import GuessEnv
from guessgym.envs.game import nerdle, wordle
from guessgym.envs.vector import BatchedGuessEnv, make_batched, single_env_like

SMALL_WORDLE = dict(
    kind="wordle",
    answers=["crane", "slate", "trace", "crate", "react", "caret", "stale", "least"],
    guesses=["crane", "slate", "trace", "crate", "react", "caret", "stale", "least", "adieu", "tales"],
)


def _assert_tree_equal(a: dict, b: dict, where: str) -> None:
    assert set(a) == set(b), f"{where}: keys differ: {sorted(set(a) ^ set(b))}"
    for key in a:
        if isinstance(a[key], dict):
            _assert_tree_equal(a[key], b[key], f"{where}.{key}")
            continue
        x, y = np.asarray(a[key]), np.asarray(b[key])
        assert x.dtype == y.dtype, f"{where}.{key}: dtype {x.dtype} != {y.dtype}"
        assert x.shape == y.shape and np.array_equal(x, y), f"{where}.{key}: {x} != {y}"


def _random_actions(rng: np.random.Generator, masks: np.ndarray, p_masked: float) -> np.ndarray:
    """Mostly allowed actions, sometimes any action (hard-mode violations must be handled alike)."""
    out = []
    for row in masks:
        allowed = np.flatnonzero(row)
        if allowed.size and rng.random() > p_masked:
            out.append(int(rng.choice(allowed)))
        else:
            out.append(int(rng.integers(len(row))))
    return np.array(out)


@pytest.mark.parametrize(
    "env_id, kwargs",
    [
        ("guessgym/MiniNerdle-v1", {}),
        ("guessgym/MicroNerdle-v1", {"reward_mode": "shaped", "step_penalty": -0.05}),
        ("guessgym/WordleHard-v1", {}),
        (
            "guessgym/Wordle-v1",
            {"answers": SMALL_WORDLE["answers"], "guesses": SMALL_WORDLE["guesses"], "hard_mode": True},
        ),
    ],
)
def test_equivalent_to_sync_vector_env(env_id: str, kwargs: dict) -> None:
    """Same seeds and actions: observations, rewards, terminations, truncations and infos equal
    those of SyncVectorEnv over GuessEnv, through autoresets, including dtypes."""
    n = 6
    sync = gym.make_vec(env_id, num_envs=n, vectorization_mode="sync", **kwargs)
    batched = BatchedGuessEnv(n, **{**envs.ENV_SPECS[env_id], **kwargs})
    assert batched.single_observation_space == sync.single_observation_space
    assert batched.single_action_space == sync.single_action_space
    assert batched.observation_space == sync.observation_space
    assert batched.action_space == sync.action_space
    o1, i1 = sync.reset(seed=11)
    o2, i2 = batched.reset(seed=11)
    _assert_tree_equal(o1, o2, "reset obs")
    _assert_tree_equal(i1, i2, "reset info")
    rng = np.random.default_rng(0)
    for t in range(120):
        actions = _random_actions(rng, o1["action_mask"], p_masked=0.3)
        r1, r2 = sync.step(actions), batched.step(actions)
        _assert_tree_equal(r1[0], r2[0], f"step {t} obs")
        _assert_tree_equal(r1[4], r2[4], f"step {t} info")
        for j, name in ((1, "reward"), (2, "terminated"), (3, "truncated")):
            assert r1[j].dtype == r2[j].dtype, name
            assert np.array_equal(r1[j], r2[j]), f"step {t} {name}: {r1[j]} != {r2[j]}"
        o1 = r1[0]
    sync.close()


def test_equivalent_to_single_envs_with_fixed_answers() -> None:
    """Each sub-game equals a lone GuessEnv with the same answer and actions (no autoreset)."""
    game = nerdle(6)
    n = 5
    answers = [3, 50, 100, 150, 205]
    venv = BatchedGuessEnv(n, game=game)
    singles = [single_env_like(venv) for _ in range(n)]
    obs, _ = venv.reset(seed=0, options={"answer": answers})
    for env, a in zip(singles, answers):
        env.reset(seed=0, options={"answer": a})
    rng = np.random.default_rng(1)
    live = np.ones(n, dtype=bool)
    for _ in range(game.max_attempts):
        actions = rng.integers(len(game.guesses), size=n)
        obs, rew, term, trunc, info = venv.step(actions)
        for i, env in enumerate(singles):
            if not live[i]:
                continue
            o, r, te, tr, inf = env.step(int(actions[i]))
            for key in o:
                assert np.array_equal(o[key], obs[key][i]), key
            assert r == rew[i] and te == term[i] and tr == trunc[i]
            assert inf["candidates"] == info["candidates"][i] and inf["tiles"] == info["tiles"][i]
            assert np.array_equal(np.flatnonzero(venv.candidate_masks()[i]), env.candidates)
            live[i] = not te


def test_vector_api_conformance() -> None:
    venv = BatchedGuessEnv(4, game=nerdle(5))
    assert isinstance(venv, VectorEnv)
    assert venv.num_envs == 4
    assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = venv.reset(seed=3)
    assert obs in venv.observation_space
    assert isinstance(info, dict) and all(info[f"_{k}"].shape == (4,) for k in info if not k.startswith("_"))
    actions = venv.action_space.sample()
    obs, rew, term, trunc, info = venv.step(actions)
    assert obs in venv.observation_space
    assert rew.shape == term.shape == trunc.shape == (4,)
    assert rew.dtype == np.float64 and term.dtype == np.bool_ and trunc.dtype == np.bool_
    masks = venv.action_masks()
    assert masks.shape == (4, len(venv.guesses)) and masks.dtype == np.bool_
    assert np.array_equal(masks, obs["action_mask"].astype(bool))
    with pytest.raises(ValueError):
        venv.step(np.array([0, 1, 2, len(venv.guesses)]))
    with pytest.raises(ValueError):
        venv.step(np.array([0, 1]))
    with pytest.raises(ValueError):
        venv.reset(options={"colour": 1})
    venv.close()
    assert venv.closed


def test_next_step_autoreset_semantics() -> None:
    game = nerdle(5)
    venv = BatchedGuessEnv(2, game=game)
    obs, _ = venv.reset(seed=0, options={"answer": [0, 1]})
    win = int(game.answer_to_guess[0])
    other = int(game.answer_to_guess[2])
    obs, rew, term, _, info = venv.step(np.array([win, other]))
    assert term.tolist() == [True, False] and rew.tolist() == [1.0, 0.0]
    assert info["_answer"].tolist() == [True, False] and info["answer"][0] == game.answers[0]
    assert not obs["action_mask"][0].any() and obs["action_mask"][1].all()
    # next step: sub-game 0 restarts (its action is ignored), sub-game 1 plays on
    obs, rew, term, _, info = venv.step(np.array([other, other]))
    assert rew[0] == 0.0 and not term[0] and info["attempt"].tolist() == [0, 2]
    assert not obs["board"][0].any() and info["pattern"][0] == -1


def test_partial_reset_and_seed_list() -> None:
    venv = BatchedGuessEnv(3, game=nerdle(6))
    venv.reset(seed=[1, 2, 3])
    venv.step(np.array([0, 0, 0]))
    mask = np.array([False, True, False])
    obs, info = venv.reset(options={"reset_mask": mask, "answer": 7})
    assert info["_attempt"].tolist() == [False, True, False]
    assert venv.current_answers[1] == 7
    assert obs["board"][0].any() and not obs["board"][1].any()


def test_seeded_runs_repeat_and_pickle() -> None:
    def rollout(venv: BatchedGuessEnv) -> list[np.ndarray]:
        out = []
        venv.reset(seed=9)
        rng = np.random.default_rng(4)
        for _ in range(40):
            obs, rew, *_ = venv.step(rng.integers(len(venv.guesses), size=venv.num_envs))
            out += [obs["board"], rew]
        return out

    a = rollout(BatchedGuessEnv(4, game=nerdle(5)))
    b = rollout(pickle.loads(pickle.dumps(BatchedGuessEnv(4, game=nerdle(5)))))
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_state_round_trip_continues_identically() -> None:
    game = wordle(answers=SMALL_WORDLE["answers"], guesses=SMALL_WORDLE["guesses"], hard_mode=True)
    venv = BatchedGuessEnv(4, game=game)
    venv.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(7):
        venv.step(_random_actions(rng, venv.action_masks(), 0.2))
    state = pickle.loads(pickle.dumps(venv.get_state()))
    actions = [_random_actions(rng, np.ones((4, len(game.guesses))), 0.5) for _ in range(20)]
    first = [venv.step(a) for a in actions]
    other = BatchedGuessEnv(4, game=game)
    other.set_state(state)
    second = [other.step(a) for a in actions]
    for x, y in zip(first, second):
        _assert_tree_equal(x[0], y[0], "obs")
        _assert_tree_equal(x[4], y[4], "info")
        assert np.array_equal(x[1], y[1]) and np.array_equal(x[2], y[2])


def test_answer_pool_restricts_new_games() -> None:
    game = nerdle(6)
    venv = BatchedGuessEnv(8, game=game, reward_mode="shaped")
    pool = np.array([5, 17, 42])
    venv.set_answer_pool(pool)
    obs, info = venv.reset(seed=0)
    assert set(venv.current_answers.tolist()) <= set(pool.tolist())
    assert (info["candidates"] == 3).all()
    for _ in range(50):
        venv.step(np.random.default_rng(0).integers(len(game.guesses), size=8))
        assert set(venv.current_answers.tolist()) <= set(pool.tolist())
    venv.set_answer_pool(None)
    assert len(venv.answer_pool) == len(game.answers)
    with pytest.raises(ValueError):
        venv.set_answer_pool([])


def test_masks_are_not_shared_between_steps() -> None:
    """Mask arrays are recycled only when nobody holds them: an old observation never changes."""
    game = nerdle(5)
    venv = BatchedGuessEnv(2, game=game)
    obs, _ = venv.reset(seed=0, options={"answer": [0, 1]})
    kept = obs["action_mask"]
    view = kept[0]
    snapshot = kept.copy()
    for _ in range(12):
        step_obs, *_ = venv.step(np.array([int(game.answer_to_guess[0]), 3]))
        assert step_obs["action_mask"] is not kept
    assert np.array_equal(kept, snapshot) and np.array_equal(view, snapshot[0])


def test_observation_masks_are_read_only_and_track_game_ends() -> None:
    game = nerdle(5)
    venv = BatchedGuessEnv(3, game=game)
    obs, info = venv.reset(seed=0, options={"answer": [0, 1, 2]})
    assert not obs["action_mask"].flags.writeable and info["action_mask"] is obs["action_mask"]
    with pytest.raises(ValueError):
        obs["action_mask"][0, 0] = 0
    wins = np.array([int(game.answer_to_guess[a]) for a in (0, 1, 2)])
    for t in range(9):  # games end and restart at different steps: recycled rows must follow
        actions = np.where(np.arange(3) == t % 3, wins, 3)
        obs, _, term, _, info = venv.step(actions)
        assert np.array_equal(obs["action_mask"].all(axis=1), ~term)
        assert np.array_equal(obs["action_mask"].any(axis=1), ~term)
    assert venv.action_masks().flags.writeable


def test_make_vec_vector_entry_point() -> None:
    """The registration the lead adds to envs/__init__.py makes make_vec return the batched env."""
    spec_id = "guessgym-test/MicroNerdleVec-v0"
    if spec_id not in gym.registry:
        gym.register(
            id=spec_id,
            entry_point="guessgym.envs.env:GuessEnv",
            vector_entry_point="guessgym.envs.vector:make_batched",
            kwargs={"kind": "nerdle", "length": 5},
        )
    try:
        venv = gym.make_vec(spec_id, num_envs=3, vectorization_mode="vector_entry_point")
        assert isinstance(venv.unwrapped, BatchedGuessEnv) and venv.num_envs == 3
        assert venv.unwrapped.game.name == "micro-nerdle"
        venv.reset(seed=0)
        venv.step(np.zeros(3, dtype=np.int64))
        assert isinstance(make_batched(2, kind="nerdle", length=5, max_episode_steps=9), BatchedGuessEnv)
    finally:
        gym.registry.pop(spec_id, None)


def test_single_env_like_matches_settings() -> None:
    venv = BatchedGuessEnv(2, game=nerdle(5), reward_mode="shaped", step_penalty=-0.2)
    env = single_env_like(venv)
    assert isinstance(env, GuessEnv) and env.rewards.reward_mode == "shaped" and env.rewards.step_penalty == -0.2


def test_render_frames() -> None:
    venv = BatchedGuessEnv(2, render_mode="ansi", game=nerdle(5))
    venv.reset(seed=0)
    venv.step(np.array([0, 1]))
    frames = venv.render()
    assert isinstance(frames, tuple) and len(frames) == 2 and all(isinstance(f, str) for f in frames)
    assert venv.board_rows(0)[0][0] == venv.guesses[0]
