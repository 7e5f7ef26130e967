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
* ``candidate``: ``g`` is one of the candidates (it can win now);
* ``log buckets``, ``log largest``: the same sizes, absolute, as ``log(1 + size) /
  log(answers)`` (near the end of a game 1.2 against 1.5 candidates left matters, whatever ``n``);
* ``log expected left``: ``log(1 + E) / log(answers)`` where ``E = (sum(b^2) - candidate) / n``
  is the expected number of candidates left *after* the guess, a win leaving none. It is the one
  feature that alone ranks every guess sensibly at every stage: with one candidate left, the
  answer scores 0 and every other guess ``log 2 / log(answers)``, where the expected bucket ties
  them all at 1.

With each set comes its *summary*: what its best guess achieves (the most buckets, the smallest
largest and expected bucket, the most entropy, as fractions), for the critic.

They come from the shared bucket engine (:mod:`guessgym.envs.buckets`, numba) and are memoised
per candidate set (a least-recently-used table of ``cache_size`` sets), because training sees
the same sets again and again: the opening set every game, and every set of a rollout once per
epoch.

Examples:
    >>> from guessgym.envs.game import wordle
    >>> game = wordle(answers=["crane", "crate", "grate"], guesses=["crane", "crate", "grate", "slate"])
    >>> features = SplitFeatures(game)
    >>> [round(float(x), 3) for x in features(np.array([0, 1, 2]))[3, :5]]  # slate: {crane}, {crate, grate}
    [0.667, 0.667, 0.556, 0.579, 0.0]
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from ..envs.buckets import ENTROPY_SCALE, bucket_profile
from ..envs.game import Game
from ..envs.matrix import PatternMatrix

#: The features, in the order of the last axis.
FEATURES = ("buckets", "largest", "expected", "entropy", "candidate", "log buckets", "log largest",
            "log expected left")
#: The summary of a set, in order.
SUMMARY = ("most buckets", "smallest largest bucket", "smallest expected bucket", "most entropy")


#: The largest weight a split prior may give a feature (1e308 overflowed the policy's first layer).
MAX_PRIOR_WEIGHT = 1e6


def check_split_prior(split_prior: dict[str, float] | None, split_features: bool) -> dict[str, float]:
    """``split_prior`` as a plain ``{feature: weight}`` dict; ``ValueError`` names a bad entry."""
    if not split_prior:
        return {}
    if not split_features:
        raise ValueError("split_prior needs split_features=True: it weights the split features")
    if not isinstance(split_prior, dict):
        raise ValueError(f"split_prior must be a {{feature: weight}} table, got {split_prior!r}")
    unknown = sorted(set(split_prior) - set(FEATURES))
    if unknown:
        raise ValueError(f"unknown split feature(s) {unknown} in split_prior; valid: {list(FEATURES)}")
    prior = {}
    for name, weight in split_prior.items():
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) or \
                abs(weight) > MAX_PRIOR_WEIGHT:
            raise ValueError(f"split_prior[{name!r}] must be a number from {-MAX_PRIOR_WEIGHT:g} to "
                             f"{MAX_PRIOR_WEIGHT:g}, got {str(weight)[:40]}")
        prior[name] = float(weight)
    return prior


def check_log_scale(log_scale: int | None) -> None:
    """Refuse a ``log_scale`` that is not ``None`` or an answer count of at least 2."""
    if log_scale is not None and (isinstance(log_scale, bool) or not isinstance(log_scale, int) or log_scale < 2):
        raise ValueError(f"log_scale must be None (the game's answer count) or an answer count of at least 2, "
                         f"got {log_scale!r}")


def log_divisor(answers: int) -> float:
    """``log(answers)``, the divisor of the ``log`` features (1 for a single answer)."""
    return math.log(answers) if answers > 1 else 1.0


