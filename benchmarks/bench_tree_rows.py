"""A tree of games played on a game with no dense matrix (classic Nerdle with every equation as a
guess, 67,346 x 17,723: rows are scored on demand), each state's patterns read from its guess's whole
row (``row``, the code before issue 65's third session) or from only its answers' entries
(``row_over``, scoring only those when few): the main job's unique-chars entry, each side in fresh
processes, alternating, best of ``--rounds``; the records must be the same.

Usage (from the repository root)::

    python benchmarks/bench_tree_rows.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import hashlib, json, sys, time
from guessgym.agents.registry import make_agent
from guessgym.envs.matrix import PatternMatrix
from guessgym.evaluation.evaluate import evaluate

if sys.argv[1] == "row":
    PatternMatrix.row_over = lambda self, guess, answers: self.row(guess)
agent = make_agent("unique-chars")
evaluate(agent, "guessgym/Nerdle-v1", env_kwargs={"guesses": "all"}, sample=20, record_guesses=True)  # kernels loaded
started, cpu = time.perf_counter(), time.process_time()
result = evaluate(agent, "guessgym/Nerdle-v1", env_kwargs={"guesses": "all"}, record_guesses=True)
seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
digest = hashlib.sha256(json.dumps([(r.answer, r.guesses, r.solved, r.played) for r in result.records]).encode())
print(json.dumps({"seconds": seconds, "cpu": cpu, "records": digest.hexdigest()}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    best: dict[str, dict[str, float | str]] = {}
    for _ in range(args.rounds):
        for side in ("row", "row_over"):
            done = subprocess.run([sys.executable, "-c", CHILD, side], capture_output=True, text=True, check=True,
                                  timeout=900)
            row = json.loads(done.stdout.strip().splitlines()[-1])
            if side not in best or row["seconds"] < best[side]["seconds"]:
                best[side] = row
    a, b = best["row"], best["row_over"]
    print(f"unique-chars on Nerdle with every equation, 17,723 games (best of {args.rounds}, alternating):")
    print(f"  whole rows        {a['seconds']:6.2f} s wall {a['cpu']:6.2f} CPU-s")
    print(f"  answers' entries  {b['seconds']:6.2f} s wall {b['cpu']:6.2f} CPU-s   "
          f"{float(a['seconds']) / float(b['seconds']):.2f}x")
    print("same records" if a["records"] == b["records"] else "RECORDS DIFFER")
    return 0


if __name__ == "__main__":
    sys.exit(main())
