"""A setting of the exact search tried against another on the same openers: CPU seconds per opener.

The exact search has three tuning settings: ``scan_min``, the fewest answers a set or bucket needs
before :func:`least_lb_scan` bounds it (``PRECHECK_MIN``), ``block_after``, the bucket scans after
which a node scans a copy of its rows (``BLOCK_AFTER``), both read from its kernel's ``params``, and
``chunk``, the guesses :func:`least_lb_scan` scores together (its scratch table's rows:
``BYTE_CHUNK`` for Wordle, ``BIT_CHUNK`` for Nerdle).
This solves each opener of the first-move benchmark's seeded sample (``bench_first_move.py``: cold
memo, ``StateValues.after``) once per value, in one process, the values taking turns (their order
reversed every other opener, so both see the same load), checks every value finds the same total,
and prints each opener's seconds and the sums.

Usage (from the repository root)::

    python benchmarks/bench_search_params.py --mode normal --setting scan_min --values 16 10 --openers 0:34
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from guessgym.baselines.move_values import StateValues
from guessgym.envs.game import make_game

IDS = {"normal": "guessgym/Wordle-v1", "hard": "guessgym/WordleHard-v1", "nerdle": "guessgym/Nerdle-v1",
       "midi": "guessgym/MidiNerdle-v1"}
#: where each setting sits in the kernel's ``params`` (:class:`guessgym.baselines.optimal.SearchKernel`);
#: ``chunk`` (-1) is the row count of its scratch table ``seen``
SETTINGS = {"scan_min": 5, "block_after": 6, "chunk": -1}


def solve(game: object, guess: int, slot: int, value: int) -> tuple[int, float]:
    """The opener's total and the CPU seconds it took from a cold memo with the setting at ``value``."""
    values = StateValues(game)  # type: ignore[arg-type]
    if slot < 0:
        values.kernel.seen = np.zeros((value, values.kernel.seen.shape[1]), np.uint64)
    else:
        values.kernel.params[slot] = value
    start = time.process_time()
    total, _ = values.after(values.everyone, guess, game.max_attempts, values.all_guesses)  # type: ignore[attr-defined]
    return total, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=sorted(IDS), default="normal")
    parser.add_argument("--setting", choices=sorted(SETTINGS), default="scan_min")
    parser.add_argument("--values", type=int, nargs="+", required=True)
    parser.add_argument("--openers", default="0:20", help="a slice START:STOP of the seed-0 sample of 100")
    args = parser.parse_args()
    game = make_game(IDS[args.mode])
    start, stop = (int(x) for x in args.openers.split(":"))
    sample = [int(g) for g in np.random.default_rng(0).choice(len(game.guesses), size=100, replace=False)][start:stop]
    slot = SETTINGS[args.setting]
    solve(game, 0, slot, args.values[0])  # compiles the kernels (untimed)
    sums = dict.fromkeys(args.values, 0.0)
    print(f"# python benchmarks/bench_search_params.py --mode {args.mode} --setting {args.setting} "
          f"--values {' '.join(map(str, args.values))} --openers {args.openers}")
    for i, guess in enumerate(sample):
        got = {v: solve(game, guess, slot, v) for v in (args.values if i % 2 == 0 else args.values[::-1])}
        if len({total for total, _ in got.values()}) != 1:
            raise SystemExit(f"{game.guesses[guess]}: the settings found different totals {got}")
        for v in args.values:
            sums[v] += got[v][1]
        print(game.guesses[guess], got[args.values[0]][0], "  ".join(f"{args.setting}={v}: {got[v][1]:.2f} s"
                                                                     for v in args.values), flush=True)
    print("sums:", "  ".join(f"{args.setting}={v}: {s:.1f} s" for v, s in sums.items()),
          f"({sums[args.values[-1]] / sums[args.values[0]]:.2f}x the first)")


if __name__ == "__main__":
    main()
