"""Word lists shipped with the package, and validation of user-supplied lists.

Presets (see ``envs/data/PROVENANCE.md``):

============ ======= ================================== ======================================
preset       lengths answers                            allowed guesses
============ ======= ================================== ======================================
``nyt``      5       2,309 (NYT-era answers)            12,947 (NYT-era allowed list)
``original`` 5       2,315 (pre-NYT answers)            12,972 (pre-NYT allowed list)
``nyt2022``  5       2,309 (NYT-era answers)            14,855 (the larger list of Sept 2022)
``nyt2023``  5       3,158 (the extended list of 2023)  14,855 (the larger list of Sept 2022)
``english``  3-9     SCOWL size 50 (common words)       SCOWL size 70 (a superset)
============ ======= ================================== ======================================
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from ..infra.inputs import read_input

WORDLE_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
PRESETS = ("nyt", "original", "nyt2022", "nyt2023", "english")
#: The 5-letter presets: (answers file, allowed-guesses file) under ``data/wordle``.
WORDLE_FILES = {
    "nyt": ("answers_2309.txt", "allowed_12947.txt"),
    "original": ("answers_2315.txt", "allowed_12972.txt"),
    "nyt2022": ("answers_2309.txt", "allowed_14855.txt"),
    "nyt2023": ("answers_3158.txt", "allowed_14855.txt"),
}
ENGLISH_LENGTHS = range(3, 10)

WordSource = str | os.PathLike[str] | Iterable[str]


def _read_data(relative: str) -> tuple[str, ...]:
    data = resources.files(__package__ or "guessgym.envs").joinpath("data")
    text = data.joinpath(relative).read_text(encoding="ascii")
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def preset_lists(preset: str, length: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return ``(answers, guesses)`` for a named preset and word length.

    Raises:
        ValueError: for an unknown preset or a length the preset does not cover.
    """
    if preset in WORDLE_FILES:
        if length != 5:
            raise ValueError(
                f"word list {preset!r} only has 5-letter words, got length={length}; "
                "use word_list='english' for lengths 3 to 9"
            )
        answers, guesses = WORDLE_FILES[preset]
        return _read_data(f"wordle/{answers}"), _read_data(f"wordle/{guesses}")
    if preset == "english":
        if length not in ENGLISH_LENGTHS:
            raise ValueError(f"word list 'english' covers lengths 3 to 9, got length={length}")
        return (
            _read_data(f"english/scowl50/len{length}.txt"),
            _read_data(f"english/scowl70/len{length}.txt"),
        )
    raise ValueError(f"unknown word list {preset!r}; choose one of {', '.join(PRESETS)}")


def load_words(source: WordSource, what: str) -> tuple[str, ...]:
    """Read words from a file path (one per line, blank lines and ``#`` comments skipped) or an
    iterable of strings. Entries are stripped and lower-cased; order is kept.

    Files are UTF-8 (a byte-order mark is skipped) or UTF-16 with a byte-order mark.

    Raises:
        FileNotFoundError: the path does not exist (or is a directory: ``IsADirectoryError``).
        ValueError: the file is not text in those encodings (naming the file and the byte).
        TypeError: ``source`` is neither a path nor an iterable of strings.
    """
    if isinstance(source, (str, os.PathLike)):
        return _read_word_file(Path(source), what)
    if not isinstance(source, Iterable):
        raise TypeError(
            f"{what}s must be a list of words or the path of a file with one per line, "
            f"got {source!r} ({type(source).__name__})"
        )
    words = []
    for i, item in enumerate(source):
        if not isinstance(item, str):
            raise TypeError(f"{what} entry {i} is {item!r} ({type(item).__name__}), expected a string")
        words.append(item.strip().lower())
    return tuple(words)


def _read_word_file(path: Path, what: str) -> tuple[str, ...]:
    data = read_input(path, f"{what} file")
    encoding = "utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{what} file {str(path)!r} is not {encoding.replace('-sig', '')} text "
            f"(byte {exc.start}: {exc.reason}); save it as UTF-8, one entry per line"
        ) from None
    lines = text.splitlines()
    return tuple(s.strip().lower() for s in lines if s.strip() and not s.lstrip().startswith("#"))


def validate_words(
    words: tuple[str, ...], length: int, alphabet: str, what: str
) -> tuple[str, ...]:
    """Check length, symbols and duplicates; raise ``ValueError`` naming the first bad entry."""
    if not words:
        raise ValueError(f"{what} list is empty")
    allowed = set(alphabet)
    seen: set[str] = set()
    for i, w in enumerate(words):
        if len(w) != length:
            raise ValueError(f"{what} entry {i} {w!r} has length {len(w)}, expected {length}")
        bad = [c for c in w if c not in allowed]
        if bad:
            raise ValueError(
                f"{what} entry {i} {w!r} contains {bad[0]!r}; allowed symbols: {alphabet}"
            )
        if w in seen:
            raise ValueError(f"{what} entry {i} {w!r} is a duplicate")
        seen.add(w)
    return words


def check_answers_are_guesses(answers: tuple[str, ...], guesses: tuple[str, ...]) -> None:
    """Every answer must be playable as a guess."""
    allowed = set(guesses)
    for i, w in enumerate(answers):
        if w not in allowed:
            raise ValueError(f"answer entry {i} {w!r} is not in the guess list; every answer must be a valid guess")
