"""Drawing the board: coloured text for terminals and an RGB image."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .game import Game

_ANSI = {"G": "\x1b[30;42m", "B": "\x1b[97;100m"}
_ANSI_YELLOW = {"wordle": "\x1b[30;43m", "nerdle": "\x1b[97;45m"}
_RESET = "\x1b[0m"

# RGB colours of the real games' tiles.
_RGB = {
    "wordle": {"G": (106, 170, 100), "Y": (201, 180, 88), "B": (120, 124, 126)},
    "nerdle": {"G": (57, 136, 116), "Y": (130, 4, 88), "B": (22, 24, 3)},
}
_EMPTY_BORDER = (211, 214, 218)
_BACKGROUND = (255, 255, 255)
TILE, GAP, MARGIN = 40, 5, 10


def board_ansi(rows: list[tuple[str, str]], length: int, max_attempts: int, kind: str) -> str:
    """The board as text with ANSI colours; empty rows are shown as dots."""
    lines = []
    for guess, tiles in rows:
        cells = []
        for ch, t in zip(guess, tiles):
            colour = _ANSI_YELLOW[kind] if t == "Y" else _ANSI[t]
            cells.append(f"{colour} {ch.upper()} {_RESET}")
        lines.append("".join(cells))
    for _ in range(max_attempts - len(rows)):
        lines.append(" . " * length)
    return "\n".join(lines)


@lru_cache(maxsize=4)
def _font(size: int) -> Any:
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def board_image(rows: list[tuple[str, str]], length: int, max_attempts: int, kind: str) -> np.ndarray:
    """The board as an ``(H, W, 3)`` uint8 image in the style of the game."""
    from PIL import Image, ImageDraw

    width = 2 * MARGIN + length * TILE + (length - 1) * GAP
    height = 2 * MARGIN + max_attempts * TILE + (max_attempts - 1) * GAP
    image = Image.new("RGB", (width, height), _BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = _font(TILE // 2)
    for r in range(max_attempts):
        for c in range(length):
            x0 = MARGIN + c * (TILE + GAP)
            y0 = MARGIN + r * (TILE + GAP)
            box = (x0, y0, x0 + TILE - 1, y0 + TILE - 1)
            if r < len(rows):
                guess, tiles = rows[r]
                draw.rectangle(box, fill=_RGB[kind][tiles[c]])
                centre = (x0 + TILE / 2, y0 + TILE / 2)
                draw.text(centre, guess[c].upper(), fill=(255, 255, 255), font=font, anchor="mm")
            else:
                draw.rectangle(box, outline=_EMPTY_BORDER, width=2)
    return np.asarray(image, dtype=np.uint8).copy()


def boards_image(boards: list[list[tuple[str, str]]], length: int, max_attempts: int, kind: str,
                 columns: int = 4) -> np.ndarray:
    """Several boards (a multi-board game), ``columns`` to a line, each drawn by :func:`board_image`."""
    images = [board_image(rows, length, max_attempts, kind) for rows in boards]
    height, width = images[0].shape[:2]
    across = min(columns, len(images))
    down = -(-len(images) // across)
    canvas = np.full((down * height, across * width, 3), _BACKGROUND, dtype=np.uint8)
    for i, image in enumerate(images):
        y, x = divmod(i, across)
        canvas[y * height : (y + 1) * height, x * width : (x + 1) * width] = image
    return canvas


def render_board(rows: list[tuple[str, str]], game: Game, mode: str) -> str | np.ndarray:
    """One frame of a board: ANSI text (``"ansi"``/``"human"``) or an RGB array (``"rgb_array"``)."""
    if mode == "rgb_array":
        return board_image(rows, game.length, game.max_attempts, game.kind)
    return board_ansi(rows, game.length, game.max_attempts, game.kind)
