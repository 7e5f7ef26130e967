"""Transcripts files read back and judged: every game checked by playing it again, every reply
with its verdict, and the forfeited turns judged as moves of their own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser import browser_page

from guessgym.agents.llm.scripted_server import ScriptedSolver
from guessgym.agents.registry import make_agent
from guessgym.agents.text import ModelReply, TextAgent
from guessgym.cli import main
from guessgym.envs.chat import ChatGuessEnv
from guessgym.evaluation import evaluate
from guessgym.evaluation.analysis import analyze
from guessgym.evaluation.transcripts import read_transcripts
from guessgym.evaluation.viewer import viewer_data, write_viewer
from guessgym.infra.resumable_log import LogError

ENV = "guessgym/NerdleChat-v0"
GAME = {"length": 5}


class Sloppy(TextAgent):
    """least-worst's guesses in conversation, but every game's second reply is not a guess."""

    name = "sloppy"

    def __init__(self, invalid_at: int = 2) -> None:
        self.solver = ScriptedSolver(ChatGuessEnv(kind="nerdle", **GAME).game, "least-worst")
        self.invalid_at = invalid_at

    def reply(self, messages: list[dict[str, str]]) -> ModelReply:
        if sum(m["role"] == "assistant" for m in messages) == self.invalid_at - 1:
            return ModelReply("I would rather not say.")
        text = "\n".join(m["content"] for m in messages if m["role"] == "user")
        return ModelReply(f"My guess: [{self.solver.next_guess(text)}]")


def played(tmp_path: Path, invalid: str) -> tuple[Path, object]:
    path = tmp_path / f"{invalid}.jsonl"
    result = evaluate(Sloppy(), ENV, env_kwargs={**GAME, "invalid": invalid}, sample=12, transcripts=path,
                      record_guesses=True)
    return path, result


@pytest.mark.parametrize("invalid", ["forfeit", "retry"])
def test_reading_gives_the_evaluations_games_and_every_reply_with_its_verdict(tmp_path: Path, invalid: str) -> None:
    path, result = played(tmp_path, invalid)
    read = read_transcripts(path)
    assert read.result.records == result.records  # type: ignore[attr-defined]
    assert read.result.game == result.game and read.result.env_id == ENV  # type: ignore[attr-defined]
    for record, turns in zip(read.result.records, read.turns, strict=True):
        if len(turns) < 2:
            continue  # won at once
        bad = turns[1]
        assert (bad.reply, bad.guess, bad.tiles, bad.invalid) == ("I would rather not say.", "", "", "format")
        assert bad.forfeit is (invalid == "forfeit")
        assert tuple(t.guess for t in turns if t.guess) == record.played
        assert record.forfeits == (1 if invalid == "forfeit" else 0)


def test_forfeited_turns_are_moves_and_the_losses_still_add_up(tmp_path: Path) -> None:
    path, result = played(tmp_path, "forfeit")
    analysis = analyze(path)
    assert len(analysis.games) == 12
    forfeits = 0
    for record, game in zip(result.records, analysis.games, strict=True):  # type: ignore[attr-defined]
        assert len(game.moves) == record.guesses  # every attempt is a move, the lost one included
        for move in game.moves:
            if move.forfeit:
                forfeits += 1
                assert move.guess == "" and move.luck == 0 and move.loss > 0.5
        if game.solved:  # n = best_1 + sum(loss) - sum(luck)
            assert game.moves[0].best + game.loss - game.luck == pytest.approx(record.guesses)
    assert forfeits == sum(r.forfeits for r in result.records)  # type: ignore[attr-defined]
    assert forfeits > 0


def test_retried_replies_are_not_moves(tmp_path: Path) -> None:
    path, result = played(tmp_path, "retry")
    from_transcripts = analyze(path)
    from_result = analyze(result)  # type: ignore[arg-type]
    assert from_transcripts.games == from_result.games


def test_games_ended_by_invalid_replies_are_aborted_replayed_and_not_priced(tmp_path: Path) -> None:
    """invalid='abort' (TextArena's and clembench's rule): the game ends lost with attempts left; the
    record says so, the transcripts replay it, the play metrics count it, the move analysis refuses it."""
    path = tmp_path / "abort.jsonl"
    result = evaluate(Sloppy(invalid_at=1), ENV, env_kwargs={**GAME, "invalid": "abort", "max_retries": 0},
                      sample=5, transcripts=path)
    assert all(not r.solved and r.guesses == 0 and r.turns == 1 and r.note.startswith("aborted")
               for r in result.records)  # type: ignore[attr-defined]
    again = read_transcripts(path).result
    assert [(r.answer, r.note, r.invalid) for r in again.records] == \
        [(r.answer, r.note, r.invalid) for r in result.records]  # type: ignore[attr-defined]
    assert again.meta["conduct"]["aborted"] == 5  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="5 games were ended by invalid replies with attempts left"):
        analyze(path)


def test_a_repeated_guess_is_its_own_invalid_kind_where_repeats_are_invalid(tmp_path: Path) -> None:
    from guessgym.agents.llm.scripted_server import ScriptedServer

    with ScriptedServer(ChatGuessEnv(kind="nerdle", **GAME).game) as server:
        agent = make_agent("llm:sloppy", base_url=server.base_url)
        allowed = evaluate(agent, ENV, env_kwargs=GAME, sample=6, record_guesses=True)
        refused = evaluate(agent, ENV, env_kwargs={**GAME, "repeats": "invalid"}, sample=6)
    # allowed: the repeat is a guess (one more than the solver's); refused: an invalid reply, retried
    assert all(r.played[0] == r.played[1] for r in allowed.records if r.guesses > 1)
    assert refused.mean_guesses == pytest.approx(allowed.mean_guesses - 1)
    assert all(r.invalid == {"repeated": 1} for r in refused.records if r.guesses > 1)


def test_a_result_with_forfeits_asks_for_its_transcripts(tmp_path: Path) -> None:
    _, result = played(tmp_path, "forfeit")
    with pytest.raises(ValueError, match="transcripts file"):
        analyze(result)  # type: ignore[arg-type]


def test_the_viewer_marks_invalid_replies(tmp_path: Path) -> None:
    path, _ = played(tmp_path, "forfeit")
    read = read_transcripts(path)
    data = viewer_data([read.result], {0: analyze(read)}, turns={0: read.turns})
    rows = [row for record in data["agents"][0]["records"] for row in record[4]]
    marked = [row for row in rows if len(row) > 4 and row[4]]
    assert marked and all(row[0] == "I would rather not say." and row[4] == "format" and row[5] == 1
                          for row in marked)


def test_the_commands_take_a_transcripts_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = played(tmp_path, "forfeit")
    out = tmp_path / "analysis.json"
    assert main(["analyze", str(path), "--out", str(out), "--no-progress"]) == 0
    data = json.loads(out.read_text())
    assert any(m["forfeit"] for g in data["games"] for m in g["moves"])
    html = tmp_path / "report.html"
    assert main(["report", str(path), "--html", str(html)]) == 0
    assert "I would rather not say." in html.read_text()


@pytest.mark.parametrize("text, message", [
    ("", "no complete header line"),
    ("[1, 2]\n", "not a header object"),
    ('{"kind": "header", "format": 9}\n', "transcripts format 9"),
    ('{"kind": "header", "format": 1, "env_id": "x", "env_kwargs": {"kind": "chess"}, "seed": 0}\n',
     "cannot be rebuilt"),
    ('{"kind": "checkpoint"}\n', "not a transcripts file"),
])
def test_what_is_not_a_transcripts_file_is_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(text)
    with pytest.raises(LogError, match=message):
        read_transcripts(path)


@pytest.mark.browser
def test_refused_replies_on_the_board_in_a_browser(tmp_path: Path) -> None:
    path, result = played(tmp_path, "forfeit")
    read = read_transcripts(path)
    page_file = write_viewer([read.result], tmp_path / "viewer.html", analyses={0: analyze(read)},
                             turns={0: read.turns})
    record = next(r for r in read.result.records if r.forfeits)
    with browser_page() as (page, errors):
        page.goto(page_file.as_uri())
        page.fill("#filter", record.answer)
        rows = page.locator(".game .board .row")
        assert rows.count() == record.guesses  # the forfeited turn is a row of its own
        bad = page.locator(".row.invalid")
        assert bad.count() == 1 and bad.get_attribute("data-invalid") == "format"
        assert "I would rather not say." in bad.inner_text() and "turn lost" in bad.inner_text()
        assert "loss" in bad.inner_text()
        page.screenshot(path=str(tmp_path / "transcripts.png"))
        assert not errors, errors


def test_a_turn_lost_at_the_start_costs_one_guess_while_the_optimal_tree_still_fits(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from guessgym.agents.base import UnsupportedGameError
    from guessgym.baselines import move_values
    from guessgym.envs import make_game
    from guessgym.evaluation.analysis import analyze_moves, record_moves

    game = make_game("guessgym/MiniNerdle-v1")  # optimum: 544 guesses, every answer within 4
    values = move_values.StateValues(game)
    answer = game.answers[17]
    optimal = evaluate(make_agent("optimal"), game, answers=[answer], record_guesses=True).records[0]
    assert optimal.played is not None
    moves = record_moves(game, answer, optimal.played)
    judged = analyze_moves(values, [None, *moves], answer)  # 5 attempts left: the optimal tree still fits
    assert judged.moves[0].forfeit and judged.moves[0].loss == pytest.approx(1.0)
    assert judged.moves[0].expected == pytest.approx(1 + 544 / 206) and judged.moves[0].best_guess == "4*7=28"
    assert all(m.loss == pytest.approx(0.0) for m in judged.moves[1:])
    assert judged.moves[0].best + judged.loss - judged.luck == pytest.approx(len(moves) + 1)
    three = analyze_moves(values, [None, None, None, *moves[:1]], answer)  # 3 left: the start is solved again
    assert three.moves[2].expected > 1 + 544 / 206
    monkeypatch.setattr(move_values, "ROOT_SOLVE_LIMIT", 100)
    with pytest.raises(UnsupportedGameError, match="solved again"):
        analyze_moves(move_values.StateValues(game), [None, None, None], answer)


# ---- issue 40, item 5: a transcripts file's header is not trusted ------------------------------------------------
def _forged(path: Path, source: Path, **changes: object) -> Path:
    """``source`` (a real transcripts file) with its header's env_kwargs changed."""
    lines = source.read_text().splitlines()
    header = json.loads(lines[0])
    header["env_kwargs"].update(changes)
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    return path


