"""The reference table's runs on a Ray cluster: each run a Ray task, its record brought back.

``scripts/benchmark_references.py --backend ray --address HOST:PORT`` hands every run of the table
to :func:`run_on_ray`. A task runs :func:`~guessgym.training.benchmark.runner.run` in a Ray worker
(the same code, seed and threads as a local run, so the same record but for its wall-clock seconds)
and returns the record's text; the driver writes it into its own ``--log-dir`` (unless the worker
already wrote the same file there: a local instance, or a folder every node shares). A run
continues from its checkpoint where a worker finds one in the run's folder: on a cluster, give a
``--log-dir`` every node sees for a stopped run to resume on any node; a complete record in the
driver's folder is never run again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...infra.atomic import atomic_write_bytes
from ...infra.pool import run_tasks
from .protocol import Protocol, Tier
from .runner import RunSpec, read_evaluations, run


def takes_part(spec: Protocol, tier: Tier, algo: str) -> bool:
    """Whether ``algo`` has reference runs on ``tier`` of protocol ``spec``: PPO and A2C take no masks, so
    not hard mode; from protocol 2 on, MaskablePPO runs hard mode only (elsewhere its masks are all ones and
    its runs are PPO's, run for run, as protocol 1's show)."""
    hard = tier.training_game().hard_mode
    if hard and algo in ("ppo", "a2c"):
        return False
    return not (spec.version != "1" and algo == "maskable_ppo" and not hard)


@dataclass(frozen=True)
class ReferenceRun:
    """One run of the table, as a Ray task carries it (a tier, not its name: a test's small tier too)."""

    tier: Tier
    algo: str
    seed: int
    torch_threads: int = 1

    def spec(self, log_dir: Path) -> RunSpec:
        return RunSpec(self.algo, self.tier, self.seed, log_dir, torch_threads=self.torch_threads)


@dataclass(frozen=True)
class RunOutcome:
    """What a task brings back: the run, and its record's text (``None`` with ``error`` when it failed)."""

    run: ReferenceRun
    record: str | None
    error: str = ""

    @property
    def complete(self) -> bool:
        """Whether the run is complete (not stopped at a checkpoint, not failed)."""
        return self.record is not None and bool(json.loads(self.record).get("complete"))


def _worker(log_dir: str) -> Path:
    return Path(log_dir)


def _run_one(log_dir: Path, item: ReferenceRun) -> RunOutcome:
    """Run (or resume, or find complete) ``item`` in this worker; its record's text, or the error."""
    try:
        path = run(item.spec(log_dir))
        return RunOutcome(item, path.read_text())
    except (ValueError, OSError, RuntimeError) as exc:
        return RunOutcome(item, None, f"{type(exc).__name__}: {exc}")


def is_complete(log_dir: Path, item: ReferenceRun) -> bool:
    """Whether the driver's folder holds ``item``'s complete record."""
    path = item.spec(log_dir).run_dir / "evaluations.json"
    try:
        return bool(path.is_file() and read_evaluations(path, protocol_tiers=False)["complete"])
    except ValueError:
        return False


def keep_record(log_dir: Path, outcome: RunOutcome) -> Path:
    """Write a task's record into the driver's folder (checked first; left alone when the worker
    already wrote the same bytes there)."""
    assert outcome.record is not None
    run_dir = outcome.run.spec(log_dir).run_dir
    path = run_dir / "evaluations.json"
    if path.is_file() and path.read_text() == outcome.record:
        return path
    run_dir.mkdir(parents=True, exist_ok=True)
    incoming = path.with_name("evaluations.incoming.json")
    atomic_write_bytes(incoming, outcome.record.encode())
    try:
        read_evaluations(incoming, protocol_tiers=False)
        incoming.replace(path)
    finally:
        incoming.unlink(missing_ok=True)
    return path


def run_on_ray(runs: Sequence[ReferenceRun], log_dir: Path, *, address: str | None, n_jobs: int = 1,
               on_done: Callable[[RunOutcome], None] | None = None) -> Iterator[RunOutcome]:
    """Run every run not complete in ``log_dir`` as a Ray task (``address``: the cluster; ``None``:
    a local instance of ``n_jobs`` CPUs), keeping each record in ``log_dir`` as it comes back.

    Yields:
        Each run's outcome as it finishes (a complete one first, without a task).
    """
    pending = []
    for item in runs:
        if is_complete(log_dir, item):
            yield RunOutcome(item, (item.spec(log_dir).run_dir / "evaluations.json").read_text())
        else:
            pending.append(item)
    if not pending:
        return
    for outcome in run_tasks(_run_one, pending, setup=_worker, setup_args=(str(log_dir.resolve()),),
                             backend="ray", address=address, n_jobs=n_jobs, window=len(pending)):
        if outcome.record is not None:
            keep_record(log_dir, outcome)
        if on_done is not None:
            on_done(outcome)
        yield outcome


def outcome_line(outcome: RunOutcome) -> str:
    """One line for the table's log: the run and its final regret, or its error."""
    item = outcome.run
    if outcome.record is None:
        return f"{item.tier.name} {item.algo} seed {item.seed}: failed ({outcome.error[:300]})"
    record: dict[str, Any] = json.loads(outcome.record)
    if not record.get("complete"):
        return f"{item.tier.name} {item.algo} seed {item.seed}: stopped at a checkpoint (the same command continues)"
    return f"{item.tier.name} {item.algo} seed {item.seed}: complete, regret {record['final']['regret']:.4f}"


__all__ = ["ReferenceRun", "RunOutcome", "is_complete", "keep_record", "outcome_line", "run_on_ray", "takes_part"]
