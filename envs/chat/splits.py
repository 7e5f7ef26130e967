"""The seeded split of a chat game's answers into training and evaluation answers, decided in one
place for every adapter and export.

:func:`split_answers` cuts answers in a seeded order; :func:`split_games` also withholds every
evaluation answer from every text the games build (the rules' examples, the reply format's, the
feedback), so a training game's conversation never names an answer it will be scored on.
:class:`ChatGames` is a chat game resolved once, its :class:`~guessgym.envs.game.Game` shared by
every rollout.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..game import Game
from .env import ChatGuessEnv


def split_answers(indices: Sequence[int], split: float, seed: int, name: str = "split") -> tuple[list[int], list[int]]:
    """The answers in a seeded random order, cut into train (the first ``split`` of them) and test.

    Raises:
        ValueError: ``split`` outside (0, 1] (``name`` names the option), or a split that leaves
            the train set empty.
    """
    if isinstance(split, bool) or not isinstance(split, (int, float)) or not 0 < split <= 1:
        raise ValueError(f"{name} must be a fraction in (0, 1], the share of answers for training; got {split!r}")
    order = [int(indices[i]) for i in np.random.default_rng(seed).permutation(len(indices))]
    cut = round(split * len(order))
    if cut == 0:
        raise ValueError(f"split {split} of {len(order)} games leaves no game for training")
    if cut == len(order) and split < 1:
        raise ValueError(f"split {split} of {len(order)} games leaves no game for testing; give more games, a smaller "
                         "--split, or --split 1 for no test set")
    return sorted(order[:cut]), sorted(order[cut:])


@dataclass(frozen=True)
class ChatGames:
    """An adapter's chat game, resolved once: the :class:`~guessgym.envs.game.Game` every rollout
    shares (its lists and pattern matrix, read-only, as the server's sessions share theirs) and the
    options of each rollout's :class:`~guessgym.envs.chat.env.ChatGuessEnv`."""

    game: Game
    options: dict[str, Any]

    def make_env(self) -> ChatGuessEnv:
        """A new chat environment of the game (a rollout's own; the game is shared)."""
        return ChatGuessEnv(game=self.game, **self.options)

    def withholding(self, words: Sequence[str]) -> ChatGames:
        """These games with ``words`` also withheld from every text they build (the rules' examples,
        the reply format's, the feedback)."""
        withheld = sorted(set(self.options.get("withheld") or ()) | set(words))
        return replace(self, options={**self.options, "withheld": withheld})


def split_games(games: ChatGames, fraction: Any, seed: int, what: str,
                indices: Sequence[int] | None = None) -> tuple[ChatGames, list[int], list[int]]:
    """The seeded split of ``games``' answers (``indices`` of them; all by default) into training
    and evaluation answers (:func:`split_answers`), and the
    games with every evaluation answer withheld from every text they build, the training games'
    and the evaluation games' alike: the one place a split is decided (the adapters' and
    ``guessgym export-demos``'), so no prompt, rule example or feedback of any game names an
    answer of the evaluation side.

    Raises:
        ValueError: ``fraction`` is not a share in (0, 1] (``what`` names the option).
    """
    train, test = split_answers(range(len(games.game.answers)) if indices is None else indices, fraction, seed,
                                what)
    return games.withholding([games.game.answers[i] for i in test]), train, test


__all__ = ["ChatGames", "split_answers", "split_games"]
