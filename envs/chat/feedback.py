"""The feedback a language model reads after a guess: the tiles as letters and/or emoji squares,
and the same tiles in words.

Every tile string is built once per pattern and kept (at most ``3 ** length`` patterns, 6,561
for classic Nerdle), so a turn's feedback costs a dictionary lookup and one join.

Examples:
    >>> from guessgym.envs.game import wordle
    >>> from guessgym.envs.scoring import score
    >>> tiles = TileFeedback(wordle(), style="both")
    >>> print(tiles.tiles(score("speed", "abide")))
    B B Y B Y  ⬛⬛🟨⬛🟨
    >>> tiles.words("speed", score("speed", "abide"))
    's grey, p grey, e yellow, e grey, d yellow'
"""

from __future__ import annotations

from ..game import Game
from ..options import check_choice
from ..scoring import pattern_to_list
from .rules import TILE_EMOJI, TILE_LETTERS, TILE_NAMES

#: How the tiles are shown: letters (``G Y B``; Nerdle ``G P B``), emoji squares, or both.
FEEDBACK_STYLES = ("letters", "emoji", "both")


class TileFeedback:
    """Tiles of one game in one style (see the module docstring).

    Args:
        game: the game (its kind names the tiles: yellow for Wordle, purple for Nerdle).
        style: one of :data:`FEEDBACK_STYLES`.
    """

    def __init__(self, game: Game, style: str = "both") -> None:
        self.style = check_choice("feedback", style, FEEDBACK_STYLES)
        self.length = game.length
        self._letters = TILE_LETTERS[game.kind]
        self._emoji = TILE_EMOJI[game.kind]
        self._names = TILE_NAMES[game.kind]
        self._tiles: dict[int, str] = {}
        self._lists: dict[int, list[int]] = {}

    def _list(self, pattern: int) -> list[int]:
        found = self._lists.get(pattern)
        if found is None:
            found = self._lists[pattern] = pattern_to_list(pattern, self.length)
        return found

    def tiles(self, pattern: int) -> str:
        """The tiles of ``pattern`` in this style."""
        found = self._tiles.get(pattern)
        if found is None:
            marks = self._list(pattern)
            letters = " ".join(self._letters[t] for t in marks)
            emoji = "".join(self._emoji[t] for t in marks)
            found = {"letters": letters, "emoji": emoji, "both": f"{letters}  {emoji}"}[self.style]
            self._tiles[pattern] = found
        return found

    def words(self, guess: str, pattern: int) -> str:
        """Each symbol of ``guess`` with its tile's name, e.g. ``'c green, r yellow, ...'``."""
        names = self._names
        return ", ".join([f"{s} {names[t]}" for s, t in zip(guess, self._list(pattern))])


__all__ = ["FEEDBACK_STYLES", "TileFeedback"]
