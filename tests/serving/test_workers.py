"""``guessgym serve --workers N``: each worker listens on its own socket of the port, sessions opened
at once spread over the workers, and the port stays the server's while it runs."""

from __future__ import annotations

import json
import pickle
import signal
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("openenv")
from serve_process import children, free_port, wait_until_healthy
from websockets.sync.client import ClientConnection, connect

from guessgym.envs.chat import ChatGuessEnv
from guessgym.envs.chat.env import ChatFamily
from guessgym.serving.workers import SPREADS_CONNECTIONS, OwnListener, reuseport_socket

linux_only = pytest.mark.skipif(not SPREADS_CONNECTIONS, reason="SO_REUSEPORT spreads connections on Linux only")
#: A game that starts in about a second.
GAME = ["--env", "guessgym/NerdleChat-v0", "--env-kwargs", "length=5"]


@linux_only
def test_a_worker_unpickles_its_own_listening_socket_and_the_held_port_refuses_other_servers() -> None:
    held = reuseport_socket("127.0.0.1", 0)
    port = held.getsockname()[1]
    try:
        with pytest.raises(OSError):  # a server that does not share the port cannot bind it
            with socket.socket() as other:
                other.bind(("127.0.0.1", port))
        listeners = [pickle.loads(pickle.dumps(OwnListener("127.0.0.1", port, 64))) for _ in range(2)]
        try:
            assert all(isinstance(s, socket.socket) and s.getsockname()[1] == port for s in listeners)
            accepted = 0
            clients = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(32)]
            for listener in listeners:  # every connection reaches a listening socket, none the held one
                listener.settimeout(0.5)
                while True:
                    try:
                        conn, _ = listener.accept()
                    except TimeoutError:
                        break
                    conn.close()
                    accepted += 1
            assert accepted == len(clients)
            for client in clients:
                client.close()
        finally:
            for s in listeners:
                s.close()
    finally:
        held.close()


def _established_by_process(pids: list[int], port: int) -> dict[int, int]:
    """How many TCP connections to ``port`` each process holds (from /proc)."""
    inodes = {}
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = fd.readlink().name
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes[int(target[8:-1])] = pid
    counts = dict.fromkeys(pids, 0)
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "01" and int(fields[1].rsplit(":", 1)[1], 16) == port and int(fields[9]) in inodes:
                counts[inodes[int(fields[9])]] += 1
    return counts


@linux_only
def test_sessions_opened_at_once_spread_over_two_workers_and_play_right(tmp_path: Path) -> None:
    """uvicorn's shared socket can put most of 64 sessions opened at once on one of two workers."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "guessgym", "serve", "--port", str(port), "--workers", "2",
                             "--max-sessions", "64", *GAME], stderr=subprocess.DEVNULL, cwd=tmp_path,
                            start_new_session=True)
    try:
        wait_until_healthy(port)
        second = subprocess.run([sys.executable, "-m", "guessgym", "serve", "--port", str(port), *GAME],
                                capture_output=True, text=True, timeout=120)
        assert second.returncode == 2 and "is in use" in second.stderr, second.stderr

        def open_session(seed: int) -> ClientConnection:
            ws = connect(f"ws://127.0.0.1:{port}/ws", open_timeout=30)
            ws.send(json.dumps({"type": "reset", "data": {"seed": seed}}))
            ws.recv(timeout=30)
            return ws

        with ThreadPoolExecutor(16) as pool:
            sessions = list(pool.map(open_session, range(64)))
        try:
            counts = {pid: n for pid, n in _established_by_process(children(proc.pid), port).items() if n}
            assert len(counts) == 2 and sum(counts.values()) == 64, counts
            assert min(counts.values()) >= 16, counts  # a hash spread: below 16 of 64 has odds of 1 in 30,000
            setup = ChatFamily().resolve("guessgym/NerdleChat-v0", {"length": 5})
            for seed, ws in enumerate(sessions):  # sessions on either worker play the in-process game
                env = ChatGuessEnv(game=setup.game, **setup.env_options)
                env.reset(seed=seed)
                for reply in ("[1+2=3]", "[4-1=3]", "[9-8=1]"):
                    ws.send(json.dumps({"type": "step", "data": {"message": reply}}))
                    got = json.loads(ws.recv(timeout=30))["data"]
                    _, reward, terminated, _, info = env.step(reply)
                    assert got["reward"] == reward and got["observation"]["messages"] == info["messages"]
                    if terminated:
                        break
        finally:
            for ws in sessions:
                ws.close()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(30)
