"""Min-average (expectimin) search of Jain et al. 2024, sections 7 and 8.

A guess's value is the report's ``EXPECTIMIN`` backed up over ``depth`` levels (one user ply and
one computer ply each): at depth 1 the integer ``sum(s^2)`` over its buckets ``s``; at depth 2
each bucket's best inner guess, combined as ``sum(v^2) / sum(v)``. Guesses come from the
candidates, in list order (ties go to the first), so the solver is hard-mode legal by construction.
Depth 2 is used only while at most ``max_depth2_candidates`` candidates remain (its cost at the
root of classic Nerdle is minutes, not the per-decision budget of a baseline).

How the report was read, its errors (the best opener is ``48-32=16``, not ``48-16=32``) and the
cost analysis are in the documentation's research notes (``docs/research/min-average.md``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from ..agents.base import SolverState
from ..envs.buckets import STAT_SUMSQ, bucket_stat, first_min, first_min_float
from .common import BaselineAgent, candidate_guesses


@njit(cache=True, parallel=True, nogil=True)
def _depth2_values(
    dense: np.ndarray,
    cand_rows: np.ndarray,
    cand_cols: np.ndarray,
    roots: np.ndarray,
    n_patterns: int,
    out: np.ndarray,
) -> None:
    """Depth-2 expectimin value of the candidates ``roots`` (positions) used as the root guess.

    ``dense[cand_rows[i], cand_cols[j]]`` is the pattern of candidate ``i`` (as a guess) against
    candidate ``j`` (as the answer).
    """
    n = cand_cols.shape[0]
    for t in prange(roots.shape[0]):
        r = roots[t]
        counts = np.zeros(n_patterns, dtype=np.int64)
        pats = np.empty(n, dtype=np.int64)
        root = dense[cand_rows[r]]
        for j in range(n):
            p = np.int64(root[cand_cols[j]])
            pats[j] = p
            counts[p] += 1
        # counting sort of the candidates by root pattern: buckets become contiguous runs
        starts = np.empty(n_patterns, dtype=np.int64)
        total = 0
        for p in range(n_patterns):
            starts[p] = total
            total += counts[p]
        fill = starts.copy()
        order = np.empty(n, dtype=np.int64)
        for j in range(n):
            p = pats[j]
            order[fill[p]] = j
            fill[p] += 1
        nr = 0.0
        dr = 0.0
        scratch = np.zeros(n_patterns, dtype=np.int64)
        for p in range(n_patterns):
            b = counts[p]
            if b == 0:
                continue
            s = starts[p]
            if b <= 2:
                v = 1.0
            else:
                best = np.int64(b) * b
                for gi in range(s, s + b):
                    row = dense[cand_rows[order[gi]]]
                    sq = np.int64(0)
                    for aj in range(s, s + b):
                        q = row[cand_cols[order[aj]]]
                        c = scratch[q] + 1
                        scratch[q] = c
                        sq += 2 * c - 1
                    for aj in range(s, s + b):
                        scratch[row[cand_cols[order[aj]]]] = 0
                    if sq < best:
                        best = sq
                        if best == b:  # a perfect split: value 1, nothing can beat it
                            break
                v = best / b
            nr += v * v
            dr += v
        out[t] = nr / dr


def depth2_values(matrix: Any, candidates: np.ndarray, roots: np.ndarray | None = None) -> np.ndarray:
    """Depth-2 value of candidates as the next guess (see the module docstring).

    Args:
        matrix: the game's pattern matrix.
        candidates: the remaining candidates (answer indices).
        roots: positions in ``candidates`` of the guesses to evaluate (default: all of them).
    """
    game = matrix.game
    candidates = np.ascontiguousarray(candidates, dtype=np.int64)
    rows = np.ascontiguousarray(game.answer_to_guess[candidates], dtype=np.int64)
    roots = np.arange(candidates.size, dtype=np.int64) if roots is None else np.ascontiguousarray(roots, dtype=np.int64)
    out = np.empty(roots.size, dtype=np.float64)
    if roots.size == 0:
        return out
    if matrix.dense is not None:
        _depth2_values(matrix.dense, rows, candidates, roots, 3**game.length, out)
    else:
        block = np.ascontiguousarray(matrix.submatrix(rows, candidates))
        local = np.arange(candidates.size, dtype=np.int64)
        _depth2_values(block, local, local, roots, 3**game.length, out)
    return out


def depth1_values(matrix: Any, candidates: np.ndarray) -> np.ndarray:
    """Depth-1 value ``sum(s^2) / sum(s)`` of every candidate as the next guess."""
    candidates = np.asarray(candidates, dtype=np.int64)
    rows = matrix.game.answer_to_guess[candidates]
    return bucket_stat(matrix, rows, candidates, STAT_SUMSQ) / max(1, candidates.size)


class MinAverageAgent(BaselineAgent):
    """Min-average (expectimin) search over the candidates, depth 1 or 2 (Jain et al. 2024 7-8).

    Keyword arguments:
        depth: search levels (user ply + computer ply): 1 (default) or 2.
        max_depth2_candidates: with ``depth=2``, candidate sets larger than this use the depth-1
            choice (default 3,000; the root of classic Nerdle has 17,723); ``None`` never falls
            back.
    """

    name = "min-average"

    def __init__(self, *, depth: int = 1, max_depth2_candidates: int | None = 3000) -> None:
        super().__init__()
        if depth not in (1, 2):
            raise ValueError(f"depth must be 1 or 2 (search levels), got {depth!r}")
        if max_depth2_candidates is not None and max_depth2_candidates < 1:
            raise ValueError(f"max_depth2_candidates must be positive or None, got {max_depth2_candidates!r}")
        self.depth = depth
        self.max_depth2_candidates = max_depth2_candidates

    def effective_depth(self, n_candidates: int) -> int:
        """The depth actually searched for a candidate set of this size."""
        if self.depth == 2 and (self.max_depth2_candidates is None or n_candidates <= self.max_depth2_candidates):
            return 2
        return 1

    def values(self, state: SolverState) -> np.ndarray:
        """Expectimin value of each candidate (in answer order) as the next guess."""
        cands = state.candidates.indices
        if self.effective_depth(cands.size) == 2:
            return depth2_values(self.matrix, cands)
        return depth1_values(self.matrix, cands)

    def choose(self, state: SolverState) -> int:
        cands = state.candidates.indices
        guesses = candidate_guesses(state)
        if cands.size <= 2:  # every candidate scores 1 at any depth: the first one wins
            return int(guesses[0])
        if self.effective_depth(cands.size) == 2:
            return int(guesses[first_min_float(depth2_values(self.matrix, cands))])
        sumsq = bucket_stat(self.matrix, guesses, cands, STAT_SUMSQ)  # exact integers
        return int(guesses[first_min(sumsq)])

    def memo_key(self, state: SolverState) -> tuple[Any, ...] | None:
        return (state.candidates.key(),)  # guesses are candidates: legal in hard mode too
