"""A uniformly random remaining candidate: the floor every other solver should beat.

Not from a seed: it is the "keep guessing something consistent" player that the seeds' players and
interviews describe (Pawson 2023: "from the third attempt most players are always
selecting a word that could be the target"), without any choice among candidates.

Determinism. The choice is drawn from a generator seeded by ``(seed, game fingerprint, history of
(guess, pattern))`` through SHA-256, not from a stream shared across games, so the same state
always gets the same guess whatever order games are played in, in whatever process. Guesses are
candidates, hence legal in hard mode.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from ..agents.base import SolverState
from .common import BaselineAgent, candidate_guesses


class RandomConsistentAgent(BaselineAgent):
    """A uniformly random remaining candidate, deterministic per (seed, game, history) (the floor; no seed document).

    Keyword arguments:
        seed: the random seed (default 0).
    """

    name = "random-consistent"

    def __init__(self, *, seed: int = 0) -> None:
        super().__init__()
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise TypeError(f"seed must be an int, got {seed!r}")
        self.seed = int(seed)

    def _rng(self, state: SolverState) -> np.random.Generator:
        h = hashlib.sha256(f"{self.seed}|{state.game.fingerprint}|".encode())
        h.update(np.asarray(state.history, dtype=np.int64).tobytes())
        words = np.frombuffer(h.digest(), dtype=np.uint32)
        return np.random.default_rng(np.random.SeedSequence([int(w) for w in words]))

    def choose(self, state: SolverState) -> int:
        guesses = candidate_guesses(state)
        return int(guesses[self._rng(state).integers(guesses.size)])

    def memo_key(self, state: SolverState) -> tuple[Any, ...] | None:
        return (tuple(state.history),)
