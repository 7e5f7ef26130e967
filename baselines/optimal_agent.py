"""The ``optimal`` baseline: plays the game's optimal decision tree.

Where the tree comes from, first match wins:

1. **Shipped.** The trees ``scripts/optimal_results.py`` computed for the registered
   environments (:mod:`guessgym.agents.optima`), when the agent has its default options.
2. **Cache.** A tree solved earlier on this machine for the same game and options
   (``tree-<fingerprint>-<options>.txt.gz`` in the cache folder, see ``guessgym cache``).
3. **Search.** :func:`~guessgym.baselines.optimal.solve`; the tree is then written to the cache
   atomically.

A history that leaves the tree (in the interactive assistant the player may type any guess) is
continued by solving the sub-game of the remaining candidates with the attempts left (in hard
mode, with the guesses still allowed, which is the same game because the rule only ever removes
guesses).

"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

from ..agents.base import SolverState
from ..agents.decision_tree import DecisionTree
from ..agents.optima import known_optimum
from ..envs.game import Game
from ..infra.cache import cache_dir
from .common import BaselineAgent
from .optimal import solve

logger = logging.getLogger(__name__)

#: Openers tried when the agent solves a game itself (the most promising by the search's ordering).
DEFAULT_OPENERS = 20


class OptimalAgent(BaselineAgent):
    """The optimal decision tree by exact search (no seed: the ceiling the seeds are measured against).

    Args:
        opener: fix the first guess (solved and cached on first use).
        openers: openers to try when solving: ``"all"`` or the best ``K`` (default 20).
        width: guesses per node when solving (0: every guess, exact; ``K``: near-optimal).
        time_budget: seconds allowed to a search (then the best tree so far is played).

    With every option at its default the shipped tree is played when the game has one.
    """

    name = "optimal"

    def __init__(self, *, opener: str | None = None, openers: int | str | None = None, width: int = 0,
                 time_budget: float | None = None) -> None:
        super().__init__()
        self.opener = opener
        self.openers = openers
        self.width = width
        self.time_budget = time_budget

    @property
    def _defaults(self) -> bool:
        return self.opener is None and self.openers is None and self.width == 0 and self.time_budget is None

    def _options(self) -> dict[str, Any]:
        return {"opener": self.opener, "openers": DEFAULT_OPENERS if self.openers is None else self.openers,
                "width": self.width, "time_budget": self.time_budget}

    def tree_for(self, game: Game) -> DecisionTree:
        """The tree this agent plays on ``game`` (shipped, cached or solved now)."""
        if self._defaults:
            known = known_optimum(game)
            if known is not None:
                return known.load_tree(game)
        options = self._options()
        key = hashlib.sha256(json.dumps([game.hard_mode, game.max_attempts, options]).encode()).hexdigest()[:16]
        # JSON when a rearranged answer may win (the text format names each answer by its last guess)
        path = cache_dir() / f"tree-{game.fingerprint}-{key}.{'json' if game.commutative else 'txt'}.gz"
        if path.is_file():
            try:
                return DecisionTree.load(path, game)
            except ValueError as exc:
                logger.warning("cached tree %s is unusable (%s): solving again", path, exc)
        result = solve(game, **options)
        if not result.timed_out:
            try:
                result.tree.save(path, game)
            except OSError as exc:  # a read-only home must not stop the game
                logger.warning("could not cache the tree in %s: %s", path, exc)
        return result.tree

    def choose(self, state: SolverState) -> int:
        tree: DecisionTree = self.cached("tree", lambda: self.tree_for(state.game))
        node = tree.node_after(state.game, state.history)
        if node is not None:
            return int(state.game.guess_index[node.guess])
        return self._off_tree(state)

    def _off_tree(self, state: SolverState) -> int:
        """The optimal next guess for a history the tree does not contain."""
        game = state.game
        left = game.max_attempts - state.attempt
        answers = [game.answers[int(i)] for i in state.candidates.indices]
        if len(answers) == 1:
            return int(game.guess_index[answers[0]])
        legal = state.legal_guesses()
        sub = game.replace(name=f"{game.name}-rest", answers=tuple(answers),
                           guesses=tuple(game.guesses[int(i)] for i in legal), max_attempts=max(left, 1))
        patterns = self.matrix.submatrix(legal, state.candidates.indices)
        options: dict[str, Any] = {"openers": "all", "width": self.width, "time_budget": self.time_budget,
                                   "patterns": patterns}
        try:
            result = solve(sub, **options)
        except ValueError:  # no tree wins every answer in the attempts left: the fewest guesses anyway
            result = solve(sub.replace(max_attempts=len(answers)), **options)
        return int(game.guess_index[result.tree.root.guess])

    def describe(self) -> str:
        if self._defaults:
            return super().describe()
        return f"the optimal decision tree ({', '.join(f'{k}={v}' for k, v in self._options().items())})"


__all__ = ["DEFAULT_OPENERS", "OptimalAgent"]
