"""A fast keyed checksum of an array's bytes, to catch corrupted cache files.

A pattern-matrix cache file is 30 MB (Wordle) to 600 MB (classic Nerdle). One changed cell with an
intact header would otherwise be loaded silently and make the environment score wrongly, so every
cache file carries a checksum of its data that is verified on load (once per process and game,
since matrices are memoised). A cryptographic hash of 600 MB costs about as much as reading the
file again (``benchmarks/bench_cache_checksum.py`` measures both); the threat is corruption, not an
adversary, so this is a 64-bit sum, over the data as 64-bit words, of the SplitMix64 finaliser of
each word plus its position times a key. The finaliser is a bijection, so any single changed word
changes the sum; any other change goes unnoticed with probability about 2**-64. One compiled
loop computes it at about 8-9 GB/s on one core, half a warm ``np.load``. It runs on one thread on
purpose: a parallel kernel starts numba's thread pool, which changed torch's thread use and so the
floating-point results of a training run that loaded a matrix half-way (the resume tests caught it).

Examples:
    >>> import numpy as np
    >>> a = np.arange(1000, dtype=np.uint8)
    >>> b = a.copy(); b[500] ^= 1
    >>> array_checksum(a) == array_checksum(a.copy()), array_checksum(a) == array_checksum(b)
    (True, False)
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Names the scheme in file names, so that another scheme would never be compared with this one.
SCHEME = "sm64"

_KEY = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, nogil=True)
def _sum_words(words: np.ndarray) -> np.uint64:  # pragma: no cover - compiled
    total = np.uint64(0)
    for i in range(words.shape[0]):
        z = words[i] + np.uint64(i + 1) * _KEY
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        total += z ^ (z >> np.uint64(31))
    return total


def array_checksum(array: np.ndarray) -> str:
    """16 hex digits identifying ``array``'s bytes (and their length); contiguous arrays are not copied."""
    data = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    n_words, tail = divmod(data.size, 8)
    words = data[: n_words * 8].view(np.uint64)
    last = np.zeros(8, dtype=np.uint8)
    last[:tail] = data[n_words * 8 :]
    extra = np.array([last.view(np.uint64)[0], np.uint64(data.size)], dtype=np.uint64)
    total = (int(_sum_words(words)) + 3 * int(_sum_words(extra))) % 2**64
    return f"{total:016x}"


__all__ = ["SCHEME", "array_checksum"]
