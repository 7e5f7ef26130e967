"""A lower bound on the list no one can solve: every one of the 14,855 words as a possible answer.

No optimum is known for this list (docs: "Transfer protocol"). The solver's bound from one scan of
the start (every guess's own bound: its buckets each need two guesses but one) is weak there. This
script proves a stronger one, two levels deep: for every opener ``g``, ``n`` plus, for each bucket
``B`` its tiles leave, the solver's one-scan bound of ``B`` (:meth:`~guessgym.baselines.optimal.
SearchKernel.scan_bound` over every guess, without the attempt limit, so it holds for any strategy
that wins every game); the least over all openers bounds the total guesses of every strategy that
wins every game. Each opener costs about half a second on one core (two hours in all), so the
openers are shared among ``--jobs`` processes; the bounds found are kept in ``--out`` as they come
(a stopped run continues), with the least, its opener and the seconds spent.

Usage (from the repository root)::

    python scripts/every_word_bound.py [--jobs 2] [--out results/transfer/every_word_bound.json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

OUT = Path("results/transfer/every_word_bound.json")
CHUNK = 64

_values: Any = None


def every_word_game() -> Any:
    from guessgym.envs.game import wordle

    words = sorted(wordle(word_list="nyt2023").guesses)
    return wordle(answers=words, guesses=words)


def _start_worker() -> None:
    global _values
    from guessgym.baselines.move_values import StateValues

    _values = StateValues(every_word_game())


def opener_bound(guess: int) -> tuple[int, int]:
    """``(guess, bound)``: ``n`` plus the one-scan bound of each bucket the opener leaves."""
    values = _values
    low = values.bounds().low
    total = int(values.everyone.size)
    for pattern, bucket in values.split(values.everyone, guess):
        if pattern != values.kernel.green:
            total += int(low.scan_bound(bucket, max(bucket.size, 1), values.all_guesses, 2 * bucket.size - 1))
    return guess, total


def _chunk(guesses: list[int]) -> list[tuple[int, int]]:
    return [opener_bound(g) for g in guesses]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--out", type=Path, default=OUT, help="the results file (read first: a run continues)")
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long (the file keeps what "
                        "was found)")
    args = parser.parse_args()
    game = every_word_game()
    found: dict[str, int] = {}
    spent = 0.0
    if args.out.is_file():
        previous = json.loads(args.out.read_text())
        if previous.get("fingerprint") == game.fingerprint:
            found, spent = dict(previous["openers"]), float(previous["seconds"])
    todo = [i for i, w in enumerate(game.guesses) if w not in found]
    began = time.perf_counter()
    deadline = None if args.minutes is None else began + 60 * args.minutes

    def save() -> None:
        best = min(found, key=lambda w: (found[w], w)) if found else None
        data = {"command": "python scripts/every_word_bound.py", "python": platform.python_version(),
                "fingerprint": game.fingerprint, "answers": len(game.answers), "openers_total": len(game.guesses),
                "openers_done": len(found), "complete": len(found) == len(game.guesses),
                "lower_bound": found[best] if best is not None and len(found) == len(game.guesses) else None,
                "least_so_far": found[best] if best is not None else None, "least_opener": best,
                "seconds": round(spent + time.perf_counter() - began, 1),
                "openers": dict(sorted(found.items()))}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.out.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=0) + "\n")
        tmp.replace(args.out)

    from guessgym.envs.matrix import PatternMatrix

    PatternMatrix.for_game(game)  # built once here; the workers (forked) find it in memory
    chunks = [todo[i : i + CHUNK] for i in range(0, len(todo), CHUNK)]
    with multiprocessing.get_context("fork").Pool(args.jobs, initializer=_start_worker) as pool:
        for k, rows in enumerate(pool.imap(_chunk, chunks)):
            found.update({game.guesses[g]: b for g, b in rows})
            if k % 8 == 0:
                save()
                print(f"{len(found):,}/{len(game.guesses):,} openers, least {min(found.values()):,}", flush=True)
            if deadline is not None and time.perf_counter() > deadline:
                pool.terminate()
                break
    save()
    values = np.array(list(found.values()))
    print(f"done {len(found):,} openers: least {values.min():,}; {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
