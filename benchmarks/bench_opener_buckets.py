"""Where one opener's exact value spends its time: each bucket of its first split solved from a
cold memo, largest first, with the CPU seconds, search nodes and bound scans of each.

Issue 52 asks for an exact search fast on any opener; the first-move benchmark
(``bench_first_move.py``) says how long openers take, this says where one of them does. A weak
opener such as mumsy spends nearly all of its time proving the optimum of its largest bucket.

Usage (from the repository root; one core)::

    python benchmarks/bench_opener_buckets.py mumsy [--hard] [--min-seconds 0.5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from guessgym.baselines import search_kernels as K  # noqa: E402
from guessgym.baselines.move_values import StateValues  # noqa: E402
from guessgym.envs.game import make_game, nerdle  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("opener")
    parser.add_argument("--hard", action="store_true", help="hard mode")
    parser.add_argument("--min-seconds", type=float, default=0.5, help="list buckets that took at least this long")
    args = parser.parse_args()
    game = make_game("guessgym/WordleHard-v1" if args.hard else "guessgym/Wordle-v1")
    if args.opener not in game.guess_index:
        sys.exit(f"{args.opener!r} is not a guess of {game.name}")
    values = StateValues(game)  # no cache folder: a cold memo
    everyone, left, allowed = values.everyone, game.max_attempts, values.all_guesses
    guess = game.guess_index[args.opener]
    small = StateValues(nerdle(5, hard_mode=args.hard))  # the same kernels (5 symbols, uint8 tiles), compiled untimed
    small.after_total(small.everyone, 0, 6, small.all_guesses)
    buckets = sorted(values.split(everyone, guess), key=lambda pb: -pb[1].size)
    print(f"{args.opener} on {game.name}: {len(buckets)} buckets, the largest {[int(b.size) for _, b in buckets[:6]]}")
    started = time.process_time()
    stats = values.kernel.stats
    for pattern, bucket in buckets:
        before = time.process_time(), int(stats[K.NODES]), int(stats[K.SCANS]), int(stats[K.BOUND_SCANS])
        values.bucket_after(everyone, guess, pattern, left, allowed)
        seconds = time.process_time() - before[0]
        if seconds >= args.min_seconds:
            print(f"  bucket of {bucket.size:,} answers: {seconds:.1f} s CPU, {int(stats[K.NODES]) - before[1]:,} "
                  f"nodes, {int(stats[K.SCANS]) - before[2]:,} scans, {int(stats[K.BOUND_SCANS]) - before[3]:,} bucket "
                  "scans")
    total = values.after_total(everyone, guess, left, allowed)
    print(f"total {total:,} (mean {total / everyone.size:.4f}) in {time.process_time() - started:.1f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
