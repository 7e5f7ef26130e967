"""Smoke test of the optional Ray backend on a local instance (skipped when Ray is missing)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from guessgym.agents.base import CandidateAgent, SolverState
from guessgym.evaluation.evaluate import evaluate

ray = pytest.importorskip("ray")

# One worker runs every test that starts or looks for a Ray instance (with ``--dist loadgroup``): the
# cluster of tests/baselines/test_opener_table_ray.py would otherwise be found by "auto" here.
pytestmark = pytest.mark.xdist_group("ray-cluster")


class FirstCandidate(CandidateAgent):
    """Plays the first answer still possible."""

    name = "first-candidate"

    def choose(self, state: SolverState) -> int:
        return int(state.game.answer_to_guess[state.candidates.indices[0]])


def test_ray_backend_matches_serial_on_a_local_instance() -> None:
    if ray.is_initialized():  # pragma: no cover - another test left Ray running
        ray.shutdown()
    serial = evaluate(FirstCandidate(), "guessgym/MicroNerdle-v1", record_guesses=True)
    calls: list[tuple[int, int]] = []
    try:
        # evaluate() starts the local instance itself: 2 CPUs, no dashboard, the project's
        # source folders on the workers' PYTHONPATH.
        result = evaluate(
            FirstCandidate(), "guessgym/MicroNerdle-v1", record_guesses=True, backend="ray", n_jobs=2,
            chunk_size=32, progress=lambda d, t: calls.append((d, t)),
        )
        assert ray.is_initialized()
        assert ray.cluster_resources().get("CPU") == 2
    finally:
        ray.shutdown()
    assert result.meta["backend"] == "ray"
    assert result.records == serial.records
    assert len(calls) == 4 and calls[-1] == (127, 127)


def test_opener_search_on_ray_proves_the_micro_nerdle_optimum(tmp_path: Path) -> None:
    from guessgym.baselines.opener_search import search_openers
    from guessgym.envs.game import nerdle

    if ray.is_initialized():  # pragma: no cover
        ray.shutdown()
    game = nerdle(5)
    try:
        outcomes = search_openers(game, list(game.guesses), 375, backend="ray", n_jobs=2, chunk_size=16,
                                  checkpoint=tmp_path / "micro.jsonl")
    finally:
        ray.shutdown()
    assert min(o.lower_bound for o in outcomes) == 374  # the optimum, proven over every opener
    assert len((tmp_path / "micro.jsonl").read_text().splitlines()) == len(game.guesses) + 1


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    ("address", "message"),
    [("auto", "no Ray cluster at 'auto'"), (f"127.0.0.1:{_closed_port()}", "no Ray cluster reachable at")],
    ids=["auto", "closed-port"],  # the port differs per process: pytest-xdist's workers must collect the same ids
)
def test_no_cluster_at_the_address_is_a_one_line_error(address: str, message: str, tmp_path: Path) -> None:
    """The README's own ``--address auto`` example printed a traceback when no cluster ran. Ray's
    ``auto`` joins any Ray instance running on the machine (it looks for their processes), which
    this test cannot stop another user's from being: it names them and skips that case then."""
    if address == "auto":
        from ray._private.services import find_gcs_addresses

        if find_gcs_addresses():
            pytest.skip(f"another Ray instance runs on this machine ({', '.join(sorted(find_gcs_addresses()))}): "
                        "--address auto joins it")
    env = {**os.environ, "RAY_ADDRESS": "", "RAY_TMPDIR": str(tmp_path)}  # no address file of another run's
    env.pop("RAY_ADDRESS")
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "guessgym", "evaluate", "--agent", "least-worst", "--env", "guessgym/MicroNerdle-v1",
         "--address", address, "--no-progress"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env,
    )
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("guessgym evaluate: error: --address: ") and message in last
    assert "ray start --head" in last and "Traceback" not in done.stderr
    assert time.perf_counter() - started < 60
