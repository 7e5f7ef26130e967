"""Entropy solvers of the Nerdle entropy blog post: per-position character entropy and feedback-pattern entropy.

First attempt of the blog ("position-entropy"). For a guess ``x`` drawn from the possible
solution set ``N`` (``n = |N|``)::

    H(x) = sum_i  h(|E_i(x_i)| / n),   h(p) = -p log2 p - (1 - p) log2 (1 - p)

where ``E_i(x_i)`` is the set of solutions with ``x``'s symbol at position ``i``. It rewards the
most common symbol per column, and the blog itself notes the flaw: its opener ``30-11=19``
repeats ``1``. We confirm ``30-11=19`` as the maximiser over the 17,723 classic answers
(4.7374 bits). The formula indexes ``i = 0..7``; we sum over the game's length. Sums are
accumulated in exact fixed point (``round(h * 2**40)``), so equal scores are equal and the first
maximum in candidate order wins.

Second attempt ("pattern-entropy", the 3Blue1Brown approach). The entropy of the distribution of
solutions over the ``3^L`` feedback patterns::

    H(g) = log2 n - sum_b (c_b / n) log2 c_b      (buckets b of sizes c_b)

The guess with the largest entropy is played; ties go to the first in pool order (a fold with a
strict ``>``; the blog does not say, and ``argmax`` does this). Entropies are compared through
the exact fixed-point ``sum(c log2 c)`` of :func:`guessgym.envs.buckets.entropy_key`.

Pool. The blog does not say which guesses the second attempt scores; its first attempt draws
``x`` from ``N`` (the candidates). ``pool="all"`` (default) scores every allowed guess (in hard
mode: every guess the hard-mode rule allows); ``pool="candidates"`` scores the remaining
candidates only. On classic Nerdle the guess list is the answer list, so both pools give the
blog's opener ``48-32=16``, which we confirm (9.775 bits over the 17,723 answers). The blog's
claim that it "typically" solves in 2-3 guesses is measured by the shared evaluation loop.

One necessary deviation: when a single candidate remains every guess has entropy 0 and the
first-maximum rule would replay the first guess of the pool forever; we play the candidate (the
blog's loop ends there). With two or more candidates the pure rule is kept, so with
``pool="all"`` it may prefer a non-candidate that splits the set (as 3Blue1Brown's first version
did).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

import numpy as np

from ..agents.base import SolverState
from ..envs.buckets import entropy_bits, entropy_key, first_max, first_min, pair_splitters
from .common import BaselineAgent, candidate_guesses, check_choice

_POSITION_SCALE = float(2**40)


@lru_cache(maxsize=8)
def _binary_entropy_table(n: int) -> np.ndarray:
    """``round(h(c / n) * 2**40)`` for ``c = 0..n`` (int64)."""
    p = np.arange(n + 1, dtype=np.float64) / max(n, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(np.where(p > 0, p * np.log2(p), 0.0) + np.where(p < 1, (1 - p) * np.log2(1 - p), 0.0))
    return np.rint(np.nan_to_num(h) * _POSITION_SCALE).astype(np.int64)


def position_entropy_key(codes: np.ndarray, n_symbols: int) -> np.ndarray:
    """Fixed-point ``H(x) * 2**40`` of each row of ``codes`` (the candidates) against the others.

    Args:
        codes: ``(n, L)`` symbol indices of the candidate set ``N``.
        n_symbols: alphabet size.
    """
    n, length = codes.shape
    table = _binary_entropy_table(n)
    total = np.zeros(n, dtype=np.int64)
    for i in range(length):
        column = codes[:, i].astype(np.int64)
        counts = np.bincount(column, minlength=n_symbols)
        total += table[counts[column]]
    return total


def position_entropy_bits(codes: np.ndarray, n_symbols: int) -> np.ndarray:
    """``H(x)`` in bits for each row of ``codes`` (see the module docstring)."""
    return position_entropy_key(codes, n_symbols) / _POSITION_SCALE


class PatternEntropyAgent(BaselineAgent):
    """Largest feedback-pattern entropy, first maximum wins (the Nerdle entropy blog post, second attempt).

    Keyword arguments:
        pool: ``"all"`` allowed guesses (default; hard mode: the legal ones) or the remaining
            ``"candidates"``.
    """

    name = "pattern-entropy"

    def __init__(self, *, pool: Literal["all", "candidates"] = "all") -> None:
        super().__init__()
        self.pool = check_choice(pool, ("all", "candidates"), "pool")

    def candidate_pool(self, state: SolverState) -> np.ndarray:
        """The guesses scored now, in tie-break order."""
        if self.pool == "candidates":
            return candidate_guesses(state)
        return state.legal_guesses()

    def entropies(self, state: SolverState) -> tuple[np.ndarray, np.ndarray]:
        """``(pool, bits)``: the guesses scored and their feedback-pattern entropy."""
        pool = self.candidate_pool(state)
        key = entropy_key(self.matrix, pool, state.candidates.indices)
        return pool, np.asarray(entropy_bits(key, len(state.candidates)))

    def choose(self, state: SolverState) -> int:
        if len(state.candidates) == 1:
            # every guess has entropy 0; the fold keeps the first, which is a wasted move unless
            # it is the answer, so the blog's loop (which stops when one solution is left) plays it
            return int(candidate_guesses(state)[0])
        pool = self.candidate_pool(state)
        split = pair_splitters(self.matrix, pool, state.candidates.indices)  # two candidates: 1 bit, unscanned
        if split is not None and split.any():
            return int(pool[np.argmax(split)])
        key = entropy_key(self.matrix, pool, state.candidates.indices)
        return int(pool[first_min(key)])  # smallest sum(c log c) = largest entropy

    def memo_key(self, state: SolverState) -> tuple[Any, ...] | None:
        if state.hard is not None and self.pool == "all":
            return (state.candidates.key(), np.packbits(state.hard.legal_mask()).tobytes())
        return (state.candidates.key(),)


class PositionEntropyAgent(BaselineAgent):
    """Largest per-position character entropy H(x) of a candidate (the Nerdle entropy blog post, first attempt)."""

    name = "position-entropy"

    def scores(self, state: SolverState) -> np.ndarray:
        """``H(x)`` in bits of each remaining candidate (answer order)."""
        codes = state.game.answer_codes[state.candidates.indices]
        return position_entropy_bits(codes, state.game.n_symbols)

    def choose(self, state: SolverState) -> int:
        codes = state.game.answer_codes[state.candidates.indices]
        key = position_entropy_key(codes, state.game.n_symbols)
        return int(candidate_guesses(state)[first_max(key)])

    def memo_key(self, state: SolverState) -> tuple[Any, ...] | None:
        return (state.candidates.key(),)
