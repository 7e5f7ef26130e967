"""The command line, driven through main([...]) with captured output and scripted input."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from guessgym.agents.base import CandidateAgent, SolverState
from guessgym.assist import AssistError, AssistSession
from guessgym.cli import UsageError, main, parse_answers, parse_kwargs
from guessgym.envs.game import nerdle
from guessgym.envs.scoring import all_green, pattern_to_tiles, score
from guessgym.evaluation.results import EvaluationResult

MICRO = "guessgym/MicroNerdle-v1"


class FirstAgent(CandidateAgent):
    """Plays the first possible answer."""

    name = "first"

    def __init__(self, offset: int = 0) -> None:
        super().__init__()
        self.offset = offset

    def choose(self, state: SolverState) -> int:
        idx = state.candidates.indices
        return int(state.game.answer_to_guess[idx[min(self.offset, len(idx) - 1)]])


class LastAgent(CandidateAgent):
    """Plays the last possible answer."""

    name = "last"

    def choose(self, state: SolverState) -> int:
        return int(state.game.answer_to_guess[state.candidates.indices[-1]])


FIRST = f"{FirstAgent.__module__}:FirstAgent"
LAST = f"{LastAgent.__module__}:LastAgent"


def first_candidate_game(answer: str) -> list[tuple[str, str]]:
    """(guess, tiles) of the first-candidate strategy on micro Nerdle, by string scoring."""
    candidates = list(nerdle(5).answers)
    rows = []
    while True:
        guess = candidates[0]
        pattern = score(guess, answer)
        rows.append((guess, pattern_to_tiles(pattern, 5)))
        if pattern == all_green(5):
            return rows
        candidates = [c for c in candidates if score(guess, c) == pattern]


# ---- helpers -----------------------------------------------------------------------------------
def test_parse_kwargs() -> None:
    assert parse_kwargs(['{"depth": 2, "x": "y"}']) == {"depth": 2, "x": "y"}
    assert parse_kwargs(["depth=2", "opener=raise", "flag=true", "lst=[1,2]"]) == {
        "depth": 2, "opener": "raise", "flag": True, "lst": [1, 2]}
    for bad in (["depth"], ["=3"], ["{not json"], ["[1]"]):
        with pytest.raises(UsageError):
            parse_kwargs(bad)


def test_parse_answers(tmp_path: Path) -> None:
    assert parse_answers("all") == (None, None)
    assert parse_answers("25") == (None, 25)
    assert parse_answers("crane, slate") == (["crane", "slate"], None)
    f = tmp_path / "a.txt"
    f.write_text("crane\n# comment\nslate\n")
    assert parse_answers(f"@{f}") == (["crane", "slate"], None)
    with pytest.raises(UsageError, match="does not exist"):
        parse_answers("@/no/such/file")


# ---- evaluate ----------------------------------------------------------------------------------
def test_evaluate_prints_table_and_writes_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["evaluate", "--env", MICRO, "--agent", FIRST, "--out", str(tmp_path), "--guesses", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0
    assert "### first on micro-nerdle" in out and "| first | micro-nerdle | 127 |" in out
    stem = "MicroNerdle-v1__FirstAgent"
    data = json.loads((tmp_path / f"{stem}.json").read_text())
    assert len(data["records"]["answer"]) == 127 and data["records"]["played"][0]
    assert (tmp_path / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"


def test_evaluate_options(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["evaluate", "--env", MICRO, "--agent", FIRST, "--agent-kwargs", "offset=1",
                 "--answers", "5", "--seed", "2", "--max-attempts", "25", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0 and "| first | micro-nerdle | 5 | 100.00 |" in out and "X = 26" in out
    code = main(["evaluate", "--env", MICRO, "--agent", FIRST, "--answers", "1+2=3,9-8=1", "--no-progress"])
    assert code == 0 and "| first | micro-nerdle | 2 |" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "--env", MICRO, "--agent", "no-such-agent"], "unknown agent 'no-such-agent'; known agents:"),
        (["evaluate", "--env", "guessgym/Nope-v1", "--agent", FIRST], "unknown environment 'guessgym/Nope-v1'; known:"),
        (["evaluate", "--env", MICRO, "--agent", FIRST, "--agent-kwargs", "offset"], "not key=value"),
        (["evaluate", "--env", MICRO, "--agent", FIRST, "--agent-kwargs", "speed=3"], "unknown argument(s) speed"),
        (["evaluate", "--env", MICRO, "--agent", FIRST, "--answers", "1+1=3"], "not in the answer list"),
        (["evaluate", "--env", MICRO, "--agent", FIRST, "--answers", "500"], "sample must be between 1 and 127"),
        (["evaluate", "--env", MICRO, "--agent", FIRST, "--env-kwargs", "colour=red"], "bad keyword arguments"),
        (["evaluate", "--env", MICRO, "--agent", "nosuchmodule:Agent"], "cannot import agent"),
        (["evaluate", "--env", MICRO, "--agent", "model:/no/such/model.zip"], "does not exist"),
        (["evaluate", "--env", MICRO, "--agent", FIRST, "--jobs", "0"], "--jobs/-j: must be a whole number from 1 to"),
        (["play", "--env", MICRO, "--answer", "1+1=3"], "not in this game's answer list"),
        (["assist", "--game", "tetris"], "unknown game 'tetris'"),
        (["assist", "--game", "wordle", "--length", "12", "--solver", FIRST], "length must be 3 to 9"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv + (["--no-progress"] if argv[0] == "evaluate" else []), stdin=io.StringIO("")) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_argparse_errors_return_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate"]) == 2  # --agent missing
    assert "--agent" in capsys.readouterr().err
    assert main([]) == 2
    assert main(["--help"]) == 0
    assert "evaluate" in capsys.readouterr().out


def test_unknown_agent_lists_the_baselines(capsys: pytest.CaptureFixture[str]) -> None:
    from guessgym.agents.registry import registered

    registry = registered()
    assert main(["evaluate", "--env", MICRO, "--agent", "nope", "--no-progress"]) == 2
    err = capsys.readouterr().err
    for name in registry:
        assert name in err


def test_an_agent_argument_value_it_refuses_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--env", MICRO, "--agent", "least-worst", "--agent-kwargs", "pool=x"]) == 2
    err = capsys.readouterr().err
    assert "bad arguments for agent 'least-worst': pool must be one of 'all', 'candidates'" in err
    assert "Traceback" not in err


def test_list_and_python_dash_m() -> None:
    done = subprocess.run([sys.executable, "-m", "guessgym", "list"], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert "guessgym/Wordle-v1" in done.stdout and "Main job" in done.stdout


def test_list_aligns_its_columns(capsys: pytest.CaptureFixture[str]) -> None:
    """Each table of ``guessgym list`` starts its second column at one offset, however long a
    name is (``pretrained:wordle-hard`` used to push its row out of line)."""
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for section, end in (("Environments:", "Agents:"), ("Agents:", "Main job")):
        rows = out[out.index(section) + len(section):out.index(end)].strip("\n").splitlines()
        starts = {re.match(r"  \S+\s+", row).end() for row in rows}  # where the second column starts
        assert len(starts) == 1, (section, starts)
        assert any("pretrained:wordle-hard" in row for row in rows) or section == "Environments:"


def test_train_without_training_package_is_a_clean_error(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        import guessgym.cli.train  # noqa: F401
    except ImportError:
        assert main(["train"]) == 2
        assert "training is not available" in capsys.readouterr().err
    else:  # the training package exists: its parser answers --help
        assert main(["train", "--help"]) == 0


# ---- assist ------------------------------------------------------------------------------------
def run_assist(script: list[str]) -> tuple[int, str]:
    """``guessgym assist`` on Micro Nerdle with the first-candidate solver, fed ``script``: (code, transcript)."""
    out = io.StringIO()
    code = main(["assist", "--game", "micro-nerdle", "--solver", FIRST], stdin=io.StringIO("\n".join(script) + "\n"),
                stdout=out)
    return code, out.getvalue()


def test_assist_full_game_with_typo_impossible_feedback_and_undo(capsys: pytest.CaptureFixture[str]) -> None:
    answer = "8-5=3"
    rows = first_candidate_game(answer)
    assert len(rows) >= 3
    (g1, t1), (g2, t2) = rows[0], rows[1]
    script = [
        "help",
        "GGQBB",            # typo: Q is not a tile
        "GGB",              # wrong length
        "GGGGY",            # impossible for any answer
        t1.lower(),         # lower case is fine
        "list 3",
        t2.replace("G", "*").replace("Y", "+").replace("B", "_"),  # marks of the minimax report
        "undo",             # take back the second feedback
        t2.replace("G", "2").replace("Y", "1").replace("B", "0"),  # digits
        *[t for _, t in rows[2:]],
    ]
    code, text = run_assist(script)
    assert code == 0, text
    assert "micro-nerdle: 127 possible answers, 6 attempts; solver" in text
    assert f"guess 1: {g1}" in text and f"guess 2: {g2}" in text
    assert "Commands:" in text
    assert "character 'Q' at position 3 is not a tile" in text
    assert "has 3 tiles but the game has 5" in text
    assert "no answer gives 'GGGGY'" in text and "impossible for this guess" in text
    assert f"took back {g2} {t2}" in text
    assert f"solved in {len(rows)} guesses: {answer}" in text
    # The impossible feedback changed nothing: guess 1 was asked again and then accepted.
    assert text.count(f"guess 1: {g1}") == 5  # help, typo, length, impossible, then accepted


def test_assist_own_guess_list_and_solver_switch(capsys: pytest.CaptureFixture[str]) -> None:
    answer = "8-5=3"
    own = "9-6=3"
    tiles = pattern_to_tiles(score(own, answer), 5)
    script = [
        "guess 1+1=3",       # not a true equation
        f"{own} {tiles}",     # played a guess of my own
        "solver no-such-solver",
        f"solver {LAST}",
        "list",
        "quit",
    ]
    code, text = run_assist(script)
    assert code == 0
    assert "error: '1+1=3' is not a valid equation" in text
    assert "error: unknown agent 'no-such-solver'" in text
    assert f"now using solver {LAST}" in text
    session_words = AssistSession(nerdle(5), FirstAgent(), "first")
    session_words.declare(own)
    session_words.feedback(tiles)
    assert " ".join(session_words.words(20)) in text
    assert text.rstrip().endswith("bye")


def test_assist_judges_each_move_against_optimal_play(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``--judge``: the optimum's opener is a best move; another opener loses what the analysis says."""
    from guessgym.baselines.move_values import StateValues
    from guessgym.evaluation.analysis import analyze_moves

    monkeypatch.setenv("GUESSGYM_CACHE_DIR", str(tmp_path))
    game = nerdle(5)
    moves = [(game.guess_index["5-1=4"], score("5-1=4", "8-5=3")), (game.guess_index["1+2=3"], score("1+2=3", "8-5=3"))]
    lines = [f"{game.guesses[g]} {pattern_to_tiles(p, 5)}" for g, p in moves]
    out = io.StringIO()
    code = main(["assist", "--game", "micro-nerdle", "--judge"], stdin=io.StringIO("\n".join([*lines, "quit"]) + "\n"),
                stdout=out)
    text = out.getvalue()
    assert code == 0
    assert "judge: 5-1=4 was a best move" in text
    second = analyze_moves(StateValues(game), moves).moves[1]
    assert second.loss > 0
    assert f"judge: 1+2=3 lost {second.loss:.4f} guesses in expectation (best: {second.best_guess})" in text


