"""Smoke test of the optional Ray backend on a local instance (skipped when Ray is missing)."""

from __future__ import annotations

import pytest

from guessgym.agents.base import CandidateAgent, SolverState
from guessgym.agents.evaluate import evaluate

ray = pytest.importorskip("ray")


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
