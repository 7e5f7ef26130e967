"""Expert demonstrations: every game replays to the agent's win, the split holds, a rerun gives the
same bytes, the rationale is the exact state's, and the files load in datasets and train in TRL."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tiny_lm import byte_tokenizer, tiny_qwen

from guessgym.agents.registry import make_agent
from guessgym.cli import main
from guessgym.envs.chat import ChatGuessEnv
from guessgym.envs.chat.env import ChatFamily
from guessgym.envs.chat.tools import GuessToolEnv
from guessgym.evaluation import evaluate
from guessgym.training.demos import GUESS_TOOL, export_demos, split_answers

MINI = "guessgym/MiniNerdle-v1"

# transformers deprecates names that TRL's trainer still calls; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:`.*checkpointing.*` is deprecated:FutureWarning")


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def optimal_games() -> dict[str, tuple[str, ...]]:
    result = evaluate(make_agent("optimal"), MINI, record_guesses=True)
    return {r.answer: tuple(r.played or ()) for r in result.records}


@pytest.mark.parametrize("rationale", ["none", "plain", "thinking"])
def test_every_message_demo_replays_to_the_trees_win(tmp_path: Path, rationale: str,
                                                       optimal_games: dict[str, tuple[str, ...]]) -> None:
    manifest = export_demos(MINI, tmp_path, rationale_style=rationale)
    env = ChatGuessEnv(**ChatFamily.chat_kwargs(MINI))
    seen = 0
    for name in ("train", "test"):
        for row in rows(tmp_path / f"{name}.jsonl"):
            replies = [m["content"] for m in row["messages"] if m["role"] == "assistant"]
            _, info = env.reset(options={"answer": row["answer"]})
            assert row["messages"][:2] == info["messages"]  # the environment's own prompts
            for reply in replies:
                _, _, terminated, _, info = env.step(reply)
            assert terminated and info["won"] and info["attempt"] == len(optimal_games[row["answer"]]) == row["guesses"]
            assert [m["content"] for m in row["messages"] if m["role"] == "user"] == \
                [m["content"] for m in info["messages"][:-1] if m["role"] == "user"]
            assert ("<think>" in replies[0]) is (rationale == "thinking")
            seen += 1
    assert seen == 206 and manifest["counts"]["train"]["games"] + manifest["counts"]["test"]["games"] == 206
    total = manifest["counts"]["train"]["turns"] + manifest["counts"]["test"]["turns"]
    assert total == 544  # the optimal tree's total over every answer


def test_every_tool_demo_replays_through_the_tool_trl_calls(tmp_path: Path,
                                                           optimal_games: dict[str, tuple[str, ...]]) -> None:
    export_demos("guessgym/NerdleChat-v0", tmp_path, env_kwargs={"length": 6}, fmt="tools", rationale_style="plain")
    for row in rows(tmp_path / "train.jsonl") + rows(tmp_path / "test.jsonl"):
        assert row["tools"] == [GUESS_TOOL]
        tool = GuessToolEnv("guessgym/NerdleChat-v0", length=6)
        tool.reset(answer=row["answer"])
        calls = [m for m in row["messages"] if m["role"] == "assistant"]
        results = [m["content"] for m in row["messages"] if m["role"] == "tool"]
        guesses = [c["tool_calls"][0]["function"]["arguments"]["guess"] for c in calls]
        answers = [tool.guess(g) for g in guesses]
        assert answers[:-1] == results and tool.done and tool.get_reward() == 1.0
        assert tuple(guesses) == optimal_games[row["answer"]] and all(c["content"] for c in calls)


def test_the_guess_tool_schema_is_what_transformers_makes_of_the_tool() -> None:
    from transformers.utils import get_json_schema

    assert get_json_schema(GuessToolEnv.guess) == GUESS_TOOL


def test_the_split_is_by_answer_and_a_rerun_gives_the_same_bytes(tmp_path: Path) -> None:
    a = export_demos(MINI, tmp_path / "a", games=100, split=0.8, seed=3, policy=True)
    b = export_demos(MINI, tmp_path / "b", games=100, split=0.8, seed=3, policy=True)
    export_demos(MINI, tmp_path / "c", games=100, split=0.8, seed=4)
    assert a["files"] == b["files"]  # every file's SHA-256
    for name in a["files"]:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    train = {r["answer"] for r in rows(tmp_path / "a" / "train.jsonl")}
    test = {r["answer"] for r in rows(tmp_path / "a" / "test.jsonl")}
    assert len(train) == 80 and len(test) == 20 and not train & test
    assert train != {r["answer"] for r in rows(tmp_path / "c" / "train.jsonl")}
    assert split_answers(list(range(10)), 1.0, 0) == (list(range(10)), [])
    with pytest.raises(ValueError, match="split must be a fraction"):
        split_answers([1, 2], 0, 0)


def test_the_rationale_is_the_exact_states(tmp_path: Path) -> None:
    export_demos(MINI, tmp_path, rationale_style="plain", games=20)
    first = next(m["content"] for m in rows(tmp_path / "train.jsonl")[0]["messages"] if m["role"] == "assistant")
    assert first.startswith("206 answers remain. 4*7=28 splits them by its tiles into")
    assert f"{544 / 206:.2f} guesses are expected from here" in first and first.endswith("[4*7=28]")


def test_the_policy_arrays_are_the_games_observations_and_actions(tmp_path: Path) -> None:
    import gymnasium as gym

    export_demos(MINI, tmp_path, games=30, policy=True)
    arrays = np.load(tmp_path / "policy-train.npz", allow_pickle=False)
    games = rows(tmp_path / "train.jsonl")
    assert arrays["actions"].size == sum(g["guesses"] for g in games)
    env = gym.make(MINI)
    first = arrays["games"] == 0
    obs, _ = env.reset(options={"answer": games[0]["answer"]})
    for i, action in enumerate(arrays["actions"][first]):
        assert np.array_equal(arrays["obs_board"][first][i], obs["board"])
        assert arrays["obs_action_mask"][first][i][action] == 1
        obs, *_ = env.step(int(action))


@pytest.mark.parametrize("fmt", ["messages", "tools"])
def test_the_files_load_in_datasets_and_train_one_sft_step(tmp_path: Path, fmt: str) -> None:
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from datasets import load_dataset, load_from_disk
    from trl import SFTConfig, SFTTrainer

    env = "guessgym/NerdleChat-v0"
    assert main(["export-demos", "--env", env, "--env-kwargs", "length=5", "--games", "8", "--format", fmt,
                 "--rationale", "thinking", "--datasets", "--out", str(tmp_path), "--no-progress"]) == 0
    data = load_dataset("json", data_files={"train": str(tmp_path / "train.jsonl")})["train"]
    assert load_from_disk(str(tmp_path / "datasets"))["train"].num_rows == data.num_rows == 7
    tokenizer = byte_tokenizer()
    text = tokenizer.apply_chat_template(data[0]["messages"], tools=data[0].get("tools"), tokenize=False)
    assert ("<tool_call>" in text) is (fmt == "tools") and "<think>" in text
    args = SFTConfig(output_dir=str(tmp_path / "sft"), max_steps=1, per_device_train_batch_size=2, report_to=[],
                     use_cpu=True, bf16=False, logging_steps=1, save_strategy="no", max_length=4096)
    trainer = SFTTrainer(model=tiny_qwen(tokenizer), args=args, train_dataset=data, processing_class=tokenizer)
    trainer.train()
    assert np.isfinite(trainer.state.log_history[0]["loss"])


def test_the_manifest_says_what_was_made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export-demos", "--env", MINI, "--games", "10", "--out", str(tmp_path), "--no-progress"]) == 0
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["command"] == f"guessgym export-demos --env {MINI} --games 10 --out {tmp_path} --no-progress"
    assert manifest["agent"] == "optimal" and manifest["game"] == "mini-nerdle" and manifest["seed"] == 0
    assert manifest["counts"] == {"train": {"games": 9, "turns": manifest["counts"]["train"]["turns"]},
                                  "test": {"games": 1, "turns": manifest["counts"]["test"]["turns"]}}
    assert "9 train and 1 test games by optimal" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--env", "guessgym/Absurdle-v0"], "export-demos plays"),
    (["--env", MINI, "--split", "0"], "--split must be a fraction"),
    # issue 50: a misspelt option was a TypeError traceback; 4 games at 0.9 left no test game without a word
    (["--env", MINI, "--env-kwargs", "hardmode=True"], "hardmode"),
    (["--env", MINI, "--env-kwargs", "hardmode=True", "--format", "minari"], "hardmode"),
    (["--env", MINI, "--games", "4"], "split 0.9 of 4 games leaves no game for testing"),
    (["--env", MINI, "--games", "1"], "split 0.9 of 1 games leaves no game for testing"),
    (["--env", MINI, "--agent", "nope"], "nope"),
    (["--env", MINI, "--env-kwargs", "reply_format=GUESS: (.*)", "reply_instruction=say GUESS: {example}"],
     "custom reply_format"),
    (["--env", "guessgym/Nerdle-v1", "--env-kwargs", "guesses=all", "--rationale", "plain", "--games", "20"],
     "pattern matrix"),
])
def test_bad_input_is_one_line(tmp_path: Path, argv: list[str], message: str,
                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export-demos", *argv, "--out", str(tmp_path / "o"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


# ---- issue 40, items 4 and 12 ----------------------------------------------------------------------------------
def _words(text: str, kind: str) -> set[str]:
    """The words (Wordle) or equations (Nerdle) a text names."""
    import re

    return set(re.findall(r"[a-z]+" if kind == "wordle" else r"[0-9+\-*/=]+", text.lower()))


def _examples(text: str) -> set[str]:
    """What a text shows as examples: the words and equations in quotes, brackets or guess tags."""
    import re

    return {m.strip().lower() for m in re.findall(r'"([^"\s]+)"|\[([^\]\s]+)\]|<guess>\[?([^<\]]+)', text)
            for m in m if m}


@pytest.mark.parametrize(("env_id", "fmt", "games"), [("guessgym/Wordle-v1", "messages", None),
                                                      ("guessgym/Wordle-v1", "tools", 300),
                                                      ("guessgym/MiniNerdle-v1", "messages", None),
                                                      ("guessgym/MicroNerdle-v1", "tools", None)])
def test_no_text_a_training_game_is_given_names_a_test_answer(tmp_path: Path, env_id: str, fmt: str,
                                                              games: int | None) -> None:
    """The rules' examples and the reply format's example word come from the training side: at seed
    0 the repeated-letter example named the test answer 'abide' in every training conversation's
    system prompt. Beyond the rules' own prose (English words such as 'every', which are Wordle answers
    too), a test answer may appear only as a guess played in that game (the optimum's play)."""
    manifest = export_demos(env_id, tmp_path, games=games, fmt=fmt, seed=0)
    kind = "wordle" if "Wordle" in env_id else "nerdle"
    test = {row["answer"] for row in rows(tmp_path / "test.jsonl")}
    assert len(test) == manifest["counts"]["test"]["games"] > 0
    options = ChatFamily.chat_kwargs(env_id)
    prose = ChatGuessEnv(**options, withheld=ChatGuessEnv(**options).game.answers)  # no example can be an answer
    prose_words = _words(prose.system_prompt + prose.first_turn, kind)
    for row in rows(tmp_path / "train.jsonl"):
        said = " ".join(str(m.get("content", "")) + json.dumps(m.get("tool_calls", "")) for m in row["messages"]
                        if m["role"] == "assistant")
        for number, message in enumerate(row["messages"]):
            if message["role"] == "assistant":
                continue
            named = _words(message["content"], kind) & test
            assert not _examples(message["content"]) & test - _words(said, kind), (row["answer"], number)
            if number < 2:  # the system prompt and the first turn: the rules and the format
                assert named <= prose_words, (row["answer"], sorted(named - prose_words))
            else:  # feedback on a guess played: it names that guess, nothing else
                assert named <= _words(said, kind) | prose_words, (row["answer"], sorted(named))
    if kind == "wordle" and games is None:  # the regression: the default prompt's example is a test answer here
        default = ChatGuessEnv(**options)
        assert _examples(default.system_prompt) & test == {"abide"}


def test_a_rerun_replaces_an_earlier_export_whole_and_refuses_other_folders(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demos"
    assert main(["export-demos", "--env", MINI, "--policy", "--out", str(out), "--no-progress"]) == 0
    assert {p.name for p in out.iterdir()} >= {"policy-train.npz", "policy-test.npz", "train.jsonl"}
    assert main(["export-demos", "--env", MINI, "--out", str(out), "--no-progress"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["guessgym-export.json", "manifest.json", "test.jsonl",
                                                     "train.jsonl"]  # nothing stale
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    capsys.readouterr()
    assert main(["export-demos", "--env", MINI, "--out", str(other), "--no-progress"]) == 2
    assert "holds no list of an earlier guessgym export (guessgym-export.json)" in capsys.readouterr().err
    assert [p.name for p in other.iterdir()] == ["notes.txt"]


def test_a_folder_of_the_users_own_files_with_an_exports_names_is_never_replaced(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 63 item 6: a folder holding the user's own manifest.json, train.jsonl and datasets/raw/big.bin
    passed a check that read names; the export ended rc 0 with train.jsonl replaced and big.bin gone. Only
    what an earlier export's own record lists is replaced; a file added to an export since is kept too."""
    mine = tmp_path / "mine"
    (mine / "datasets" / "raw").mkdir(parents=True)
    files = {"manifest.json": '{"my": "notes"}', "train.jsonl": '{"mine": 1}\n', "datasets/raw/big.bin": "\0" * 1000}
    for name, text in files.items():
        (mine / name).write_text(text)
    assert main(["export-demos", "--env", MINI, "--out", str(mine), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "holds no list of an earlier guessgym export" in err and len(err.strip().splitlines()) == 1
    assert {str(p.relative_to(mine)): p.read_text() for p in mine.rglob("*") if p.is_file()} == files
    out = tmp_path / "export"
    assert main(["export-demos", "--env", MINI, "--out", str(out), "--no-progress"]) == 0
    (out / "datasets").mkdir()
    (out / "datasets" / "big.bin").write_text("added since")
    capsys.readouterr()
    assert main(["export-demos", "--env", MINI, "--out", str(out), "--no-progress"]) == 2
    assert "holds 'datasets/big.bin', which the earlier guessgym export there did not write" in capsys.readouterr().err
    assert (out / "datasets" / "big.bin").read_text() == "added since"


def test_out_links_modes_and_dotted_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 50, item 12: an --out that is a link failed only after the whole export, a dangling one
    with a temporary's name; a replaced folder went from 755 to 700; o/new/../../o/new2 left a stray o/new."""
    import os

    real = tmp_path / "real"
    real.mkdir()
    for link, target in ((tmp_path / "link", real), (tmp_path / "dangling", tmp_path / "nowhere")):
        link.symlink_to(target)
        assert main(["export-demos", "--env", MINI, "--games", "2", "--split", "1", "--out", str(link),
                     "--agent", "nope-not-an-agent"]) == 2  # refused before the agent is even built
        err = capsys.readouterr().err
        assert f"{link} is a symbolic link" in err and len(err.strip().splitlines()) == 1 and ".tmp-" not in err
    out = tmp_path / "o" / "new"
    assert main(["export-demos", "--env", MINI, "--games", "4", "--split", "1", "--out", str(out),
                 "--no-progress"]) == 0
    assert oct(out.stat().st_mode & 0o777) == oct(0o777 & ~_umask())
    out.chmod(0o750)
    assert main(["export-demos", "--env", MINI, "--games", "4", "--split", "1", "--out", str(out),
                 "--no-progress"]) == 0
    assert oct(out.stat().st_mode & 0o777) == oct(0o750)  # the folder it replaced kept its mode
    dotted = os.path.join(str(tmp_path), "p", "new", "..", "..", "p", "new2")
    assert main(["export-demos", "--env", MINI, "--games", "4", "--split", "1", "--out", dotted,
                 "--no-progress"]) == 0
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == ["new2"]
    capsys.readouterr()


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask
