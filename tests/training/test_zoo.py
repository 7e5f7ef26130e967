"""rl-zoo3 itself on the benchmark's tiers: training, playing a trained model and the Optuna search,
each a few hundred steps, through rl-zoo3's own command line and the shipped hyperparameter files."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("rl_zoo3")

from guessgym.training.benchmark.hyperparams import ZOO_ALGORITHMS, shipped_path

ENV = "guessgym/MicroNerdle-v1"


def _zoo(script: str, *args: str, cwd: Path, timeout: int = 300) -> str:
    done = subprocess.run([sys.executable, "-m", f"rl_zoo3.{script}", "--gym-packages", "guessgym", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every zoo algorithm trained for a few hundred steps on Micro Nerdle with the shipped file."""
    logs = tmp_path_factory.mktemp("zoo")
    for algo in ZOO_ALGORITHMS:
        _zoo("train", "--algo", algo, "--env", ENV, "--conf-file", str(shipped_path(algo)), "-n", "400",
             "-f", str(logs), "--seed", "0", "--eval-freq", "-1", "--num-threads", "1", cwd=logs)
    return logs


@pytest.mark.parametrize("algo", ZOO_ALGORITHMS)
def test_zoo_trains_with_the_shipped_hyperparameters(trained: Path, algo: str) -> None:
    run = trained / algo / "guessgym-MicroNerdle-v1_1"
    assert (run / "guessgym-MicroNerdle-v1.zip").is_file()
    config = (run / "guessgym-MicroNerdle-v1" / "config.yml").read_text()
    assert "guessgym.agents.policies" in config and "game='guessgym/MicroNerdle-v1'" in config


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_zoo_enjoy_plays_a_trained_model(trained: Path, algo: str) -> None:
    out = _zoo("enjoy", "--algo", algo, "--env", ENV, "-f", str(trained), "--exp-id", "1", "-n", "60",
               "--no-render", "--deterministic", "--num-threads", "1", cwd=trained)
    assert "Episode Reward" in out or "Mean reward" in out


def test_zoo_optuna_search_runs_on_a_tier(tmp_path: Path) -> None:
    """rl-zoo3's -optimize: its samplers replace the file's policy_kwargs (game included); the guess
    policy then plays the one game of these spaces the process made."""
    out = _zoo("train", "--algo", "ppo", "--env", ENV, "--conf-file", str(shipped_path("ppo")), "-optimize",
               "--n-trials", "2", "--n-jobs", "1", "--n-timesteps", "512", "--n-evaluations", "1",
               "--eval-episodes", "5", "--sampler", "random", "--pruner", "none", "-params", "n_envs:1",
               "-f", str(tmp_path), "--seed", "0", "--no-optim-plots", "--num-threads", "1", cwd=tmp_path,
               timeout=600)
    assert re.search(r"Number of finished trials:\s+2\b", out) and "Best trial" in out
    assert list((tmp_path / "ppo").glob("report_guessgym-MicroNerdle-v1_2-trials-512-random-none_*"))


def test_zoo_trains_on_a_protocol_2_training_side(tmp_path: Path) -> None:
    """Protocol 2's ids hold answers out; the shipped entry's policy knows the tier's whole list (game= the
    full id), which plays the training side's guesses: rl-zoo3 builds both unchanged."""
    env = "guessgym/Wordle500Train-v0"
    _zoo("train", "--algo", "ppo", "--env", env, "--conf-file", str(shipped_path("ppo")), "-n", "400",
         "-f", str(tmp_path), "--seed", "0", "--eval-freq", "-1", "--num-threads", "1", cwd=tmp_path)
    run = tmp_path / "ppo" / "guessgym-Wordle500Train-v0_1"
    assert (run / "guessgym-Wordle500Train-v0.zip").is_file()
    assert "game='guessgym/Wordle500-v0'" in (run / "guessgym-Wordle500Train-v0" / "config.yml").read_text()