class SplitFeatures:
    """Per-guess split features of candidate sets of one game (see the module docstring).

    Args:
        game: the game (its pattern matrix is loaded or built through :class:`PatternMatrix`).
        cache_size: candidate sets whose features are kept (each ``guesses x 5`` float32: 259 kB
            for Wordle, so 530 MB at most). It should exceed the sets of one rollout (``n_steps x
            num_envs``): PPO's epochs then find every set of the rollout in the cache.
        log_scale: the answer count whose logarithm scales the ``log`` features (``None``: the
            game's own). A policy meant for lists of every size fixes it, so that a feature means
            the same number of candidates on a list of 40 answers and on one of 3,158.
    """

    def __init__(self, game: Game, cache_size: int = 2048, log_scale: int | None = None) -> None:
        if cache_size < 0:
            raise ValueError(f"cache_size must be at least 0, not {cache_size}")
        check_log_scale(log_scale)
        self.game = game
        self.matrix = PatternMatrix.for_game(game)
        self.cache_size = cache_size
        self.guesses = np.arange(len(game.guesses), dtype=np.int64)
        self.answer_to_guess = np.asarray(game.answer_to_guess, dtype=np.int64)
        self._cache: OrderedDict[bytes, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._log_answers = log_divisor(len(game.answers) if log_scale is None else log_scale)
        self._empty = (np.zeros((len(game.guesses), len(FEATURES)), dtype=np.float32),
                       np.zeros(len(SUMMARY), dtype=np.float32))
        for array in self._empty:
            array.setflags(write=False)
        self.hits = 0
        self.misses = 0

    def __getstate__(self) -> dict[str, object]:
        """Pickled without the pattern matrix and the cache (a policy sent to worker processes
        would otherwise carry hundreds of MB); both come back from the disk cache on unpickling."""
        state = self.__dict__.copy()
        state.update(matrix=None, _cache=OrderedDict(), hits=0, misses=0)
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self.matrix = PatternMatrix.for_game(self.game)

    def __call__(self, candidates: np.ndarray) -> np.ndarray:
        """``(guesses, 8)`` float32 features for the candidate answer indices (read-only)."""
        return self.entry(candidates)[0]

    def summary(self, candidates: np.ndarray) -> np.ndarray:
        """The set's summary (see the module docstring): 4 float32."""
        return self.entry(candidates)[1]

    def entry(self, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Features and summary of a candidate set, from the cache or computed."""
        cands = np.asarray(candidates, dtype=np.int64)
        if cands.size == 0:
            raise ValueError("no candidates: the tiles seen rule out every answer")
        if cands.min() < 0 or cands.max() >= len(self.game.answers):
            raise ValueError(f"candidate indices must be in [0, {len(self.game.answers)}), "
                             f"got {cands.min()}..{cands.max()}")
        mask = np.zeros(len(self.game.answers), dtype=bool)
        mask[cands] = True
        return self._entry(np.packbits(mask).tobytes(), mask)

    def _entry(self, key: bytes, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        found = self._cache.get(key)
        if found is not None:
            self._cache.move_to_end(key)
            self.hits += 1
            return found
        self.misses += 1
        out = self._compute(np.flatnonzero(mask))
        if self.cache_size:
            self._cache[key] = out
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return out

    def unique_batch(self, masks: np.ndarray) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
        """For a batch of 0/1 candidate masks over the answers: the features of each distinct set,
        the summary of each row ``(B, 4)``, and which set each row is (``(B,)`` indices into the
        list). Rows share sets (every game starts with all answers), so nothing is copied per row.
        A row without candidates gets zeros: it happens when a curriculum narrows the answer pool
        under games that began with an answer outside it."""
        masks = np.asarray(masks)
        if masks.ndim != 2 or masks.shape[1] != len(self.game.answers):
            raise ValueError(f"masks must have shape (batch, {len(self.game.answers)}), got {masks.shape}")
        present = masks > 0.5
        packed = np.packbits(present, axis=1)
        seen: dict[bytes, int] = {}
        entries: list[tuple[np.ndarray, np.ndarray]] = []
        rows = np.empty(masks.shape[0], dtype=np.int64)
        for i in range(masks.shape[0]):
            key = packed[i].tobytes()
            index = seen.get(key)
            if index is None:
                index = seen[key] = len(entries)
                entries.append(self._entry(key, present[i]) if present[i].any() else self._empty)
            rows[i] = index
        summaries = np.stack([e[1] for e in entries])[rows]
        return [e[0] for e in entries], summaries, rows

    def _compute(self, cands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = cands.size
        profile = bucket_profile(self.matrix, self.guesses, cands)  # buckets, largest, sum b^2, sum b log2 b
        out = np.zeros((self.guesses.size, len(FEATURES)), dtype=np.float32)
        out[:, 0] = profile[:, 0] / n
        out[:, 1] = profile[:, 1] / n
        out[:, 2] = profile[:, 2] / (n * n)
        if n > 1:
            out[:, 3] = (math.log2(n) - profile[:, 3] / ENTROPY_SCALE / n) / math.log2(n)
        out[self.answer_to_guess[cands], 4] = 1.0
        out[:, 5] = np.log1p(profile[:, 0]) / self._log_answers
        out[:, 6] = np.log1p(profile[:, 1]) / self._log_answers
        out[:, 7] = np.log1p((profile[:, 2] - out[:, 4]) / n) / self._log_answers
        summary = np.array([out[:, 0].max(), out[:, 1].min(), out[:, 2].min(), out[:, 3].max()], dtype=np.float32)
        out.setflags(write=False)
        summary.setflags(write=False)
        return out, summary


__all__ = ["FEATURES", "SUMMARY", "SplitFeatures", "check_log_scale", "check_split_prior", "log_divisor"]
