"""What limits the exact value of a weak opener: does a known tree's total, as the search's bound, speed it up?

A weak opener (its first split leaves large buckets) takes the exact solver close to a minute on
Wordle. This solves given openers three ways, each from cold memos, measuring CPU seconds of this
process: every bucket with no bound (what ``StateValues.after`` does), every bucket bounded by a
greedy tree's cost for it (the solver at width 1), and the whole opener bounded by its greedy tree
(``ExactSearch.opener_cost``, the opener table's way). All three must give the same total.

Usage (from the repository root)::

    python benchmarks/bench_weak_openers.py [--env guessgym/Wordle-v1] [WORD ...]
                                            [--out results/benchmarks/weak_openers.txt]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from guessgym.baselines.optimal import ExactSearch, SearchKernel  # noqa: E402
from guessgym.baselines.search_kernels import INF  # noqa: E402
from guessgym.envs.game import make_game  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("words", nargs="*", default=["mumsy", "wifie"])
    parser.add_argument("--env", default="guessgym/Wordle-v1")
    parser.add_argument("--out", help="also write the report to this file")
    args = parser.parse_args()
    game = make_game(args.env)
    search = ExactSearch(game)
    everyone = np.arange(len(game.answers), dtype=np.int32)
    left = game.max_attempts - 1
    lines = [f"# python benchmarks/bench_weak_openers.py --env {args.env} {' '.join(args.words)}", "",
             "| opener | total | largest bucket | no bound (s) | greedy bound per bucket (s) "
             "| greedy bound, whole opener (s) |",
             "|---|---:|---:|---:|---:|---:|"]
    print("\n".join(lines), flush=True)
    for word in args.words:
        guess = game.guess_index[word]
        kernel = SearchKernel(game, search.mt, 0, 0.0)
        children = kernel.children(everyone, guess, kernel.all_guesses)
        start = time.process_time()
        plain = len(game.answers) + sum(kernel.cost(b, left, a, INF) for _, b, a in children)
        plain_s = time.process_time() - start
        kernel, greedy = SearchKernel(game, search.mt, 0, 0.0), SearchKernel(game, search.mt, 1, 0.0)
        start = time.process_time()
        bounded = len(game.answers) + sum(kernel.cost(b, left, a, greedy.cost(b, left, a, INF) + 1)
                                          for _, b, a in children)
        bounded_s = time.process_time() - start
        kernel, greedy = SearchKernel(game, search.mt, 0, 0.0), SearchKernel(game, search.mt, 1, 0.0)
        start = time.process_time()
        upper, _ = search.opener_cost(greedy, guess, INF)
        whole, _ = search.opener_cost(kernel, guess, upper + 1)
        whole_s = time.process_time() - start
        if not plain == bounded == whole:
            raise SystemExit(f"{word}: the three searches disagree ({plain}, {bounded}, {whole})")
        line = (f"| {word} | {plain:,} | {max(b.size for _, b, _ in children):,} | {plain_s:.1f} | {bounded_s:.1f} "
                f"| {whole_s:.1f} |")
        lines.append(line)
        print(line, flush=True)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
