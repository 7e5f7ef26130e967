"""Pattern matrices (guesses x answers), cached on disk, or computed row by row when too large.

``PatternMatrix.for_game(game)`` is the one way the package obtains patterns in bulk. A full
matrix is built by the numba kernel of :mod:`guessgym.envs.scoring` and stored under the cache directory as
``patterns-<fingerprint>.<checksum>.npy``, written to a temporary file and renamed into place so that a
crash never leaves a truncated cache behind. The checksum (:mod:`guessgym.infra.checksum`) is part
of the name, so file and checksum cannot get out of step, and is verified when the file is loaded
(once per process and game); a file that fails is reported, deleted and rebuilt. Temporaries left
by killed builds are removed before a build (:func:`~guessgym.infra.atomic.remove_stale_temporaries`).
When the matrix would exceed ``max_bytes`` (for example
every valid classic Nerdle equation as a guess: 67,346 x 17,723), nothing is stored and rows or
sub-matrices are computed on demand instead.

The cache directory is ``$GUESSGYM_CACHE_DIR`` if set, otherwise ``~/.cache/guessgym``.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections import OrderedDict
from pathlib import Path

import numba
import numpy as np

from ..infra.atomic import atomic_open, remove_stale_temporaries
from ..infra.cache import CACHE_NAME, cache_dir
from ..infra.checksum import SCHEME, array_checksum
from .game import Game
from .scoring import pattern_dtype, pattern_matrix

logger = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 1 << 30  # 1 GiB: larger matrices are computed row by row

#: The largest transposed matrix :meth:`PatternMatrix.transposed` builds (the exact solver needs
#: the whole matrix in memory; every classic Nerdle equation as a guess takes 2.4 GB).
SOLVER_MAX_BYTES = 8 << 30

#: Rows kept by an on-demand matrix at least: the env and the agent ask for the same row in one
#: step, and openers are asked for in every game.
ROW_CACHE_SIZE = 64
#: Bytes of rows an on-demand matrix keeps (more rows than :data:`ROW_CACHE_SIZE` where they are
#: small): every Wordle row (30 MB), some 1,900 of classic Nerdle's.
ROW_CACHE_BYTES = 64 << 20


def solver_matrix_bytes(game: Game) -> int:
    """Bytes of ``game``'s whole pattern matrix (guesses x answers), what the exact search holds."""
    return len(game.guesses) * len(game.answers) * pattern_dtype(game.length).itemsize


def solver_matrix_refusal(game: Game, who: str) -> str | None:
    """Why ``who`` (e.g. "move analysis") cannot hold ``game``'s whole pattern matrix in memory,
    in one line naming its size and the limit, or ``None`` when it fits :data:`SOLVER_MAX_BYTES`."""
    size = solver_matrix_bytes(game)
    if size <= SOLVER_MAX_BYTES:
        return None
    return (f"{who} needs {game.name}'s whole pattern matrix in memory ({len(game.guesses):,} x "
            f"{len(game.answers):,} takes {size / 2**30:.1f} GiB, more than the exact solver's "
            f"{SOLVER_MAX_BYTES / 2**30:g} GiB)")


def transpose_into(out: np.ndarray, block: np.ndarray, column: int = 0) -> None:
    """``out[:, column:column + rows] = block.T``, a tile at a time: numpy's strided copy of a
    whole transposed matrix misses the cache on every element (3.0 s for classic Nerdle's 628 MB,
    0.4 s in tiles of 256 x 4096)."""
    rows, columns = block.shape
    for i in range(0, rows, 256):
        stop = min(i + 256, rows)
        for j in range(0, columns, 4096):
            out[j:j + 4096, column + i:column + stop] = block[i:stop, j:j + 4096].T


def atomic_save_npy(path: Path, array: np.ndarray) -> None:
    """Write ``array`` to ``path`` atomically (temporary file in the same folder, then rename)."""
    with atomic_open(path, "wb") as f:
        np.save(f, array)



def cached_files(fingerprint: str | None = None) -> list[Path]:
    """The pattern-matrix cache files (of one game fingerprint, or all), newest first."""
    folder = cache_dir()
    if not folder.is_dir():
        return []
    found = []
    for path in folder.glob("patterns-*.npy"):
        match = CACHE_NAME.match(path.name)
        if match and (fingerprint is None or match["fingerprint"] == fingerprint):
            found.append(path)
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)


