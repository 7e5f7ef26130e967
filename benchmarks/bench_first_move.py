"""The first move of a game judged from nothing: how long the value of an opener takes.

Judging a game's first move needs the opener's whole tree: the fewest guesses over every answer
with optimal play after it (``StateValues.after`` at the start). This draws a seeded sample of
openers from every guess (weak ones included), and for each one solves its tree from a cold memo
(a new ``StateValues`` with no cache folder; the numba kernels compiled once beforehand, untimed),
in normal and hard mode, measuring CPU seconds of this one process, bounded by ``--budget`` per
opener (an opener past it is counted as over budget, not waited for). Prints the median, the 90th
percentile and the worst, and the slowest openers. Issue 42's aim: a median under 5 s and none over
60 s on one core.

Usage (from the repository root)::

    python benchmarks/bench_first_move.py [--openers 100] [--seed 0] [--budget 60] [--modes normal hard]
                                          [--out results/benchmarks/first_move.txt]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from guessgym.baselines.move_values import StateValues, ValuesTimedOut  # noqa: E402
from guessgym.envs.game import make_game  # noqa: E402

IDS = {"normal": "guessgym/Wordle-v1", "hard": "guessgym/WordleHard-v1"}


def opener_seconds(game: object, guess: int, budget: float) -> float | None:
    """CPU seconds to solve ``guess``'s tree from a cold memo, or None past ``budget``."""
    values = StateValues(game)  # type: ignore[arg-type]
    values.set_budget(budget)
    start = time.process_time()
    try:
        values.after(values.everyone, guess, game.max_attempts, values.all_guesses)  # type: ignore[attr-defined]
    except ValuesTimedOut:
        return None
    return time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openers", type=int, default=100, help="openers drawn per mode (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per opener (default: %(default)s)")
    parser.add_argument("--modes", nargs="+", choices=sorted(IDS), default=["normal", "hard"])
    parser.add_argument("--out", help="also write the report to this file")
    args = parser.parse_args()
    lines = [f"# python benchmarks/bench_first_move.py --openers {args.openers} --seed {args.seed} --budget "
             f"{args.budget:g} --modes {' '.join(args.modes)}", ""]
    for mode in args.modes:
        game = make_game(IDS[mode])
        rng = np.random.default_rng(args.seed)
        openers = [int(g) for g in rng.choice(len(game.guesses), size=args.openers, replace=False)]
        opener_seconds(game, game.guess_index["salet"], args.budget)  # compiles the kernels (untimed)
        timed: list[tuple[float, str]] = []
        over: list[str] = []
        for n, guess in enumerate(openers, start=1):
            seconds = opener_seconds(game, guess, args.budget)
            word = game.guesses[guess]
            if seconds is None:
                over.append(word)
            else:
                timed.append((seconds, word))
            print(f"{mode} {n}/{len(openers)} {word}: {'over budget' if seconds is None else f'{seconds:.2f} s'}",
                  file=sys.stderr, flush=True)
        times = sorted(t for t, _ in timed) + [float("inf")] * len(over)  # over budget: slower than any timed
        def shown(t: float) -> str:
            return f"{t:.2f} s" if t != float("inf") else f"over {args.budget:g} s"

        median = statistics.median(times)
        p90 = times[int(0.9 * (len(times) - 1))]
        slowest = ", ".join(f"{w} {t:.1f} s" for t, w in sorted(timed, reverse=True)[:5])
        worst = max((t for t, _ in timed), default=float("nan"))
        lines += [f"## {IDS[mode]} ({len(game.answers):,} answers, {len(game.guesses):,} guesses), {len(openers)} "
                  f"openers, CPU seconds per opener, cold memo",
                  f"median {shown(median)}; 90th percentile {shown(p90)}; worst timed {worst:.2f} s; "
                  f"over the {args.budget:g} s budget: {len(over)} ({', '.join(over) or 'none'})",
                  f"slowest timed: {slowest}", ""]
    report = "\n".join(lines)
    print(report)
    if args.out:
        Path(args.out).write_text(report + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
