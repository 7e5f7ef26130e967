"""Minari datasets of the array games (issue 41): written by export-demos --format minari, read back
by Minari's own load_dataset, every episode replayed in the environment Minari recovers, to the same
observations and rewards; the reference scores are the optimum's and random-consistent play's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from guessgym.agents.registry import make_agent
from guessgym.cli import main
from guessgym.evaluation import evaluate
from guessgym.training.minari_demos import dataset_id

minari = pytest.importorskip("minari", reason="the minari extra (in the test extra)")

MINI = "guessgym/MiniNerdle-v1"


@pytest.fixture
def datasets_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "elsewhere"))  # the export must not write there
    return tmp_path / "minari"


@pytest.mark.parametrize("data_format", ["arrow", "hdf5"])
def test_the_optimums_games_load_in_minari_and_replay(datasets_root: Path, data_format: str,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export-demos", "--env", MINI, "--format", "minari", "--minari-format", data_format,
                 "--out", str(datasets_root), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "guessgym/mini-nerdle/optimal-v0: 206 episodes" in printed
    assert not (datasets_root.parent / "elsewhere").exists()
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(datasets_root))
    dataset = minari.load_dataset("guessgym/mini-nerdle/optimal-v0")
    assert dataset.total_episodes == 206
    optimal = evaluate(make_agent("optimal"), MINI, record_guesses=True)
    floor = evaluate(make_agent("random-consistent"), MINI, record_guesses=True, seed=0)
    env = dataset.recover_environment()
    assert env.spec.id == MINI and env.spec.kwargs["step_penalty"] == -1.0
    game = env.unwrapped.game
    metadata = dataset.storage.get_episode_metadata(range(206))
    returns = []
    for episode, meta in zip(dataset.iterate_episodes(), metadata):
        answer = meta["options"]["answer"]
        obs, _ = env.reset(options={"answer": answer})
        for key in obs:
            assert np.array_equal(episode.observations[key][0], obs[key])
        for step, action in enumerate(episode.actions):
            obs, reward, terminated, truncated, _ = env.step(int(action))
            assert reward == episode.rewards[step] and terminated == episode.terminations[step]
            for key in obs:
                assert np.array_equal(episode.observations[key][step + 1], obs[key])
        assert terminated and obs["board"] is not None
        assert [game.guesses[int(a)] for a in episode.actions] == list(optimal.records[answer].played)
        returns.append(float(np.sum(episode.rewards)))
    assert np.mean(returns) == pytest.approx(1 - optimal.mean_guesses)  # won in n guesses: 1 - n
    assert dataset.storage.metadata["ref_max_score"] == pytest.approx(1 - optimal.mean_guesses)
    assert dataset.storage.metadata["ref_min_score"] == pytest.approx(1 - floor.mean_guesses)
    assert minari.get_normalized_score(dataset, np.array([np.mean(returns)]))[0] == pytest.approx(1.0)


def test_another_agent_a_sample_and_a_rerun(datasets_root: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["export-demos", "--env", MINI, "--format", "minari", "--agent", "least-worst", "--games", "20",
            "--env-kwargs", "win_reward=2.0", "--out", str(datasets_root), "--no-progress"]
    assert main(argv) == 0 and main(argv) == 0  # a rerun replaces the dataset
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(datasets_root))
    assert minari.list_local_datasets().keys() == {"guessgym/mini-nerdle/least-worst-v0"}
    dataset = minari.load_dataset("guessgym/mini-nerdle/least-worst-v0")
    assert dataset.total_episodes == 20
    assert dataset.recover_environment().spec.kwargs["win_reward"] == 2.0  # a reward option: no step penalty added
    assert all(float(np.sum(e.rewards)) == 2.0 for e in dataset.iterate_episodes())
    assert not [p for p in datasets_root.rglob(".tmp-*")] and not [p for p in datasets_root.rglob(".old-*")]
    capsys.readouterr()
    for bad, says in ((["--env", "guessgym/WordleChat-v0"], "an array game of one board"),
                      (["--env", MINI, "--rationale", "plain"], "leave out --rationale")):
        assert main(["export-demos", *bad, "--format", "minari", "--out", str(datasets_root)]) == 2
        assert says in capsys.readouterr().err


def test_dataset_ids() -> None:
    assert dataset_id("guessgym/Wordle-v1", "optimal") == "guessgym/wordle/optimal-v0"
    assert dataset_id("guessgym/Nerdle-v1", "optimal", {"guesses": "all", "step_penalty": -1}) == \
        "guessgym/nerdle-guesses-all/optimal-v0"
