"""The game viewer: its data are the games' tiles and the analysis' judgements, and the page works
in a real browser (filter to one answer, its board's tiles, two agents side by side)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from browser import browser_page

from guessgym.agents.registry import make_agent
from guessgym.cli import main
from guessgym.envs import make_game
from guessgym.envs.scoring import pattern_to_tiles
from guessgym.evaluation import analyze, evaluate
from guessgym.evaluation.viewer import script_json, viewer_data, write_viewer

MINI = "guessgym/MiniNerdle-v1"


@pytest.fixture(scope="module")
def results() -> tuple[list, dict]:  # type: ignore[type-arg]
    lw = evaluate(make_agent("least-worst"), MINI, record_guesses=True)
    pe = evaluate(make_agent("pattern-entropy"), MINI, record_guesses=True)
    return [lw, pe], {0: analyze(lw)}


def test_the_viewers_data_are_the_games_tiles_and_judgements(results: tuple[list, dict]) -> None:  # type: ignore[type-arg]
    runs, analyses = results
    data = viewer_data(runs, analyses)
    game = make_game(MINI)
    lw, pe = data["agents"]
    assert lw["label"] == "least-worst" and lw["games"] == 206 and lw["kind"] == "nerdle"
    assert lw["analysis"] == pytest.approx((546 - 544) / 206, abs=1e-9)
    assert pe["analysis"] is None and len(pe["records"]) == 206
    judged = {g.answer: g for g in analyses[0].games}
    for answer, guesses, solved, loss, rows in lw["records"]:
        assert len(rows) == guesses and solved == 1
        for (guess, tiles, move_loss, luck), move in zip(rows, judged[answer].moves):
            assert tiles == pattern_to_tiles(int(game.score(guess, answer)), game.length)
            assert (move_loss, luck) == (round(move.loss, 4), round(move.luck, 4))
        assert loss == round(judged[answer].loss, 4)


def test_a_result_without_guesses_or_of_another_kind_has_no_boards() -> None:
    quordle = evaluate(make_agent("multi-expected-size"), "guessgym/Dordle-v0", sample=2, record_guesses=True)
    plain = evaluate(make_agent("least-worst"), MINI, sample=3)
    agents = viewer_data([quordle, plain])["agents"]
    assert [a["records"] for a in agents] == [[], []]
    assert agents[1]["distribution"]


def test_the_report_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--env", MINI, "--agent", "least-worst", "--guesses", "--out", str(tmp_path),
                 "--no-progress"]) == 0
    saved = tmp_path / "MiniNerdle-v1__least-worst.json"
    assert main(["analyze", str(saved), "--out", str(tmp_path / "MiniNerdle-v1__least-worst.analysis.json.gz"),
                 "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["report", str(saved), "--html", str(tmp_path / "r.html")]) == 0
    assert "1 with their move analysis" in capsys.readouterr().out
    page = (tmp_path / "r.html").read_text()
    assert "<script src" not in page and "http://" not in page and "https://" not in page  # self-contained
    data = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S).group(1))
    assert data["agents"][0]["records"][0][4][0][2] is not None  # a move's loss
    (tmp_path / "bad.json").write_text("{}")
    assert main(["report", str(tmp_path / "bad.json"), "--html", str(tmp_path / "x.html")]) == 2
    assert "not a readable evaluation result" in capsys.readouterr().err


@pytest.mark.browser
def test_the_viewer_in_a_browser(results: tuple[list, dict], tmp_path: Path) -> None:  # type: ignore[type-arg]
    runs, analyses = results
    page_file = write_viewer(runs, tmp_path / "viewer.html", analyses=analyses)
    game = make_game(MINI)
    answer = "5+6=11"
    played = next(r.played for r in runs[0].records if r.answer == answer)
    with browser_page() as (page, errors):
        page.goto(page_file.as_uri())
        assert page.locator("#board-table tbody tr").count() == 2
        assert page.inner_text("#count") == "206 of 206 games"
        assert page.inner_text("#conduct").startswith("Play: of ")  # the play metrics of the agent shown
        bars = page.locator("#loss-by-move .bar")
        assert bars.count() == len(analyses[0].summary()["loss_by_move"])  # the loss-by-move chart
        page.select_option("#compare", label="pattern-entropy")
        page.fill("#filter", answer)
        assert page.inner_text("#count") == "1 of 206 games"
        boards = page.locator(".game .board")
        assert boards.count() == 2  # least-worst and pattern-entropy side by side
        first = boards.nth(0)
        assert first.locator(".row").count() == len(played)
        for i, guess in enumerate(played):
            row = first.locator(".row").nth(i)
            tiles = "".join(t.get_attribute("data-tile") for t in row.locator(".tile").all())
            assert row.get_attribute("data-guess") == guess
            assert tiles == pattern_to_tiles(int(game.score(guess, answer)), game.length)
            assert "loss" in row.inner_text()
        page.fill("#filter", "")
        page.select_option("#show", "failed")
        assert page.inner_text("#count") == "0 of 206 games"
        page.screenshot(path=str(tmp_path / "viewer.png"))
        page.click("#board-table tbody tr:nth-child(2)")  # pattern-entropy: no analysis, so no loss chart
        assert not page.locator("#loss-figure").is_visible()
        assert not errors, errors


#: Text that would run script, end the data's script element or change how the page parses, were
#: it written into the page as it is (issue 40: a title holding ``{{data}}``, a reply holding ``<!--<script>``).
PAYLOADS = [
    "<script>window.__pwned = 1</script>", "<img src=x onerror=\"window.__pwned = 2\">",
    "</script><script>window.__pwned = 3</script>", "<!--<script>", "<!--", "-->", "<![CDATA[", "]]>",
    "{{data}}", "{{script}}", "{{title}}", "{{style}}", "\"'><svg onload=window.__pwned=4>", "&lt;b&gt;&amp;",
    "line\u2028separator\u2029", "</style><script>window.__pwned = 5</script>", "<ScRiPt>window.__pwned=6</sCrIpT>",
    "llm:<img src=x onerror=window.__pwned=7>", "\\u003cscript\\u003e", "</title><script>window.__pwned=8</script>",
]


def _hostile_results() -> tuple[list, dict, str]:  # type: ignore[type-arg]
    """Results whose every text field (agent, label, description, env id, game, answers' refused
    replies) and title carry the payloads; one result has no win, so its mean is NaN."""
    import dataclasses

    from guessgym.evaluation.transcripts import Turn

    base = evaluate(make_agent("least-worst"), "guessgym/MicroNerdle-v1", sample=4, seed=1, record_guesses=True)
    game = make_game("guessgym/MicroNerdle-v1")
    runs, turns = [], {}
    for i, payload in enumerate(PAYLOADS):
        run = dataclasses.replace(base, agent=payload, description=payload, meta={**base.meta, "label": payload})
        if i % 4 == 3:  # a result of a game that cannot be rebuilt: its env id and name are the payload
            run = dataclasses.replace(run, env_id=payload, game=payload)
        elif i % 4 == 2:  # no game won: the mean guesses is NaN
            run = dataclasses.replace(run, records=[dataclasses.replace(r, solved=False) for r in run.records])
        runs.append(run)
        turns[i] = [[Turn(payload, "", "", "format", False)] +
                    [Turn(g, g, pattern_to_tiles(int(game.score(g, record.answer)), game.length), "", False)
                     for g in record.played] for record in run.records]
    return runs, turns, " ".join(PAYLOADS)


def test_hostile_text_reaches_the_page_only_as_text_or_data(tmp_path: Path) -> None:
    runs, turns, title = _hostile_results()
    page = write_viewer(runs, tmp_path / "v.html", turns=turns, title=title).read_text()
    scripts = re.findall(r"<script\b", page, re.I)
    assert len(scripts) == 2  # the data and the viewer's own script, nothing else
    data_text = re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S).group(1)
    for marker in ("<", ">", "&", "\u2028", "\u2029"):
        assert marker not in data_text
    data = json.loads(data_text)
    assert data == json.loads(json.dumps(viewer_data(runs, None, turns)).replace("NaN", "null"))
    assert [a["label"] for a in data["agents"]] == [f"{p} ({p})" for p in PAYLOADS]
    head = page[: page.index("<style>")]
    assert "<title>" + __import__("html").escape(title, quote=True) + "</title>" in head
    for payload in PAYLOADS:  # no payload is anywhere in the page as it is, but for the harmless ones
        if any(c in payload for c in "<>&\"'"):
            assert payload not in page


def test_script_json_writes_numbers_that_are_not_finite_as_null_at_any_depth() -> None:
    finite = {"a": [1.5, (2, "x</script>")], "b": {"c": 0.1}}
    assert json.loads(script_json(finite)) == {"a": [1.5, [2, "x</script>"]], "b": {"c": 0.1}}
    assert "</" not in script_json(finite)
    nasty = {"a": [1.5, (float("nan"), "NaN")], "b": {"c": float("inf"), "d": -float("inf")}}
    assert json.loads(script_json(nasty)) == {"a": [1.5, [None, "NaN"]], "b": {"c": None, "d": None}}


@pytest.mark.browser
def test_the_viewer_renders_hostile_text_and_runs_none_of_it(tmp_path: Path) -> None:
    runs, turns, title = _hostile_results()
    page_file = write_viewer(runs, tmp_path / "v.html", turns=turns, title=title)
    with browser_page() as (page, errors):
        page.goto(page_file.as_uri())
        assert page.evaluate("window.__pwned") is None
        assert page.title() == title
        assert page.inner_text("header h1") == title
        rows = page.locator("#board-table tbody tr")
        assert rows.count() == len(PAYLOADS)
        labels = sorted(rows.nth(i).locator("td").nth(1).text_content() for i in range(rows.count()))
        assert labels == sorted(f"{p} ({p})" for p in PAYLOADS)
        for i in range(rows.count()):  # every agent's page, and each refused reply shown as its text
            rows.nth(i).click()
            label = rows.nth(i).locator("td").nth(1).text_content()
            payload = label[: (len(label) - 3) // 2]
            if page.locator(".game").count():  # a result whose game could be rebuilt has boards
                page.locator(".game summary").first.click()
                assert page.locator(".row.invalid .reply").first.text_content() == payload
            assert page.evaluate("window.__pwned") is None, payload
        means = [rows.nth(i).locator("td").nth(5).text_content() for i in range(rows.count())]
        assert means.count("-") == len(PAYLOADS[2::4])  # the agents with no win: their mean drawn as "-"
        assert not errors, errors


@pytest.mark.browser
def test_a_move_judged_by_bounds_shows_its_interval_in_the_browser(tmp_path: Path) -> None:
    """Past its time budget the analysis judges by bounds; the viewer shows each such move's loss
    as an interval marked as bounds, and no game loss that would pass for exact."""
    from guessgym.baselines.move_values import StateValues, ValuesTimedOut
    from guessgym.evaluation.analysis import Analysis, analyze_moves, record_moves

    run = evaluate(make_agent("least-worst"), "guessgym/Wordle-v1", record_guesses=True, sample=2, seed=3)
    game = make_game("guessgym/Wordle-v1")
    values = StateValues(game)
    values.openers = None  # the first move needs its tree: not solved in a microsecond
    values.set_budget(1e-9)
    with pytest.raises(ValuesTimedOut):
        values.best(values.split(values.everyone, game.guess_index["kayak"])[0][1], 5, values.all_guesses)
    values.bounds().set_budget(None)  # searched bounds: the opener's interval has both ends
    bounded = Analysis(str(run.env_id), game.name, run.agent)
    bounded.games = [analyze_moves(values, record_moves(game, r.answer, r.played or ()), r.answer)
                     for r in run.records]
    move = bounded.games[0].moves[0]
    assert move.bounded and move.loss_high >= 0
    page_file = write_viewer([run], tmp_path / "viewer.html", analyses={0: bounded})
    with browser_page() as (page, errors):
        page.goto(page_file.as_uri())
        page.fill("#filter", bounded.games[0].answer)
        row = page.locator(".game .board").nth(0).locator(".row").nth(0)
        assert f"loss {move.loss:.4f} to {move.loss_high:.4f} (bounds)" in row.inner_text()
        assert "luck" not in row.inner_text()
        assert not errors, errors
