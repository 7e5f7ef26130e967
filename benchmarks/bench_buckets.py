"""The bucket engine of this checkout against another revision's, side by side in one process.

The baselines spend their time in :func:`bucket_stat` (``envs/buckets.py``; ``baselines/buckets.py``
before it moved). This script loads the base revision's module from ``git show REV:PATH`` next to
the current one and times both, interleaved, on the same matrix and candidate sets: the
transposed path (few candidates, every guess: the sets after the first guess) and the row path
(many candidates), for the largest-bucket and the entropy statistics. It prints the best of
``--rounds`` rounds of each and the ratio current / base (above 1: the current one is faster).

Usage (from the repository root)::

    python benchmarks/bench_buckets.py --base a7b3f41 [--rounds 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import numpy as np

import guessgym.envs.buckets as current
from guessgym.envs.game import wordle
from guessgym.envs.matrix import PatternMatrix

ROOT = Path(__file__).resolve().parents[1]


def load_base(revision: str) -> ModuleType:
    for path in ("envs/buckets.py", "baselines/buckets.py"):
        shown = subprocess.run(["git", "show", f"{revision}:{path}"], cwd=ROOT, capture_output=True, text=True)
        if shown.returncode == 0:
            break
    else:
        sys.exit(f"{revision} has no bucket engine at envs/buckets.py or baselines/buckets.py")
    source = shown.stdout.replace("from ..envs.matrix import", "from guessgym.envs.matrix import")
    source = source.replace("from .matrix import", "from guessgym.envs.matrix import")
    source = source.replace("cache=True", "cache=False")  # its kernels must not share the current ones' cache
    folder = Path(tempfile.mkdtemp())
    file = folder / "base_buckets.py"
    file.write_text(source)
    spec = importlib.util.spec_from_file_location("base_buckets", file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def best_time(run: object, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        run()  # type: ignore[operator]
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    base = load_base(args.base)
    game = wordle()
    matrix = PatternMatrix.for_game(game)
    guesses = np.arange(len(game.guesses))
    rng = np.random.default_rng(0)
    small = [np.sort(rng.choice(len(game.answers), size, replace=False)) for size in rng.integers(2, 200, 60)]
    large = [np.sort(rng.choice(len(game.answers), 1500, replace=False)) for _ in range(3)]
    cases = [(f"{path}, {name}", sets, stat) for path, sets in (("transposed (60 sets of 2-200)", small),
                                                               ("rows (3 sets of 1,500)", large))
             for name, stat in (("largest bucket", current.STAT_MAX), ("entropy", current.STAT_CLOGC))]
    print(f"bench_buckets: this checkout against {args.base}, best of {args.rounds} interleaved rounds, "
          f"Wordle (12,947 guesses)")
    for name, sets, stat in cases:
        runs = {label: (lambda m=module, s=sets, st=stat: [m.bucket_stat(matrix, guesses, c, st) for c in s])
                for label, module in (("base", base), ("current", current))}
        for run in runs.values():
            run()  # compile and warm up
        for c in sets[:5]:  # the same numbers, or the timing means nothing
            expected = base.bucket_stat(matrix, guesses, c, stat)
            assert np.array_equal(expected, current.bucket_stat(matrix, guesses, c, stat))
        times = {"base": float("inf"), "current": float("inf")}
        for _ in range(args.rounds):
            for label, run in runs.items():
                times[label] = min(times[label], best_time(run, 1))
        print(f"  {name:48s} base {times['base'] * 1000:8.1f} ms  current {times['current'] * 1000:8.1f} ms  "
              f"ratio {times['base'] / times['current']:.2f}x")


if __name__ == "__main__":
    main()
