"""The exact optimum: the decision tree with the fewest total guesses over all answers.

``solve(game)`` searches depth first over candidate sets for the tree minimising the total number
of guesses over every answer, within the game's attempt limit, and returns it as a
:class:`~guessgym.agents.trees.DecisionTree` with its total. The search is exact:

* the cost of a candidate set ``C`` with ``d`` attempts left is ``|C|`` (every answer pays for this
  guess) plus the cost of each non-green bucket with ``d - 1`` attempts left, minimised over guesses;
* a bucket of ``n`` answers costs at least ``2n - 1`` (at best one answer is guessed next, every
  other needs two more), which bounds every subtree from below; a guess whose bound already
  reaches the best total found is skipped, and a subtree search is cut as soon as it cannot beat
  what its caller needs (branch and bound);
* guesses that split the candidates into the same buckets (and agree on whether they can win
  now) are the same move: only the first is searched;
* solved candidate sets are memoised with their attempts left.

This first version runs on the dense pattern matrix in NumPy and handles easy mode. It solves the
small Nerdle sizes in seconds (``tests/test_optimal.py`` checks it against every tree of tiny games
and against the greedy baselines); the numba kernels, hard mode, proof and time-budget options,
the on-disk cache and the Wordle and classic Nerdle speed targets of the issue are the next steps.

Examples:
    >>> from guessgym.envs.game import wordle
    >>> game = wordle(answers=["crane", "crate", "grate", "slate"], guesses=["crane", "crate", "grate",
    ...                                                                       "slate", "scrag"])
    >>> result = solve(game)
    >>> result.total, result.tree.max_depth
    (7, 2)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..agents.base import UnsupportedGameError
from ..agents.trees import DecisionTree
from ..envs.game import Game
from ..envs.matrix import PatternMatrix
from ..envs.scoring import all_green

#: A cost no tree reaches (a candidate set that cannot be solved in the attempts left).
INFEASIBLE = 1 << 40


def lower_bound(n: int) -> int:
    """Fewest total guesses any tree needs for ``n`` candidates: 1 for one, else ``2n - 1``."""
    return 1 if n == 1 else 2 * n - 1


@dataclass
class SolveResult:
    """An optimal tree and how it was found.

    Attributes:
        total: guesses over all answers (the minimum).
        tree: the tree reaching it.
        nodes: candidate sets searched.
        seconds: wall-clock time.
    """

    total: int
    tree: DecisionTree
    nodes: int
    seconds: float

    @property
    def mean(self) -> float:
        return self.total / len(self.tree.paths)


class ExactSearch:
    """Branch and bound over candidate sets (see the module docstring).

    Args:
        game: an easy-mode game whose pattern matrix fits in memory.
        max_attempts: the attempt limit (default: the game's).
        opener: fix the first guess (a word of the game).
    """

    def __init__(self, game: Game, *, max_attempts: int | None = None, opener: str | None = None) -> None:
        if game.hard_mode:
            raise UnsupportedGameError("the exact solver does not handle hard mode yet")
        matrix = PatternMatrix.for_game(game)
        if matrix.dense is None:
            raise UnsupportedGameError(f"the exact solver needs {game.name}'s whole pattern matrix in memory")
        self.game = game
        self.dense = matrix.dense
        self.max_attempts = game.max_attempts if max_attempts is None else int(max_attempts)
        self.green = all_green(game.length)
        self.answer_guess = np.asarray(game.answer_to_guess, dtype=np.int64)
        self.opener = None if opener is None else game.guess_index[game.normalize_guess(opener)]
        self.memo: dict[tuple[bytes, int], tuple[int, int]] = {}
        self.floor: dict[tuple[bytes, int], int] = {}  # proven lower bounds of sets not solved below a bound
        self.nodes = 0

    def solve(self) -> SolveResult:
        """The optimal tree over every answer."""
        started = time.perf_counter()
        everyone = np.arange(len(self.game.answers), dtype=np.int64)
        total, _ = self.cost(everyone, self.max_attempts, INFEASIBLE, first=True)
        if total >= INFEASIBLE:
            raise ValueError(f"no tree solves every answer of {self.game.name} in {self.max_attempts} guesses")
        paths = self._paths(everyone, self.max_attempts, [], first=True)
        tree = DecisionTree.from_paths(self.game, paths)
        assert tree.total == total
        return SolveResult(total, tree, self.nodes, time.perf_counter() - started)

    # ---- the search ----------------------------------------------------------------------------
    def cost(self, cands: np.ndarray, left: int, bound: int, first: bool = False) -> tuple[int, int]:
        """``(cost, guess)`` of the best tree for ``cands`` with ``left`` attempts if it is below
        ``bound``; otherwise ``(c, -1)`` with ``c >= bound`` a lower bound."""
        n = int(cands.size)
        if n == 1:
            return (1, int(self.answer_guess[cands[0]])) if left >= 1 else (INFEASIBLE, -1)
        if left <= 1:
            return INFEASIBLE, -1
        key = (cands.tobytes(), left)
        if not first:
            known = self.memo.get(key)
            if known is not None:
                return known if known[0] < bound else (known[0], -1)
            floor = max(lower_bound(n), self.floor.get(key, 0))
            if floor >= bound:
                return floor, -1
        self.nodes += 1
        best, best_guess = bound, -1
        for guess, buckets in self._moves(cands, first):
            total = n + sum(lower_bound(b.size) for b in buckets)  # optimistic until every bucket is solved
            if total >= best:
                continue
            for bucket in buckets:
                others = total - lower_bound(bucket.size)
                sub, _ = self.cost(bucket, left - 1, best - others)
                total = others + sub
                if total >= best:
                    break
            else:
                best, best_guess = total, guess
        if best_guess >= 0:
            self.memo[key] = (best, best_guess)
            return best, best_guess
        self.floor[key] = max(self.floor.get(key, 0), bound)
        return bound, -1

    def _moves(self, cands: np.ndarray, first: bool) -> list[tuple[int, list[np.ndarray]]]:
        """Each distinct split of ``cands``: ``(guess, non-green buckets largest first)``, in order
        of their lower bound (the most promising first)."""
        guesses = range(len(self.game.guesses)) if not (first and self.opener is not None) else [self.opener]
        rows = self.dense[:, cands]
        seen: set[tuple[bytes, bool]] = set()
        moves: list[tuple[int, int, list[np.ndarray]]] = []
        for g in guesses:
            row = rows[g]
            patterns, first_seen, labels = np.unique(row, return_index=True, return_inverse=True)
            if patterns.size == 1 and patterns[0] != self.green:
                continue  # learns nothing
            order = np.argsort(first_seen)
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            canonical = rank[labels.reshape(-1)]
            wins = bool(patterns[-1] == self.green) if patterns.size else False
            key = (canonical.astype(np.int32).tobytes(), wins)
            if key in seen:
                continue
            seen.add(key)
            buckets = [cands[labels.reshape(-1) == j] for j in range(patterns.size) if patterns[j] != self.green]
            buckets.sort(key=lambda b: -b.size)
            bound = cands.size + sum(lower_bound(b.size) for b in buckets)
            moves.append((bound, g, buckets))
        moves.sort(key=lambda m: (m[0], m[1]))
        return [(g, buckets) for _, g, buckets in moves]

    def _paths(self, cands: np.ndarray, left: int, prefix: list[str], first: bool = False) -> dict[str, list[str]]:
        if cands.size == 1:
            answer = self.game.answers[int(cands[0])]
            return {answer: [*prefix, answer]}
        _, guess = self.memo[(cands.tobytes(), left)]
        word = self.game.guesses[guess]
        out: dict[str, list[str]] = {}
        row = self.dense[guess, cands]
        for pattern in np.unique(row):
            bucket = cands[row == pattern]
            if pattern == self.green:
                out[self.game.answers[int(bucket[0])]] = [*prefix, word]
            else:
                out.update(self._paths(bucket, left - 1, [*prefix, word]))
        return out


def solve(game: Game, *, max_attempts: int | None = None, opener: str | None = None) -> SolveResult:
    """The optimal decision tree of ``game`` (see :class:`ExactSearch`)."""
    return ExactSearch(game, max_attempts=max_attempts, opener=opener).solve()


__all__ = ["INFEASIBLE", "ExactSearch", "SolveResult", "lower_bound", "solve"]
