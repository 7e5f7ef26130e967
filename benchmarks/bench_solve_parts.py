"""Where a ``guessgym solve --opener salet`` process spends its time, part by part (issue 65, aim 4).

Run in a fresh process, after one ``guessgym solve --opener salet --no-memo`` has cached the pattern
matrix and compiled numba's kernels: each line is the CPU and wall seconds of one part, in the order the
command does them (the interpreter's own start is not counted: ``python -c pass`` times it).

Usage (from the repository root)::

    python benchmarks/bench_solve_parts.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

_cpu, _wall = time.process_time(), time.perf_counter()


def lap(name: str) -> None:
    """Print the CPU and wall seconds since the last lap."""
    global _cpu, _wall
    cpu, wall = time.process_time(), time.perf_counter()
    print(f"{name:44s} cpu {cpu - _cpu:6.3f} s   wall {wall - _wall:6.3f} s", flush=True)
    _cpu, _wall = cpu, wall


import guessgym.cli  # noqa: E402,F401 - the command line's imports

lap("imports (guessgym.cli: numpy, numba, gymnasium)")
from numba import njit  # noqa: E402


@njit
def _one(x: int) -> int:
    return x + 1


_one(1)
lap("numba's first dispatch (a one-line kernel)")
import gymnasium as gym  # noqa: E402

env = gym.make("guessgym/Wordle-v1")
lap("the environment, its matrix read from the cache")
from guessgym.baselines.optimal import ExactSearch  # noqa: E402
from guessgym.evaluation.tree_checks import verify_tree  # noqa: E402

game = env.unwrapped.game  # type: ignore[attr-defined]
result = ExactSearch(game, opener="salet", cache_dir=None).solve()
lap(f"the search (total {result.total:,})")
check = verify_tree(result.tree, env)
assert check.ok, check.report()
lap("the tree replayed through the environment")
with tempfile.TemporaryDirectory() as tmp:
    result.tree.save(str(Path(tmp) / "salet.txt"), game)
    lap("the tree written")