def test_assist_input_end_and_inconsistent_history() -> None:
    game = nerdle(5)
    s = AssistSession(game, FirstAgent(), "first")
    first = s.current_word()
    s.feedback(pattern_to_tiles(score(first, "8-5=3"), 5))
    before = s.remaining()
    # A pattern some answers give to this guess, but none of those fits the first feedback.
    guess = s.current_word()
    others = [a for a in game.answers if score(first, a) != score(first, "8-5=3")]
    pattern = next(score(guess, a) for a in others
                   if all(score(guess, b) != score(guess, a) for b in s.words()))
    with pytest.raises(AssistError, match="none of them fits the earlier feedback"):
        s.feedback(pattern_to_tiles(pattern, 5))
    assert s.remaining() == before and len(s.history) == 1
    with pytest.raises(AssistError, match="nothing to undo"):
        AssistSession(game, FirstAgent(), "first").undo()
    out = io.StringIO()
    assert main(["assist", "--game", "micro-nerdle", "--solver", FIRST], stdin=io.StringIO(""), stdout=out) == 1
    assert "input ended" in out.getvalue()


def test_assist_hard_mode_refuses_a_guess_breaking_the_hints() -> None:
    game = nerdle(5, hard_mode=True)
    s = AssistSession(game, FirstAgent(), "first")
    first = s.current_word()  # 1*1=1
    s.feedback(pattern_to_tiles(score(first, "1+2=3"), 5))
    with pytest.raises(AssistError, match="hard mode would refuse"):
        s.declare("8-5=3")


