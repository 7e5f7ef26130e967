"""A baseline for multi-board games (Dordle, Quordle, ...): solve a board when it has one candidate
left, else the guess that leaves the fewest candidates expected, summed over the unsolved boards.

Not from a seed document (the seeds play one board). The rule is the single-board
``expected-size`` statistic, made additive over boards, with a win counting as none left::

    E(g) = sum over unsolved boards b of (sum of squared bucket sizes of g on C_b - [g in C_b]) / |C_b|

where ``C_b`` is board ``b``'s candidate set. A board down to one candidate is solved at once (its
answer is known and every later guess would be scored on it anyway), the first such board in
board order. Ties go to the lowest guess index, so the agent is deterministic. The statistics of
each candidate set are memoised (every game opens with the same sets).

Examples:
    >>> from guessgym.envs.multiboard import MultiBoardEnv
    >>> env = MultiBoardEnv(boards=2, kind="nerdle", length=5)
    >>> agent = MultiBoardExpectedSize()
    >>> obs, info = env.reset(seed=0, options={"answers": ["2*3=6", "9-1=8"]})
    >>> agent.begin(env.game)
    >>> done = False
    >>> while not done:
    ...     obs, reward, done, _, info = env.step(agent.act(obs, info))
    >>> reward, info["attempt"] <= 7
    (1.0, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..agents.base import Agent, UnsupportedGameError
from ..envs.buckets import bucket_profile
from ..envs.candidates import Candidates
from ..envs.game import Game
from ..envs.matrix import PatternMatrix


class MultiBoardExpectedSize(Agent):
    """Solve a board with one candidate left, else the fewest candidates expected left over all boards."""

    name = "multi-expected-size"
    multiboard = True

    def __init__(self, memo_size: int = 4096) -> None:
        self.memo_size = memo_size
        self._memo: dict[bytes, np.ndarray] = {}
        self._memo_game: str | None = None

    def begin(self, game: Game) -> None:
        super().begin(game)
        if self._memo_game != game.fingerprint:
            self._memo.clear()
            self._memo_game = game.fingerprint
        self.matrix = PatternMatrix.for_game(game)
        self._guesses = np.arange(len(game.guesses), dtype=np.int64)
        self._answer_to_guess = np.asarray(game.answer_to_guess, dtype=np.int64)
        self.sets: list[Candidates] | None = None
        self._last: int | None = None

    def expected_left(self, candidates: Candidates) -> np.ndarray:
        """Candidates expected left on one board after each guess (a win leaving none), memoised."""
        key = candidates.key()
        found = self._memo.get(key)
        if found is None:
            profile = bucket_profile(self.matrix, self._guesses, candidates.indices)
            winning = np.zeros(len(self._guesses), dtype=np.float64)
            winning[self._answer_to_guess[candidates.indices]] = 1.0
            found = (profile[:, 2] - winning) / len(candidates)
            if len(self._memo) >= self.memo_size:
                self._memo.pop(next(iter(self._memo)))
            self._memo[key] = found
        return found

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        if "solved" not in observation:
            raise UnsupportedGameError(f"{self.name} plays multi-board games (guessgym/Dordle-v0, Quordle-v0, ...); "
                                       "for one board use expected-size")
        solved = np.asarray(observation["solved"], dtype=bool)
        if self.sets is None:
            self.sets = [Candidates.initial(self.game, self.matrix) for _ in range(len(solved))]
        elif self._last is not None:
            for board, pattern in enumerate(info["patterns"]):
                if pattern >= 0:
                    self.sets[board] = self.sets[board].update(self._last, int(pattern))
        unsolved = [b for b in range(len(solved)) if not solved[b]]
        known = next((b for b in unsolved if len(self.sets[b]) == 1), None)
        if known is not None:
            self._last = int(self._answer_to_guess[self.sets[known].indices[0]])
        else:
            total = np.zeros(len(self._guesses), dtype=np.float64)
            for b in unsolved:
                total += self.expected_left(self.sets[b])
            self._last = int(np.argmin(total))
        return self._last


__all__ = ["MultiBoardExpectedSize"]
