"""How an agent plays, beside how well: the play metrics language-model studies report.

Per game, from its guesses and its answer (:func:`game_conduct`):

* ``repeated``: guesses that repeat an earlier guess of the game (a wasted attempt, always);
* ``ignores_hints``: guesses that break the hard-mode rule, whatever the mode: a green not kept in
  its place, or a revealed symbol not used again as often as shown (the "hard-mode consistency"
  studies measure);
* ``impossible``: guesses that could no longer be the answer: not an answer of the game, or
  contradicted by the tiles of an earlier guess. Not always a mistake (the optimum plays some, to
  split the candidates), but a model that plays many without gaining from them does not reason
  from the tiles.

Over an evaluation (:func:`conduct_summary`): those counts, their share of all valid guesses, the
games with at least one, and the *aborted* games: lost, with attempts lost to invalid replies (a
language model's forfeited turns) or ended by invalid actions (an index agent's).
:func:`guessgym.evaluation.evaluate.evaluate` puts the summary in a result's ``meta["conduct"]``
whenever it keeps the games' guesses (a language model's always).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..envs.candidates import HardModeRule
from ..envs.game import Game

if TYPE_CHECKING:  # results.py reports these metrics, so this module must not import it
    from .results import GameRecord

#: The per-guess counts, in the order they are reported.
COUNTS = ("repeated", "ignores_hints", "impossible")


@dataclass(frozen=True)
class GameConduct:
    """The play metrics of one game (see the module docstring)."""

    guesses: int
    repeated: int
    ignores_hints: int
    impossible: int


def game_conduct(game: Game, answer: str, played: Sequence[str]) -> GameConduct:
    """Count the game's repeated guesses, guesses that ignore a hint, and impossible guesses."""
    rule = HardModeRule(game)
    answers = game.answer_index
    seen: set[str] = set()
    feedback: list[tuple[str, int]] = []
    repeated = ignores = impossible = 0
    for guess in played:
        index = game.guess_index[guess]
        repeated += guess in seen
        ignores += rule.violation(index) is not None
        impossible += guess not in answers or any(int(game.score(g, guess)) != p for g, p in feedback)
        pattern = int(game.score(guess, answer))
        rule.add(index, pattern)
        feedback.append((guess, pattern))
        seen.add(guess)
    return GameConduct(len(played), repeated, ignores, impossible)


def conduct_summary(game: Game, records: Iterable[GameRecord]) -> dict[str, Any] | None:
    """The play metrics over ``records`` (``None`` when a record lacks its guesses)."""
    rows = list(records)
    if not rows or any(r.played is None for r in rows):
        return None
    per_game = [game_conduct(game, r.answer, r.played or ()) for r in rows]
    guesses = sum(c.guesses for c in per_game)
    summary: dict[str, Any] = {"games": len(rows), "guesses": guesses,
                               "aborted": sum(1 for r in rows if not r.solved and (r.note or r.forfeits))}
    for name in COUNTS:
        counts = [getattr(c, name) for c in per_game]
        summary[name] = sum(counts)
        summary[f"{name}_share"] = round(sum(counts) / guesses, 6) if guesses else 0.0
        summary[f"games_with_{name}"] = sum(1 for n in counts if n)
    return summary


def conduct_line(summary: dict[str, Any]) -> str:
    """The summary in one sentence, for reports."""
    parts = [f"{summary[name]:,} {label} ({100 * summary[f'{name}_share']:.1f}% of guesses, "
             f"{summary[f'games_with_{name}']:,} games)"
             for name, label in zip(COUNTS, ("repeated", "ignoring a hint", "impossible"))]
    return (f"Play: of {summary['guesses']:,} guesses, " + ", ".join(parts) +
            f"; {summary['aborted']:,} games aborted by invalid replies.")


__all__ = ["COUNTS", "GameConduct", "conduct_line", "conduct_summary", "game_conduct"]
