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


MINI_ID = "guessgym/mini-nerdle/least-worst-v0"


def _export(root: Path) -> int:
    return main(["export-demos", "--env", MINI, "--format", "minari", "--agent", "least-worst", "--games", "5",
                 "--out", str(root), "--no-progress"])


def test_an_export_replaces_only_what_an_export_wrote(datasets_root: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 50, item 2: a user's file in the dataset folder was deleted (rc 0); a file at the dataset
    path was moved to .old-* and left. Each is refused in one line, before any game is played, and
    left as it was; an earlier export (its list of files) is replaced."""
    dataset = datasets_root / MINI_ID
    assert _export(datasets_root) == 0
    assert (dataset / "guessgym-export.json").is_file()
    mine = dataset / "data" / "my-notes.txt"
    mine.write_text("mine")
    capsys.readouterr()
    assert _export(datasets_root) == 2
    err = capsys.readouterr().err
    assert "which the earlier guessgym export there did not write" in err and "my-notes.txt" in err
    assert len(err.strip().splitlines()) == 1 and mine.read_text() == "mine"
    mine.unlink()
    assert _export(datasets_root) == 0  # unchanged since the export: replaced
    import shutil

    shutil.rmtree(dataset)
    dataset.parent.mkdir(parents=True, exist_ok=True)
    dataset.write_text("a file of the user's")
    assert _export(datasets_root) == 2
    assert "is a file" in capsys.readouterr().err and dataset.read_text() == "a file of the user's"
    assert not list(datasets_root.rglob(".old-*")) and not list(datasets_root.rglob(".tmp-*"))
    dataset.unlink()
    dataset.mkdir()
    (dataset / "x").write_text("no list")  # a folder no export wrote
    assert _export(datasets_root) == 2
    assert "holds no list of an earlier guessgym export" in capsys.readouterr().err
    assert (dataset / "x").read_text() == "no list"


def test_an_export_never_writes_through_a_link(datasets_root: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 50, item 2: through a symbolic link at OUT/guessgym the export deleted files in another folder."""
    elsewhere = tmp_path / "elsewhere-folder"
    (elsewhere / "mini-nerdle" / "least-worst-v0").mkdir(parents=True)
    (elsewhere / "mini-nerdle" / "least-worst-v0" / "precious.txt").write_text("keep")
    datasets_root.mkdir()
    (datasets_root / "guessgym").symlink_to(elsewhere)
    assert _export(datasets_root) == 2
    err = capsys.readouterr().err
    assert "is a symbolic link" in err and len(err.strip().splitlines()) == 1
    assert (elsewhere / "mini-nerdle" / "least-worst-v0" / "precious.txt").read_text() == "keep"
    assert sorted(p.name for p in elsewhere.rglob("*")) == ["least-worst-v0", "mini-nerdle", "precious.txt"]


def test_a_file_added_while_the_export_runs_is_never_deleted(tmp_path: Path) -> None:
    """Issue 50, item 2: a file put into the output while an export ran was deleted when the folder
    was replaced. The folder is checked again once moved aside; it goes back, nothing is lost."""
    from guessgym.infra.atomic import replace_folder
    from guessgym.training.minari_demos import check_earlier_export, mark_export

    target = tmp_path / "root" / "ds"
    (target / "data").mkdir(parents=True)
    (target / "data" / "a.arrow").write_text("old")
    mark_export(target, "ds")
    staged = tmp_path / "root" / ".tmp-new"
    staged.mkdir()
    (staged / "b").write_text("new")
    check_earlier_export(target)  # what the export checks first: an earlier export's folder

    def late_check(folder: Path) -> None:
        if folder.name.startswith(".old-"):  # the user's file arrives between the first check and the move
            (folder / "data" / "late.txt").write_text("mine")
        check_earlier_export(folder)

    with pytest.raises(ValueError, match="late.txt") as raised:
        replace_folder(staged, target, late_check)
    assert ".old-" not in str(raised.value)
    assert (target / "data" / "late.txt").read_text() == "mine" and (target / "data" / "a.arrow").read_text() == "old"
    assert (staged / "b").is_file() and [p.name for p in target.parent.iterdir() if p.name.startswith(".old")] == []


def test_the_action_masks_are_stored_compactly_and_the_size_is_measured(datasets_root: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 51, aim 2: the mask stored with every observation made the Wordle export 156 MB, and
    Minari measured its whole folder after every episode (quadratic: minutes). The Arrow files are
    zstd-compressed (Arrow reads them as any IPC file), and the size in the metadata is measured once."""
    from guessgym.training.minari_demos import export_minari

    made = export_minari("guessgym/Wordle-v1", datasets_root, games=40)
    arrow = sum(p.stat().st_size for p in datasets_root.rglob("*.arrow"))
    raw_masks = made["steps"] * 12_947  # what the int8 masks alone take uncompressed (and then some: + 1 per game)
    assert arrow < raw_masks / 10, (arrow, raw_masks)  # 18x smaller here, with each file's own schema
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(datasets_root))
    dataset = minari.load_dataset(made["dataset_id"])
    assert dataset.storage.metadata["dataset_size"] == dataset.storage.get_size() > 0
    episode = next(dataset.iterate_episodes())
    masks = episode.observations["action_mask"]
    assert masks.shape[1] == 12_947 and masks[:-1].all() and not masks[-1].any()  # all allowed until the end


def test_a_fifo_in_place_of_the_export_list_is_refused_not_waited_on(tmp_path: Path) -> None:
    """Reading the export list as any input: a FIFO there would block a plain read for ever."""
    import os
    import threading

    from guessgym.training.minari_demos import EXPORT_MARKER, check_earlier_export

    folder = tmp_path / "ds"
    folder.mkdir()
    os.mkfifo(folder / EXPORT_MARKER)
    outcome: list[BaseException] = []

    def check() -> None:
        try:
            check_earlier_export(folder)
        except ValueError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=check, daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive() and outcome and "holds no list of an earlier guessgym export" in str(outcome[0])


def test_the_staging_folder_of_a_killed_export_is_removed_by_the_next(datasets_root: Path) -> None:
    """Issue 63 item 12: an export killed part-way left its staging folder (23 MB) for good. The next export
    removes the staging folders of its own that no live process holds, and nothing else: not a live
    export's, not another machine's, not a folder of the user's named like one."""
    import os
    import subprocess
    import sys

    from guessgym.infra.atomic import _host

    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(ended.stdout)
    datasets_root.mkdir(parents=True, exist_ok=True)
    killed = datasets_root / f".tmp-minari-{_host()}~{dead}-abc123"
    (killed / "guessgym" / "mini-nerdle").mkdir(parents=True)
    (killed / "guessgym" / "mini-nerdle" / "data.arrow").write_bytes(b"\0" * 100_000)
    keep = [datasets_root / f".tmp-minari-{_host()}~{os.getpid()}-live", datasets_root / ".tmp-minari-users-own",
            datasets_root / ".tmp-minari-otherhost~12345-x"]
    for folder in keep:
        folder.mkdir()
    assert _export(datasets_root) == 0
    assert not killed.exists() and all(folder.is_dir() for folder in keep)
    left = sorted(p.name for p in datasets_root.iterdir() if p.name.startswith(".tmp-"))
    assert left == sorted(folder.name for folder in keep)  # and this export's own staging is gone
