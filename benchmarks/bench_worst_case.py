"""Refuting openers in the worst-case search, this checkout against another revision.

Proving that the fewest guesses that win whatever the answer is ``d`` means refuting every opener
at ``d - 1``: some bucket it leaves cannot be won in ``d - 2`` more guesses. On the 3,158-answer
list (``nyt2023``) that is 14,855 openers at four guesses, each a search of three-guess sets whose
innermost question, "can two guesses win this set?", is mostly answered no. Each side refutes the
same openers, in the proof's order, in one fresh subprocess sharing one search and its memo across
them as the proof does, after one untimed opener that compiles the kernels; with ``--base REV`` a
``git worktree`` of that revision is measured too, alternating (base, current) so both see the same
machine load; the best of ``--rounds`` is kept. Prints CPU seconds per opener, the ratio base /
current, the outcome (both sides must agree) and the sets searched above the numba kernels.
``--depth 5`` shows why the first phase searches openers for a growing allowance of sets: the
openers that keep the smallest bucket are refuted only after thousands of sets, while others win
after a few hundred.

Usage (from the repository root)::

    python benchmarks/bench_worst_case.py --base 35b7a82 [--rounds 2] [--openers shear tails ...]
    python benchmarks/bench_worst_case.py --depth 5 --openers aloes aeros salet tared dater cared trace
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_revisions import base_worktree, fastest_per_item, run_child  # noqa: E402

#: Ranks 600 to 14,855 (the last) of the nyt2023 proof's order at four guesses, about 620 apart.
OPENERS = ("shear", "tubae", "rases", "pardi", "tails", "blest", "dikes", "teels", "epics", "peage", "takin",
           "murre", "loord", "leccy", "isbas", "allus", "pasch", "powin", "molto", "plomb", "snobs", "kitty",
           "blook", "xviii")
WARM_UP = "aloes"

CHILD = r"""
import json, sys, time
import numpy as np
import guessgym
from guessgym.envs.game import make_game
from guessgym.baselines.worst_case import WorstCaseSearch
depth, openers = int(sys.argv[1]), sys.argv[2:]
game = make_game("guessgym/Wordle-v1", word_list="nyt2023")
search = WorstCaseSearch(game)
everyone = np.arange(search.n_answers, dtype=np.int64)
search.wins_after(everyone, game.guess_index[openers[0]], 4)  # compiles the kernels
out = {}
for opener in openers[1:]:
    started, nodes = time.process_time(), search.nodes
    win = search.wins_after(everyone, game.guess_index[opener], depth)
    out[opener] = {"seconds": time.process_time() - started, "win": bool(win), "sets": search.nodes - nodes}
print(json.dumps({"openers": out, "file": guessgym.__file__}))
"""


def refute(tree: Path | None, openers: list[str], depth: int) -> dict[str, dict[str, float]]:
    """CPU seconds, outcome and sets searched of each opener at ``depth`` guesses, by ``tree``'s
    guessgym (``None``: this checkout) in one fresh interpreter (the warm-up opener first, untimed)."""
    result: dict[str, dict[str, float]] = run_child(CHILD, [str(depth), WARM_UP, *openers], tree=tree)["openers"]
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="a git revision to compare with (a temporary worktree)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--openers", nargs="+", help="openers to search (default: the list above)")
    parser.add_argument("--depth", type=int, default=4,
                        help="guesses each opener must win within (default 4; 5: nyt2023's worst case, where "
                             "aloes and aeros are refuted and salet or tared win)")
    args = parser.parse_args()
    openers = args.openers or list(OPENERS)
    with base_worktree(args.base) as base:
        best = fastest_per_item(lambda tree: refute(tree, openers, args.depth), base, args.rounds)
        print(f"wordle-nyt2023, every host: each opener at {args.depth} guesses (CPU seconds, best of "
              f"{args.rounds}; one search and memo per side, as in the proof; sets: searched above the kernels)")
        print(f"{'opener':10s} {'base s':>9s} {'current s':>10s} {'base/current':>13s} {'outcome':>8s} {'sets':>7s}")
        totals = [0.0, 0.0]
        for opener in openers:
            now = best["current"][opener]
            outcome = "wins" if now["win"] else "refuted"
            totals[1] += now["seconds"]
            if opener in best["base"]:
                was = best["base"][opener]
                assert was["win"] == now["win"], f"{opener}: base and current disagree"
                totals[0] += was["seconds"]
                ratio = was["seconds"] / now["seconds"]
                print(f"{opener:10s} {was['seconds']:9.2f} {now['seconds']:10.2f} {ratio:13.2f} {outcome:>8s} "
                      f"{int(now['sets']):7d}")
            else:
                print(f"{opener:10s} {'-':>9s} {now['seconds']:10.2f} {'':>13s} {outcome:>8s} {int(now['sets']):7d}")
        if base is not None:
            print(f"{'all':10s} {totals[0]:9.2f} {totals[1]:10.2f} {totals[0] / totals[1]:13.2f}")
        print(f"current: {totals[1] / len(openers):.3f} s per opener")
    return 0


if __name__ == "__main__":
    sys.exit(main())
