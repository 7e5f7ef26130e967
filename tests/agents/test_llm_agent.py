"""The language-model agent against a real OpenAI-compatible server on 127.0.0.1 whose models are
scripts (guessgym.agents.llm.scripted_server): exact accounting of what the script did, retries,
failures that end with one message, concurrency, transcripts and resuming after a kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from signals import sigint_default

from guessgym.agents.llm import LLMAgent
from guessgym.agents.llm.client import ModelServerError
from guessgym.agents.llm.scripted_server import ScriptedServer
from guessgym.agents.registry import make_agent
from guessgym.cli import main
from guessgym.envs.game import nerdle, wordle
from guessgym.evaluation.chat import EvaluationStopped, evaluate_chat
from guessgym.evaluation.evaluate import evaluate
from guessgym.evaluation.report import result_markdown

MINI = "guessgym/MiniNerdle-v1"


@pytest.fixture(scope="module")
def mini_server():
    with ScriptedServer(nerdle(6)) as server:
        yield server


def baseline(env_id: str, **options):
    return evaluate(make_agent("least-worst"), env_id, record_guesses=True, **options)


def agent(server: ScriptedServer, model: str, **options) -> LLMAgent:
    return LLMAgent(model, server.base_url, backoff=0.0, **options)


def test_the_solver_model_plays_exactly_its_baseline_with_games_in_flight(tmp_path: Path) -> None:
    with ScriptedServer(wordle()) as server:
        result = evaluate_chat(agent(server, "solver", concurrency=4), "guessgym/WordleChat-v0", sample=40, seed=3,
                               transcripts=tmp_path / "t.jsonl")
        requests = server.counts["requests:solver"]
    reference = baseline("guessgym/Wordle-v1", sample=40, seed=3)
    assert [r.answer for r in result.records] == [r.answer for r in reference.records]
    assert [r.played for r in result.records] == [r.played for r in reference.records]  # no conversation mixed up
    assert result.invalid_by_kind == {} and all(r.turns == r.guesses for r in result.records)
    assert requests == sum(r.turns for r in result.records)
    lines = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert lines[0]["kind"] == "header" and len(lines) == 41
    for line in lines[1:]:  # the server's usage: words of the conversation it was sent, and of its reply
        messages = line["transcript"]["messages"]
        turns = range(len(line["transcript"]["replies"]))
        sent = [sum(len(m["content"].split()) for m in messages[: 2 + 2 * k]) for k in turns]
        assert [r["prompt_tokens"] for r in line["transcript"]["replies"]] == sent
        assert line["record"]["prompt_tokens"] == sum(sent)
        assert line["transcript"]["answer"] in messages[-1]["content"]
    assert result.tokens_per_game["games"] == 40 and result.latency_per_game > 0
    assert "tokens per game" in result_markdown(result)


@pytest.mark.parametrize("invalid", ["retry", "forfeit"])
def test_the_faulty_models_invalid_replies_are_counted_exactly(mini_server: ScriptedServer, invalid: str) -> None:
    options = {"invalid": invalid, "max_retries": 3, "max_reply_chars": 1000}
    result = evaluate_chat(agent(mini_server, "faulty", concurrency=3), MINI, env_kwargs=options, sample=30, seed=1)
    reference = baseline(MINI, sample=30, seed=1)
    for got, want in zip(result.records, reference.records):
        # each game: no guess in the format, an unknown equation, a reply over 1,000 characters
        assert got.invalid == {"format": 2, "unknown": 1} and got.answer == want.answer
        if invalid == "retry":  # three retries of the first guess, then the baseline's game
            assert (got.played, got.guesses, got.turns, got.forfeits, got.solved) == \
                (want.played, want.guesses, want.guesses + 3, 0, True)
        else:  # three attempts lost: the baseline's game in the other three, or a loss
            assert got.forfeits == 3 and got.turns == min(want.guesses, 3) + 3
            assert got.solved == (want.guesses <= 3) and got.guesses == (want.guesses + 3 if got.solved else 6)
    assert result.invalid_by_kind == {"format": 60, "unknown": 30}
    assert result.n_forfeits == (90 if invalid == "forfeit" else 0)


@pytest.mark.parametrize("invalid", ["retry", "forfeit"])
def test_a_model_that_never_follows_the_format_loses_every_game_and_the_run_ends(mini_server: ScriptedServer,
                                                                               invalid: str) -> None:
    result = evaluate_chat(agent(mini_server, "rambler", concurrency=2), MINI, env_kwargs={"invalid": invalid},
                           sample=4)
    replies = 6 * (3 if invalid == "retry" else 1)  # 6 attempts; with retry, 2 retries each before the turn is lost
    assert result.win_rate == 0.0 and result.n_failed == 4
    assert all(r.invalid == {"format": replies} and r.turns == replies and r.forfeits == 6 and r.guesses == 6
               for r in result.records)
    assert "turns lost 24" in result_markdown(result)


def test_transient_errors_are_retried_and_change_nothing(mini_server: ScriptedServer) -> None:
    before = dict(mini_server.counts)
    result = evaluate_chat(agent(mini_server, "flaky", concurrency=2), MINI, sample=25, seed=2)
    assert [r.played for r in result.records] == [r.played for r in baseline(MINI, sample=25, seed=2).records]
    failed_429 = mini_server.counts["failures:429"] - before.get("failures:429", 0)
    malformed = mini_server.counts["failures:malformed"] - before.get("failures:malformed", 0)
    assert failed_429 == malformed >= 2  # each distinct conversation: a 429, then a malformed body, then the reply
    assert result.invalid_by_kind == {}


@pytest.mark.parametrize(("model", "options", "says"), [
    ("broken", {"max_retries": 2}, "failed 3 times in a row for model 'broken'; last: HTTP 500"),
    ("sleepy", {"max_retries": 1, "timeout": 0.3}, "no complete reply within the 0.3 s timeout"),
    ("no-such-model", {}, "check the model name 'no-such-model' (the server lists: solver, faulty"),
])
def test_server_failures_end_with_one_message_and_no_hang(tmp_path: Path, model: str, options: dict, says: str) -> None:
    with ScriptedServer(nerdle(6), sleepy_seconds=2.0) as server:
        start = time.perf_counter()
        with pytest.raises(EvaluationStopped, match="games are saved") as caught:
            evaluate_chat(agent(server, model, concurrency=2, **options), MINI, sample=6,
                          transcripts=tmp_path / "t.jsonl")
        assert says in str(caught.value) and time.perf_counter() - start < 10


def test_credentials_and_an_unreachable_server(monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedServer(nerdle(6), api_key="secret") as server:
        monkeypatch.setenv("OPENAI_API_KEY", "wrong")
        with pytest.raises(EvaluationStopped, match=r"refused the credentials \(HTTP 401"):
            evaluate_chat(agent(server, "solver"), MINI, sample=2)
        monkeypatch.setenv("OPENAI_API_KEY", "secret")
        assert evaluate_chat(agent(server, "solver"), MINI, sample=2).win_rate == 1.0
        url = server.base_url
    with pytest.raises(EvaluationStopped, match="cannot reach .* is the server running"):
        evaluate_chat(LLMAgent("solver", url, backoff=0.0, max_retries=1), MINI, sample=2)


def test_an_evaluation_killed_mid_run_resumes_without_replaying_finished_games(tmp_path: Path) -> None:
    transcripts = tmp_path / "t.jsonl"
    with ScriptedServer(nerdle(6), delay=0.05) as server:
        script = (
            "from guessgym.evaluation.chat import evaluate_chat\n"
            "from guessgym.agents.llm import LLMAgent\n"
            f"evaluate_chat(LLMAgent('solver', {server.base_url!r}, concurrency=2), {MINI!r}, sample=40, seed=4,"
            f" transcripts={str(transcripts)!r})\n"
        )
        child = subprocess.Popen([sys.executable, "-c", script], start_new_session=True, preexec_fn=sigint_default)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and (not transcripts.exists() or
                                                   transcripts.read_text().count('"kind": "game"') < 5):
                time.sleep(0.05)
        finally:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        saved = [json.loads(line) for line in transcripts.read_text().splitlines()[1:]]
        assert 5 <= len(saved) < 40
        before = server.counts["requests:solver"]
        with open(transcripts, "a") as f:
            f.write('{"kind": "game", "record": {"answer"')  # a line cut short by the kill
        result = evaluate_chat(LLMAgent("solver", server.base_url, concurrency=2), MINI, sample=40, seed=4,
                               transcripts=transcripts)
        resumed_requests = server.counts["requests:solver"] - before
    finished = {line["transcript"]["answer"] for line in saved}
    assert result.meta["resumed_games"] == len(saved)
    assert resumed_requests == sum(r.turns for r in result.records if r.answer not in finished)
    assert [r.played for r in result.records] == [r.played for r in baseline(MINI, sample=40, seed=4).records]
    lines = [json.loads(line) for line in transcripts.read_text().splitlines()]
    answers = [line["transcript"]["answer"] for line in lines[1:]]
    assert len(answers) == len(set(answers)) == 40


def test_a_transcripts_file_of_another_evaluation_is_refused(mini_server: ScriptedServer, tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    evaluate_chat(agent(mini_server, "solver"), MINI, sample=3, transcripts=path)
    with pytest.raises(ValueError, match="transcripts file of another run .*seed: file has 0, this run 1"):
        evaluate_chat(agent(mini_server, "solver"), MINI, sample=3, seed=1, transcripts=path)
    with pytest.raises(ValueError, match="transcripts file of another run .*temperature"):
        evaluate_chat(agent(mini_server, "solver", temperature=0.7), MINI, sample=3, transcripts=path)
    (tmp_path / "other.jsonl").write_text('{"answer": 1}\n')
    with pytest.raises(ValueError, match="transcripts file of another run"):
        evaluate_chat(agent(mini_server, "solver"), MINI, sample=3, transcripts=tmp_path / "other.jsonl")


@pytest.mark.parametrize("content", [b'{"answer": 1}', b"[1, 2", b"\x00\xff\xfe", b'{"kind": "header"}\n{"kind"',
                                     b"hello\nworld", b"\n\n{}"])
def test_a_file_that_is_not_these_transcripts_is_never_changed(mini_server: ScriptedServer, tmp_path: Path,
                                                               content: bytes) -> None:
    """Issue 22, item 4: the torn-line repair ran before the format check, so a one-line JSON file
    without a final newline became 0 bytes before it was refused."""
    path = tmp_path / "notes.json"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=r"notes\.json"):
        evaluate_chat(agent(mini_server, "solver"), MINI, sample=2, transcripts=path)
    assert path.read_bytes() == content


@pytest.mark.parametrize("forge", [
    lambda line: line["record"].update(solved=not line["record"]["solved"]),
    lambda line: line["record"].update(guesses=1),
    lambda line: line["record"].update(answer="1+1=2"),
    lambda line: line["transcript"].update(answer_index=10**6),
    lambda line: line["transcript"]["messages"][2].update(content="Guess 1 of 6: 10-5=5\nG G G G G G"),
    lambda line: line.update(kind="gamez"),
])
def test_a_forged_or_damaged_game_line_is_refused_naming_its_line(mini_server: ScriptedServer, tmp_path: Path,
                                                                  forge) -> None:
    """Issue 22, item 11: a forged transcript record was taken as a played game."""
    path = tmp_path / "t.jsonl"
    evaluate_chat(agent(mini_server, "solver"), MINI, sample=3, transcripts=path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    forge(lines[2])
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    before = path.read_bytes()
    with pytest.raises(ValueError, match=r"t\.jsonl: line 3 is refused"):
        evaluate_chat(agent(mini_server, "solver"), MINI, sample=3, transcripts=path)
    assert path.read_bytes() == before


def test_two_evaluations_cannot_share_a_transcripts_file(tmp_path: Path) -> None:
    """Issue 22, item 11: two evaluations on one file both played every game."""
    path = tmp_path / "t.jsonl"
    with ScriptedServer(nerdle(6), delay=0.3) as server:
        first = threading.Thread(target=evaluate_chat, args=(agent(server, "solver"), MINI),
                                 kwargs={"sample": 3, "transcripts": path})
        first.start()
        deadline = time.monotonic() + 30
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises(ValueError, match="in use by another run"):
            evaluate_chat(agent(server, "solver"), MINI, sample=3, transcripts=path)
        first.join(timeout=60)
    assert path.read_text().count('"kind": "game"') == 3


def test_the_shared_loop_and_the_command_line_run_llm_agents(mini_server: ScriptedServer, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    result = evaluate(make_agent("llm:solver", base_url=mini_server.base_url), MINI, sample=5, n_jobs=2)
    assert result.meta["backend"] == "threads" and result.n_games == 5 and result.win_rate == 1.0
    with pytest.raises(ValueError, match="text agents"):
        evaluate(make_agent("least-worst"), MINI, sample=2, transcripts=tmp_path / "x.jsonl")
    out = tmp_path / "cli.jsonl"
    code = main(["evaluate", "--agent", "llm:faulty", "--base-url", mini_server.base_url,
                 "--env", "guessgym/NerdleChat-v0", "--env-kwargs", "length=6", "max_retries=3", "max_reply_chars=1000",
                 "--answers", "4", "-j", "2", "--transcripts", str(out), "--no-progress"])
    printed = capsys.readouterr()
    assert code == 0 and "Invalid moves: 3.000 per game (format 8, unknown 4)" in printed.out
    assert len(out.read_text().splitlines()) == 5
    code = main(["evaluate", "--agent", "llm:broken", "--base-url", mini_server.base_url, "--env", MINI,
                 "--answers", "2", "--agent-kwargs", "backoff=0", "max_retries=1",
                 "--transcripts", str(tmp_path / "b.jsonl"), "--no-progress"])
    assert code == 1 and "the evaluation stopped" in capsys.readouterr().err


# ---- issue 22: credentials, deadlines, Ctrl-C ---------------------------------------------------------
def test_credentials_never_reach_results_tables_or_messages(mini_server: ScriptedServer, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A key in the URL's user-info, or in $OPENAI_API_KEY, never appears in the results JSON, the
    table, the transcripts or an error, even when the server's error body echoes it."""
    host = mini_server.base_url.removeprefix("http://")
    url = f"http://alice:url-s3cret@{host}"
    monkeypatch.setenv("OPENAI_API_KEY", "env-s3cret")
    out = tmp_path / "out"
    code = main(["evaluate", "--agent", "llm:solver", "--base-url", url, "--env", MINI, "--answers", "2",
                 "--transcripts", str(tmp_path / "t.jsonl"), "--out", str(out), "--no-progress"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    code = main(["evaluate", "--agent", "llm:echo", "--base-url", url, "--env", MINI, "--answers", "2",
                 "--agent-kwargs", "max_retries=0", "--transcripts", str(tmp_path / "e.jsonl"), "--no-progress"])
    echoed = capsys.readouterr()
    assert code == 1 and "bad request from" in echoed.err
    written = "".join(p.read_text(errors="replace") for p in [*out.iterdir(), *tmp_path.glob("*.jsonl")]
                      if p.suffix != ".png")
    for secret in ("url-s3cret", "env-s3cret", "alice:"):
        for text in (printed.out, printed.err, echoed.out, echoed.err, written):
            assert secret not in text
    assert host in printed.out  # the address itself is shown


def test_a_trickling_server_cannot_hold_a_request_past_its_timeout() -> None:
    """Issue 22, item 7: the timeout bounds the whole request, not each read."""
    with ScriptedServer(nerdle(6), trickle_seconds=0.2) as server:
        client = agent(server, "trickler", timeout=1.0, max_retries=0).client
        start = time.perf_counter()
        with pytest.raises(ModelServerError, match="no complete reply within the 1 s timeout"):
            client.complete([{"role": "user", "content": "go"}])
        assert time.perf_counter() - start < 2.0


def test_a_redirect_is_named() -> None:
    with ScriptedServer(nerdle(6)) as server:
        with pytest.raises(ModelServerError, match=r"answered with a redirect \(HTTP 307"):
            agent(server, "mover").client.complete([{"role": "user", "content": "go"}])


def test_ctrl_c_stops_within_seconds_and_keeps_every_finished_game(tmp_path: Path) -> None:
    """Issue 22, item 8: the first Ctrl-C used to wait for every game in flight (37 s with two slow
    games). It now cancels the requests in flight, keeps the finished games and says how to resume."""
    transcripts = tmp_path / "t.jsonl"
    with ScriptedServer(nerdle(6), delay=0.05, sleepy_seconds=60) as server:
        script = (
            "import threading, time\n"
            "from guessgym.cli import main\n"
            f"raise SystemExit(main(['evaluate', '--agent', 'llm:solver', '--base-url', {server.base_url!r},"
            f" '--env', {MINI!r}, '--answers', '40', '-j', '2', '--transcripts', {str(transcripts)!r},"
            " '--no-progress']))\n"
        )
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, start_new_session=True, preexec_fn=sigint_default)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and (not transcripts.exists() or
                                                   transcripts.read_text().count('"kind": "game"') < 3):
                time.sleep(0.05)
            # every later request sleeps a minute: the games in flight are stuck on the server
            server.delay = 60.0
            time.sleep(0.5)
            saved_before = transcripts.read_text().count('"kind": "game"')
            interrupted = time.monotonic()
            child.send_signal(signal.SIGINT)
            _, err = child.communicate(timeout=30)
            took = time.monotonic() - interrupted
        finally:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
    assert child.returncode == 130, err
    assert took < 5, took
    saved = transcripts.read_text().count('"kind": "game"')
    assert saved >= saved_before >= 3
    assert f"{saved} of 40 games are saved in {transcripts}; rerun the same evaluation to resume" in err
    assert "Traceback" not in err


# ---- issue 40, items 3, 7 and 8: echoed secrets, unbounded bodies and replies, quadratic parsing --------------
def test_every_encoding_of_the_credentials_is_redacted_from_errors_and_replies(tmp_path: Path,
                                                                              capsys: pytest.CaptureFixture[str],
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that echoes the basic-auth header (base64 of user:password) into its error or into
    the model's text: neither the message nor the transcripts keep any form of the secret."""
    import base64

    with ScriptedServer(nerdle(6)) as server:
        host = server.base_url.removeprefix("http://")
        url = f"http://alice:pa%24%24word@{host}"
        monkeypatch.setenv("OPENAI_API_KEY", "sk-e\"cho")
        forms = ["pa$$word", "pa%24%24word", base64.b64encode(b"alice:pa$$word").decode(), "alice:pa",
                 "sk-e\"cho", "sk-e\\\"cho", "sk-e%22cho", base64.b64encode(b"sk-e\"cho").decode()]
        code = main(["evaluate", "--agent", "llm:parrot", "--base-url", url, "--env", MINI, "--answers", "2",
                     "--transcripts", str(tmp_path / "p.jsonl"), "--no-progress"])
        parrot = capsys.readouterr()
        assert code == 0, parrot.err
        code = main(["evaluate", "--agent", "llm:echo", "--base-url", url, "--env", MINI, "--answers", "1",
                     "--agent-kwargs", "max_retries=0", "--transcripts", str(tmp_path / "e.jsonl"), "--no-progress"])
        echo = capsys.readouterr()
        assert code == 1 and "bad request from 'Basic ***'" in echo.err
        written = (tmp_path / "p.jsonl").read_text()
        assert "You sent Basic *** (***)" in written
        for text in (parrot.out, parrot.err, echo.out, echo.err, written, (tmp_path / "e.jsonl").read_text()):
            for form in forms:
                assert form not in text, form


@pytest.mark.parametrize("sized", [True, False])
def test_a_response_body_is_read_only_up_to_its_bound(sized: bool) -> None:
    """A 2 GB body used to take 10 GB of memory: the client stops reading at max_body_bytes, whether
    the server says the length or not."""
    with ScriptedServer(nerdle(6), flood_chars=4 << 20, flood_sized=sized) as server:
        client = agent(server, "flood", max_retries=1, max_body_bytes=1 << 20).client
        with pytest.raises(ModelServerError, match=r"over the 1,048,576 bytes read \(max_body_bytes\)"):
            client.complete([{"role": "user", "content": "go"}])
        assert server.counts["requests:flood"] == 2  # retried once, then reported
        with pytest.raises(ValueError, match="max_body_bytes must be a whole number from 1,024"):
            agent(server, "flood", max_body_bytes=10**12)
        with pytest.raises(ValueError, match="max_retries must be a whole number from 0 to 100"):
            agent(server, "flood", max_retries=10**12)


def test_an_over_long_reply_is_invalid_and_kept_cut(tmp_path: Path) -> None:
    """A reply over max_reply_chars is a format error, and the conversation (so the next request and
    the transcripts) keeps only its first max_reply_chars characters: 18 replies of 5 MB made a
    transcripts file unreadable; the file now reads, and replays."""
    from guessgym.envs.chat.replies import CUT_MARK
    from guessgym.evaluation.transcripts import read_transcripts

    with ScriptedServer(nerdle(6), flood_chars=300_000) as server:
        path = tmp_path / "t.jsonl"
        result = evaluate(agent(server, "flood"), "guessgym/NerdleChat-v0", answers=[0, 1], transcripts=path,
                          env_kwargs={"length": 6, "max_retries": 3})
    assert [r.solved for r in result.records] == [False, False]
    assert all(r.invalid == {"format": 6 * 4} for r in result.records)
    assert path.stat().st_size < 2 * 24 * 100_200 + 200_000
    read = read_transcripts(path)
    replies = [turn.reply for turns in read.turns for turn in turns]
    assert len(replies) == 48 and all(r == "x" * 100_000 + CUT_MARK for r in replies)
    from guessgym.envs.chat import ChatGuessEnv

    with pytest.raises(ValueError, match="max_reply_chars must be a whole number of characters from 1 to 10,000,000"):
        ChatGuessEnv(kind="nerdle", length=6, max_reply_chars=None)


@pytest.mark.parametrize("preset", [None, "verifiers", "textarena", "gem", "trl"])
def test_reply_parsing_is_linear(preset: str | None) -> None:
    """A 98,000-character reply of repeated <guess> took 4 s (tags) and 21 s (the verifiers preset):
    every format reads a reply in time linear in its length (checked against a reply 8 times
    shorter: at most about 8 times the time, with room for noise, where quadratic would be 64)."""
    from guessgym.envs.chat import ChatGuessEnv

    options = {"preset": preset} if preset else {"reply_format": "tags"}
    env = ChatGuessEnv(**options)

    def seconds(n: int) -> float:
        reply = "<guess>" * (n // 7) + "<guess>[crane" + "[" * 100
        env.reset(seed=0)
        start = time.perf_counter()
        for _ in range(3):
            env.parser.parse(reply)
            if preset:
                env.reset(seed=0)
                env.step(reply)
        return time.perf_counter() - start

    small, large = seconds(12_000), seconds(96_000)
    assert large < 0.5 or large < 24 * small, (small, large)


def test_a_streamed_request_gets_the_same_reply_as_server_sent_events(mini_server: ScriptedServer) -> None:
    """``"stream": true`` (what verifiers 0.4's chat program asks): the reply in SSE chunks that the
    OpenAI client reassembles into the reply a plain request gets, the usage when asked for, then
    ``[DONE]``; content given as a list of parts reads as its text."""
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=mini_server.base_url, api_key="unused", max_retries=0)
    question = [{"role": "user", "content": "Make your first guess."}]
    plain = client.chat.completions.create(model="solver", messages=question)
    parts = [{"role": "user", "content": [{"type": "text", "text": "Make your first guess."}]}]
    chunks = list(client.chat.completions.create(model="solver", messages=parts, stream=True,
                                                 stream_options={"include_usage": True}))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == plain.choices[0].message.content and "[" in text
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens == plain.usage.total_tokens
    quiet = list(client.chat.completions.create(model="solver", messages=question, stream=True))
    assert all(c.usage is None for c in quiet)


def test_a_reply_has_every_field_openais_schema_requires(mini_server: ScriptedServer) -> None:
    """NeMo Gym's model server validates replies against OpenAI's ChatCompletion schema (``created``
    included, which the scripted server once left out)."""
    openai = pytest.importorskip("openai")
    from openai.types.chat import ChatCompletion

    client = openai.OpenAI(base_url=mini_server.base_url, api_key="unused", max_retries=0)
    raw = client.chat.completions.with_raw_response.create(
        model="solver", messages=[{"role": "user", "content": "Make your first guess."}])
    body = json.loads(raw.http_response.text)
    required = {name for name, field in ChatCompletion.model_fields.items() if field.is_required()}
    assert required <= set(body), required - set(body)
    assert ChatCompletion.model_validate(body).choices[0].message.content


def test_the_scripted_server_bounds_a_request_body() -> None:
    """Issue 72 ("bodies bounded everywhere a client can send one"): the local scripted server read a
    Content-Length of any size."""
    import socket

    from guessgym.agents.llm.scripted_server import MAX_REQUEST_BYTES

    with ScriptedServer(nerdle(6)) as server:
        host, port = server.base_url.split("//", 1)[1].split("/", 1)[0].split(":")
        for declared in (str(MAX_REQUEST_BYTES + 1), "12x"):
            with socket.create_connection((host, int(port)), timeout=10) as s:
                s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %s\r\n\r\n{"
                          % declared.encode())
                assert s.recv(4096).split(b"\r\n", 1)[0].endswith(b" 413 Request Entity Too Large"), declared
