"""How each guess would split the remaining candidates: per-guess features for learned policies.

A guess is good when its tiles tell the remaining candidates apart. The greedy baselines each
rank guesses by one statistic of that split; a learned policy can weigh several, per state.
:class:`SplitFeatures` gives, for a candidate set ``C`` (``n`` answers) and every guess ``g``,
the statistics of the buckets ``g`` splits ``C`` into (one bucket per tile pattern), each
scaled to ``[0, 1]`` so that they mean the same for 3 candidates or 2,309, and on every list:

* ``buckets``: the number of buckets over ``n`` (1: every candidate told apart);
* ``largest``: the largest bucket over ``n`` (the least-worst baseline's score);
* ``expected``: the expected size of the bucket the answer falls in, ``sum(b^2) / n``, over
  ``n`` (the expected-size baseline's score);
* ``entropy``: the entropy of the split in bits over ``log2(n)`` (the entropy baseline's);
* ``candidate``: ``g`` is one of the candidates (it can win now).

They come from the shared bucket engine (:mod:`guessgym.envs.buckets`, numba) and are memoised
per candidate set (a least-recently-used table of ``cache_size`` sets), because training sees
the same sets again and again: the opening set every game, and every set of a rollout once per
epoch.

Examples:
    >>> from guessgym.envs.game import wordle
    >>> game = wordle(answers=["crane", "crate", "grate"], guesses=["crane", "crate", "grate", "slate"])
    >>> features = SplitFeatures(game)
    >>> [round(float(x), 3) for x in features(np.array([0, 1, 2]))[3]]  # slate: {crane}, {crate, grate}
    [0.667, 0.667, 0.556, 0.579, 0.0]
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from ..envs.buckets import ENTROPY_SCALE, STAT_CLOGC, STAT_COUNT, STAT_MAX, STAT_SUMSQ, bucket_stat
from ..envs.game import Game
from ..envs.matrix import PatternMatrix

#: The features, in the order of the last axis.
FEATURES = ("buckets", "largest", "expected", "entropy", "candidate")


class SplitFeatures:
    """Per-guess split features of candidate sets of one game (see the module docstring).

    Args:
        game: the game (its pattern matrix is loaded or built through :class:`PatternMatrix`).
        cache_size: candidate sets whose features are kept (each ``guesses x 5`` float32: 259 kB
            for Wordle).
    """

    def __init__(self, game: Game, cache_size: int = 512) -> None:
        if cache_size < 0:
            raise ValueError(f"cache_size must be at least 0, not {cache_size}")
        self.game = game
        self.matrix = PatternMatrix.for_game(game)
        self.cache_size = cache_size
        self.guesses = np.arange(len(game.guesses), dtype=np.int64)
        self.answer_to_guess = np.asarray(game.answer_to_guess, dtype=np.int64)
        self._cache: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __call__(self, candidates: np.ndarray) -> np.ndarray:
        """``(guesses, 5)`` float32 features for the candidate answer indices (read-only)."""
        cands = np.unique(np.asarray(candidates, dtype=np.int64))
        if cands.size == 0:
            raise ValueError("no candidates: the tiles seen rule out every answer")
        if cands[0] < 0 or cands[-1] >= len(self.game.answers):
            raise ValueError(f"candidate indices must be in [0, {len(self.game.answers)}), "
                             f"got {cands[0]}..{cands[-1]}")
        key = cands.tobytes()
        found = self._cache.get(key)
        if found is not None:
            self._cache.move_to_end(key)
            self.hits += 1
            return found
        self.misses += 1
        out = self._compute(cands)
        out.setflags(write=False)
        if self.cache_size:
            self._cache[key] = out
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return out

    def batch(self, masks: np.ndarray) -> np.ndarray:
        """``(B, guesses, 5)`` features for a batch of 0/1 candidate masks over the answers."""
        masks = np.asarray(masks)
        if masks.ndim != 2 or masks.shape[1] != len(self.game.answers):
            raise ValueError(f"masks must have shape (batch, {len(self.game.answers)}), got {masks.shape}")
        return np.stack([self(np.flatnonzero(row > 0.5)) for row in masks])

    def _compute(self, cands: np.ndarray) -> np.ndarray:
        n = cands.size
        out = np.zeros((self.guesses.size, len(FEATURES)), dtype=np.float32)
        out[:, 0] = bucket_stat(self.matrix, self.guesses, cands, STAT_COUNT) / n
        out[:, 1] = bucket_stat(self.matrix, self.guesses, cands, STAT_MAX) / n
        out[:, 2] = bucket_stat(self.matrix, self.guesses, cands, STAT_SUMSQ) / (n * n)
        if n > 1:
            clogc = bucket_stat(self.matrix, self.guesses, cands, STAT_CLOGC) / ENTROPY_SCALE
            out[:, 3] = (math.log2(n) - clogc / n) / math.log2(n)
        out[self.answer_to_guess[cands], 4] = 1.0
        return out


__all__ = ["FEATURES", "SplitFeatures"]
