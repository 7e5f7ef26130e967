"""Pattern-matrix builds in pairs per second, this checkout against another revision, side by side.

Issue 28: classic Nerdle played as the real game accepts every valid equation as a guess, so its
exact search needs the whole 67,346 x 17,723 pattern matrix (2.4 GB), and the greedy baselines'
first decision on it took 20-25 s. Measured, each in a fresh subprocess (the numba kernels
compiled once before), alternating base and current, best of ``--rounds``:

* ``kernel``: the scoring kernel (``pattern_matrix``) on the first 8,192 equations against every
  answer, and on Wordle's whole 12,947 x 2,309 matrix: pairs per second;
* ``solver``: the layout the exact search scans (answers x guesses), every equation against every
  answer, as ``ExactSearch`` builds it (revisions since issue 28 only: before, it refused);
* ``greedy``: the ``most-buckets`` baseline's first guess on that game, from a fresh process
  (its opener is cached on disk after the first run: the cache folder is a fresh temporary one).

Usage (from the repository root)::

    python benchmarks/bench_matrix.py [--base REV] [--rounds 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_revisions import base_worktree, run_child  # noqa: E402

CHILD = r"""
import json, sys, time
import numpy as np
import guessgym
from guessgym.envs.game import nerdle, wordle
from guessgym.envs.scoring import pattern_matrix
case = sys.argv[1]
game = nerdle(8, guesses="all")
pattern_matrix(game.guess_codes[:64], game.answer_codes[:64], game.n_symbols)  # compiled, or loaded from cache
started = time.perf_counter()
if case == "kernel-nerdle":
    rows = game.guess_codes[:8192]
    pattern_matrix(rows, game.answer_codes, game.n_symbols)
    pairs = len(rows) * len(game.answers)
elif case == "kernel-wordle":
    w = wordle()
    pattern_matrix(w.guess_codes[:64], w.answer_codes[:64], w.n_symbols)  # its own specialisation (uint8)
    started = time.perf_counter()
    pattern_matrix(w.guess_codes, w.answer_codes, w.n_symbols)
    pairs = len(w.guesses) * len(w.answers)
elif case == "solver":
    from guessgym.envs.matrix import PatternMatrix
    pm = PatternMatrix.for_game(game)
    if not hasattr(pm, "transposed"):
        print(json.dumps({"seconds": None, "pairs": 0}))
        sys.exit(0)
    mt = pm.transposed()
    pairs = mt.size
elif case == "greedy":
    import gymnasium as gym
    from guessgym.agents.registry import make_agent
    env = gym.make("guessgym/Nerdle-v1", guesses="all", disable_env_checker=True)
    agent = make_agent("most-buckets")
    obs, info = env.reset(seed=0)
    started = time.perf_counter()
    agent.begin(env.unwrapped.game)
    agent.act(obs, info)
    pairs = len(game.guesses) * len(game.answers)
print(json.dumps({"seconds": time.perf_counter() - started, "pairs": pairs, "file": guessgym.__file__}))
"""

CASES = ("kernel-nerdle", "kernel-wordle", "solver", "greedy")


def measure(tree: Path | None, case: str) -> dict[str, float | None]:
    with tempfile.TemporaryDirectory() as cache:  # a fresh cache folder: nothing computed before
        result: dict[str, float | None] = run_child(CHILD, [case], tree=tree, env={"GUESSGYM_CACHE_DIR": cache},
                                                    timeout=1800)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="a git revision to compare with (a temporary worktree)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=CASES)
    args = parser.parse_args()
    with base_worktree(args.base) as base:
        print(f"{'case':14s} {'base s':>8s} {'base M pairs/s':>15s} {'current s':>10s} "
              f"{'current M pairs/s':>18s} {'current/base':>13s}")
        for case in args.cases:
            best: dict[str, dict[str, float | None]] = {}
            for _ in range(args.rounds):
                for side, tree in (("base", base), ("current", None)):
                    if side == "base" and base is None:
                        continue
                    r = measure(tree, case)
                    seconds = r["seconds"]
                    if seconds is not None and (side not in best or seconds < (best[side]["seconds"] or 0)):
                        best[side] = r
            cells = []
            for side in ("base", "current"):
                got = best.get(side)
                if got is None or got["seconds"] is None:
                    cells += [f"{'-':>8s}", f"{'-':>15s}" if side == "base" else f"{'-':>18s}"]
                else:
                    rate = float(got["pairs"] or 0) / float(got["seconds"]) / 1e6
                    width = 15 if side == "base" else 18
                    cells += [f"{float(got['seconds']):8.2f}" if side == "base" else f"{float(got['seconds']):10.2f}",
                              f"{rate:{width}.1f}"]
            ratio = "-"
            if "base" in best and "current" in best:
                ratio = f"{float(best['base']['seconds'] or 0) / float(best['current']['seconds'] or 1):.2f}x"
            print(f"{case:14s} {' '.join(cells)} {ratio:>13s}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