# ---- play --------------------------------------------------------------------------------------
def test_play_game_from_stdin() -> None:
    script = ["", "12345", "1+1", "2+2=4", "1+2=3"]
    out = io.StringIO()
    code = main(["play", "--env", MICRO, "--answer", "1+2=3", "--color", "never", "--hints"],
                stdin=io.StringIO("\n".join(script) + "\n"), stdout=out)
    text = out.getvalue()
    assert code == 0, text
    assert "not accepted: '12345' is not a valid equation" in text
    assert "not accepted: '1+1' has length 3, this game needs 5 symbols" in text
    assert f"  2+2=4  {pattern_to_tiles(score('2+2=4', '1+2=3'), 5)}" in text
    assert "possible answers left" in text
    assert "solved in 2 guesses!" in text


def test_play_lost_and_coloured(capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    guesses = ["1+1=2", "2+2=4", "3+3=6", "4+4=8", "1*1=1", "2*2=4"]
    code = main(["play", "--env", MICRO, "--answer", "9-8=1", "--color", "always"],
                stdin=io.StringIO("\n".join(guesses) + "\n"), stdout=out)
    text = out.getvalue()
    assert code == 1
    assert "\x1b[" in text  # ANSI tiles
    assert "out of guesses; the answer was 9-8=1" in text
    out = io.StringIO()
    assert main(["play", "--env", MICRO, "--seed", "1"], stdin=io.StringIO("quit\n"), stdout=out) == 1
    assert "the answer was" in out.getvalue()


def test_play_hard_mode_refusal_is_explained() -> None:
    out = io.StringIO()
    code = main(["play", "--env", "guessgym/WordleHard-v1", "--answer", "crane", "--color", "never"],
                stdin=io.StringIO("crate\nmoist\ncrane\n"), stdout=out)
    text = out.getvalue()
    assert code == 0
    assert "not accepted: hard mode: 'moist' is not allowed" in text
    assert "solved in 2 guesses!" in text


# ---- compare -----------------------------------------------------------------------------------
def test_compare_on_a_small_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    from guessgym import main_job

    entries = (
        main_job.Entry(MICRO, "least-worst", parallel=True),
        main_job.Entry(MICRO, "random-consistent", agent_kwargs={"seed": 1}, label="seed 1", note="a test"),
        main_job.Entry(MICRO, "clique"),  # Wordle only: not applicable
        main_job.Entry("guessgym/MiniNerdle-v1", "least-worst", max_attempts=3),
    )
    monkeypatch.setattr(main_job, "MAIN_JOB", entries)
    code = main(["compare", "--out", str(tmp_path), "--jobs", "2", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "done  least-worst on guessgym/MicroNerdle-v1" in out
    assert "n/a   clique on guessgym/MicroNerdle-v1: " in out
    report = (tmp_path / "leaderboard.md").read_text()
    assert report in out  # the same report is printed
    assert "## guessgym/MicroNerdle-v1" in report and "## guessgym/MiniNerdle-v1" in report
    assert "| random-consistent (seed 1) | micro-nerdle | 127 |" in report
    assert "* random-consistent (seed 1) plays game `micro-nerdle`: a test." in report
    assert "| clique | guessgym/MicroNerdle-v1 | not applicable: " in report
    names = sorted(p.name for p in tmp_path.iterdir())
    stems = ["MicroNerdle-v1__least-worst", "MicroNerdle-v1__random-consistent__seed-1",
             "MiniNerdle-v1__least-worst__m3"]
    suffixes = (".json", ".png", ".analysis.json.gz")
    assert names == sorted(["leaderboard.md", "leaderboard.png", "win_rate.png", "report.html",
                            *(f"{stem}{suffix}" for stem in stems for suffix in suffixes)])
    from guessgym.evaluation.results import EvaluationResult

    mini = EvaluationResult.from_json(tmp_path / "MiniNerdle-v1__least-worst__m3.json")
    assert mini.max_attempts == 3 and mini.n_games == 206
    # every move judged: for one strategy over every answer, the losses are the guesses beyond the optimum
    least_worst = EvaluationResult.from_json(tmp_path / "MicroNerdle-v1__least-worst.json")
    assert least_worst.meta["analysis"]["mean_loss_per_game"] == pytest.approx((392 - 374) / 127, abs=1e-6)
    assert "| loss/game (best moves) |" in report and f"| {(392 - 374) / 127:.4f} (" in report
    moves = json.loads(gzip.decompress((tmp_path / "MicroNerdle-v1__least-worst.analysis.json.gz").read_bytes()))
    assert len(moves["games"]) == 127 and moves["games"][0]["moves"][0]["guess"] == "8-1=7"  # least-worst's opener
    assert main(["compare", "--agents", "nope", "--out", str(tmp_path)]) == 2
    assert "not in the main job" in capsys.readouterr().err


def test_compare_includes_saved_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A saved result (e.g. a learned agent's) joins the leaderboard, labelled as such."""
    from guessgym import main_job
    from guessgym.evaluation.evaluate import evaluate

    saved = evaluate(FirstAgent(), MICRO, sample=20)
    saved.agent = "learned-test"
    saved.to_json(tmp_path / "saved.json")
    from guessgym.agents.registry import make_agent

    with_guesses = evaluate(make_agent("expected-size"), MICRO, record_guesses=True)  # wins every game
    with_guesses.agent = "learned-guesses"
    with_guesses.to_json(tmp_path / "guesses.json")
    monkeypatch.setattr(main_job, "MAIN_JOB", (main_job.Entry(MICRO, "least-worst"),))
    out_dir = tmp_path / "out"
    code = main(["compare", "--out", str(out_dir), "--no-progress", "--include", str(tmp_path / "saved.json"),
                 str(tmp_path / "guesses.json")])
    assert code == 0
    report = (out_dir / "leaderboard.md").read_text()
    assert "| learned-test (saved result) | micro-nerdle | 20 |" in report
    # a saved result that holds its games' guesses has its moves judged like the job's own rows
    row = next(line for line in report.splitlines() if "learned-guesses (saved result)" in line)
    judged = EvaluationResult.from_json(out_dir / "MicroNerdle-v1__learned-guesses__included.json").meta["analysis"]
    assert with_guesses.win_rate == 1
    gap = (with_guesses.total_guesses - 374) / 127
    assert judged["mean_loss_per_game"] == pytest.approx(gap, abs=1e-6) and f"| {gap:.4f} (" in row
    assert (out_dir / "MicroNerdle-v1__learned-guesses__included.analysis.json.gz").is_file()
    saved_again = EvaluationResult.from_json(out_dir / "MicroNerdle-v1__learned-guesses__included.json")
    assert saved_again.meta["conduct"]["guesses"] == with_guesses.total_guesses and "How they play" in report
    assert f"read from {tmp_path / 'saved.json'}, not re-run by this job" in report
    assert "| least-worst | micro-nerdle | 127 |" in report
    capsys.readouterr()
    (tmp_path / "bad.json").write_text("{not json")
    assert main(["compare", "--out", str(out_dir), "--include", str(tmp_path / "bad.json")]) == 2
    assert "not a readable evaluation result" in capsys.readouterr().err


def test_an_included_result_named_like_a_job_entry_is_written_apart_and_labelled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 72, item 12: a sent result named like a job entry (a result compare itself wrote, label "")
    replaced the job's own result file, and its row was not labelled."""
    from guessgym import main_job
    from guessgym.agents.registry import make_agent
    from guessgym.evaluation.evaluate import evaluate

    monkeypatch.setattr(main_job, "MAIN_JOB", (main_job.Entry(MICRO, "least-worst"),))
    sent = tmp_path / "sent.json"
    forged = evaluate(make_agent("expected-size"), MICRO, sample=10)  # another agent's games, named least-worst
    forged.agent = "least-worst"
    forged.meta["label"] = ""
    forged.to_json(sent)
    out_dir = tmp_path / "out"
    assert main(["compare", "--out", str(out_dir), "--no-progress", "--include", str(sent)]) == 0
    own = EvaluationResult.from_json(out_dir / "MicroNerdle-v1__least-worst.json")
    assert len(own.records) == 127 and not own.meta.get("included")  # the job's own run, not the sent one
    apart = EvaluationResult.from_json(out_dir / "MicroNerdle-v1__least-worst__included.json")
    assert len(apart.records) == 10 and apart.meta["label"] == "saved result"
    report = (out_dir / "leaderboard.md").read_text()
    assert "| least-worst (saved result) | micro-nerdle | 10 |" in report
    assert "| least-worst | micro-nerdle | 127 |" in report
    capsys.readouterr()
    assert main(["compare", "--out", str(out_dir), "--no-progress", "--include", str(sent), str(sent)]) == 2
    assert "are results of the same game and agent" in capsys.readouterr().err


def test_main_job_keeps_going_after_an_agent_error(tmp_path: Path) -> None:
    from guessgym import main_job

    class Broken(FirstAgent):
        def choose(self, state: SolverState) -> int:
            raise RuntimeError("boom")

    def make(name: str, kwargs: dict) -> CandidateAgent:
        if name == "missing":
            raise KeyError("missing is not a baseline")
        return Broken() if name == "broken" else FirstAgent(**kwargs)

    entries = [main_job.Entry(MICRO, "broken"), main_job.Entry(MICRO, "missing"), main_job.Entry(MICRO, "first")]
    seen: list[str] = []
    outcomes = main_job.run_main_job(make, entries, sample=10, on_outcome=lambda o: seen.append(o.entry.agent))
    assert seen == ["broken", "missing", "first"]
    assert "RuntimeError: boom" in outcomes[0].error
    assert "agent not available" in outcomes[1].not_applicable
    assert outcomes[2].result is not None and outcomes[2].result.n_games == 10
    main_job.write_report(outcomes, tmp_path, sample=10)
    report = (tmp_path / "leaderboard.md").read_text()
    assert "a seeded sample of 10 answers per game" in report
    assert "| broken | guessgym/MicroNerdle-v1 | error: RuntimeError: boom |" in report


def test_main_job_holds_one_games_values_with_a_memo_and_judges_the_same(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """With a memo folder the job keeps one game's state values in memory (each holds its game's
    transposed pattern matrix, 2.4 GB for Nerdle with every equation): a game that comes back
    after another is judged from the memo on disk, the same as when every game's values stay."""
    from guessgym import main_job

    made: list[tuple[str, int]] = []
    real = main_job.StateValues

    def counted(game: object, **kwargs: object) -> object:
        values = real(game, **kwargs)  # type: ignore[arg-type]
        made.append((values.game.name, values.kernel.loaded))
        return values

    entries = [main_job.Entry(MICRO, "least-worst"), main_job.Entry("guessgym/MiniNerdle-v1", "least-worst"),
               main_job.Entry(MICRO, "expected-size")]

    def moves(outcomes: list[main_job.Outcome]) -> list[list[tuple[object, ...]]]:
        return [[tuple((m.guess, m.tiles, m.expected, m.best, m.loss) for m in g.moves) for g in o.analysis.games]
                for o in outcomes if o.analysis is not None]

    monkeypatch.setattr(main_job, "StateValues", counted)
    held = main_job.run_main_job(entries=entries, sample=20, n_jobs=1)
    assert [name for name, _ in made] == [made[0][0], made[1][0]]  # no memo folder: both games' values kept
    made.clear()
    one_at_a_time = main_job.run_main_job(entries=entries, sample=20, n_jobs=1, memo_dir=tmp_path)
    assert [name for name, _ in made] == [made[0][0], made[1][0], made[0][0]]
    assert made[2][1] > 0  # the first game's solved states came back from the memo on disk
    assert moves(one_at_a_time) == moves(held) and len(moves(held)) == 3


def test_the_main_job_definition() -> None:
    from guessgym import main_job

    pairs = {(e.env_id, e.agent) for e in main_job.MAIN_JOB}
    for name in main_job.BASELINE_NAMES:
        assert (main_job.WORDLE, name) in pairs and (main_job.NERDLE, name) in pairs
    unique = [e for e in main_job.MAIN_JOB if e.agent == "unique-chars" and e.env_id == main_job.NERDLE]
    assert len(unique) == 1 and dict(unique[0].env_kwargs) == {"guesses": "all"} and unique[0].label
    assert len({e.slug for e in main_job.MAIN_JOB}) == len(main_job.MAIN_JOB)


@pytest.mark.slow
def test_compare_quick_end_to_end(tmp_path: Path) -> None:
    """The real main job on a sample of answers (about a minute on two cores)."""
    assert main(["compare", "--quick", "--out", str(tmp_path), "--no-progress"]) == 0
    assert (tmp_path / "leaderboard.md").read_text().count("| 1 |") == 2


def test_compare_writes_to_an_ignored_folder_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 24: ``guessgym compare`` rewrote 21 tracked files under results/main/; by default it
    writes where git does not look (``runs/``, in the project's .gitignore)."""
    from guessgym import main_job
    from guessgym.cli.evaluate import DEFAULT_OUT

    monkeypatch.setattr(main_job, "MAIN_JOB", (main_job.Entry(MICRO, "least-worst"),))
    monkeypatch.chdir(tmp_path)
    assert main(["compare", "--no-progress"]) == 0
    assert (tmp_path / DEFAULT_OUT / "leaderboard.md").is_file() and not (tmp_path / "results").exists()
    ignored = (Path(__file__).resolve().parents[2] / ".gitignore").read_text().splitlines()
    assert f"/{DEFAULT_OUT.split('/')[0]}/" in ignored
    capsys.readouterr()


def test_compare_says_how_many_files_it_wrote_and_a_stopped_run_keeps_what_it_finished(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 63 item 8: under load a run stopped part-way had nothing in --out; each entry's files are now
    written as it finishes, and Ctrl-C writes the leaderboard of what finished. Issue 65: "wrote 40 files"
    where 58 were written (the analyses were not counted)."""
    from guessgym import main_job

    entries = (main_job.Entry(MICRO, "least-worst"), main_job.Entry(MICRO, "random-consistent"),
               main_job.Entry(MICRO, "expected-size"))
    monkeypatch.setattr(main_job, "MAIN_JOB", entries)
    assert main(["compare", "--out", str(tmp_path / "whole"), "--no-progress"]) == 0
    said = capsys.readouterr().out.strip().splitlines()[-1]
    assert said.startswith(f"wrote {len(list((tmp_path / 'whole').iterdir()))} files to "), said
    real = main_job.evaluate

    def stopped_at_the_second(agent: Any, *args: Any, **kwargs: Any) -> Any:
        if "random" in agent.name:
            raise KeyboardInterrupt
        return real(agent, *args, **kwargs)

    monkeypatch.setattr(main_job, "evaluate", stopped_at_the_second)
    out = tmp_path / "stopped"
    assert main(["compare", "--out", str(out), "--no-progress"]) == 130
    err = capsys.readouterr().err
    assert f"1 of 3 entries finished and are written to {out}/ with the leaderboard; rerun to go on" in err
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(["MicroNerdle-v1__least-worst.json", "MicroNerdle-v1__least-worst.png",
                            "MicroNerdle-v1__least-worst.analysis.json.gz", "leaderboard.md", "leaderboard.png",
                            "win_rate.png", "report.html"])
    assert "| least-worst | micro-nerdle | 127 |" in (out / "leaderboard.md").read_text()


@pytest.mark.usefixtures("nothing_shipped")  # the main job's states are shipped: solve from nothing
def test_a_tiny_analysis_budget_judges_less_never_more(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 63 item 8: --analysis-budget 0.001 made the main job slower than the default (every move then
    judged by bounds, move by move); past the budget and the bounds' after it, the games left are not
    judged, and the row says how many."""
    from guessgym import main_job
    from guessgym.agents.registry import make_agent
    from guessgym.evaluation.analysis import analyze
    from guessgym.evaluation.evaluate import evaluate

    result = evaluate(make_agent("least-worst"), "guessgym/Wordle-v1", sample=40, record_guesses=True)
    analysis = analyze(result, time_budget=1e-9)  # Wordle: its states take more than a nanosecond to solve
    assert analysis.unjudged >= 20 and len(analysis.games) + analysis.unjudged == 40  # the few first ones judged
    summary = analysis.summary()
    assert summary["unjudged_games"] == analysis.unjudged
    assert f"{analysis.unjudged:,} more games were not judged" in analysis.to_markdown()
    entries = (main_job.Entry("guessgym/Wordle-v1", "least-worst"),)
    monkeypatch.setattr(main_job, "MAIN_JOB", entries)
    monkeypatch.setenv("GUESSGYM_CACHE_DIR", str(tmp_path / "cache"))  # nothing solved yet: the budget runs out
    assert main(["compare", "--out", str(tmp_path), "--no-progress", "--sample", "40",
                 "--analysis-budget", "0.000001"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("done  least-worst"))
    assert "games were not judged (the bounds' 1e-06 s ran out too)" in line, line
    from guessgym.evaluation.analysis_records import load_analysis

    saved = load_analysis(tmp_path / "Wordle-v1__least-worst.analysis.json.gz")
    assert saved.unjudged > 0 and len(saved.games) + saved.unjudged == 40


def test_a_partial_compare_adds_to_the_full_leaderboard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """``--agents X`` once replaced the whole leaderboard with one row under an "every answer" header."""
    from guessgym import main_job

    entries = (main_job.Entry(MICRO, "least-worst"), main_job.Entry(MICRO, "random-consistent"))
    monkeypatch.setattr(main_job, "MAIN_JOB", entries)
    assert main(["compare", "--out", str(tmp_path), "--no-progress"]) == 0
    full = (tmp_path / "leaderboard.md").read_text()
    assert "| least-worst | micro-nerdle | 127 |" in full and "earlier run" not in full
    assert main(["compare", "--out", str(tmp_path), "--no-progress", "--agents", "random-consistent"]) == 0
    merged = (tmp_path / "leaderboard.md").read_text()
    assert f"Produced by `guessgym compare --out {tmp_path} --no-progress --agents random-consistent` " \
           "(1 entry; 1 more row, marked *earlier run*, kept from earlier runs in this folder)" in merged
    assert "| least-worst (earlier run) | micro-nerdle | 127 |" in merged
    assert "| random-consistent | micro-nerdle | 127 |" in merged
    assert "kept from MicroNerdle-v1__least-worst.json, not re-run" in merged  # its file, not the checkout's date
    # issue 24: the totals counted the saved rows' game time although this run played one entry
    ran = next(line for line in merged.splitlines() if line.startswith("Game time of this run:"))
    assert "over 127 games (the 1 saved row not counted)" in ran
    # a run of another scope (a sample) neither shows nor replaces the full results
    assert main(["compare", "--out", str(tmp_path), "--no-progress", "--sample", "5", "--agents", "least-worst"]) == 0
    sampled = (tmp_path / "leaderboard.md").read_text()
    assert "| least-worst | micro-nerdle | 5 |" in sampled and "random-consistent" not in sampled
    capsys.readouterr()


@pytest.mark.parametrize("argv", [["--sample", "0"], ["--sample", "-3"], ["--jobs", "0"], ["--agents", "nope"]])
def test_compare_checks_its_arguments_before_running(tmp_path: Path, argv: list[str],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "leaderboard.md").write_text("the previous leaderboard")
    assert main(["compare", "--out", str(tmp_path), *argv]) == 2
    assert "error:" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["leaderboard.md"]
    assert (tmp_path / "leaderboard.md").read_text() == "the previous leaderboard"


def test_output_folders_are_checked_before_playing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    for out, message in [(a_file, "this is a file"), (a_file / "sub", "is a file, so the folder cannot be created")]:
        for command in (["evaluate", "--agent", "least-worst", "--env", MICRO], ["compare"]):
            assert main([*command, "--out", str(out), "--no-progress"]) == 2
            err = capsys.readouterr()
            assert message in err.err and "done" not in err.out and "| least-worst" not in err.out


def test_finished_games_survive_an_output_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from guessgym.evaluation.results import EvaluationResult

    real_to_json = EvaluationResult.to_json

    def failing(self: EvaluationResult, path: str | Path) -> Path:
        if Path(path).parent == tmp_path / "out":
            raise OSError(28, "No space left on device")
        return real_to_json(self, path)

    monkeypatch.setattr(EvaluationResult, "to_json", failing)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    code = main(["evaluate", "--agent", "least-worst", "--env", MICRO, "--answers", "4", "--no-progress",
                 "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "No space left on device" in err and "the results were saved to" in err
    saved = EvaluationResult.from_json(tmp_path / "MicroNerdle-v1__least-worst.json")
    assert saved.n_games == 4


# ---- one line and exit status 2, never a traceback -------------------------------------------------
def test_assist_solver_that_cannot_play_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["assist", "--game", "mini-nerdle", "--solver", "clique"], stdin=io.StringIO("")) == 2
    err = capsys.readouterr().err
    assert err.startswith("guessgym assist: error: solver 'clique' cannot play mini-nerdle: clique is defined")
    assert len(err.strip().splitlines()) == 1


def test_assist_list_arguments_and_undo_after_all_green() -> None:
    answer = "8-5=3"
    rows = first_candidate_game(answer)
    last_guess, last_tiles = rows[-1]
    script = ["list abc", "list -3", "list 2", *[t for _, t in rows], "undo", last_tiles, ""]
    code, text = run_assist(script)
    assert code == 0, text
    assert "error: usage: list [N], N a positive whole number of answers to show; got 'abc'" in text
    assert "got '-3'" in text and "... and 125 more" in text
    assert f"took back {last_guess} {last_tiles}; " in text
    assert "1 possible answers" not in text
    assert text.count(f"solved in {len(rows)} guesses: {answer}") == 2


def test_a_truncated_model_file_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("stable_baselines3")
    for name, content in [("empty.zip", b""), ("cut.zip", b"PK\x03\x04\x14\x00\x00\x00")]:
        (tmp_path / name).write_bytes(content)
        assert main(["evaluate", "--env", MICRO, "--agent", f"model:{tmp_path / name}", "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert "not a readable model zip" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ("answers=DIR", "is a directory; give a file"),
        ("answers=DIR/missing.txt", "does not exist"),
        ("guesses=all", "guesses='all' is a Nerdle preset"),
        ("hard_mode=maybe", "hard_mode must be a bool (True or False), got 'maybe' (str)"),
        ("reward_mode=dense", "reward_mode must be one of 'sparse', 'shaped'; got 'dense'"),
    ],
)
def test_bad_env_kwargs_are_one_line_errors(kwargs: str, message: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    kwargs = kwargs.replace("DIR", str(tmp_path))
    for command in (["evaluate", "--agent", FIRST, "--no-progress"], ["play"]):
        code = main([*command, "--env", "guessgym/Wordle-v1", "--env-kwargs", kwargs], stdin=io.StringIO(""))
        err = capsys.readouterr().err
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_hard_mode_false_from_the_command_line_means_false(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_kwargs(["hard_mode=False", "x=True", "y=None", "z=false"]) == \
        {"hard_mode": False, "x": True, "y": None, "z": False}


def test_module_class_agents_import_from_the_current_folder(tmp_path: Path) -> None:
    """The console script does not put the current folder on sys.path as ``python -m`` does."""
    (tmp_path / "myagent.py").write_text(
        "from guessgym.agents.base import CandidateAgent\n"
        "class First(CandidateAgent):\n"
        "    name = 'first'\n"
        "    def choose(self, state):\n"
        "        return int(state.game.answer_to_guess[state.candidates.indices[0]])\n"
    )
    script = Path(sys.executable).with_name("guessgym")
    command = [str(script)] if script.exists() else [sys.executable, "-c", "import sys; from guessgym.cli import main; "
                                                       "sys.path[:] = [p for p in sys.path if p]; sys.exit(main())"]
    done = subprocess.run([*command, "evaluate", "--agent", "myagent:First", "--env", MICRO, "--answers", "5",
                           "--no-progress"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "| first | micro-nerdle | 5 |" in done.stdout


def test_module_specs_call_only_agent_classes_and_declared_factories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 22, item 2: ``--agent os:system --agent-kwargs command=...`` ran the command."""
    from guessgym.agents.registry import AgentSpecError, make_agent

    marker = tmp_path / "ran"
    (tmp_path / "userfactories.py").write_text(
        "from pathlib import Path\n"
        "from guessgym.agents.registry import agent_factory, make_agent\n"
        "def undeclared(**kwargs):\n"
        f"    Path({str(marker)!r}).write_text('ran')\n"
        "@agent_factory\n"
        "def declared(depth=1):\n"
        "    return make_agent('min-average', depth=depth)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for spec, kwargs in (("os:system", {"command": f"touch {marker}"}), ("userfactories:undeclared", {}),
                         ("builtins:print", {}), ("pathlib:Path", {})):
        with pytest.raises(AgentSpecError, match="is not an agent: module:NAME must name an Agent"):
            make_agent(spec, **kwargs)
    assert not marker.exists()
    assert make_agent("userfactories:declared", depth=1).name == "min-average"
    capsys.readouterr()
    assert main(["evaluate", "--env", MICRO, "--agent", "os:system", "--agent-kwargs", f"command=touch {marker}",
                 "--answers", "2", "--no-progress"]) == 2
    assert "is not an agent" in capsys.readouterr().err and not marker.exists()
    assert main(["evaluate", "--help"]) == 0
    assert "runs that module's code" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("command", [
    ["evaluate", "--agent", "least-worst", "--env", MICRO, "--answers", "3", "--no-progress", "--out", "{out}"],
    ["compare", "--agents", "least-worst", "--envs", "guessgym/Wordle-v1", "--sample", "3", "--no-progress",
     "--out", "{out}"],
])
def test_a_broken_stdout_never_costs_results_nor_reports_success(tmp_path: Path, command: list[str]) -> None:
    """Issue 22, item 5: ``guessgym evaluate ... --out d | true`` left no ``d`` and exited 0."""
    out = tmp_path / "d"
    argv = [a.replace("{out}", str(out)) for a in command]
    script = f"import sys; from guessgym.cli import main; sys.exit(main({argv!r}))"
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written: every print fails with EPIPE
    try:
        done = subprocess.run([sys.executable, "-c", script], stdout=write, stderr=subprocess.PIPE, text=True,
                              timeout=300, cwd=tmp_path)
    finally:
        os.close(write)
    assert done.returncode == 1, done.stderr
    assert sorted(p.suffix for p in out.iterdir() if p.suffix == ".json"), done.stderr
    assert "Traceback" not in done.stderr and "standard output was closed" in done.stderr


@pytest.mark.parametrize("argv", [
    ["tree", "record", "--env", "guessgym/Quordle-v0", "--agent", "least-worst", "--out", "{tmp}/t.txt"],
    ["tree", "show", "{tmp}/t.txt", "--env", "guessgym/WordleChat-v0"],
    ["tree", "verify", "{tmp}/t.txt", "--env", "guessgym/Absurdle-v0"],
    ["solve", "--env", "guessgym/Dordle-v0", "--out", "{tmp}/t.txt"],
    ["solve", "--env", "guessgym/Absurdle-v0", "--out", "{tmp}/t.txt"],
    ["worst-case", "--env", "guessgym/NerdleChat-v0"],
    ["worst-case", "--env", "guessgym/Octordle-v0"],
    ["play", "--env", "guessgym/Absurdle-v0"],
])
def test_each_command_refuses_the_kinds_it_does_not_play_before_any_work(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 22, item 10: ``tree record --env guessgym/Quordle-v0`` wrote a single-board tree and
    exited 0; ``solve`` ran the whole Wordle search on such ids; ``tree verify`` gave tracebacks."""
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv, stdin=io.StringIO("")) == 2
    err = capsys.readouterr().err
    assert f"{argv[0]} plays the single-board" in err and len(err.strip().splitlines()) == 1, err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("argv, says", [
    (["evaluate", "--agent", FIRST, "--env", MICRO, "--seed", "-1"],
     "argument --seed: must be a whole number from 0 to"),
    (["evaluate", "--agent", FIRST, "--env", MICRO, "--max-attempts", "100000000000"],
     "argument --max-attempts: must be a whole number from 1 to 1,000"),
    (["evaluate", "--agent", FIRST, "--env", MICRO, "--env-kwargs", "max_attempts=10000000000"],
     "max_attempts must be at most 1000"),
    (["play", "--env", MICRO, "--seed", "-5"], "argument --seed: must be a whole number from 0 to"),
    (["tree", "record", "--env", MICRO, "--agent", FIRST, "--out", "{dir}"], "is a directory"),
    (["tree", "record", "--env", MICRO, "--agent", FIRST, "--out", "{fifo}"], "is not a regular file"),
    (["solve", "--env", MICRO, "--out", "{dir}"], "is a directory"),
    (["worst-case", "--env", MICRO, "--out", "{fifo}"], "is not a regular file"),
    (["worst-case", "--env", MICRO, "--checkpoint", "{dir}"], "is a directory, not a checkpoint"),
    (["worst-case", "--env", MICRO, "--jobs", "0"], "argument --jobs/-j: must be a whole number from 1 to"),
    (["evaluate", "--agent", "llm:x", "--env", MICRO, "--transcripts", "{fifo}"],
     "--transcripts {fifo}: is not a regular"),
])
def test_hostile_paths_and_limits_are_one_line_before_any_work(argv: list[str], says: str, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 22, the CLI's promise: output paths that are folders or special files (an atomic write
    renamed over /dev/full as root), limits that cannot be allocated, options named in errors."""
    folder = tmp_path / "adir"
    folder.mkdir()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    argv = [a.replace("{dir}", str(folder)).replace("{fifo}", str(fifo)) for a in argv]
    says = says.replace("{fifo}", str(fifo))
    extra = ["--no-progress", "--answers", "2"] if argv[0] == "evaluate" else []
    assert main(argv + extra, stdin=io.StringIO("")) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert fifo.exists() and not fifo.is_file() and folder.is_dir() and not list(folder.iterdir())


def test_a_damaged_record_read_by_a_script_is_one_line(tmp_path: Path) -> None:
    """Issue 22: the scripts that read saved records gave tracebacks for a malformed one."""
    import shutil

    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "scripts", tmp_path / "scripts")
    shutil.copytree(root / "results" / "worst_case", tmp_path / "results" / "worst_case")
    record = sorted((tmp_path / "results" / "worst_case" / "records").glob("*.json"))[0]
    record.write_text('{"proven": tru')
    done = subprocess.run([sys.executable, "scripts/worst_case_results.py", "--report"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{record.relative_to(tmp_path)}: line 1: not valid JSON" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_reproducibility_scripts_child_source_is_valid_python_with_its_names_imported() -> None:
    """scripts/reproducibility.py runs a child process from a source string that no other test
    executes; pyflakes' checks (ruff F) catch an undefined name there before a long run does."""
    import re

    pytest.importorskip("ruff")
    source = (Path(__file__).resolve().parents[2] / "scripts" / "reproducibility.py").read_text()
    child = re.search(r'_CHILD = """(.*?)"""', source, re.S)
    assert child is not None
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--select", "F", "--stdin-filename", "child.py", "-"],
                          input=child.group(1), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_failing_report_line_never_ends_the_main_job() -> None:
    """Issue 50, item 1: an error in reporting one entry (the KeyError of README command 1) ended the
    whole job and wrote nothing; now it is logged and every entry still runs and returns."""
    from guessgym import main_job

    entries = (main_job.Entry(MICRO, "least-worst"), main_job.Entry(MICRO, "random-consistent"))
    told: list[str] = []

    def broken(outcome: main_job.Outcome) -> None:
        told.append(outcome.entry.agent)
        raise KeyError("analysis")

    outcomes = main_job.run_main_job(entries=entries, on_outcome=broken, analyse=False)
    assert told == ["least-worst", "random-consistent"]
    assert all(o.result is not None for o in outcomes)


def test_solve_checks_what_was_typed_before_building_anything(tmp_path: Path, isolated_cache: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 65, item 5: `solve --opener 54-36=19` (Nerdle) was refused after 33.6 s and 1.39 GB (the pattern
    matrix built first); `solve --out /nonexistent/dir/s.txt` made /nonexistent/dir."""
    assert main(["solve", "--env", "guessgym/Nerdle-v1", "--opener", "54-36=19", "--out", str(tmp_path / "s.txt")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("guessgym solve: error: --opener: '54-36=19' is not a valid equation: the left side equals 18 "
                   "but the right side says 19")
    assert not isolated_cache.exists() or not any(isolated_cache.rglob("*.npy"))  # no matrix was built
    missing = tmp_path / "nowhere" / "dir" / "s.txt"
    assert main(["solve", "--env", MICRO, "--out", str(missing)]) == 2
    err = capsys.readouterr().err.strip()
    assert f"the folder {missing.parent} does not exist" in err and "\n" not in err
    assert not (tmp_path / "nowhere").exists()