@pytest.fixture(scope="module")
def real_transcripts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path, _ = played(tmp_path_factory.mktemp("t"), "retry")
    return path


@pytest.mark.parametrize(("changes", "message"), [
    ({"reply_format": "^(a|aa)+$"}, "reply_format='\\^\\(a\\|aa\\)\\+\\$' is not a value"),
    ({"prompts": {"system": "{rules:>3000000000}"}}, "pads a field wider than 1,000"),
    ({"reply_format": "brackets", "reply_instruction": "{example:>3000000000}"}, "pads a field wider"),
    ({"answers": "/etc/passwd"}, "answers='/etc/passwd' is not a value"),
    ({"guesses": "/etc/hostname"}, "guesses='/etc/hostname' is not a value"),
    ({"word_list": "../../etc/passwd"}, "word_list='../../etc/passwd' is not a value"),
    ({"matrix_cache": True}, "option 'matrix_cache' is not one a transcripts header may set"),
    ({"max_attempts": 10**9}, "max_attempts=1000000000 is not a value"),
    ({"max_reply_chars": None}, "max_reply_chars=None is not a value"),
    ({"max_retries": 10**12}, "max_retries=1000000000000 is not a value"),
    ({"preset": "textarena"}, "follows a Wordle suite"),
])
def test_a_forged_header_is_refused_in_one_line_before_anything_runs(real_transcripts: Path, tmp_path: Path,
                                                                       changes: dict, message: str,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    import time

    path = _forged(tmp_path / "forged.jsonl", real_transcripts, **changes)
    start = time.perf_counter()
    with pytest.raises(LogError, match=message):
        read_transcripts(path)
    for argv in (["report", str(path), "--html", str(tmp_path / "r.html")], ["analyze", str(path), "--no-progress"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "root:" not in err, err  # nothing of the named file shown
    assert time.perf_counter() - start < 10


def test_a_header_naming_another_id_or_a_game_twice_is_refused(real_transcripts: Path, tmp_path: Path) -> None:
    lines = real_transcripts.read_text().splitlines()
    header = json.loads(lines[0])
    (tmp_path / "id.jsonl").write_text(json.dumps({**header, "env_id": "guessgym/Dordle-v0"}) + "\n")
    with pytest.raises(LogError, match="env_id 'guessgym/Dordle-v0' is not a registered guessgym id a text agent"):
        read_transcripts(tmp_path / "id.jsonl")
    (tmp_path / "twice.jsonl").write_text("\n".join([*lines, lines[1]]) + "\n")
    with pytest.raises(LogError, match=f"line {len(lines) + 1} repeats the game of answer .* \\(line 2\\)"):
        read_transcripts(tmp_path / "twice.jsonl")


def test_a_fifo_named_like_transcripts_is_refused_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import os

    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(LogError, match="is not a regular file"):
        read_transcripts(fifo)
    assert main(["report", str(fifo), "--html", str(tmp_path / "r.html")]) == 2
    assert main(["analyze", str(fifo), "--no-progress"]) == 2
    assert "not a regular file" in capsys.readouterr().err
