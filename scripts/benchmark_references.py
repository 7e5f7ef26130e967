"""Run the RL benchmark's reference scores: every algorithm on the smallest tiers over the seeds.

    python scripts/benchmark_references.py --jobs 2          # what results/benchmark/ holds
    python scripts/benchmark_references.py --tier wordle-500 --seeds 0 1 2 3 4

Each run is ``guessgym benchmark run --algo A --tier T --seed S --log-dir results/benchmark/runs``
in a process of its own (one torch thread each); a complete run is skipped and a stopped one
continues from its checkpoint, so the same command resumes the whole set after an interruption.
Then ``guessgym benchmark report results/benchmark/runs --out results/benchmark`` draws the page.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from guessgym.training.benchmark.hyperparams import ALGORITHMS
from guessgym.training.benchmark.protocol import REFERENCE_TIERS, SEEDS, TIERS

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tier", action="append", choices=[t.name for t in TIERS],
                        help=f"a tier (repeatable; default {', '.join(REFERENCE_TIERS)})")
    parser.add_argument("--algo", action="append", choices=list(ALGORITHMS), help="an algorithm (default: all)")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS))
    parser.add_argument("--jobs", type=int, default=1, help="runs at once (each uses one core)")
    parser.add_argument("--log-dir", type=Path, default=ROOT / "results" / "benchmark" / "runs")
    args = parser.parse_args()
    runs = [(t, s, a) for t in (args.tier or REFERENCE_TIERS) for s in args.seeds for a in (args.algo or ALGORITHMS)]

    def one(item: tuple[str, int, str]) -> int:
        tier, seed, algo = item
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "guessgym", "benchmark", "run", "--algo", algo, "--tier", tier,
                               "--seed", str(seed), "--log-dir", str(args.log_dir), "--no-progress"],
                              capture_output=True, text=True)
        last = (done.stdout.strip().splitlines() or [""])[-1]
        print(f"[{time.perf_counter() - started:6.0f} s] {tier} {algo} seed {seed}: rc={done.returncode} {last}"
              + (f"\n{done.stderr[-2000:]}" if done.returncode else ""), flush=True)
        return done.returncode

    with ThreadPoolExecutor(args.jobs) as pool:
        codes = list(pool.map(one, runs))
    failed = sum(1 for c in codes if c)
    print(f"{len(runs) - failed} of {len(runs)} runs complete", flush=True)
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
