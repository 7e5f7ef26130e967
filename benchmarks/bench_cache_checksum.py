"""What verifying a pattern-matrix cache file costs, next to loading it.

For each game's cached matrix (built first if missing), the best of ``--rounds`` timings of: a warm
``np.load`` of the file, guessgym's checksum (:func:`guessgym.infra.checksum.array_checksum`, the
scheme the cache uses), and the standard library's SHA-256, BLAKE2b and CRC-32 of the same bytes.
It prints each as seconds and as a ratio to the load, measured in one run; the point of the
choice is that verification should add little to a warm load.

Usage (from the repository root)::

    python benchmarks/bench_cache_checksum.py [--nerdle] [--rounds 5]

``--nerdle`` adds the classic Nerdle matrix (17,723 x 17,723 uint16, 628 MB).
"""

from __future__ import annotations

import argparse
import hashlib
import time
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from guessgym.envs.game import Game, nerdle, wordle
from guessgym.envs.matrix import PatternMatrix, cached_files
from guessgym.infra.checksum import array_checksum


def best(fn: Callable[[], Any], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def measure(game: Game, rounds: int) -> None:
    PatternMatrix.for_game(game)  # builds and caches it if needed
    (path, *_) = cached_files(game.fingerprint)
    data = np.load(path)
    buf = memoryview(np.ascontiguousarray(data)).cast("B")
    array_checksum(data)  # compile
    load = best(lambda: np.load(path), rounds)
    rows = {
        "np.load (warm)": load,
        "guessgym sm64": best(lambda: array_checksum(data), rounds),
        "zlib.crc32": best(lambda: zlib.crc32(buf), rounds),
        "sha256": best(lambda: hashlib.sha256(buf).digest(), rounds),
        "blake2b": best(lambda: hashlib.blake2b(buf).digest(), rounds),
    }
    print(f"\n{game.name}: {data.shape[0]:,} x {data.shape[1]:,} {data.dtype}, {data.nbytes / 1e6:,.0f} MB")
    print(f"{'':18s} {'seconds':>9s} {'x load':>8s} {'GB/s':>7s}")
    for name, seconds in rows.items():
        print(f"{name:18s} {seconds:9.4f} {seconds / load:8.2f} {data.nbytes / seconds / 1e9:7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nerdle", action="store_true", help="also the classic Nerdle matrix (628 MB)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    games = [wordle()] + ([nerdle(8)] if args.nerdle else [])
    for game in games:
        measure(game, args.rounds)


if __name__ == "__main__":
    main()
