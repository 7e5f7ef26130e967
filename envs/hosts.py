"""Who picks the answer a guess is scored against: the one rule that sets Absurdle apart.

In Wordle and Nerdle the answer is fixed when a game starts. The Absurdle host instead moves it,
before every guess, into the largest bucket of answers the guess leaves (:func:`host_choice`).
The game engine (:class:`~guessgym.envs.engine.GameEngine`, ``host=``) applies either and then
the same rule of a step.
"""

from __future__ import annotations

import numpy as np

from .scoring import pattern_to_list

#: Who picks the answer a guess is scored against: ``"fixed"`` (drawn or given at the start of a
#: game, as in Wordle and Nerdle) or ``"absurdle"`` (before every step, the host moves the answer
#: into the largest bucket the guess leaves, :func:`host_choice`).
HOSTS = ("fixed", "absurdle")


def host_choice(patterns: np.ndarray, length: int) -> int:
    """The pattern the Absurdle host answers with, given the patterns of a guess against every
    answer still possible: the largest bucket other than all green; on a tie, the pattern with the
    fewest green tiles, then the fewest yellow tiles, then the smallest pattern code (the least
    informative answer).

    The host therefore concedes (all green) only when every answer left is won by the guess: the
    guess is the one answer left or, with Nerdle's commutative rule, every answer left is a
    rearrangement of it.

    Examples:
        >>> from guessgym.envs.scoring import score, pattern_to_tiles
        >>> answers = ["crane", "crate", "grate", "slate"]
        >>> p = host_choice(np.array([score("crane", a) for a in answers]), 5)
        >>> pattern_to_tiles(p, 5)  # one answer per bucket: the fewest greens (slate's tiles) wins the tie
        'BBGBG'
    """
    codes, sizes = np.unique(patterns, return_counts=True)
    green = 3**length - 1
    if codes.size > 1:
        keep = codes != green
        codes, sizes = codes[keep], sizes[keep]
    best, key = -1, None
    for code, size in zip(codes.tolist(), sizes.tolist()):
        tiles = pattern_to_list(int(code), length)
        rank = (-size, tiles.count(2), tiles.count(1), code)
        if key is None or rank < key:
            best, key = int(code), rank
    return best


__all__ = ["HOSTS", "host_choice"]
