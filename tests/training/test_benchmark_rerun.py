"""A committed reference run replayed from an empty cache in a fresh process equals its record,
evaluation by evaluation, to the last digit (issue 73, item 6). Slow: a whole 100,000-step run; CI's
slow job runs it (``.ci/run-slow``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "results" / "benchmark" / "runs"


def _comparable(record: dict) -> dict:  # type: ignore[type-arg]
    """What a rerun must reproduce: every evaluation but its wall-clock seconds, and the final guesses."""
    return {"evaluations": [{k: v for k, v in e.items() if k != "wall_s"} for e in record["evaluations"]],
            "final": {k: v for k, v in record["final"].items() if k != "wall_s"},
            "numerics": {k: record["numerics"][k] for k in ("numerics", "torch_threads")},
            "hyperparams": record["hyperparams"], "complete": record["complete"]}


@pytest.mark.slow
@pytest.mark.parametrize(("tier", "algo", "seed"), [("micro-nerdle", "ppo", 0), ("micro-nerdle", "dqn", 0),
                                                  ("micro-nerdle", "qrdqn", 0)])
def test_a_reference_run_from_an_empty_cache_equals_its_committed_record(tmp_path: Path, tier: str, algo: str,
                                                                       seed: int) -> None:
    committed = json.loads((COMMITTED / tier / algo / f"seed-{seed}" / "evaluations.json").read_text())
    env = {**os.environ, "GUESSGYM_CACHE_DIR": str(tmp_path / "empty-cache")}
    done = subprocess.run([sys.executable, "-m", "guessgym", "benchmark", "run", "--protocol", "1", "--algo", algo,
                           "--tier", tier,
                           "--seed", str(seed), "--log-dir", str(tmp_path / "runs"), "--no-progress"],
                          capture_output=True, text=True, timeout=3000, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert any((tmp_path / "empty-cache").iterdir())  # the run built its cache from nothing
    rerun = json.loads((tmp_path / "runs" / tier / algo / f"seed-{seed}" / "evaluations.json").read_text())
    ours, theirs = _comparable(rerun), _comparable(committed)
    for mine, recorded in zip(ours["evaluations"], theirs["evaluations"], strict=True):
        assert mine == recorded, f"the rerun departs from the record at step {recorded['step']:,}"
    assert ours == theirs
