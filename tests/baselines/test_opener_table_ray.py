"""The opener table on a real Ray cluster (issue 52, item 2): a head and a worker node started by
``ray start`` as processes of their own, the way a user's cluster runs (not an in-process
``ray.init()``), a slice of a table computed on it through the table's own driver, and the same
values as the local process pool and as this process alone. Skipped where Ray is not installed."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from guessgym.baselines.opener_table import OpenerSolver, OpenerTable, Workers, fill_exact, fill_greedy
from guessgym.envs.game import nerdle

ray = pytest.importorskip("ray")

#: Seconds a node may take to start, and the cluster to show both nodes.
START_TIMEOUT = 90.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End a ``ray start --block`` and everything it started (its own process group)."""
    for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


@contextmanager
def ray_cluster(logs: Path) -> Iterator[str]:
    """A head node and one worker node of one CPU each, started by the ``ray`` command next to this
    Python; yields the head's address and stops both (their process groups) afterwards."""
    command = Path(sys.executable).with_name("ray")
    if not command.is_file():
        pytest.skip(f"no ray command next to {sys.executable}")
    port = _free_port()
    address = f"127.0.0.1:{port}"
    temp = tempfile.mkdtemp(prefix="rt", dir="/tmp")  # short: Ray's socket paths have a length limit
    # no token authentication (a token file left in ~/.ray by another run would otherwise be asked for)
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    started: list[subprocess.Popen[bytes]] = []

    def start(name: str, *args: str) -> None:
        with open(logs / f"{name}.log", "wb") as log:
            started.append(subprocess.Popen([str(command), "start", "--num-cpus=1", "--block", *args], env=env,
                                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True))

    try:
        start("head", "--head", f"--port={port}", "--node-ip-address=127.0.0.1", "--include-dashboard=false",
              f"--temp-dir={temp}", "--disable-usage-stats")
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or started[0].poll() is not None:
                    pytest.fail(f"the Ray head did not start: {(logs / 'head.log').read_text()[-2000:]}")
                time.sleep(0.5)
        start("worker", f"--address={address}")
        yield address
    finally:
        if ray.is_initialized():
            ray.shutdown()
        for process in reversed(started):
            _stop(process)


def _values(path: Path, game: object) -> dict[str, tuple[int, int, bool]]:
    with OpenerTable(game, path, read_only=True) as table:  # type: ignore[arg-type]
        return {w: (v.lower, v.upper, v.fits) for w, v in table.values.items()}


@pytest.mark.xdist_group("ray-cluster")  # one worker for every Ray test: none may find this cluster by "auto"
def test_a_slice_of_the_table_on_a_ray_cluster_equals_the_local_pool(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    game = nerdle(5, max_attempts=4)  # Micro Nerdle in four guesses: some openers cannot always win
    solver = OpenerSolver(game)
    slice_ = 24

    def fill(name: str, workers: Workers) -> tuple[dict[str, tuple[int, int, bool]], ...]:
        """The slice's greedy intervals, then its exact totals, as the table holds them."""
        path = tmp_path / f"{name}.jsonl"
        with OpenerTable(game, path) as table:
            assert fill_greedy(table, solver, openers=solver.openers()[:slice_], workers=workers) == slice_
        greedy = _values(path, game)
        with OpenerTable(game, path) as table:
            assert fill_exact(table, solver, workers=workers) == sum(low < high for low, high, _ in greedy.values())
        return greedy, _values(path, game)

    alone = fill("serial", Workers())
    pool = fill("process", Workers("process", 2))
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    with ray_cluster(tmp_path) as address:
        ray.init(address=address, log_to_driver=False, configure_logging=False)
        deadline = time.monotonic() + START_TIMEOUT
        while sum(n["Alive"] for n in ray.nodes()) < 2:
            assert time.monotonic() < deadline, f"the worker node did not join: {(tmp_path / 'worker.log').read_text()}"
            time.sleep(0.5)
        assert ray.cluster_resources().get("CPU") == 2
        on_ray = fill("ray", Workers("ray", address=address))
        nodes = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    assert on_ray == pool == alone
    greedy, exact = alone
    assert all(low == high for low, high, _ in exact.values()) and greedy != exact
    assert any(not fits for _, _, fits in exact.values()) and len(nodes) == 2
