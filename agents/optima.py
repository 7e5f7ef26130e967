"""The optima shipped with guessgym: for each registered game, the best tree known and what is proven.

``envs/data/optimal/optima.json`` indexes the trees that ``scripts/optimal_results.py`` computed
for the registered environments (their default options): each one's total, the proven lower bound
of the optimum (equal to the total when the optimum is proven), its opener, what the search covered
and the command that produced it. The ``optimal`` baseline plays these trees; the evaluation loop
and the leaderboard use the totals to show every agent's distance from perfect play.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from ..envs.game import Game
from .decision_tree import DecisionTree


@dataclass(frozen=True)
class KnownOptimum:
    """A shipped optimal (or best known) tree and what was proven about it.

    Attributes:
        env_id: the registered environment it was computed for (its default options).
        total: guesses over all answers of the tree.
        answers: number of answers.
        max_guesses: the tree's deepest answer.
        lower_bound: proven lower bound of the optimum over every tree (``total`` when proven).
        opener: the tree's first guess.
        scope: what the total is the optimum of, in words.
        tree: file name of the tree within the data folder.
        fingerprint: the game's fingerprint (lists and length).
        hard_mode: the game's mode.
        max_attempts: the attempt limit.
        command: the command that produced it.
        env_kwargs: the environment's options when not its defaults (``{"guesses": "all"}``:
            classic Nerdle with every valid equation as a guess).
    """

    env_id: str
    total: int
    answers: int
    max_guesses: int
    lower_bound: int
    opener: str
    scope: str
    tree: str
    fingerprint: str
    hard_mode: bool
    max_attempts: int
    command: str
    env_kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def proven(self) -> bool:
        return self.lower_bound == self.total

    @property
    def mean(self) -> float:
        return self.total / self.answers

    def matches(self, game: Game) -> bool:
        return (game.fingerprint, game.hard_mode, game.max_attempts) == (
            self.fingerprint, self.hard_mode, self.max_attempts)

    def meta(self) -> dict[str, Any]:
        """What an evaluation result records of this optimum (``EvaluationResult.meta["optimum"]``)."""
        return {"total": self.total, "lower_bound": self.lower_bound, "proven": self.proven, "opener": self.opener,
                "scope": self.scope}

    def load_tree(self, game: Game) -> DecisionTree:
        with resources.as_file(_data_folder() / self.tree) as path:
            return DecisionTree.load(path, game)


def _data_folder() -> Any:
    return resources.files("guessgym.envs") / "data" / "optimal"


@cache
def known_optima() -> tuple[KnownOptimum, ...]:
    """Every shipped optimum (empty if the index is missing)."""
    index = _data_folder() / "optima.json"
    if not index.is_file():
        return ()
    return tuple(KnownOptimum(**entry) for entry in json.loads(index.read_text(encoding="utf-8"))["optima"])


def known_optimum(game: Game) -> KnownOptimum | None:
    """The shipped optimum of ``game`` (same lists, mode and attempt limit), if there is one."""
    return next((k for k in known_optima() if k.matches(game)), None)


def updated_optimum(recorded: dict[str, Any], hard_mode: bool | None = None) -> dict[str, Any]:
    """``recorded`` (a result's ``meta["optimum"]``) with what is proven about it now.

    A result saved before a proof finished records its tree as the best known; when a shipped
    optimum is the same tree (same total and opener, and the same mode when ``hard_mode`` is
    given), its lower bound, scope and proof status replace the recorded ones, so a leaderboard
    read later says what is known then, for any environment that plays the game (the chat
    environments too). The total the gap is measured against never changes.
    """
    for known in known_optima():
        if (known.total, known.opener) == (recorded.get("total"), recorded.get("opener")) and (
                hard_mode is None or known.hard_mode == hard_mode):
            return {**recorded, **known.meta()}
    return recorded


__all__ = ["KnownOptimum", "known_optima", "known_optimum", "updated_optimum"]
