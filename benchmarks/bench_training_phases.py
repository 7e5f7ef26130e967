"""Where the time of a training run goes: steps per second, split by phase, measured in one run.

Trains a config (``configs/wordle.toml`` by default) for ``--steps`` environment steps in a
temporary folder, without evaluations or checkpoints, and times:

* **update**: PPO's gradient epochs over each rollout (from the end of one rollout to the start of
  the next);
* **rollout**: collecting the samples, of which
  * **split features**: computing the bucket statistics of candidate sets not yet in the cache
    (:meth:`guessgym.agents.split_features.SplitFeatures._compute`), with the cache's hits and misses;
  * **environment**: the batched environment's steps;
  * the rest: the policy's forward passes and SB3's bookkeeping.

Usage (from the repository root; one process, pinned to one torch thread like the configs)::

    python benchmarks/bench_training_phases.py                          # Wordle, split policy, 8,192 steps
    python benchmarks/bench_training_phases.py --config configs/nerdle.toml --steps 4096
    python benchmarks/bench_training_phases.py --set split_features=false --set 'split_prior={}'

A script, not a test: the machine's load changes the figures; run it on an idle machine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


class PhaseClock:
    """Accumulates seconds per phase; ``wrap`` times every call of a method."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}

    def add(self, phase: str, seconds: float) -> None:
        self.seconds[phase] = self.seconds.get(phase, 0.0) + seconds
        self.calls[phase] = self.calls.get(phase, 0) + 1

    def wrap(self, owner: Any, name: str, phase: str) -> None:
        original = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.add(phase, time.perf_counter() - start)

        setattr(owner, name, timed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "configs" / "wordle.toml"))
    parser.add_argument("--steps", type=int, default=8192, help="environment steps to train (default: 8192)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)

    from stable_baselines3.common.callbacks import BaseCallback

    from guessgym.agents.split_features import SplitFeatures
    from guessgym.training.callbacks import EvalCallback
    from guessgym.training.config import apply_overrides, load_config
    from guessgym.training.sb3_vec import BatchedVecEnv
    from guessgym.training.train import train

    clock = PhaseClock()
    clock.wrap(SplitFeatures, "_compute", "split features")
    clock.wrap(BatchedVecEnv, "step_wait", "environment")
    stats: dict[str, int] = {"hits": 0, "misses": 0}
    original_init = SplitFeatures.__init__

    def tracked_init(self: SplitFeatures, *a: Any, **k: Any) -> None:
        original_init(self, *a, **k)
        instances.append(self)

    instances: list[SplitFeatures] = []
    SplitFeatures.__init__ = tracked_init  # type: ignore[method-assign]

    class Phases(BaseCallback):
        """Rollout time is from a rollout's start to its end; the update follows until the next start."""

        def __init__(self) -> None:
            super().__init__()
            self.mark = time.perf_counter()

        def _on_rollout_start(self) -> None:
            now = time.perf_counter()
            if self.num_timesteps > 0:
                clock.add("update", now - self.mark)
            self.mark = now

        def _on_rollout_end(self) -> None:
            now = time.perf_counter()
            clock.add("rollout", now - self.mark)
            self.mark = now

        def _on_training_end(self) -> None:
            clock.add("update", time.perf_counter() - self.mark)

        def _on_step(self) -> bool:
            return True

    with tempfile.TemporaryDirectory(prefix="guessgym-bench-train-") as tmp:
        config = apply_overrides(load_config(args.config), [
            f"log_dir={tmp}", f"total_steps={args.steps}", "eval_every=0", "checkpoint_every=0",
            "target_win_rate=null", "target_mean_guesses=null", "references=[]", *args.overrides])
        started = time.perf_counter()
        # The run's closing evaluation over every answer is not training: skipped here.
        original_run = EvalCallback.run
        EvalCallback.run = lambda self, answers=None: {"games": 0, "wins": 0}  # type: ignore[method-assign]
        try:
            train(config, callbacks=[Phases()])
        finally:
            EvalCallback.run = original_run  # type: ignore[method-assign]
        total = time.perf_counter() - started
    for features in instances:
        stats["hits"] += features.hits
        stats["misses"] += features.misses
    learn = clock.seconds.get("rollout", 0.0) + clock.seconds.get("update", 0.0)
    print(f"{config.env_id} {config.algorithm}, split_features={config.split_features}: {args.steps:,} steps "
          f"in {learn:.1f} s of learning ({args.steps / learn:.0f} steps/s; {total:.1f} s with setup)")
    for phase in ("rollout", "split features", "environment", "update"):
        seconds = clock.seconds.get(phase, 0.0)
        indent = "    " if phase in ("split features", "environment") else ""
        print(f"  {indent}{phase:16s} {seconds:8.1f} s  {100 * seconds / learn:5.1f} %")
    if stats["hits"] + stats["misses"]:
        print(f"  split-feature cache: {stats['misses']:,} sets computed, {stats['hits']:,} found "
              f"({100 * stats['hits'] / (stats['hits'] + stats['misses']):.1f} % hits)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
