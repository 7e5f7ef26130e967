"""The cloning stage: learns the optimum's moves, resumes to the same model, holds answers out."""

from __future__ import annotations

import csv
import json
import threading
from pathlib import Path

import numpy as np
import pytest
import torch as th

from guessgym.agents.learned import load_model
from guessgym.envs import make_game
from guessgym.training.checkpoints import latest_checkpoint
from guessgym.training.cloning import expert_data
from guessgym.training.config import TrainConfig
from guessgym.training.train import train, training_answers

th.set_num_threads(1)


def config(tmp_path: Path, name: str, **changes) -> TrainConfig:
    """Micro Nerdle (127 answers), cloned then a few PPO steps; the split features of the shipped configs."""
    base = dict(run_name=name, env_id="guessgym/MicroNerdle-v1", total_steps=512, num_envs=8, n_steps=32,
                batch_size=128, n_epochs=2, checkpoint_every=256, eval_every=256, log_dir=str(tmp_path),
                net_arch={"pi": [64], "vf": [64]}, split_features=True, candidate_prior=0.0, seed=3,
                clone_epochs=6, clone_batch_size=32, clone_learning_rate=3e-3)
    base.update(changes)
    return TrainConfig(**base)


def optimal_total(game, answers=None) -> int:
    from guessgym.agents.registry import make_agent
    from guessgym.evaluation import evaluate

    return evaluate(make_agent("optimal"), game, answers=answers).total_guesses


def test_the_expert_data_are_the_optimal_games_with_their_returns() -> None:
    game = make_game("guessgym/MicroNerdle-v1")
    data = expert_data(game, np.arange(len(game.answers)), gamma=0.9)
    # one state per guess of the optimal tree, no masks out of hard mode
    assert len(data) == optimal_total(game) and data.masks is None
    # sparse rewards: a state k guesses from the win is worth 0.9 ** (k - 1)
    steps = np.log(data.returns.numpy()) / np.log(0.9)
    assert np.allclose(steps, np.round(steps), atol=1e-4) and steps.min() == 0 and round(steps.max()) <= 5


def test_cloning_learns_the_optimum_and_ppo_starts_from_it(tmp_path: Path) -> None:
    path = train(config(tmp_path, "c"))
    run = tmp_path / "c"
    rows = list(csv.DictReader(open(run / "cloning.csv")))
    assert [int(r["epoch"]) for r in rows] == list(range(1, 7))
    assert float(rows[-1]["loss"]) < float(rows[0]["loss"]) and float(rows[-1]["accuracy"]) > 0.9
    final = json.loads((run / "final.json").read_text())
    cloned = final["cloned"]["all"]
    # the cloned greedy policy plays the optimum's total on every answer, then PPO runs from it
    assert cloned["win_rate"] == 1.0 and cloned["total_guesses"] == optimal_total(make_game("guessgym/MicroNerdle-v1"))
    assert final["cloned"]["states"] == cloned["total_guesses"] and load_model(path).num_timesteps == 512


def test_a_stopped_cloning_stage_resumes_to_the_same_model(tmp_path: Path) -> None:
    full = train(config(tmp_path, "full"))
    stop = threading.Event()
    stop.set()  # stops after the first epoch's checkpoint
    partial = train(config(tmp_path, "cut"), stop_event=stop)
    assert partial.parent.name == "epoch-0001" and latest_checkpoint(tmp_path / "cut") is None
    with pytest.raises(FileExistsError):
        train(config(tmp_path, "cut"))  # a started stage is resumed, not overwritten
    resumed = train(config(tmp_path, "cut"), resume=True)
    a, b = load_model(full).policy.state_dict(), load_model(resumed).policy.state_dict()
    assert all(th.equal(a[k], b[k]) for k in a)
    rows = [r[:-1] for r in csv.reader(open(tmp_path / "full" / "cloning.csv"))]  # the last column is wall time
    assert rows == [r[:-1] for r in csv.reader(open(tmp_path / "cut" / "cloning.csv"))]


def test_held_out_answers_are_never_trained_on_and_reported_apart(tmp_path: Path) -> None:
    cfg = config(tmp_path, "h", holdout=0.25)
    game = make_game("guessgym/MicroNerdle-v1")
    trained, held = training_answers(cfg, game)
    assert len(held) == round(0.25 * 127) and not set(trained) & set(held)
    data = expert_data(game, trained, gamma=cfg.gamma)
    assert len(data) == optimal_total(game, [int(a) for a in trained])  # the training games' states only
    train(cfg)
    final = json.loads((tmp_path / "h" / "final.json").read_text())
    assert final["cloned"]["held_out"]["games"] == len(held) == final["held_out_eval"]["games"]
    assert final["cloned"]["trained"]["games"] == len(trained)


def test_holdout_and_curriculum_are_refused_together(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="holdout and curriculum cannot be combined"):
        config(tmp_path, "x", holdout=0.1, curriculum=[[20, 100]]).validate()


def test_a_cloning_only_run_ships_the_cloned_policy(tmp_path: Path) -> None:
    path = train(config(tmp_path, "only", total_steps=0))
    final = json.loads((tmp_path / "only" / "final.json").read_text())
    assert final["steps"] == 0 and load_model(path).num_timesteps == 0
    assert final["final_eval"]["mean_guesses"] == pytest.approx(final["cloned"]["all"]["mean_guesses"], abs=1e-6)
    with pytest.raises(ValueError, match="total_steps: 0 with clone_epochs"):
        config(tmp_path, "none", total_steps=0, clone_epochs=0).validate()
