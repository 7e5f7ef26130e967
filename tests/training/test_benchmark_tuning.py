"""The protocol's tuning study (guessgym benchmark tune): validation answers that are training answers and never
scored ones, a seeded study that repeats itself, resumes, bounds each trial's time, and writes a file the runner
runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch as th

from guessgym.cli import main
from guessgym.training.benchmark.anchors import scored_indices
from guessgym.training.benchmark.hyperparams import load_hyperparams
from guessgym.training.benchmark.protocol import protocol
from guessgym.training.benchmark.tuning import (
    SEARCH_SPACES,
    StudySpec,
    split_validation,
    trial_hyperparams,
    tune,
    validation_anchors,
)

th.set_num_threads(1)

MICRO = protocol("2").tier("micro-nerdle")


@pytest.mark.parametrize("name", ["micro-nerdle", "wordle-500", "wordle"])
def test_validation_answers_are_training_answers_never_scored_ones(name: str) -> None:
    t = protocol("2").tier(name)
    train = t.training_game()
    fit, validation = split_validation(train, seed=0)
    assert not set(fit.answers) & set(validation.answers)
    assert sorted(fit.answers + validation.answers) == sorted(train.answers)
    assert fit.guesses == validation.guesses == train.guesses
    if t.scored == "unseen":
        assert not set(validation.answers) & set(t.scored_game().answers)
    assert split_validation(train, seed=0)[1].answers == validation.answers != split_validation(train, 1)[1].answers


@pytest.mark.parametrize("name", ["micro-nerdle", "wordle-500"])
def test_validation_anchors_on_the_scored_answers_are_the_protocols_anchors(name: str) -> None:
    """One computation anchors a trial's regret and a reference's: given the scored answers, the
    validation anchors are the committed anchors file's figures."""
    t = protocol("2").tier(name)
    committed = t.anchors()
    got = validation_anchors(t, t.scored_game())
    assert got.optimum_mean == committed.optimum_total / committed.answers
    assert round(got.random_mean, 6) == committed.random_mean


def test_anchors_refuse_scored_answers_outside_the_game_they_play() -> None:
    with pytest.raises(ValueError, match="not answers of the game the anchors play"):
        scored_indices(MICRO.full_game(), ["99-9=90"])


def test_every_algorithm_has_a_search_space_and_a_trial_keeps_its_minibatch_in_its_rollout() -> None:
    from guessgym.training.benchmark.hyperparams import ALGORITHMS

    assert set(SEARCH_SPACES) == set(ALGORITHMS)
    base = load_hyperparams("ppo", MICRO.env_id)
    hp = trial_hyperparams(base, {"n_envs": 16, "n_steps": 4, "batch_size": 256}, 10_000)
    assert hp.algorithm_kwargs["batch_size"] == 64 and hp.n_envs == 16 and hp.n_timesteps == 10_000
    dqn = trial_hyperparams(load_hyperparams("dqn", MICRO.env_id), {"target_update_interval": 5000}, 3_000)
    assert dqn.algorithm_kwargs["buffer_size"] == 3_000 and dqn.algorithm_kwargs["target_update_interval"] == 3_000


def _study(folder: Path, trials: int = 3, seconds: float = 300.0) -> dict:
    return tune(StudySpec("a2c", MICRO, trials, 3_000, seconds, folder, evaluations=2, seed=0))


def test_a_seeded_study_repeats_itself_and_resumes(tmp_path: Path) -> None:
    first = _study(tmp_path / "a")
    again = _study(tmp_path / "b")
    strip = [{k: v for k, v in t.items() if k != "seconds"} for t in first["trials_run"]]
    assert strip == [{k: v for k, v in t.items() if k != "seconds"} for t in again["trials_run"]]
    assert all(t["state"] == "complete" and t["regret"] is not None for t in first["trials_run"])
    assert first["best"]["regret"] == min(t["regret"] for t in first["trials_run"])
    more = _study(tmp_path / "a", trials=4)  # the same call with one trial more: only that one runs
    assert len(more["trials_run"]) == 4 and more["trials_run"][:3] == first["trials_run"]
    best = load_hyperparams("a2c", MICRO.env_id, tmp_path / "a" / "best.yml")
    assert best.n_timesteps == MICRO.budget
    params = more["best"]["params"]
    assert best.n_envs == params["n_envs"] and best.algorithm_kwargs["n_steps"] == params["n_steps"]
    assert best.algorithm_kwargs["learning_rate"] == pytest.approx(params["learning_rate"])
    assert json.loads((tmp_path / "a" / "trials.json").read_text())["validation_answers"] == 25


def test_a_trial_past_its_time_fails_and_wins_nothing(tmp_path: Path) -> None:
    summary = _study(tmp_path, trials=2, seconds=0.001)
    assert [t["state"] for t in summary["trials_run"]] == ["pruned", "pruned"] and summary["best"] is None
    assert not (tmp_path / "best.yml").exists()


def test_cli_tune(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["benchmark", "tune", "--algo", "a2c", "--tier", "micro-nerdle", "--trials", "1", "--trial-steps",
                 "2000", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "trial 0: complete" in out and "best.yml" in out
    assert main(["benchmark", "tune", "--algo", "a2c", "--tier", "huge", "--trial-steps", "2000"]) == 2
