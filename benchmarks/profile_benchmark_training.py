"""Where a benchmark run's training time goes: cProfile of one algorithm on one tier, built exactly as
``guessgym benchmark run`` builds it (the tier's shipped settings, one torch thread).

Trains ``--warmup`` steps unprofiled (past one rollout and the replay buffer's ``learning_starts``),
then profiles ``--steps`` more and prints the functions by cumulative time.

Usage (from the repository root)::

    python benchmarks/profile_benchmark_training.py --algo dqn --tier wordle              # protocol 2
    python benchmarks/profile_benchmark_training.py --algo ppo --tier wordle-500 --steps 8000 --lines 40

A script, not a test: the machine's load changes the figures (the shares less than the totals).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
from pathlib import Path

from guessgym.training import numerics
from guessgym.training.benchmark.hyperparams import load_hyperparams
from guessgym.training.benchmark.protocol import LATEST_VERSION, protocol
from guessgym.training.benchmark.runner import RunSpec, build


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algo", default="dqn", help="a benchmark algorithm (default dqn)")
    parser.add_argument("--tier", default="wordle", help="a tier of the protocol (default wordle)")
    parser.add_argument("--protocol", default=LATEST_VERSION, help=f"the protocol version (default {LATEST_VERSION})")
    parser.add_argument("--warmup", type=int, default=4_000, help="steps trained before profiling (default 4,000)")
    parser.add_argument("--steps", type=int, default=2_000, help="steps profiled (default 2,000)")
    parser.add_argument("--lines", type=int, default=30, help="functions printed (default 30)")
    args = parser.parse_args(argv)
    tier = protocol(args.protocol).tier(args.tier)
    game = tier.training_game()
    hp = load_hyperparams(args.algo, tier.env_id)
    with tempfile.TemporaryDirectory() as tmp:
        model, _ = build(RunSpec(args.algo, tier, 0, Path(tmp)), hp, game)
        numerics.pin_threads(1)
        model.learn(args.warmup)
        profile = cProfile.Profile()
        profile.enable()
        model.learn(args.steps, reset_num_timesteps=False)
        profile.disable()
    pstats.Stats(profile).sort_stats("cumulative").print_stats(args.lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
