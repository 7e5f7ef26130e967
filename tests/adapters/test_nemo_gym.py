"""The NeMo Gym resources server, played by NeMo Gym's own ``gymnasium_agent``: the agent posts to
the server over HTTP on 127.0.0.1 through NeMo Gym's ``ServerClient`` (its session cookie keeps
each rollout's game), a stand-in policy answers the Responses API with the scripted solver's
replies, and every rollout's reward, conversation and end equal the in-process chat game's.

NeMo Gym needs Python 3.12 and pins against the test extra (see guessgym.adapters.nemo_gym), so
this module is skipped in the test extra's environment; ``test_nemo_gym_environment.py`` runs it in
an environment of its own, built from ``integrations/nemo_gym/requirements.lock`` and cached."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any
from unittest.mock import MagicMock

import pytest

pytest.importorskip("nemo_gym", reason="the nemo-gym extra needs Python 3.12 and its own environment")

import uvicorn
from fastapi import FastAPI
from nemo_gym.base_resources_server import BaseResourcesServerConfig
from nemo_gym.config_types import ModelServerRef, ResourcesServerRef
from nemo_gym.global_config import NEMO_GYM_CONFIG_DICT_ENV_VAR_NAME
from nemo_gym.server_utils import ServerClient, global_aiohttp_client_exit
from omegaconf import OmegaConf
from responses_api_agents.gymnasium_agent.app import (
    GymnasiumAgent,
    GymnasiumAgentConfig,
    GymnasiumAgentRunRequest,
)

from guessgym.adapters.nemo_gym import GuessgymResourcesServer, GuessgymResourcesServerConfig, nemo_gym_rows
from guessgym.agents.llm.scripted_server import ScriptedSolver
from guessgym.envs.chat import ChatGuessEnv
from guessgym.envs.chat.env import ChatFamily

CONFIGS = [("guessgym/WordleChat-v0", {}), ("guessgym/WordleChat-v0", {"preset": "nemo", "hard_mode": True}),
           ("guessgym/NerdleChat-v0", {"length": 6})]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(app: FastAPI) -> Iterator[int]:
    """``app`` on 127.0.0.1 (a free port) in a thread, stopped on exit."""
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start in 20 s"
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=20)


def policy_app(solver: ScriptedSolver, rng: random.Random, replies: list[str]) -> FastAPI:
    """A stand-in policy model speaking NeMo Gym's Responses API: the scripted solver's guess, now
    and then as an invalid reply, each reply recorded."""
    app = FastAPI()

    @app.post("/v1/responses")
    async def respond(body: dict[str, Any]) -> dict[str, Any]:
        shown = "\n".join(str(m.get("content", "")) for m in body["input"] if m.get("role") == "user")
        guess = solver.next_guess(shown)
        text = rng.choices([f"My guess: [{guess}]", "hmm", f"[{'q' * solver.game.length}]"], weights=[8, 1, 1])[0]
        replies.append(text)
        message = {"id": "msg", "type": "message", "role": "assistant", "status": "completed",
                   "content": [{"type": "output_text", "text": text, "annotations": []}]}
        return {"id": "r", "created_at": 0.0, "model": "scripted", "object": "response", "output": [message],
                "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}

    return app


@pytest.mark.parametrize(("env_id", "options"), CONFIGS, ids=[f"{e.split('/')[1]}-{o}" for e, o in CONFIGS])
def test_nemo_gyms_agent_plays_the_in_process_game(env_id: str, options: dict[str, Any],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    reference = ChatGuessEnv(**ChatFamily.chat_kwargs(env_id, options))
    config = GuessgymResourcesServerConfig(host="127.0.0.1", port=0, entrypoint="", name="guessgym",
                                           gym_id=env_id, env_kwargs=options)
    resources = GuessgymResourcesServer(config=config, server_client=MagicMock(spec=ServerClient))
    replies: list[str] = []
    rows = nemo_gym_rows(env_id, games=12, seed=2, env_kwargs=options)
    with serving(resources.setup_webserver()) as env_port, \
            serving(policy_app(ScriptedSolver(reference.game), random.Random(0), replies)) as model_port:
        servers = {"guessgym": {"resources_servers": {"guessgym": {"host": "127.0.0.1", "port": env_port}}},
                   "policy_model": {"responses_api_models": {"scripted": {"host": "127.0.0.1", "port": model_port}}}}
        # the global config a server started by NeMo Gym's launcher receives (its HTTP client reads it)
        monkeypatch.setenv(NEMO_GYM_CONFIG_DICT_ENV_VAR_NAME, OmegaConf.to_yaml(OmegaConf.create(servers)))
        client = ServerClient(head_server_config=BaseResourcesServerConfig(host="127.0.0.1", port=0, entrypoint="",
                                                                           name="head"),
                              global_config_dict=OmegaConf.create(servers))
        agent = GymnasiumAgent(config=GymnasiumAgentConfig(
            host="", port=0, entrypoint="", name="agent", max_steps=reference.max_replies,
            resources_server=ResourcesServerRef(type="resources_servers", name="guessgym"),
            model_server=ModelServerRef(type="responses_api_models", name="policy_model")), server_client=client)

        async def play_all() -> list[Any]:
            request = MagicMock()
            request.cookies = {}
            return [await agent.run(request, GymnasiumAgentRunRequest.model_validate(row)) for row in rows]

        try:
            results = asyncio.run(play_all())
        finally:
            global_aiohttp_client_exit()
    assert not resources.session_state  # every finished game's session was dropped
    start = 0
    for row, result in zip(rows, results):
        _, info = reference.reset(seed=2, options={"answer": row["answer"]})
        assert row["responses_create_params"]["input"] == info["messages"]
        assert row["answer"] not in str(info["messages"])
        total, done = 0.0, False
        while not done:
            _, reward, done, _, info = reference.step(replies[start])
            total += reward
            start += 1
        assert result.reward == pytest.approx(total) and result.terminated
        assert result.info["won"] == info["won"] and result.info["answer"] == row["answer"]
        said = [m for m in result.response.output if getattr(m, "role", None) == "user"]
        assert [m.content for m in said] == [m["content"] for m in info["messages"][2:-1] if m["role"] == "user"]
    assert start == len(replies)


def test_cookieless_resets_hold_a_bounded_number_of_games_that_share_one_game() -> None:
    """Issue 63 item 2: a client that sends no session cookie gets a new session at every /reset; 600 such
    resets held 601 games and 1.8 GB with no expiry (2.6 MiB a game, each with its own Game). Now the games
    share the server's Game, a game idle for idle_timeout is dropped, and past max_sessions a reset is a 503
    with its reason, through NeMo Gym's own app and session middleware."""
    from fastapi.testclient import TestClient

    config = GuessgymResourcesServerConfig(host="127.0.0.1", port=0, entrypoint="", name="guessgym",
                                           gym_id="guessgym/NerdleChat-v0", env_kwargs={"length": 5},
                                           max_sessions=40, idle_timeout=2.0)
    resources = GuessgymResourcesServer(config=config, server_client=MagicMock(spec=ServerClient))
    row = nemo_gym_rows("guessgym/NerdleChat-v0", games=1, env_kwargs={"length": 5})[0]
    statuses = []
    with TestClient(resources.setup_webserver()) as http:
        for _ in range(60):
            http.cookies.clear()  # no cookie: a new session each time
            statuses.append(http.post("/reset", json=row).status_code)
        held = list(resources._sessions.games.values())
        refused = http.post("/reset", json=row)
        time.sleep(2.2)  # every game idle past its time
        http.cookies.clear()
        again = http.post("/reset", json=row)
    assert statuses == [200] * 40 + [503] * 20
    assert refused.status_code == 503 and "the most it holds is 40 games" in refused.json()["detail"]
    assert len(held) == 40 and all(env.game is held[0].game for env in held)
    assert again.status_code == 200 and len(resources._sessions) == 1
    assert resources.session_state is resources._sessions.games


