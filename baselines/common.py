"""Pieces shared by the baseline agents: a per-game cache and guess orderings."""

from __future__ import annotations

from typing import Any, Literal, TypeVar

import numpy as np

from ..agents.base import CandidateAgent, SolverState
from ..envs.game import Game

GuessOrder = Literal["answers-first", "game"]


class BaselineAgent(CandidateAgent):
    """A :class:`~guessgym.agents.base.CandidateAgent` with a cache of per-game precomputations.

    ``self._cache`` is emptied when the agent begins a different game and is never pickled, so an
    agent shipped to a worker process carries only its constructor arguments.
    """

    def __init__(self) -> None:
        super().__init__()
        self._cache: dict[str, Any] = {}
        self._cache_game: str | None = None

    def begin(self, game: Game) -> None:
        super().begin(game)
        key = game.fingerprint + str(game.hard_mode)
        if self._cache_game != key:
            self._cache = {}
            self._cache_game = key

    def cached(self, name: str, build: Any) -> Any:
        """``self._cache[name]``, computed by ``build()`` the first time in this game."""
        if name not in self._cache:
            self._cache[name] = build()
        return self._cache[name]

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_cache"] = {}
        state["_cache_game"] = None
        return state

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def candidate_guesses(state: SolverState) -> np.ndarray:
    """The remaining candidates as guess indices, in answer-list order."""
    return state.game.answer_to_guess[state.candidates.indices]


def guess_order(game: Game, order: GuessOrder) -> np.ndarray:
    """Guess indices in the order a fold visits them.

    * ``"answers-first"``: the answers in answer-list order, then the other guesses in guess-list
      order (the ``ValidWords`` list of Pawson 2023: 2,309 answers followed by the
      other 10,638 words).
    * ``"game"``: the guess list as it is.
    """
    if order == "game":
        return np.arange(len(game.guesses), dtype=np.int64)
    if order == "answers-first":
        rest = np.flatnonzero(~game.guess_is_answer)
        return np.concatenate([game.answer_to_guess, rest]).astype(np.int64)
    raise ValueError(f"unknown guess order {order!r}; choose 'answers-first' or 'game'")


ChoiceT = TypeVar("ChoiceT", bound=str)


def check_choice(value: ChoiceT, allowed: tuple[str, ...], what: str) -> ChoiceT:
    """Validate a string option, naming the allowed values in the error."""
    if value not in allowed:
        raise ValueError(f"{what} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value
