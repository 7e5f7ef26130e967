"""guessgym's OpenEnv server, played by OpenEnv's own client (openenv-core) on 127.0.0.1.

Every game over the session socket equals the in-process chat game reply for reply (rewards,
tiles, verdicts, the end, the conversation), for every preset; one session's bad input is an error
of that session alone; sessions are bounded and idle ones end; OpenEnv's own validator passes the
running server; ``guessgym serve`` runs it from the command line.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openenv", reason="the openenv extra (in the test extra)")

from websockets.sync.client import connect

from guessgym.agents.llm.scripted_server import ScriptedSolver
from guessgym.envs.chat import ChatGuessEnv
from guessgym.envs.chat.env import ChatFamily
from guessgym.envs.chat.presets import PRESETS
from guessgym.serving.app import make_app, serving
from guessgym.serving.client import GuessgymClient
from guessgym.serving.models import GuessAction

WORDLE = "guessgym/WordleChat-v0"
NERDLE = "guessgym/NerdleChat-v0"
#: (id, options): every preset on Wordle, and the Nerdle games the presets that read equations play.
GAMES = [(WORDLE, {}), *[(WORDLE, {"preset": p}) for p in sorted(PRESETS)], (NERDLE, {"length": 6}),
         (NERDLE, {"length": 6, "preset": "nemo"}), (WORDLE, {"hard_mode": True, "invalid": "forfeit"})]


def replies(env: ChatGuessEnv, rng: random.Random, solver: ScriptedSolver) -> str:
    """A reply to the in-process game as it stands: mostly a solver's guess in the game's format,
    sometimes one that is invalid in some way (no guess, unknown, wrong length, over-long, a repeat)."""
    text = "\n".join(m["content"] for m in env.messages if m["role"] == "user")
    guess = solver.next_guess(text)
    roll = rng.random()
    if roll < 0.06:
        return "let me think about it"
    if roll < 0.10:
        return env.parser.reply_for("z" * env.game.length)
    if roll < 0.13:
        return env.parser.reply_for(guess + guess[0])
    if roll < 0.15:
        return "x" * 150_000 + env.parser.reply_for(guess)
    if roll < 0.19 and env.messages[2:]:
        return next(m["content"] for m in env.messages if m["role"] == "assistant")
    return f"My guess: {env.parser.reply_for(guess)}"


def observed(result: Any) -> tuple[Any, ...]:
    o = result.observation
    return (result.reward, result.done, o.guess, o.tiles, o.invalid_kind, o.invalid_reason, o.attempt, o.won,
            o.answer, o.reward_terms, [tuple(m.items()) for m in o.messages])


def in_process(info: dict[str, Any], reward: float, done: bool) -> tuple[Any, ...]:
    return (reward, done, info["guess"], info["tiles"], info["invalid_kind"], info["invalid_reason"],
            info["attempt"], info.get("won"), info.get("answer"), dict(info.get("reward_terms", {})),
            [tuple(m.items()) for m in info["messages"]])


@pytest.mark.parametrize(("env_id", "options"), GAMES, ids=[f"{e.split('/')[1]}-{o}" for e, o in GAMES])
def test_every_game_over_the_socket_is_the_in_process_game(env_id: str, options: dict[str, Any]) -> None:
    games = 30
    reference = ChatGuessEnv(**ChatFamily.chat_kwargs(env_id, options))
    solver = ScriptedSolver(reference.game, "least-worst")
    rng = random.Random(7)
    played = 0
    with serving(make_app(env_id, options, max_sessions=4)) as url, GuessgymClient(base_url=url).sync() as remote:
        for seed in range(games):
            answer = rng.choice([None, rng.randrange(len(reference.game.answers))])
            _, info = reference.reset(seed=seed, options=None if answer is None else {"answer": answer})
            result = remote.reset(seed=seed, **({} if answer is None else {"answer": answer}))
            assert observed(result) == in_process(info, 0.0, False)
            done = False
            while not done:
                reply = replies(reference, rng, solver)
                _, reward, done, _, info = reference.step(reply)
                result = remote.step(GuessAction(message=reply))
                assert observed(result) == in_process(info, float(reward), done), (seed, reply[:40])
                played += 1
            state = remote.state()
            assert state.done and state.attempt == info["attempt"] and state.env_id == env_id
    assert played > games * 3


def test_sessions_are_isolated_and_games_run_side_by_side() -> None:
    """Sixteen clients play at once, each its own game: every one ends as the in-process game does."""
    reference = ChatGuessEnv(**ChatFamily.chat_kwargs(WORDLE))
    solver = ScriptedSolver(reference.game, "least-worst")
    outcomes: dict[int, Any] = {}
    errors: list[BaseException] = []

    def play(url: str, seed: int) -> None:
        try:
            env = ChatGuessEnv(**ChatFamily.chat_kwargs(WORDLE))
            with GuessgymClient(base_url=url).sync() as remote:
                remote.reset(seed=seed)
                env.reset(seed=seed)
                result = None
                while result is None or not result.done:
                    reply = f"[{solver.next_guess(chr(10).join(m['content'] for m in env.messages[1:]))}]"
                    env.step(reply)
                    result = remote.step(GuessAction(message=reply))
                outcomes[seed] = (result.observation.answer, result.observation.messages,
                                  [dict(m) for m in env.messages])
        except BaseException as exc:  # reported below
            errors.append(exc)

    with serving(make_app(WORDLE, max_sessions=16)) as url:
        threads = [threading.Thread(target=play, args=(url, seed)) for seed in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    assert not errors, errors
    for answer, remote, local in outcomes.values():  # each session its own game, the in-process one
        assert remote == local and answer == local[-1]["content"].split("the answer is ")[-1].rstrip(".")
    assert len(outcomes) == 16 and len({a for a, _, _ in outcomes.values()}) > 8  # different games


def raw(url: str) -> Any:
    return connect(url.replace("http://", "ws://") + "/ws", open_timeout=10, max_size=8 << 20)


def ask(ws: Any, message: Any) -> dict[str, Any]:
    ws.send(message if isinstance(message, str) else json.dumps(message))
    return json.loads(ws.recv(timeout=30))


def test_bad_input_is_an_error_of_that_session_alone() -> None:
    import httpx

    reference = ChatGuessEnv(**ChatFamily.chat_kwargs(WORDLE))
    with serving(make_app(WORDLE, max_sessions=8)) as url:
        with raw(url) as good, raw(url) as bad:
            first = ask(good, {"type": "reset", "data": {"seed": 3}})
            _, info = reference.reset(seed=3)
            assert first["data"]["observation"]["messages"] == info["messages"]
            ask(good, {"type": "step", "data": {"message": "[crane]"}})
            reference.step("[crane]")
            says = [ask(bad, "{not json")["data"]["code"],
                    ask(bad, {"type": "dance"})["data"]["code"],
                    ask(bad, {"type": "step", "data": {"message": "[crane]"}})["data"]["message"],
                    ask(bad, {"type": "step", "data": {"text": "[crane]"}})["data"]["code"],
                    ask(bad, {"type": "reset", "data": {"seed": 1, "answer": "zzzzz"}})["data"]["message"],
                    ask(bad, {"type": "reset", "data": {"seed": 1, "color": "red"}})["data"]["message"]]
            assert says[:2] == ["INVALID_JSON", "UNKNOWN_TYPE"]
            assert "no game is under way: reset starts one" in says[2]
            assert says[3] in ("VALIDATION_ERROR", "EXECUTION_ERROR")
            assert "zzzzz" in says[4]
            ask(bad, {"type": "reset", "data": {"seed": 1}})
            big = ask(bad, {"type": "step", "data": {"message": "y" * 1_000_000}})  # a megabyte reply: invalid
            assert big["data"]["observation"]["invalid_kind"] == "format" and not big["data"]["done"]
            kept = big["data"]["observation"]["messages"][-2]["content"]
            assert len(kept) < 100_100  # kept cut, as the in-process game keeps it
            from websockets.exceptions import ConnectionClosed

            with pytest.raises(ConnectionClosed) as closed:  # a message over the size bound closes that socket
                ask(bad, {"type": "step", "data": {"message": "y" * (3 << 20)}})
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
            rest = ask(good, {"type": "step", "data": {"message": "[moist]"}})  # the other session is untouched
            _, reward, done, _, info = reference.step("[moist]")
            assert rest["data"]["observation"]["messages"] == info["messages"] and rest["data"]["reward"] == reward
            assert ask(good, {"type": "state"})["data"]["step_count"] == 2
        with httpx.Client(base_url=url, timeout=30) as http:
            assert http.get("/health").json()["status"] == "healthy"
            assert http.post("/reset", content=b"{" * (3 << 20)).status_code == 413
            assert http.post("/step", content=b"[1, 2").status_code == 422
            stateless = http.post("/step", json={"action": {"message": "[crane]"}})
            assert stateless.status_code == 409 and "/ws session socket" in stateless.json()["detail"]
            reset = http.post("/reset", json={"seed": 3})
            assert reset.status_code == 200 and reset.json()["observation"]["prompt"] == info["messages"][1]["content"]


def test_sessions_are_bounded_and_idle_ones_end() -> None:
    with serving(make_app(WORDLE, max_sessions=2, idle_timeout=1.0)) as url:
        with raw(url) as one, raw(url) as two:
            ask(one, {"type": "reset", "data": {"seed": 0}})
            ask(two, {"type": "reset", "data": {"seed": 1}})
            with raw(url) as three:
                refused = json.loads(three.recv(timeout=30))
            assert refused["data"]["code"] == "CAPACITY_REACHED"
            deadline = time.monotonic() + 20
            while True:  # both sessions idle: the reaper ends them, and new sessions are taken again
                try:
                    with raw(url) as four:
                        answer = ask(four, {"type": "reset", "data": {"seed": 2}})
                    if answer.get("type") == "observation":
                        break
                except Exception:
                    pass
                assert time.monotonic() < deadline, "idle sessions never ended"
                time.sleep(0.5)


def test_openenvs_validator_passes_the_running_server() -> None:
    from openenv.cli._validation import validate_running_environment

    with serving(make_app(WORDLE)) as url:
        report = validate_running_environment(url)
    assert report["passed"], report["criteria"]


def test_the_generic_client_plays_a_game_and_the_schema_names_the_fields() -> None:
    import httpx
    from openenv import GenericEnvClient  # here, not at the module's top: OpenEnv's client loads Gradio (seconds)

    with serving(make_app(NERDLE, {"length": 5})) as url:
        schema = httpx.get(url + "/schema", timeout=30).json()
        assert schema["action"]["properties"]["message"]["type"] == "string"
        assert {"messages", "tiles", "guess", "won", "answer"} <= set(schema["observation"]["properties"])
        with GenericEnvClient(base_url=url).sync() as env:
            result = env.reset(seed=0, answer="1+2=3")
            for guess in ("9-8=1", "1+2=3"):
                result = env.step({"message": f"[{guess}]"})
    assert result.done and result.reward == 1.0 and result.observation["won"] is True


@pytest.mark.skipif(sys.platform == "win32", reason="signals are POSIX")
def test_the_serve_command(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "guessgym", "serve", "--preset", "textarena", "--port", str(port),
                             "--max-sessions", "2"], stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert proc.stderr is not None
        assert "guessgym/WordleChat-v0" in proc.stderr.readline()
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                with GuessgymClient(base_url=url).sync() as env:
                    env.reset(seed=0, answer="crane")
                    result = env.step(GuessAction(message="[crane]"))
                break
            except ConnectionError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert result.done and result.observation.reward_terms == {"textarena": 1.0}
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) in (0, 130)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert list(tmp_path.iterdir()) == []  # it wrote nothing where it ran
    bad = subprocess.run([sys.executable, "-m", "guessgym", "serve", "--env", "guessgym/Dordle-v0"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr


def test_a_server_imports_openenvs_server_modules_without_its_web_ui() -> None:
    """Issue 65, aim 3: OpenEnv's packages import Gradio's web interface with any of their modules (3.6 s of
    the 6.1 s the server's modules took to import), and its HTTP server the MCP SDK for one helper (1.2 s of
    a 2.5 s start); a server needs neither. The packages' own names are all still there once asked for, and
    the helper, called, is OpenEnv's own."""
    probe = (
        "import sys\n"
        "from guessgym.serving.app import make_app\n"
        "app = make_app('guessgym/NerdleChat-v0', {'length': 5})\n"
        "heavy = ('gradio', 'openenv.core.env_server.web_interface', 'fastmcp', 'mcp')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "from openenv.core.env_server.http_server import get_server_tools\n"
        "print(get_server_tools(object()), 'fastmcp' in sys.modules)\n"
        "from openenv.core import EnvClient, GenericEnvClient\n"
        "from openenv.core.env_server import create_app, Environment\n"
        "from openenv.core.env_server.interfaces import Environment as Same\n"
        "from openenv.core.env_server.mcp_environment import MCPEnvironment\n"
        "print(Environment is Same, callable(create_app), EnvClient.__name__, MCPEnvironment.__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split("\n")[:3] == ["[]", "{} True", "True True EnvClient MCPEnvironment"], done.stdout


def test_deferred_modules_run_once_when_threads_ask_at_once() -> None:
    """Issue 72, item 8: after ``import guessgym.serving``, the first use of OpenEnv's names from 8 threads at
    once failed in 7 of them (``ImportError: cannot import name 'EnvClient'``, ``AttributeError`` for
    ``MCPEnvironment``): a deferred module ran in one thread while the others read it half run. Now it runs
    once, under a lock, and the others wait for it; three fresh processes, 8 threads each."""
    probe = (
        "import threading\n"
        "import guessgym.serving\n"
        "barrier, errors, names = threading.Barrier(8), [], []\n"
        "def use(i):\n"
        "    barrier.wait()\n"
        "    try:\n"
        "        if i % 2:\n"
        "            from openenv.core import EnvClient\n"
        "            names.append(EnvClient.__name__)\n"
        "        else:\n"
        "            from openenv.core.env_server.mcp_environment import MCPEnvironment\n"
        "            names.append(MCPEnvironment.__name__)\n"
        "    except Exception as exc:\n"
        "        errors.append(repr(exc))\n"
        "threads = [threading.Thread(target=use, args=(i,)) for i in range(8)]\n"
        "[t.start() for t in threads]\n"
        "[t.join(120) for t in threads]\n"
        "print(errors or sorted(names))\n"
    )
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        assert done.stdout.strip() == str(["EnvClient"] * 4 + ["MCPEnvironment"] * 4), done.stdout
