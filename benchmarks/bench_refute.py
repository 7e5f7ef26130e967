"""Refuting openers against the best known total, this checkout against another revision.

A proof over every opener refutes each opener but the best: it shows the opener's tree needs at
least the best known total (Wordle: SALET's 7,897; classic Nerdle with every equation as a guess:
53,487). Weak openers should fail at once; issue 28 measured guessgym up to 1,300 times slower
than the C++ reference on Wordle's (weize: 170 s). Each side refutes every opener in one fresh
subprocess (the game's matrix is loaded once: Nerdle's takes a minute), each opener with a new,
empty memo (no cache folder), after one untimed run that compiles the kernels; with ``--base
REV`` a ``git worktree`` of that revision is measured too, alternating (base, current) so both see
the same machine load; the best of ``--rounds`` is kept. Prints CPU seconds, the proven lower
bound of each side (both must reach the bound) and the ratio base / current.

Usage (from the repository root)::

    python benchmarks/bench_refute.py --base 401f53d [--rounds 1] [--openers laves byrls weize ...]
    python benchmarks/bench_refute.py --game nerdle-all --base HEAD
    python benchmarks/bench_refute.py --game wordle-nyt2023
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_revisions import base_worktree, fastest_per_item, run_child  # noqa: E402

#: Per game: the environment, the bound to refute and the openers timed. Wordle's are the ones issue
#: 28 timed (ranked 50-90 by the move ordering, then weak ones); nyt2023's are ranked 100, 300,
#: 700, 800, 1,500, 6,000 and 14,000 of its proof's order; Nerdle's 400, 1,000, 3,000, 10,000,
#: 20,000, 35,000, 50,000, 60,000, 66,000 and 67,000.
GAMES: dict[str, tuple[str, dict[str, str], int, tuple[str, ...]]] = {
    "wordle": ("guessgym/Wordle-v1", {"word_list": "nyt"}, 7897,
               ("roset", "tares", "raine", "strae", "arose", "twoer", "laves", "byrls", "perdy", "plaas", "towts",
                "weize")),
    "wordle-nyt2023": ("guessgym/Wordle-v1", {"word_list": "nyt2023"}, 11219,
                       ("truce", "tapir", "brine", "carve", "calve", "diwan", "squee")),
    "nerdle-all": ("guessgym/Nerdle-v1", {"guesses": "all"}, 53487,
                   ("94-18=76", "4*8/16=2", "24+29=53", "97-10=87", "3-0*67=3", "0*9556=0", "5038*0=0", "6065*0=0",
                    "71*0*0=0", "20*0-0=0")),
}

CHILD = r"""
import json, sys, time
import guessgym
from guessgym.envs.game import make_game
from guessgym.baselines.optimal import ExactSearch, SearchKernel
env_id, kwargs, bound, openers = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
game = make_game(env_id, **kwargs)
search = ExactSearch(game)
search.opener_cost(SearchKernel(game, search.mt, 0, 0.0, None), game.guess_index[openers[0]], bound)  # compiles
out = {}
for opener in openers:
    kernel = SearchKernel(game, search.mt, 0, 0.0, None)
    started = time.process_time()
    total, lower = search.opener_cost(kernel, game.guess_index[opener], bound)
    out[opener] = {"seconds": time.process_time() - started, "bound": lower}
print(json.dumps({"openers": out, "file": guessgym.__file__}))
"""


def refute(tree: Path | None, game: str, openers: list[str]) -> dict[str, dict[str, float]]:
    """CPU seconds and proven bound of each opener, refuted by ``tree``'s guessgym (``None``: this
    checkout) in one fresh interpreter."""
    env_id, kwargs, bound, _ = GAMES[game]
    result: dict[str, dict[str, float]] = run_child(CHILD, [env_id, json.dumps(kwargs), str(bound), *openers],
                                                    tree=tree)["openers"]
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(GAMES), default="wordle")
    parser.add_argument("--base", help="a git revision to compare with (a temporary worktree)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--openers", nargs="+", help="openers to refute (default: the game's list above)")
    args = parser.parse_args()
    bound = GAMES[args.game][2]
    openers = args.openers or list(GAMES[args.game][3])
    with base_worktree(args.base) as base:
        best = fastest_per_item(lambda tree: refute(tree, args.game, openers), base, args.rounds)
        print(f"{args.game}: refuting each opener against {bound:,} (CPU seconds, best of {args.rounds})")
        print(f"{'opener':10s} {'base s':>9s} {'bound':>7s} {'current s':>10s} {'bound':>7s} {'base/current':>13s}")
        totals = [0.0, 0.0]
        for opener in openers:
            now = best["current"][opener]
            assert now["bound"] >= bound, f"{opener}: the current solver did not refute it"
            if opener in best["base"]:
                was = best["base"][opener]
                totals[0] += was["seconds"]
                totals[1] += now["seconds"]
                print(f"{opener:10s} {was['seconds']:9.2f} {int(was['bound']):7d} {now['seconds']:10.2f} "
                      f"{int(now['bound']):7d} {was['seconds'] / now['seconds']:13.2f}")
            else:
                print(f"{opener:10s} {'-':>9s} {'-':>7s} {now['seconds']:10.2f} {int(now['bound']):7d}")
        if base is not None:
            print(f"{'all':10s} {totals[0]:9.2f} {'':7s} {totals[1]:10.2f} {'':7s} {totals[0] / totals[1]:13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
