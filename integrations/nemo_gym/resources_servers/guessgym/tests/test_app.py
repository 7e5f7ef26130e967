"""The resources server's own tests, as NeMo Gym's layout keeps them (``gym env test`` runs them in
this folder): the server starts from its config, plays the example rows, and refuses what it cannot
play with a 4xx and its reason, through NeMo Gym's own app and middleware (a step after the game's
end is a 409, not a 500). NeMo Gym's agent playing it over HTTP is in guessgym's
``tests/adapters/test_nemo_gym.py``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock

import pytest
import yaml
from fastapi.testclient import TestClient
from nemo_gym.server_utils import ServerClient
from resources_servers.guessgym.app import GuessgymResourcesServer, GuessgymResourcesServerConfig

HERE = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((HERE / "configs" / "guessgym.yaml").read_text())
SERVER = CONFIG["guessgym"]["resources_servers"]["guessgym"]
AGENT = CONFIG["guessgym_gymnasium_agent"]["responses_api_agents"]["gymnasium_agent"]
ROWS = [json.loads(line) for line in (HERE / "data" / "example.jsonl").read_text().splitlines()]


def server(gym_id: str = SERVER["gym_id"], env_kwargs: dict[str, Any] | None = None) -> GuessgymResourcesServer:
    config = GuessgymResourcesServerConfig(host="127.0.0.1", port=0, entrypoint="app.py", name="guessgym",
                                           gym_id=gym_id, env_kwargs=SERVER["env_kwargs"] if env_kwargs is None
                                           else env_kwargs)
    return GuessgymResourcesServer(config=config, server_client=MagicMock(spec=ServerClient))


def response(text: str) -> dict[str, Any]:
    """A Responses API body whose output is the model's ``text``."""
    message = {"id": "msg", "type": "message", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": text, "annotations": []}]}
    return {"id": "r", "created_at": 0.0, "model": "m", "object": "response", "output": [message],
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}


def test_the_example_rows_are_five_games_for_the_configs_agent() -> None:
    assert len(ROWS) == 5 and len({row["answer"] for row in ROWS}) == 5
    assert all(row["agent_ref"] == {"type": "responses_api_agents", "name": "guessgym_gymnasium_agent"}
               for row in ROWS)
    assert AGENT["resources_server"] == {"type": "resources_servers", "name": "guessgym"}
    assert all(row["answer"] not in json.dumps(row["responses_create_params"]) for row in ROWS)


def test_every_example_game_is_won_by_its_answer_over_the_servers_app() -> None:
    with TestClient(server().setup_webserver()) as http:
        for row in ROWS:
            assert http.post("/reset", json=row).status_code == 200
            step = {"responses_create_params": row["responses_create_params"],
                    "response": response(f"My guess: [{row['answer']}]")}
            won = http.post("/step", json=step)
            assert won.status_code == 200, won.text
            body = won.json()
            assert body["terminated"] is True and body["reward"] > 0 and body["info"]["won"] is True
            assert body["info"]["answer"] == row["answer"]
            after = http.post("/step", json=step)  # the game is over: refused with its reason
            assert after.status_code == 409 and "a finished game takes no step" in after.json()["detail"]


def test_rows_the_server_cannot_play_are_refused_with_their_reason() -> None:
    row = ROWS[0]
    with TestClient(server().setup_webserver()) as http:
        for bad in ({"seed": 0}, {"answer": "zzzzz"}, {"answer": row["answer"], "seed": 10**30}):
            sent = {**{k: v for k, v in row.items() if k not in ("answer", "seed")}, **bad}
            refused = http.post("/reset", json=sent)
            assert refused.status_code == 422 and isinstance(refused.json()["detail"], str), refused.text
        step = {"responses_create_params": row["responses_create_params"], "response": response("[crane]")}
        assert http.post("/step", json=step).status_code == 409  # no game in this session


def test_a_step_without_a_game_and_a_row_without_an_answer_are_refused_in_process() -> None:
    nerdle = server("guessgym/NerdleChat-v0", {"length": 6})
    with pytest.raises(ValueError, match="names its game's answer"):
        asyncio.run(nerdle.reset({}, "s"))
    with pytest.raises(ValueError, match="this session has no game"):
        asyncio.run(nerdle.step(MagicMock(), {}, "s"))
    with pytest.raises(ValueError, match="a text agent plays a registered guessgym id"):
        server("guessgym/Dordle-v0")


def test_max_steps_covers_every_reply_the_configured_game_allows() -> None:
    from guessgym.envs.chat import ChatGuessEnv
    from guessgym.envs.chat.env import ChatFamily

    game = ChatGuessEnv(**ChatFamily.chat_kwargs(SERVER["gym_id"], SERVER["env_kwargs"]))
    assert AGENT["max_steps"] >= game.max_replies
