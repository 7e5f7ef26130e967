"""Decision trees as data: recorded from any agent, saved in two formats, verified through the
environment, and played back through the shared evaluation loop."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import gymnasium as gym
import pytest

import guessgym  # noqa: F401
from guessgym.agents.decision_tree import DecisionTree, TreeAgent, show_tree
from guessgym.agents.registry import make_agent
from guessgym.cli import main
from guessgym.envs.game import nerdle, wordle
from guessgym.evaluation.evaluate import evaluate
from guessgym.evaluation.tree_checks import record_tree, verify_tree

MICRO = "guessgym/MicroNerdle-v1"


@pytest.fixture(scope="module")
def micro_tree() -> DecisionTree:
    return record_tree(make_agent("least-worst"), nerdle(5))


def test_a_recorded_tree_is_the_agents_play(micro_tree: DecisionTree) -> None:
    result = evaluate(make_agent("least-worst"), nerdle(5), record_guesses=True, progress=False)
    assert micro_tree.total == sum(r.guesses for r in result.records)
    assert micro_tree.max_depth == max(r.guesses for r in result.records)
    assert all(micro_tree.paths[r.answer] == r.played for r in result.records)


@pytest.mark.parametrize("suffix", [".txt", ".json", ".txt.gz", ".json.gz"])
def test_both_formats_round_trip(micro_tree: DecisionTree, tmp_path: Path, suffix: str) -> None:
    game = nerdle(5)
    path = micro_tree.save(tmp_path / f"tree{suffix}", game)
    loaded = DecisionTree.load(path, game)
    assert loaded.paths == micro_tree.paths and loaded.total == micro_tree.total
    text = gzip.decompress(path.read_bytes()).decode() if suffix.endswith(".gz") else path.read_text()
    if ".json" in suffix:
        assert json.loads(text)["total"] == micro_tree.total
    else:
        assert text == micro_tree.to_text(game)


def test_a_damaged_compressed_tree_is_named(micro_tree: DecisionTree, tmp_path: Path) -> None:
    path = micro_tree.save(tmp_path / "tree.txt.gz", nerdle(5))
    path.write_bytes(path.read_bytes()[:20])
    with pytest.raises(ValueError, match="tree.txt.gz: not a tree file"):
        DecisionTree.load(path, nerdle(5))


def test_the_published_text_format() -> None:
    """Pairs 'guess TILESn'; a line starting with spaces repeats the previous line up to that column."""
    game = wordle(answers=["crane", "crate", "slate", "plate"])
    text = (
        "crate GGGGG1\n"
        "crate BBGGG1 slate GGGGG2\n"
        "      BBGGG1 slate BGGGG2 plate GGGGG3\n"
        "      GGGBG1 crane GGGGG2\n"
    )
    tree = DecisionTree.from_text(game, text)
    assert tree.paths == {"crate": ("crate",), "slate": ("crate", "slate"), "plate": ("crate", "slate", "plate"),
                          "crane": ("crate", "crane")}
    assert (tree.total, tree.max_depth) == (8, 3)
    assert DecisionTree.from_text(game, tree.to_text(game)).paths == tree.paths


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("crate GGGGG1\ncrate BBGGG1 slate GGGG2\n", "line 2, pair 2: 'GGGG' has 4 tiles, the game has 5"),
        ("crate GGGGG1\ncrate BBGGB1 slate GGGGG2\n", "line 2: crate against slate gives BBGGG, the file says BBGGB"),
        ("crate GGGGG1\ncrate BBGGG1 zzzzz GGGGG2\n", "line 2, pair 2: "),
        ("crate GGGGG1\ncrate BBGGG1 slate GGGGG3\n", "line 2, pair 2: 'GGGGG3' is not the tiles followed by"),
        ("crate GGGGG1\ncrate BBGGG1 slate\n", "line 2: expected pairs"),
        ("crate GGGGG1\ncrate GGGGG1\n", "line 2: 'crate' appears twice"),
        ("crate BBGGG1 slate BBGGG2\n", "line 1: the last pair must be the answer, all green"),
    ],
)
def test_malformed_text_names_the_line(text: str, message: str) -> None:
    game = wordle(answers=["crane", "crate", "slate", "plate"])
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        DecisionTree.from_text(game, text, source="t.txt")


def test_paths_that_are_not_a_tree_are_refused() -> None:
    game = wordle(answers=["crane", "crate", "slate", "plate"])
    with pytest.raises(ValueError, match="the paths disagree: after crate BBGGG the tree plays both"):
        DecisionTree.from_paths(game, {"slate": ["crate", "slate"], "plate": ["crate", "plate"]})


def test_verify_reports_every_kind_of_problem(micro_tree: DecisionTree) -> None:
    assert verify_tree(micro_tree, gym.make(MICRO)).ok
    partial = DecisionTree.from_paths(nerdle(5), {a: p for a, p in micro_tree.paths.items() if a != "1*4=4"})
    check = verify_tree(partial, gym.make(MICRO))
    assert not check.ok and check.problems == ["1*4=4: missing (no path of the tree ends with it)"]
    short = verify_tree(micro_tree, gym.make(MICRO, max_attempts=3))
    assert any("the game ended after 3 guesses" in p for p in short.problems)
    hard = verify_tree(micro_tree, gym.make(MICRO, hard_mode=True))
    assert any("is rejected: hard mode" in p for p in hard.problems)


def test_the_tree_agent_plays_a_tree_file(micro_tree: DecisionTree, tmp_path: Path) -> None:
    path = micro_tree.save(tmp_path / "micro.txt", nerdle(5))
    result = evaluate(make_agent("tree", path=str(path)), MICRO, record_guesses=True, progress=False)
    assert all(micro_tree.paths[r.answer] == r.played for r in result.records)
    assert isinstance(make_agent("tree", path=str(path)), TreeAgent)
    with pytest.raises(ValueError, match="this tree cannot play mini-nerdle: .*line 1, pair 1: .*needs 6 symbols"):
        evaluate(make_agent("tree", path=str(path)), "guessgym/MiniNerdle-v1", progress=False)


def test_show_lists_the_first_levels(micro_tree: DecisionTree) -> None:
    text = show_tree(micro_tree, nerdle(5), depth=1)
    first = text.splitlines()[0]
    assert first.startswith(f"{micro_tree.root.guess}: 127 answers, total {micro_tree.total}")
    assert sum(int(line.split()[1]) for line in text.splitlines()[1:]) == 126  # every answer but the opener


def test_tree_commands(micro_tree: DecisionTree, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rec.txt"
    assert main(["tree", "record", "--agent", "least-worst", "--env", MICRO, "--out", str(out)]) == 0
    assert DecisionTree.load(out, nerdle(5)).paths == micro_tree.paths
    assert main(["tree", "verify", str(out), "--env", MICRO]) == 0
    assert "the tree is correct for this game" in capsys.readouterr().out
    assert main(["tree", "verify", str(out), "--env", MICRO, "--env-kwargs", "max_attempts=3"]) == 1
    assert "the game ended after 3 guesses" in capsys.readouterr().out
    lines = out.read_text().splitlines()
    lines[0] = lines[0].replace("GGGGG1", "GGGGY1")
    out.write_text("\n".join(lines) + "\n")
    # issue 24: wrong tiles exited 2 and a missing answer 1; a tree wrong for its game is 1 either way
    assert main(["tree", "verify", str(out), "--env", MICRO]) == 1
    assert "the tree is wrong for this game" in capsys.readouterr().out
    assert main(["tree", "show", str(out), "--env", MICRO]) == 2  # nothing to show
    assert "pass --env" in capsys.readouterr().err
    assert main(["tree", "show", str(tmp_path / "none.txt"), "--env", MICRO]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["tree", "verify", "--env", MICRO], stdin=io.StringIO("")) == 2


def test_tree_commands_read_the_game_from_the_tree(micro_tree: DecisionTree, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 24: ``tree show`` assumed Wordle and failed on a Nerdle tree without a word about --env."""
    path = micro_tree.save(tmp_path / "micro.txt", nerdle(5))
    assert main(["tree", "show", str(path), "--depth", "1"]) == 0
    captured = capsys.readouterr()
    assert "read as a tree of guessgym/MicroNerdle-v1" in captured.err
    assert captured.out.startswith(f"{micro_tree.root.guess}: 127 answers")
    partial = DecisionTree.from_paths(nerdle(5), dict(list(micro_tree.paths.items())[:-3]))
    partial.save(tmp_path / "partial.txt", nerdle(5))
    assert main(["tree", "verify", str(tmp_path / "partial.txt")]) == 1  # a missing answer: 1, as wrong tiles
    assert "missing" in capsys.readouterr().out
    (tmp_path / "alien.txt").write_text("zzzzz GGGGG1\n")
    assert main(["tree", "show", str(tmp_path / "alien.txt")]) == 2
    assert "no registered game plays this tree; pass --env" in capsys.readouterr().err


def test_one_walker_follows_a_history_or_leaves_the_tree(micro_tree: DecisionTree) -> None:
    game = nerdle(5)
    assert micro_tree.node_after(game, []) is micro_tree.root
    for answer, path in list(micro_tree.paths.items())[:20]:
        history = [(game.guess_index[g], game.score(g, answer)) for g in path[:-1]]
        node = micro_tree.node_after(game, history)
        assert node is not None and node.guess == path[-1]
    opener = game.guess_index[micro_tree.root.guess]
    other = next(i for i in range(len(game.guesses)) if i != opener)
    assert micro_tree.node_after(game, [(other, 0)]) is None
