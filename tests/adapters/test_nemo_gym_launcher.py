"""The resources server in NeMo Gym's own layout (``integrations/nemo_gym/resources_servers/guessgym``),
run by NeMo Gym's own commands: ``gym env start`` launches it from its config YAML beside NeMo Gym's
``gymnasium_agent`` and ``vllm_model`` (pointed at a scripted OpenAI-compatible model on 127.0.0.1),
``gym eval run`` collects a rollout for every row of its ``data/example.jsonl``, and every rollout's
reward, conversation and end equal the in-process chat game given the same replies; ``gym env test``
runs the server's own tests in its folder.

NeMo Gym's launcher makes each server an environment with ``uv`` from the package index; here the
environment this test runs in serves all three (``uv_venv_dir`` holds a link to it per server, and
``skip_venv_if_present`` uses it), so nothing is downloaded. Like ``test_nemo_gym.py``, this module
runs in NeMo Gym's own environment (``test_nemo_gym_environment.py``) and is skipped elsewhere."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nemo_gym", reason="the nemo-gym extra needs Python 3.12 and its own environment")

from guessgym.agents.llm.scripted_server import ScriptedServer
from guessgym.envs.chat import ChatGuessEnv
from guessgym.envs.chat.env import ChatFamily

LAYOUT = Path(__file__).resolve().parents[2] / "integrations" / "nemo_gym"
SERVER_DIR = LAYOUT / "resources_servers" / "guessgym"
CONFIG = "resources_servers/guessgym/configs/guessgym.yaml"
MODEL_CONFIG = "responses_api_models/vllm_model/configs/vllm_model.yaml"
SERVERS = ("resources_servers/guessgym", "responses_api_agents/gymnasium_agent", "responses_api_models/vllm_model")
#: The longest the launcher may take to start Ray and the three servers (a busy 2-core machine).
START_SECONDS = 240
GYM = str(Path(sys.executable).with_name("gym"))


@pytest.fixture
def ray_apart() -> Iterator[dict[str, str]]:
    """The environment the launcher runs in: its own Ray temp folder (short: Ray's socket paths are
    bounded), so the Ray instance NeMo Gym starts does not join a cluster started by ``ray start``
    (found by the address file in Ray's temp folder) and its session files go with the test. Another
    test's ``--address auto`` finds it by its processes all the same: the module runs on the worker
    of the Ray tests (``test_nemo_gym_environment.py``)."""
    folder = tempfile.mkdtemp(prefix="ngray", dir="/tmp")
    try:
        yield {**{k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}, "RAY_TMPDIR": folder}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def venvs(tmp_path: Path) -> list[str]:
    """The launcher's options that make every server run in this environment (and keep Hydra's
    run folder out of the checkout)."""
    for server in SERVERS:
        (tmp_path / "venvs" / server).mkdir(parents=True)
        (tmp_path / "venvs" / server / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    return [f"+uv_venv_dir={tmp_path / 'venvs'}", "+skip_venv_if_present=true", f"hydra.run.dir={tmp_path / 'hydra'}"]


@contextlib.contextmanager
def launched(arguments: list[str], log: Path, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """``gym env start`` in the layout's folder, until all its servers answer; interrupted on exit
    (as Ctrl-C stops it), then its process group killed if anything outlives that."""
    with log.open("wb") as out:
        process = subprocess.Popen([GYM, "env", "start", *arguments], cwd=LAYOUT, stdout=out, env=env,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + START_SECONDS
        while "servers ready!" not in log.read_text(errors="replace"):
            assert process.poll() is None, f"gym env start ended: {log.read_text(errors='replace')[-4000:]}"
            assert time.monotonic() < deadline, f"not ready in {START_SECONDS} s: {log.read_text()[-4000:]}"
            time.sleep(1)
        yield process
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


def message_texts(output: list[dict[str, Any]], role: str) -> list[str]:
    """The texts of ``role``'s messages in a rollout's response output."""
    texts = []
    for item in output:
        if item.get("type") == "message" and item.get("role") == role:
            content = item["content"]
            texts.append(content if isinstance(content, str) else "".join(part.get("text", "") for part in content))
    return texts


def test_nemo_gyms_launcher_serves_the_layout_and_its_rollouts_are_the_in_process_games(
        tmp_path: Path, venvs: list[str], ray_apart: dict[str, str]) -> None:
    rows = [json.loads(line) for line in (SERVER_DIR / "data" / "example.jsonl").read_text().splitlines()]
    reference = ChatGuessEnv(**ChatFamily.chat_kwargs("guessgym/WordleChat-v0", {}))
    output = tmp_path / "rollouts.jsonl"
    with ScriptedServer(reference.game) as model:
        overrides = [f"+config_paths=[{CONFIG},{MODEL_CONFIG}]", f"+policy_base_url={model.base_url}",
                     "+policy_api_key=unused", "+policy_model_name=solver", *venvs]
        with launched(overrides, tmp_path / "servers.log", ray_apart):
            collected = subprocess.run([GYM, "eval", "run", "--no-serve", "--agent", "guessgym_gymnasium_agent",
                                        "--input", str(SERVER_DIR / "data" / "example.jsonl"),
                                        "--output", str(output)], cwd=tmp_path, env=ray_apart, capture_output=True,
                                       text=True, timeout=300)
        assert collected.returncode == 0, (collected.stdout + collected.stderr)[-4000:]
        assert model.counts["requests:solver"] > len(rows)  # every turn went to the model
    failures = tmp_path / "rollouts_failures.jsonl"
    assert not failures.exists() or not failures.read_text().strip(), failures.read_text()[:2000]
    rollouts = [json.loads(line) for line in output.read_text().splitlines()]
    assert sorted(r["_ng_task_index"] for r in rollouts) == list(range(len(rows)))
    for rollout in rollouts:
        row = rows[rollout["_ng_task_index"]]
        replies = message_texts(rollout["response"]["output"], "assistant")
        _, info = reference.reset(seed=row["seed"], options={"answer": row["answer"]})
        shown = [{"role": m["role"], "content": m["content"]} for m in rollout["responses_create_params"]["input"]]
        assert shown == info["messages"]
        total, done = 0.0, False
        for reply in replies:
            assert not done, "the agent played on after the game's end"
            _, reward, terminated, truncated, info = reference.step(reply)
            total, done = total + float(reward), bool(terminated or truncated)
        assert done and rollout["terminated"] is True
        assert rollout["reward"] == pytest.approx(total)
        assert rollout["info"]["won"] == info["won"] and rollout["info"]["answer"] == row["answer"]
        said = message_texts(rollout["response"]["output"], "user")
        assert said == [m["content"] for m in info["messages"][2:-1] if m["role"] == "user"]


def test_nemo_gyms_own_test_command_passes_the_servers_tests(venvs: list[str]) -> None:
    env = {**os.environ, "PYTEST_ADDOPTS": "-p no:cacheprovider"}  # nothing written into the layout's folder
    done = subprocess.run([GYM, "env", "test", "+entrypoint=resources_servers/guessgym", *venvs], cwd=LAYOUT,
                          env=env, capture_output=True, text=True, timeout=600)
    said = done.stdout + done.stderr
    assert done.returncode == 0, said[-4000:]
    tests = (SERVER_DIR / "tests" / "test_app.py").read_text().count("\ndef test_")
    assert re.search(rf"\b{tests} passed\b", said) and " failed" not in said, said[-2000:]
