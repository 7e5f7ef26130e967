"""The one protocol every player implements, baseline or learned.

An :class:`Agent` is told the game at the start of every episode (:meth:`Agent.begin`), then sees
each observation and info dict from the environment and returns a guess index
(:meth:`Agent.act`). The shared evaluation loop (:mod:`guessgym.evaluation.evaluate`) drives any Agent through
the environments, so baselines and learned agents are measured by the same code.

:class:`CandidateAgent` is the base of the deterministic solvers: it keeps the candidate set from
the tiles reported in ``info`` and asks :meth:`CandidateAgent.choose` for a decision that depends
only on the state, memoised by candidate set (a whole-list evaluation then builds each decision
once instead of replaying the search per game).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..envs.candidates import Candidates, HardModeRule
from ..envs.game import Game
from ..envs.matrix import PatternMatrix


class Agent(ABC):
    """A player of any :class:`~guessgym.envs.game.Game`.

    Attributes:
        name: a short identifier used in result tables.
    """

    name: str = "agent"
    #: Whether the agent plays multi-board games (their observations hold every board).
    multiboard: bool = False

    def begin(self, game: Game) -> None:
        """Start a new episode of ``game``; called before the first :meth:`act`."""
        self.game = game

    @abstractmethod
    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """The next guess, as an index into ``game.guesses``."""

    def describe(self) -> str:
        """One line saying what the agent does (shown in reports)."""
        return (self.__doc__ or self.name).strip().splitlines()[0]


class UnsupportedGameError(ValueError):
    """Raised by an agent asked to play a game its method cannot handle (with the reason)."""


@dataclass
class SolverState:
    """What a deterministic solver may base its decision on.

    Attributes:
        game: the game.
        candidates: answers still consistent with every tile seen.
        attempt: guesses already played (0 before the first).
        history: (guess index, pattern) of the guesses played.
        hard: the hard-mode rule in force (``None`` in easy mode).
    """

    game: Game
    candidates: Candidates
    attempt: int
    history: list[tuple[int, int]]
    hard: HardModeRule | None

    def after(self, guess: int, pattern: int) -> SolverState:
        """The state once ``guess`` showed ``pattern`` (this one is left as it is)."""
        hard = None
        if self.hard is not None:
            hard = self.hard.copy()
            hard.add(guess, pattern)
        return SolverState(self.game, self.candidates.update(guess, pattern), self.attempt + 1,
                           [*self.history, (guess, pattern)], hard)

    def legal_guesses(self) -> np.ndarray:
        """Indices of the guesses the rules allow now (all of them in easy mode)."""
        if self.hard is None:
            return np.arange(len(self.game.guesses), dtype=np.int64)
        return np.flatnonzero(self.hard.legal_mask())


class CandidateAgent(Agent):
    """Base class of the deterministic solvers.

    Subclasses implement :meth:`choose`. The decision is memoised under :meth:`memo_key`, which
    by default is the candidate set plus, in hard mode, the history (the legal guesses depend on
    it). Override :meth:`memo_key` when the decision depends on more (for example the attempt
    number for fixed openers).

    The same object serves the environment (:meth:`act`) and an interactive assistant
    (:meth:`observe` and :meth:`propose`).
    """

    memoise: bool = True

    def __init__(self) -> None:
        self._memo: dict[tuple[Any, ...], int] = {}
        self._memo_game: str | None = None

    def begin(self, game: Game) -> None:
        super().begin(game)
        self.check_game(game)
        if self._memo_game != game.fingerprint + str(game.hard_mode):
            self._memo.clear()
            self._memo_game = game.fingerprint + str(game.hard_mode)
        self.matrix = PatternMatrix.for_game(game)
        self.state = SolverState(
            game=game,
            candidates=Candidates.initial(game, self.matrix),
            attempt=0,
            history=[],
            hard=HardModeRule(game) if game.hard_mode else None,
        )
        self._pending: int | None = None

    def check_game(self, game: Game) -> None:
        """Raise :class:`UnsupportedGameError` if this method cannot play ``game``."""

    def observe(self, guess: int, pattern: int) -> None:
        """Record that ``guess`` received ``pattern``."""
        self.state = self.state.after(guess, pattern)

    def resume(self, state: SolverState) -> None:
        """Go on with the current game from ``state``, one this agent reached in it before (a walk
        of the game's tree, :mod:`guessgym.evaluation.tree_play`, goes back to each fork)."""
        self.state = state
        self._pending = None

    def propose(self) -> int:
        """The solver's next guess for the current state (memoised)."""
        key = self.memo_key(self.state) if self.memoise else None
        if key is not None and key in self._memo:
            return self._memo[key]
        if len(self.state.candidates) == 0:
            raise ValueError("no answer is consistent with the feedback so far; check the tiles entered")
        choice = int(self.choose(self.state))
        if key is not None:
            self._memo[key] = choice
        return choice

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        if self._pending is not None and not info.get("invalid_action", False) and info.get("pattern", -1) >= 0:
            self.observe(self._pending, int(info["pattern"]))
        self._pending = self.propose()
        return self._pending

    def memo_key(self, state: SolverState) -> tuple[Any, ...] | None:
        """Key under which a decision is memoised; ``None`` disables memoising this state."""
        if state.hard is not None:
            return (state.candidates.key(), tuple(state.history))
        return (state.candidates.key(),)

    @abstractmethod
    def choose(self, state: SolverState) -> int:
        """The guess for ``state`` (an index into ``state.game.guesses``)."""

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for transient in ("matrix", "state", "_pending"):
            state.pop(transient, None)
        state["_memo"] = {}
        state["_memo_game"] = None
        return state
