"""An output never replaces the command's own input or checkpoint (issue 40, item 2): the same
file named twice, or reached by a hard link or a symbolic link, is refused in one line before any
work is done, and the input is left as it was."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from guessgym.cli import main
from guessgym.infra.inputs import InputFileError, check_not_an_input, same_file

MICRO = "guessgym/MicroNerdle-v1"


def _spellings(path: Path) -> list[Path]:
    """``path`` itself, another spelling of it, a hard link and a symbolic link to it."""
    hard, soft = path.with_name("hard-" + path.name), path.with_name("soft-" + path.name)
    os.link(path, hard)
    soft.symlink_to(path)
    return [path, path.parent / "." / path.name, hard, soft]


@pytest.fixture
def result(tmp_path: Path) -> Path:
    assert main(["evaluate", "--env", MICRO, "--agent", "least-worst", "--answers", "5", "--guesses",
                 "--out", str(tmp_path), "--no-progress"]) == 0
    return next(tmp_path.glob("*.json"))


COMMANDS: dict[str, Callable[[Path, Path], list[str]]] = {
    "report": lambda inp, out: ["report", str(inp), "--html", str(out)],
    "analyze": lambda inp, out: ["analyze", str(inp), "--out", str(out), "--no-progress"],
    "worst-case": lambda inp, out: ["worst-case", "--env", MICRO, "--checkpoint", str(inp), "--out", str(out)],
    "solve --proof": lambda inp, out: ["solve", "--env", MICRO, "--proof", "--checkpoint", str(inp), "--out", str(out)],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_output_that_is_an_input_is_refused(command: str, result: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    before = result.read_bytes()
    for out in _spellings(result):
        capsys.readouterr()
        assert main(COMMANDS[command](result, out)) == 2, out
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "would replace it" in err, err
        assert result.read_bytes() == before


def test_the_analysis_beside_a_result_is_an_input_of_report(result: Path, capsys: pytest.CaptureFixture[str]) -> None:
    analysis = result.with_name(result.stem + ".analysis.json")
    assert main(["analyze", str(result), "--out", str(analysis), "--no-progress"]) == 0
    before = analysis.read_bytes()
    assert main(["report", str(result), "--html", str(analysis)]) == 2
    assert "the analysis beside" in capsys.readouterr().err
    assert analysis.read_bytes() == before
    assert main(["report", str(result), "--html", str(result.with_suffix(".html"))]) == 0  # another file: written


def test_a_transcripts_file_is_not_the_answers_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers = tmp_path / "answers.txt"
    answers.write_text("1+2=3\n")
    code = main(["evaluate", "--env", "guessgym/NerdleChat-v0", "--env-kwargs", "length=5", "--agent", "llm:m",
                 "--base-url", "http://127.0.0.1:9/v1", "--answers", f"@{answers}", "--transcripts", str(answers)])
    assert code == 2 and "the --answers file" in capsys.readouterr().err
    assert answers.read_text() == "1+2=3\n"


def test_same_file_and_check_not_an_input(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("x")
    b.write_text("x")
    assert same_file(a, a) and not same_file(a, b)
    assert same_file(tmp_path / "new", tmp_path / "sub" / ".." / "new")  # neither exists yet: the same path
    check_not_an_input(b, "--out", {"the input": a, "nothing": None})
    with pytest.raises(InputFileError, match=r"^--out .* is the input \(.*\); writing it would replace it"):
        check_not_an_input(a, "--out", {"the input": tmp_path / "." / "a"})