# ---- issue 72 items 4 and 10: bodies bounded before they are read; the budget holds while games grow ----------
def _server(**options: Any) -> Any:
    config = GuessgymResourcesServerConfig(host="127.0.0.1", port=0, entrypoint="", name="guessgym",
                                           gym_id="guessgym/WordleChat-v0", **options)
    return GuessgymResourcesServer(config=config, server_client=MagicMock(spec=ServerClient))


def _answer(s: socket.socket, within: float = 20.0) -> bytes:
    s.settimeout(within)
    got = b""
    while b"\r\n\r\n" not in got:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    return got


def test_a_body_past_the_bound_is_refused_before_it_is_read() -> None:
    """One /step of 150 MB, then 400 MB, took the server from 357 MiB to 1,559 MiB before it answered that the
    reply was longer than the 100,000 characters allowed. Now a body over the bound (a few times the longest
    reply's JSON) is answered 413 before it is read: by its Content-Length at once, and a chunked one as soon as
    it passes the bound, while the client is still sending."""
    from guessgym.adapters.nemo_gym import body_bound

    resources = _server()
    bound = body_bound(100_000)
    assert resources._body_bytes == bound and bound < 150_000_000
    with serving(resources.setup_webserver()) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            s.sendall(b"POST /step HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 150000000\r\n\r\n" + b" " * 65536)
            answer = _answer(s)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        sent, refused = 0, b""
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            s.sendall(b"POST /step HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\n")
            chunk = b"%x\r\n%s\r\n" % (1 << 20, b" " * (1 << 20))
            try:
                while sent < 150 << 20:
                    s.sendall(chunk)
                    sent += 1 << 20
            except OSError:  # the server answered and closed while we were sending
                pass
            refused = _answer(s)
        assert refused.startswith(b"HTTP/1.1 413") and b"over %s bytes" % f"{bound:,}".encode() in refused, refused
        assert sent < 150 << 20  # it stopped reading long before the end
        with pytest.raises(Exception, match="max_body_bytes must be"):
            _server(max_body_bytes=10)


