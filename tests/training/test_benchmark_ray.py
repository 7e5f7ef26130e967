"""The reference table's runs as Ray tasks (issue 73, item 5): on a local Ray instance a run's record
is a local run's but for its wall-clock seconds, is kept in the driver's folder, and a complete run
is not run again. Skipped where Ray is not installed."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from guessgym.training.benchmark.protocol import tier
from guessgym.training.benchmark.references import ReferenceRun, RunOutcome, keep_record, run_on_ray
from guessgym.training.benchmark.runner import RunSpec, run

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.xdist_group("ray-cluster")  # one worker for every Ray test

SMALL = dataclasses.replace(tier("micro-nerdle"), budget=4_000, eval_every=2_000)


def _without_clock(record: dict[str, Any]) -> dict[str, Any]:
    """A record less what depends on the machine's speed (the seconds of each evaluation)."""
    out = json.loads(json.dumps(record))
    for row in [*out["evaluations"], out["final"]]:
        row.pop("wall_s")
    return out


def test_a_run_on_ray_records_what_a_local_run_records(tmp_path: Path) -> None:
    local = json.loads(run(RunSpec("ppo", SMALL, 0, tmp_path / "local")).read_text())
    items = [ReferenceRun(SMALL, "ppo", 0)]
    if ray.is_initialized():  # pragma: no cover - another test left Ray running
        ray.shutdown()
    try:
        outcomes = list(run_on_ray(items, tmp_path / "ray", address=None, n_jobs=1))
        assert ray.is_initialized()
    finally:
        ray.shutdown()
    assert [o.complete for o in outcomes] == [True], outcomes[0].error
    kept = tmp_path / "ray" / "micro-nerdle" / "ppo" / "seed-0" / "evaluations.json"
    assert _without_clock(json.loads(kept.read_text())) == _without_clock(local)
    assert _without_clock(json.loads(outcomes[0].record or "")) == _without_clock(local)
    # complete in the driver's folder: found, not run again (no Ray instance is started for it)
    again = list(run_on_ray(items, tmp_path / "ray", address=None))
    assert [o.complete for o in again] == [True] and not ray.is_initialized()


def test_a_brought_back_record_is_checked_before_it_is_kept(tmp_path: Path) -> None:
    local = run(RunSpec("ppo", SMALL, 1, tmp_path / "local")).read_text()
    item = ReferenceRun(SMALL, "ppo", 1)
    path = keep_record(tmp_path / "driver", RunOutcome(item, local))  # a worker that wrote elsewhere
    assert path.read_text() == local
    forged = json.loads(local)
    forged["evaluations"] = "none"
    with pytest.raises(ValueError, match="evaluations"):
        keep_record(tmp_path / "other", RunOutcome(item, json.dumps(forged)))
    assert not list((tmp_path / "other").rglob("*.json"))
