"""Candidate sets and hard-mode legality: what the history of a game still allows.

Both solvers and the environment use this module; nobody filters answers with ad hoc string rules.

* :func:`filter_candidates` is the one candidate filter: the solvers' :class:`Candidates` and
  the game engine's compiled step both call it.
* :class:`Candidates` holds the indices (into ``game.answers``) of the answers consistent with
  every (guess, pattern) seen so far. One update reads one row of the pattern matrix.
* :func:`hard_filter` is the one hard-mode rule (compiled); :class:`HardModeRule` tracks what
  the real game's hard mode demands of the next guess: every
  green stays in place, and every revealed symbol is used at least as many times as it was
  revealed (greens plus yellows of that symbol in one earlier guess). Greys impose nothing, as in
  the New York Times game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit

from .game import Game
from .matrix import PatternMatrix
from .scoring import GREEN, YELLOW, pattern_to_list


@njit(cache=True, nogil=True, inline="always")
def filter_candidates(row: np.ndarray, candidates: np.ndarray, count: int, pattern: int) -> int:  # pragma: no cover
    """Keep, in place and in order, the first ``count`` candidates whose entry of ``row`` is
    ``pattern``; return how many were kept. The one candidate filter of the package."""
    kept = 0
    for j in range(count):  # branch-free compaction: write always, advance on a match
        answer = candidates[j]
        candidates[kept] = answer
        kept += row[answer] == pattern
    return kept


@njit(cache=True)
def hard_filter(allowed: np.ndarray, codes: np.ndarray, guess: int, pattern: int,
                n_symbols: int) -> np.ndarray:  # pragma: no cover - compiled
    """The guesses of ``allowed`` that hard mode still allows after ``guess`` showed ``pattern``:
    greens kept in place, each revealed symbol used at least as often as it was revealed. The one
    hard-mode rule of the package: :class:`HardModeRule` and the exact searches both apply it."""
    length = codes.shape[1]
    tiles = np.empty(length, np.int64)
    revealed = np.zeros(n_symbols, np.int64)
    p = pattern
    for i in range(length):
        tiles[i] = p % 3
        p //= 3
        if tiles[i] > 0:
            revealed[codes[guess, i]] += 1
    out = np.empty(allowed.size, allowed.dtype)
    have = np.zeros(n_symbols, np.int64)
    m = 0
    for j in range(allowed.size):
        h = allowed[j]
        ok = True
        for i in range(length):
            if tiles[i] == 2 and codes[h, i] != codes[guess, i]:
                ok = False
                break
        if ok:
            for i in range(length):
                have[codes[h, i]] += 1
            for i in range(length):
                if tiles[i] > 0 and have[codes[guess, i]] < revealed[codes[guess, i]]:
                    ok = False
            for i in range(length):
                have[codes[h, i]] = 0
        if ok:
            out[m] = h
            m += 1
    return out[:m]


@dataclass
class Candidates:
    """The answers still consistent with the history.

    Attributes:
        game: the game.
        indices: sorted int64 indices into ``game.answers``.
    """

    game: Game
    indices: np.ndarray
    matrix: PatternMatrix = field(repr=False)

    @classmethod
    def initial(cls, game: Game, matrix: PatternMatrix | None = None) -> Candidates:
        """Every answer is possible."""
        matrix = matrix if matrix is not None else PatternMatrix.for_game(game)
        return cls(game, np.arange(len(game.answers), dtype=np.int64), matrix)

    def __len__(self) -> int:
        return int(self.indices.shape[0])

    def update(self, guess: int, pattern: int) -> Candidates:
        """Candidates after ``guess`` (an action index) received ``pattern``; a new object."""
        kept = self.indices.copy()
        count = filter_candidates(self.matrix.row(guess), kept, len(kept), int(pattern))
        return Candidates(self.game, kept[:count].copy(), self.matrix)  # not a view holding every index before

    def words(self) -> list[str]:
        """The remaining answers as strings."""
        return [self.game.answers[i] for i in self.indices]

    def key(self) -> bytes:
        """A hashable key identifying this set (for memoising decisions)."""
        return self.indices.tobytes()

    def possible_patterns(self, guess: int) -> np.ndarray:
        """Distinct patterns ``guess`` could receive, given the remaining answers."""
        return np.unique(self.matrix.row(guess)[self.indices])


class HardModeRule:
    """The accumulated hard-mode constraints on the next guess.

    Examples:
        >>> from guessgym.envs.game import wordle
        >>> g = wordle(hard_mode=True)
        >>> rule = HardModeRule(g)
        >>> from guessgym.envs.scoring import score
        >>> rule.add(g.guess_index["raise"], score("raise", "shire"))
        >>> rule.violation(g.guess_index["shire"]) is None
        True
        >>> rule.violation(g.guess_index["shine"])
        "the guess must contain 'r' at least once (revealed earlier)"
        >>> rule.violation(g.guess_index["moult"])
        "position 3 must be 'i' (green earlier)"
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.required_at: dict[int, int] = {}  # position -> symbol index
        self.min_count = np.zeros(game.n_symbols, dtype=np.int64)
        self._mask = np.ones(len(game.guesses), dtype=bool)
        self._pending: list[tuple[int, int]] = []  # feedback not yet applied to the mask (see legal_mask)

    @property
    def active(self) -> bool:
        return bool(self.required_at) or bool(self.min_count.any())

    def add(self, guess: int, pattern: int) -> None:
        """Record the feedback of a played guess."""
        codes = self.game.guess_codes[guess]
        tiles = pattern_to_list(pattern, self.game.length)
        revealed = np.zeros(self.game.n_symbols, dtype=np.int64)
        new_positions = []
        for pos, (sym, tile) in enumerate(zip(codes, tiles)):
            if tile == GREEN:
                if pos not in self.required_at:
                    new_positions.append(pos)
                self.required_at[pos] = int(sym)
                revealed[sym] += 1
            elif tile == YELLOW:
                revealed[sym] += 1
        raised = np.flatnonzero(revealed > self.min_count)
        np.maximum(self.min_count, revealed, out=self.min_count)
        if new_positions or raised.size:  # otherwise this feedback constrains nothing new
            self._pending.append((int(guess), int(pattern)))

    def legal_mask(self) -> np.ndarray:
        """Boolean mask over guesses: which guesses hard mode allows now (a view; do not modify).

        Filtering every guess is the costly part of a rule, and :meth:`violation` does not need it,
        so the feedback is applied here, when the mask is first asked for after it."""
        for guess, pattern in self._pending:
            allowed = np.flatnonzero(self._mask)
            kept = hard_filter(allowed, self.game.guess_codes, guess, pattern, self.game.n_symbols)
            self._mask[allowed] = False
            self._mask[kept] = True
        self._pending.clear()
        return self._mask

    def violation(self, guess: int) -> str | None:
        """Why ``guess`` breaks hard mode now, or ``None`` if it is allowed."""
        codes = self.game.guess_codes[guess]
        alphabet = self.game.alphabet
        for pos, sym in sorted(self.required_at.items()):
            if codes[pos] != sym:
                return f"position {pos + 1} must be {alphabet[sym]!r} (green earlier)"
        for symbol in np.flatnonzero(self.min_count):
            sym = int(symbol)
            need = int(self.min_count[sym])
            have = int((codes == sym).sum())
            if have < need:
                times = "once" if need == 1 else f"{need} times"
                return f"the guess must contain {alphabet[sym]!r} at least {times} (revealed earlier)"
        return None

    def to_state(self) -> dict[str, Any]:
        """The rule as plain data (lists and arrays: what a training checkpoint can hold)."""
        return {"required_at": [[int(p), int(s)] for p, s in sorted(self.required_at.items())],
                "min_count": self.min_count.copy(), "mask": self._mask.copy(),
                "pending": [[int(g), int(p)] for g, p in self._pending]}

    @classmethod
    def from_state(cls, game: Game, state: dict[str, Any]) -> HardModeRule:
        """The rule of ``game`` that :meth:`to_state` described.

        Raises:
            ValueError: arrays of another game's shape."""
        rule = cls.__new__(cls)
        rule.game = game
        rule.required_at = {int(p): int(s) for p, s in state["required_at"]}
        rule.min_count = np.array(state["min_count"], dtype=np.int64)
        rule._mask = np.array(state["mask"], dtype=bool)
        rule._pending = [(int(g), int(p)) for g, p in state["pending"]]
        if rule.min_count.shape != (game.n_symbols,) or rule._mask.shape != (len(game.guesses),):
            raise ValueError(f"a hard-mode state of another game than {game.name}")
        return rule

    def copy(self) -> HardModeRule:
        other = HardModeRule.__new__(HardModeRule)
        other.game = self.game
        other.required_at = dict(self.required_at)
        other.min_count = self.min_count.copy()
        other._mask = self._mask.copy()
        other._pending = list(self._pending)
        return other