def test_a_step_that_would_take_the_games_past_the_budget_ends_its_game() -> None:
    """Item 10, through NeMo Gym's own app: replies of 100,000 characters grew one game past a 16 MiB budget; now
    the step that would pass it is answered 503 and the game is ended; a new game starts within the budget."""
    from fastapi.testclient import TestClient

    resources = _server(memory_budget_mib=16, env_kwargs={"max_attempts": 60})
    row = nemo_gym_rows("guessgym/WordleChat-v0", games=1)[0]
    long_reply = {"id": "r", "created_at": 0, "model": "m", "object": "response", "parallel_tool_calls": False,
                  "tool_choice": "auto", "tools": [],
                  "output": [{"id": "m", "type": "message", "role": "assistant", "status": "completed",
                              "content": [{"type": "output_text", "text": "x" * 100_000, "annotations": []}]}]}
    with TestClient(resources.setup_webserver()) as http:
        assert http.post("/reset", json=row).status_code == 200
        statuses = []
        for _ in range(60):
            answer = http.post("/step", json={"responses_create_params": row["responses_create_params"],
                                              "response": long_reply})
            statuses.append(answer.status_code)
            assert resources._sessions.held <= resources._sessions.budget
            if answer.status_code != 200:
                break
        assert statuses[-1] == 503 and set(statuses[:-1]) == {200}, statuses
        assert "the game is ended" in answer.json()["detail"] and len(resources._sessions) == 0
        assert http.post("/step", json={"responses_create_params": row["responses_create_params"],
                                        "response": long_reply}).status_code == 409  # no game any more
        assert http.post("/reset", json=row).status_code == 200
