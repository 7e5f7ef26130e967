"""Scoring: one guess against one answer, and whole pattern matrices.

A *pattern* is the feedback for one guess, encoded as a base-3 integer: position ``i`` contributes
``tile_i * 3**i`` with tile 0 = grey/black (absent), 1 = yellow/purple (elsewhere), 2 = green (right
place). The repeated-symbol rule is the two-pass rule of the research documents: greens are marked
first, then, left to right, a symbol is yellow only while the answer still has an unmatched copy of
it; every other copy is grey.

Three textual forms are supported:

* tiles: ``"G"`` green, ``"Y"`` yellow, ``"B"`` grey (``pattern_to_tiles``/``tiles_to_pattern``);
* marks: ``"*"`` green, ``"+"`` yellow, ``"_"`` grey, as in Pawson 2023
  (``pattern_to_marks``/``marks_to_pattern``);
* digits: ``"2"`` green, ``"1"`` yellow, ``"0"`` grey, as in Luque, Jo and Warner 2022.

Examples:
    >>> pattern_to_tiles(score("11+11=22", "32-21=11"), 8)
    'YYBBGGYY'
    >>> pattern_to_marks(score("cabal", "recap"), 5)
    '+__*_'
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit, prange

GREY, YELLOW, GREEN = 0, 1, 2
TILE_LETTERS = "BYG"
MARK_SYMBOLS = "_+*"
_TILE_ALIASES = {
    "B": GREY, "b": GREY, "_": GREY, "0": GREY, "x": GREY, "X": GREY, "-": GREY, ".": GREY,
    "Y": YELLOW, "y": YELLOW, "+": YELLOW, "1": YELLOW, "P": YELLOW, "p": YELLOW,
    "G": GREEN, "g": GREEN, "*": GREEN, "2": GREEN,
}

#: Version of the scoring rule and pattern encoding; part of every cache key.
KERNEL_VERSION = 1


def score(guess: str, answer: str) -> int:
    """Score ``guess`` against ``answer`` and return the base-3 pattern.

    Raises:
        ValueError: if the two strings differ in length.
    """
    if len(guess) != len(answer):
        raise ValueError(
            f"guess {guess!r} has length {len(guess)} but answer {answer!r} has length {len(answer)}"
        )
    unmatched: dict[str, int] = {}
    for g, a in zip(guess, answer):
        if g != a:
            unmatched[a] = unmatched.get(a, 0) + 1
    pattern = 0
    power = 1
    for g, a in zip(guess, answer):
        if g == a:
            pattern += GREEN * power
        elif unmatched.get(g, 0) > 0:
            unmatched[g] -= 1
            pattern += YELLOW * power
        power *= 3
    return pattern


def all_green(length: int) -> int:
    """The pattern of a solved guess: every tile green."""
    return (3**length - 1)  # sum of 2 * 3**i for i < length


def num_patterns(length: int) -> int:
    """How many distinct pattern codes exist for a given length (``3**length``)."""
    return 3**length


def pattern_dtype(length: int) -> np.dtype:
    """Smallest unsigned dtype that holds every pattern of ``length`` tiles."""
    return np.dtype(np.uint8) if 3**length <= 256 else np.dtype(np.uint16)


def pattern_to_list(pattern: int, length: int) -> list[int]:
    """Tiles of a pattern as a list of ints (0 grey, 1 yellow, 2 green), position 0 first."""
    if not 0 <= pattern < 3**length:
        raise ValueError(f"pattern {pattern} is outside 0..{3**length - 1} for length {length}")
    tiles = []
    for _ in range(length):
        pattern, t = divmod(pattern, 3)
        tiles.append(t)
    return tiles


def list_to_pattern(tiles: list[int] | tuple[int, ...]) -> int:
    """Inverse of :func:`pattern_to_list`."""
    pattern = 0
    for i, t in enumerate(tiles):
        if t not in (GREY, YELLOW, GREEN):
            raise ValueError(f"tile {t!r} at position {i} is not 0 (grey), 1 (yellow) or 2 (green)")
        pattern += t * 3**i
    return pattern


@functools.lru_cache(maxsize=1 << 16)
def pattern_to_tiles(pattern: int, length: int) -> str:
    """Pattern as a tile string: ``G`` green, ``Y`` yellow, ``B`` grey (memoised: a game of length
    ``n`` has ``3**n`` patterns, and reports turn millions of moves into tiles)."""
    return "".join(TILE_LETTERS[t] for t in pattern_to_list(pattern, length))


def pattern_to_marks(pattern: int, length: int) -> str:
    """Pattern as the ``*+_`` marks of Pawson 2023."""
    return "".join(MARK_SYMBOLS[t] for t in pattern_to_list(pattern, length))


def tiles_to_pattern(text: str, length: int | None = None) -> int:
    """Parse feedback typed by a person into a pattern.

    Accepts tile letters (``GYB``, any case; ``P`` for Nerdle's purple), marks (``*+_``) or digits
    (``210``), mixed freely, ignoring spaces.

    Raises:
        ValueError: naming the offending character or the wrong length.
    """
    cleaned = text.replace(" ", "")
    if length is not None and len(cleaned) != length:
        raise ValueError(
            f"feedback {text!r} has {len(cleaned)} tiles but the game has {length}; "
            "type one tile per symbol: G/*/2 green, Y/P/+/1 yellow, B/_/0 grey"
        )
    tiles = []
    for i, ch in enumerate(cleaned):
        if ch not in _TILE_ALIASES:
            raise ValueError(
                f"feedback {text!r}: character {ch!r} at position {i + 1} is not a tile; "
                "allowed: G/*/2 green, Y/P/+/1 yellow, B/_/0 grey"
            )
        tiles.append(_TILE_ALIASES[ch])
    return list_to_pattern(tiles)


def marks_to_pattern(marks: str) -> int:
    """Parse ``*+_`` marks (Pawson 2023) into a pattern."""
    bad = [c for c in marks if c not in MARK_SYMBOLS]
    if bad:
        raise ValueError(f"marks {marks!r} contain {bad[0]!r}; allowed: '*' green, '+' yellow, '_' grey")
    return list_to_pattern([MARK_SYMBOLS.index(c) for c in marks])


def encode(words: list[str] | tuple[str, ...], alphabet: str) -> np.ndarray:
    """Encode equal-length strings as a ``(len(words), length)`` uint8 array of symbol indices."""
    if not words:
        return np.zeros((0, 0), dtype=np.uint8)
    lookup = np.full(256, 255, dtype=np.uint8)
    for i, ch in enumerate(alphabet):
        lookup[ord(ch)] = i
    raw = np.frombuffer("".join(words).encode("ascii"), dtype=np.uint8)
    codes = lookup[raw].reshape(len(words), -1)
    if (codes == 255).any():
        row = int(np.nonzero((codes == 255).any(axis=1))[0][0])
        raise ValueError(f"{words[row]!r} contains a symbol outside the alphabet {alphabet!r}")
    return codes


@njit(cache=True, nogil=True, inline="always")
def _powers_of_three(length: int) -> np.ndarray:
    pow3 = np.empty(length, dtype=np.int64)
    p = 1
    for i in range(length):
        pow3[i] = p
        p *= 3
    return pow3


@njit(cache=True, nogil=True, inline="always")
def _symbol_sets(words: np.ndarray) -> np.ndarray:
    """Each word's symbols as a 64-bit mask."""
    sets = np.zeros(words.shape[0], dtype=np.int64)
    for w in range(words.shape[0]):
        m = np.int64(0)
        for i in range(words.shape[1]):
            m |= np.int64(1) << words[w, i]
        sets[w] = m
    return sets


@njit(cache=True, nogil=True, inline="always")
def _distinct(guesses: np.ndarray) -> np.ndarray:
    """Whether each guess has no repeated symbol."""
    out = np.ones(guesses.shape[0], dtype=np.bool_)
    for gi in range(guesses.shape[0]):
        seen = np.int64(0)
        for i in range(guesses.shape[1]):
            bit = np.int64(1) << guesses[gi, i]
            if seen & bit:
                out[gi] = False
            seen |= bit
    return out


@njit(cache=True, nogil=True, inline="always")
def _pattern(guesses: np.ndarray, gi: int, distinct: bool, answers: np.ndarray, ai: int, aset: np.int64,
             counts: np.ndarray, pow3: np.ndarray) -> int:
    """The tiles of guess ``gi`` against answer ``ai``. For a guess without repeated symbols a
    non-green symbol is yellow exactly when the answer contains it anywhere (no other copy in the
    guess competes), read from the answer's symbol set; otherwise the copies are counted
    (``counts``: zeros on entry and on return)."""
    length = guesses.shape[1]
    pattern = 0
    if distinct:
        for i in range(length):
            g = guesses[gi, i]
            if g == answers[ai, i]:
                pattern += 2 * pow3[i]
            elif (aset >> g) & 1:
                pattern += pow3[i]
        return pattern
    for i in range(length):
        if guesses[gi, i] == answers[ai, i]:
            pattern += 2 * pow3[i]
        else:
            counts[answers[ai, i]] += 1
    for i in range(length):
        g = guesses[gi, i]
        if g != answers[ai, i] and counts[g] > 0:
            counts[g] -= 1
            pattern += pow3[i]
    for i in range(length):
        counts[answers[ai, i]] = 0
    return pattern


@njit(cache=True, parallel=True, nogil=True)
def _fill_matrix(guesses: np.ndarray, answers: np.ndarray, n_symbols: int, out: np.ndarray) -> None:
    """``out[guess, answer]``, in parallel over guesses."""
    pow3 = _powers_of_three(guesses.shape[1])
    answer_sets = _symbol_sets(answers)
    distinct = _distinct(guesses)
    for gi in prange(guesses.shape[0]):
        counts = np.zeros(n_symbols, dtype=np.int32)
        if distinct[gi]:  # the branch taken once per guess, not per answer
            for ai in range(answers.shape[0]):
                out[gi, ai] = _pattern(guesses, gi, True, answers, ai, answer_sets[ai], counts, pow3)
        else:
            for ai in range(answers.shape[0]):
                out[gi, ai] = _pattern(guesses, gi, False, answers, ai, answer_sets[ai], counts, pow3)


@njit(cache=True, parallel=True, nogil=True)
def _fill_matrix_transposed(guesses: np.ndarray, answers: np.ndarray, n_symbols: int, out: np.ndarray) -> None:
    """``out[answer, guess]``, in parallel over answers: each answer's row written in order."""
    pow3 = _powers_of_three(guesses.shape[1])
    answer_sets = _symbol_sets(answers)
    distinct = _distinct(guesses)
    for ai in prange(answers.shape[0]):
        counts = np.zeros(n_symbols, dtype=np.int32)
        aset = answer_sets[ai]
        for gi in range(guesses.shape[0]):
            out[ai, gi] = _pattern(guesses, gi, distinct[gi], answers, ai, aset, counts, pow3)


def pattern_matrix(
    guess_codes: np.ndarray, answer_codes: np.ndarray, n_symbols: int, out: np.ndarray | None = None, *,
    transposed: bool = False,
) -> np.ndarray:
    """Fill the ``(guesses, answers)`` pattern matrix for encoded words (see :func:`encode`), or
    with ``transposed`` the ``(answers, guesses)`` one (the exact search's layout, written in
    place rather than transposed after).

    The kernel is compiled with numba and runs in parallel over guesses (answers when transposed).
    """
    if guess_codes.ndim != 2 or answer_codes.ndim != 2:
        raise ValueError("guess_codes and answer_codes must be 2-D arrays of symbol indices")
    if guess_codes.shape[1] != answer_codes.shape[1]:
        raise ValueError(
            f"guesses have length {guess_codes.shape[1]} but answers have length {answer_codes.shape[1]}"
        )
    if n_symbols > 63:
        raise ValueError(
            f"alphabets of at most 63 symbols are supported (symbol sets are 64-bit masks), got {n_symbols}"
        )
    length = guess_codes.shape[1]
    shape = (guess_codes.shape[0], answer_codes.shape[0])
    if out is None:
        out = np.empty(shape[::-1] if transposed else shape, dtype=pattern_dtype(length))
    if guess_codes.shape[0] and answer_codes.shape[0]:
        fill = _fill_matrix_transposed if transposed else _fill_matrix
        fill(np.ascontiguousarray(guess_codes), np.ascontiguousarray(answer_codes), n_symbols, out)
    return out