def _load_verified(path: Path, shape: tuple[int, int], dtype: np.dtype) -> np.ndarray | None:
    """The matrix in ``path`` if it has the right shape, type and checksum; else delete it (warning)."""
    match = CACHE_NAME.match(path.name)
    assert match is not None
    try:
        dense = np.load(path, mmap_mode=None, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:  # EOFError: an empty (e.g. zero-length) file
        problem = f"unreadable ({exc})"
    else:
        if dense.shape != shape or dense.dtype != dtype:
            problem = f"shape {dense.shape} {dense.dtype}, expected {shape} {dtype}"
        elif match["scheme"] != SCHEME or array_checksum(dense) != match["checksum"]:
            problem = "its data does not match its checksum (the file was changed or damaged)"
        else:
            try:
                os.utime(path)  # for least-recently-used pruning (guessgym cache --prune)
            except OSError:
                pass
            return dense
    warnings.warn(f"pattern-matrix cache {path} is {problem}: deleting it and rebuilding", RuntimeWarning,
                  stacklevel=4)
    try:
        path.unlink()
    except OSError:
        pass
    return None


def apply_commutative_wins(game: Game, patterns: np.ndarray) -> None:
    """Set the all-green pattern where a guess rearranges an answer (commutative games only), in
    a full ``(guesses, answers)`` matrix."""
    for guess, answers in game.commutative_wins.items():
        patterns[guess, answers] = game.solved_pattern


class PatternMatrix:
    """Patterns of every guess against every answer of a game.

    Use :meth:`for_game`; it memoises one instance per game fingerprint within a process.

    Attributes:
        game: the game.
        dense: the full ``(n_guesses, n_answers)`` matrix, or ``None`` in on-demand mode.
    """

    _instances: dict[tuple[str, bool], PatternMatrix] = {}

    def __init__(self, game: Game, dense: np.ndarray | None) -> None:
        self.game = game
        self.dense = dense
        self.dtype = pattern_dtype(game.length)
        self._rows: OrderedDict[int, np.ndarray] = OrderedDict()
        self._rows_kept = max(ROW_CACHE_SIZE, ROW_CACHE_BYTES // max(len(game.answers) * self.dtype.itemsize, 1))

    @classmethod
    def for_game(
        cls, game: Game, *, cache: bool = True, max_bytes: int = DEFAULT_MAX_BYTES, build: bool = True
    ) -> PatternMatrix:
        """The pattern matrix of ``game``: loaded from the disk cache, computed, or on demand.

        With ``build=False`` the whole matrix is never computed here: it is used where it is already
        in this process or in the disk cache, else rows are computed on demand (what a game that
        needs each guess's tiles, not every pair's, asks for: a chat server ready in a second, not
        after a build of seconds and hundreds of MB). The patterns are the same either way.
        """
        n_bytes = len(game.guesses) * len(game.answers) * pattern_dtype(game.length).itemsize
        key = (game.fingerprint, n_bytes <= max_bytes)
        if key in cls._instances:
            return cls._instances[key]
        if not build and key[1]:
            lazy = (game.fingerprint, False)
            if lazy in cls._instances:  # looked for on disk already, when it was made
                return cls._instances[lazy]
            dense = cls._load_cached(game) if cache else None
            if dense is None:
                cls._instances[lazy] = cls(game, None)
                return cls._instances[lazy]
            cls._instances[key] = instance = cls(game, dense)
            return instance
        if n_bytes > max_bytes:
            logger.info("pattern matrix of %s would take %d bytes: computing rows on demand", game.name, n_bytes)
            instance = cls(game, None)
        else:
            instance = cls(game, cls._load_or_build(game, cache))
        cls._instances[key] = instance
        return instance

    @staticmethod
    def _load_cached(game: Game) -> np.ndarray | None:
        """The matrix from the disk cache, verified, or ``None``."""
        expected = (len(game.guesses), len(game.answers))
        for path in cached_files(game.fingerprint):
            dense = _load_verified(path, expected, pattern_dtype(game.length))
            if dense is not None:
                return dense
        return None

    @staticmethod
    def _load_or_build(game: Game, cache: bool) -> np.ndarray:
        if cache:
            dense = PatternMatrix._load_cached(game)
            if dense is not None:
                return dense
        dense = pattern_matrix(game.guess_codes, game.answer_codes, game.n_symbols)
        apply_commutative_wins(game, dense)
        if cache:
            folder = cache_dir()
            remove_stale_temporaries(folder)
            path = folder / f"patterns-{game.fingerprint}.{SCHEME}-{array_checksum(dense)}.npy"
            try:
                atomic_save_npy(path, dense)
                (folder / f"patterns-{game.fingerprint}.npy").unlink(missing_ok=True)  # guessgym < 0.3's
            except OSError as exc:  # a read-only home must not break the game
                logger.warning("could not write cache %s: %s", path, exc)
        return dense

    @classmethod
    def clear_memory(cls, keep: Game | None = None) -> None:
        """Forget the matrices memoised in this process, but ``keep``'s (the disk cache is untouched)."""
        for key in [k for k in cls._instances if keep is None or k[0] != keep.fingerprint]:
            del cls._instances[key]

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.game.guesses), len(self.game.answers))

    def transposed(self, max_bytes: int | None = None) -> np.ndarray | None:
        """Every pattern as an ``(answers, guesses)`` C-ordered array, the layout the exact search
        scans (one answer's patterns against every guess are contiguous), or ``None`` when it would
        take more than ``max_bytes`` (default :data:`SOLVER_MAX_BYTES`).

        From the dense matrix when there is one; otherwise (a matrix too large to cache, such as
        every valid classic Nerdle equation against its answers, 2.4 GB) computed straight into the
        transposed layout, so the dense matrix never exists.
        """
        if self.dense is not None:
            out = np.empty(self.shape[::-1], dtype=self.dense.dtype)
            transpose_into(out, self.dense)
            return out
        n_guesses, n_answers = self.shape
        if solver_matrix_bytes(self.game) > (SOLVER_MAX_BYTES if max_bytes is None else max_bytes):
            return None
        g = self.game
        out = pattern_matrix(g.guess_codes, g.answer_codes, g.n_symbols, transposed=True)
        for guess, wins in g.commutative_wins.items():
            out[wins, guess] = g.solved_pattern
        return out

    def row_over(self, guess: int, answers: np.ndarray) -> np.ndarray:
        """A row of ``guess`` whose entries are right at least at ``answers`` (indices): the whole
        row where it is at hand (the dense matrix, a row kept, or ``answers`` being every answer),
        else only those entries scored, the rest 0. What one game's step needs: its answer's
        pattern and its candidates', not every answer's."""
        if self.dense is not None:
            return self.dense[guess]
        if guess in self._rows or answers.size * 4 >= len(self.game.answers):
            return self.row(guess)
        out = np.zeros(len(self.game.answers), dtype=self.dtype)
        out[answers] = self._scored(guess, answers)
        return out

    def _scored(self, guess: int, answers: np.ndarray | None = None) -> np.ndarray:
        """The patterns of ``guess`` against ``answers`` (indices; ``None``: every answer), the
        commutative rule applied. One row is too little work for numba's thread pool: waking it
        costs more than the row (tens of milliseconds on a loaded machine against about 2 ms on one
        thread), so it is scored on one."""
        g = self.game
        codes = g.answer_codes if answers is None else g.answer_codes[answers]
        threads = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            row = pattern_matrix(g.guess_codes[guess : guess + 1], codes, g.n_symbols)[0]
        finally:
            numba.set_num_threads(threads)
        wins = g.commutative_wins.get(guess)
        if wins is not None:
            if answers is None:
                row[wins] = g.solved_pattern
            else:
                row[np.isin(answers, wins)] = g.solved_pattern
        return row

    def row(self, guess: int) -> np.ndarray:
        """Patterns of one guess against every answer."""
        if self.dense is not None:
            return self.dense[guess]
        row = self._rows.get(guess)
        if row is not None:
            self._rows.move_to_end(guess)
            return row
        row = self._scored(guess)
        row.setflags(write=False)
        self._rows[guess] = row
        if len(self._rows) > self._rows_kept:
            self._rows.popitem(last=False)
        return row

    def pattern(self, guess: int, answer: int) -> int:
        """Pattern of one guess against one answer."""
        if self.dense is not None:
            return int(self.dense[guess, answer])
        return self.game.score(self.game.guesses[guess], self.game.answers[answer])  # microseconds, same rule

    def submatrix(self, guesses: np.ndarray | slice | None, answers: np.ndarray | slice | None) -> np.ndarray:
        """Patterns of a subset of guesses against a subset of answers (``None`` means all)."""
        gsel = slice(None) if guesses is None else guesses
        asel = slice(None) if answers is None else answers
        if self.dense is not None:
            if isinstance(gsel, slice) or isinstance(asel, slice):
                return self.dense[gsel][:, asel]
            return self.dense[np.ix_(gsel, asel)]
        g = self.game
        out = pattern_matrix(g.guess_codes[gsel], g.answer_codes[asel], g.n_symbols)
        if g.commutative_wins:
            rows = np.arange(len(g.guesses))[gsel]
            columns = np.arange(len(g.answers))[asel]
            position = {int(a): j for j, a in enumerate(columns)}
            for i, guess in enumerate(rows):
                for a in g.commutative_wins.get(int(guess), ()):
                    if int(a) in position:
                        out[i, position[int(a)]] = g.solved_pattern
        return out
