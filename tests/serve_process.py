"""Helpers for the tests that run ``guessgym serve`` as a process of its own: a free port, the
server's worker processes, and a bounded wait for it to answer."""

from __future__ import annotations

import socket
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def children(pid: int) -> list[int]:
    """The process ids whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def wait_until_healthy(port: int, timeout: float = 120.0) -> None:
    """Return once ``GET /health`` on 127.0.0.1:``port`` answers 200; fail the test after ``timeout`` s."""
    import httpx

    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, "the server never answered"
        time.sleep(0.3)
