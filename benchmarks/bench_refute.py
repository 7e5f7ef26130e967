"""Refuting Wordle openers against the best known total, this checkout against another revision.

The proof that SALET's 7,897 is optimal over every opener refutes each other opener: it shows the
opener's tree needs at least 7,897 guesses. Weak openers should fail at once; issue 28 measured
guessgym up to 1,300 times slower than the C++ reference on them (weize: 170 s). Each opener here
is refuted in a fresh subprocess with an empty memo (no cache folder), for the current checkout
and, with ``--base REV``, for a ``git worktree`` of that revision, alternating (base, current) so
both see the same machine load; the best of ``--rounds`` is kept. Prints seconds, the proven lower
bound of each side (both must be at least 7,897) and the ratio base / current.

Usage (from the repository root)::

    python benchmarks/bench_refute.py --base 401f53d [--rounds 1] [--openers laves byrls weize ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_revisions import base_worktree, run_child  # noqa: E402

#: The openers issue 28 timed: ranked 50-90 by the move ordering, then the weak ones.
OPENERS = ("roset", "tares", "raine", "strae", "arose", "twoer", "laves", "byrls", "perdy", "plaas", "towts", "weize")
BOUND = 7897

CHILD = r"""
import json, sys, time
import guessgym
from guessgym.envs.game import make_game
from guessgym.baselines.optimal import ExactSearch, SearchKernel
game = make_game("guessgym/Wordle-v1", word_list="nyt")
search = ExactSearch(game)
kernel = SearchKernel(game, search.mt, 0, 0.0, None)
started = time.perf_counter()
total, bound = search.opener_cost(kernel, game.guess_index[sys.argv[1]], int(sys.argv[2]))
print(json.dumps({"seconds": time.perf_counter() - started, "bound": bound, "file": guessgym.__file__}))
"""


def refute(tree: Path | None, opener: str) -> dict[str, float]:
    result: dict[str, float] = run_child(CHILD, [opener, str(BOUND)], tree=tree)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="a git revision to compare with (a temporary worktree)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--openers", nargs="+", default=list(OPENERS))
    args = parser.parse_args()
    with base_worktree(args.base) as base:
        print(f"{'opener':8s} {'base s':>9s} {'bound':>6s} {'current s':>10s} {'bound':>6s} {'base/current':>13s}")
        for opener in args.openers:
            best: dict[str, dict[str, float]] = {}
            for _ in range(args.rounds):
                for side, tree in (("base", base), ("current", None)):
                    if side == "base" and base is None:
                        continue
                    r = refute(tree, opener)
                    if side not in best or r["seconds"] < best[side]["seconds"]:
                        best[side] = r
            now = best["current"]
            assert now["bound"] >= BOUND, f"{opener}: the current solver did not refute it"
            if "base" in best:
                was = best["base"]
                print(f"{opener:8s} {was['seconds']:9.2f} {int(was['bound']):6d} {now['seconds']:10.2f} "
                      f"{int(now['bound']):6d} {was['seconds'] / now['seconds']:13.1f}", flush=True)
            else:
                print(f"{opener:8s} {'-':>9s} {'-':>6s} {now['seconds']:10.2f} {int(now['bound']):6d}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
