"""Hostile input to analyze, report and evaluate (issue 40, items 9 and 13): each is one line on
stderr and exit status 2 (or 1 for a time budget spent), never a traceback, never a wait without a bound."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from guessgym.cli import main

MICRO = "guessgym/MicroNerdle-v1"


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The error line (after any notice of what is being solved), checked to be the only error."""
    err = capsys.readouterr().err.strip()
    errors = [line for line in err.splitlines() if "error:" in line]
    assert "Traceback" not in err and len(errors) == 1 and err.splitlines()[-1] == errors[0], err
    return errors[0]


@pytest.mark.parametrize(("argv", "says"), [
    (["evaluate", "--agent", "pretrained:wordle-cloned", "--env", "guessgym/Wordle-v1", "--max-attempts", "3"],
     "3 attempts) differs, so its board cannot be read"),
    (["evaluate", "--agent", "pretrained:wordle-cloned", "--env", "guessgym/Wordle-v1", "--max-attempts", "8"],
     "8 attempts) differs"),
    (["evaluate", "--agent", "pretrained:wordle-cloned", "--env", "guessgym/Absurdle-v0"], "differs"),
    (["evaluate", "--agent", "pretrained:wordle-cloned", "--env", "guessgym/WordleChat-v0"],
     "is a chat id, played in text by language models"),
    (["evaluate", "--agent", "least-worst", "--env", MICRO, "--jobs", "999999"],
     "must be a whole number from 1 to 256"),
    (["evaluate", "--agent", "llm:m", "--env", "guessgym/NerdleChat-v0", "--agent-kwargs", "max_retries=1000000000000"],
     "max_retries must be a whole number from 0 to 100"),
    (["evaluate", "--agent", "llm:m", "--env", "guessgym/NerdleChat-v0", "--env-kwargs", "max_retries=1000000000000"],
     "max_retries must be 0 to 100"),
    (["analyze", "--env", "guessgym/Wordle-v1", "--env-kwargs", "hard_mode=yes", "--game", "salet BBBBB"],
     "hard_mode must be a bool"),
    (["analyze", "--env", "guessgym/Wordle-v1", "--game", "xyzzq BBBBB"], "'xyzzq' is not in the word list"),
    (["analyze", "--env", "guessgym/MiniNerdle-v1", "--game", "1+2=3 BBBBB"], "needs 6 symbols"),
    (["analyze", "--env", "guessgym/Wordle-v1", "--game", "crane GGGGG crane GGGGG"], "after the game was won"),
    (["analyze", "--env", "guessgym/Wordle-v1", "--game", "crane BBBBB moist BBYBB bumpy BBBBB fjord BBBBG glyph "
      "BBBBB whack BBBBB vivid GGGGG"], "the game has 7 guesses; wordle-5-nyt allows 6"),
    (["analyze", "--env", MICRO, "--game", "8-1=7 BBBBB", "--time-budget", "0"], "must be a number of seconds above 0"),
])
def test_hostile_arguments_are_one_line(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*argv, "--no-progress"] if argv[0] == "evaluate" or "--game" in argv else argv) == 2
    assert says in one_line(capsys)


def test_an_analysis_that_outlasts_its_budget_stops_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """An attempt limit no shipped tree covers needs the whole game solved: past --time-budget, the
    moves are judged by bounds, which the output says."""
    start = time.perf_counter()
    code = main(["analyze", "--env", "guessgym/Wordle-v1", "--env-kwargs", "max_attempts=7", "--game", "fuzzy BBBBB",
                 "--time-budget", "2", "--no-memo"])
    assert code == 0 and time.perf_counter() - start < 60
    captured = capsys.readouterr()
    assert "1 of 1 moves judged by bounds, not exactly: the time budget ran out" in captured.out
    assert " to " in captured.out and "Traceback" not in captured.err


def test_a_damaged_analysis_beside_a_result_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--env", MICRO, "--agent", "least-worst", "--answers", "4", "--guesses", "--out",
                 str(tmp_path), "--no-progress"]) == 0
    result = next(tmp_path.glob("*.json"))
    analysis = result.with_name(result.stem + ".analysis.json")
    assert main(["analyze", str(result), "--out", str(analysis), "--no-progress"]) == 0
    good = json.loads(analysis.read_text())
    for damage, says in ((lambda d: d["games"][0]["moves"][0].update(loss="NaN"), "loss is 'NaN', not a number"),
                         (lambda d: d["games"][0]["moves"][0].update(loss=None), "not a number"),
                         (lambda d: d.update(game="wordle-5-nyt"), "is of other games")):
        data = json.loads(json.dumps(good))
        damage(data)
        analysis.write_text(json.dumps(data))
        capsys.readouterr()
        assert main(["report", str(result), "--html", str(tmp_path / "r.html")]) == 2
        assert says in one_line(capsys)


def test_assist_judge_is_bounded_too(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``assist --judge`` on a list whose opener tree must be solved (the 2,309/14,855 list's
    FUZZY) stops solving after --judge-budget seconds, judges the move by proven bounds, says so,
    and goes on helping."""
    import io

    monkeypatch.setenv("GUESSGYM_CACHE_DIR", str(tmp_path))
    out = io.StringIO()
    start = time.perf_counter()
    code = main(["assist", "--game", "wordle", "--word-list", "nyt2022", "--judge", "--judge-budget", "1"],
                stdin=io.StringIO("fuzzy BBBBB\nquit\n"), stdout=out)
    assert code == 0 and time.perf_counter() - start < 60
    text = out.getvalue()
    assert "(judging: solving the tree of fuzzy, once; at most 1 s)" in text
    assert "(judge: optimal play from here was not solved within 1 s; by proven bounds, fuzzy lost from " in text
    assert "(best tree found: " in text
    assert "possible answers" in text  # the assistant still helps
