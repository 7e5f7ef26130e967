"""Most-unique-characters greedy of Luque, Jo and Warner 2022.

The paper's engine always plays two hard-coded openers, ``9*8-7=65`` then ``0+12/3=4`` (together
they use every symbol), whatever the first one revealed ("Besides the hard-coded guesses for
getting the correct answer in one and two attempts ..."), and from the third guess on plays the
remaining equation with the most distinct characters (its ``unique`` column, sorted descending,
top row taken).

Implementation notes and seed problems:

* Filtering. The paper filters its data frame with per-symbol rules: a green fixes a column, a
  purple removes the symbol from that column and adds it to ``in_play``, a black symbol is added
  to ``invalids`` and *removed from every column*. That last rule is wrong with repeated symbols:
  guessing ``11+11=22`` against ``32-21=11`` gives black tiles to 1s while the answer contains
  1s, and the paper's filter would delete the answer. (The two openers have distinct symbols, so
  the bug only bites from the third guess on, when the engine plays equations with repeats.) We
  use the exact candidate sets of :mod:`guessgym.envs.candidates`.
* Candidate pool. The paper's frame holds its own 141,099 brute-forced "equations" (answers and
  guesses alike); we draw guesses from the game's remaining answers.
* ``unique``. Section 3.2 calls it "the number of unique characters remaining", section 4.1
  defines it as the number of distinct characters of the equation (``000000=0`` has 2); we follow
  4.1.
* Ties. The paper sorts a pandas frame on ``unique`` (``sort_values`` defaults to quicksort, which
  is not stable, so its tie-break is unspecified); we take the first equation in the game's
  answer order among those with the most distinct characters.
* The openers must be guesses of the game. ``0+12/3=4`` has a lone ``0``, which no answer
  contains, so on classic Nerdle it exists only in the larger vocabulary
  ``nerdle(8, guesses="all")``; other games raise :class:`~guessgym.agents.base.UnsupportedGameError`
  unless ``openers=`` names guesses of that game.
* Hard mode (not in the paper): an opener that breaks the hard-mode rule is skipped and the
  greedy rule used instead (candidates are always legal).
* The decision depends on the attempt number (openers), so the memo key includes it (capped at
  the number of openers: after them only the candidate set matters).
* The paper's results (97 real games: 63 in three guesses, 32 in four, 2 in five; on its 141,099
  theoretical answers 1,459 unsolved in six) are not comparable to our answer list; the shared
  evaluation loop measures ours.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..agents.base import SolverState, UnsupportedGameError
from ..envs.buckets import first_max
from ..envs.game import Game
from .common import BaselineAgent, candidate_guesses

PAPER_OPENERS = ("9*8-7=65", "0+12/3=4")


def distinct_symbols(codes: np.ndarray) -> np.ndarray:
    """Number of distinct symbols in each row of an ``(n, L)`` code array."""
    if codes.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    ordered = np.sort(codes, axis=1)
    return 1 + (np.diff(ordered, axis=1) != 0).sum(axis=1).astype(np.int64)


class UniqueCharsAgent(BaselineAgent):
    """Openers 9*8-7=65, 0+12/3=4, then the most distinct characters (Luque, Jo and Warner 2022).

    Keyword arguments:
        openers: the hard-coded first guesses, played in order (default the paper's two). Each
            must be in the game's guess vocabulary.
    """

    name = "unique-chars"

    def __init__(self, *, openers: Sequence[str] = PAPER_OPENERS) -> None:
        super().__init__()
        if isinstance(openers, str):
            raise TypeError("openers must be a sequence of guesses, e.g. ('9*8-7=65', '0+12/3=4'), not one string")
        self.openers = tuple(openers)

    def check_game(self, game: Game) -> None:
        for opener in self.openers:
            if game.normalize_guess(opener) not in game.guess_index:
                reason = game.explain_invalid_guess(opener) or "it is not in the guess list"
                hint = (
                    " Use nerdle(8, guesses='all'), whose vocabulary includes equations with a lone 0."
                    if game.kind == "nerdle" and game.length == 8 and self.openers == PAPER_OPENERS
                    else " Pass openers=(...) with guesses of this game."
                )
                raise UnsupportedGameError(
                    f"unique-chars plays the fixed openers {', '.join(self.openers)} "
                    f"(Luque, Jo and Warner 2022), but {opener!r} cannot be played in "
                    f"{game.name}: {reason}.{hint}"
                )

    def _opener(self, state: SolverState) -> int | None:
        if state.attempt >= len(self.openers):
            return None
        guess = state.game.guess_index[state.game.normalize_guess(self.openers[state.attempt])]
        if state.hard is not None and not state.hard.legal_mask()[guess]:
            return None
        return guess

    def choose(self, state: SolverState) -> int:
        opener = self._opener(state)
        if opener is not None:
            return opener
        unique = self.cached("unique", lambda: distinct_symbols(state.game.answer_codes))
        cands = state.candidates.indices
        return int(candidate_guesses(state)[first_max(unique[cands])])

    def memo_key(self, state: SolverState) -> tuple[Any, ...] | None:
        phase = min(state.attempt, len(self.openers))
        if state.hard is not None and phase < len(self.openers):
            return (phase, state.candidates.key(), tuple(state.history))
        return (phase, state.candidates.key())
