"""Min-average (expectimin) search of nerdle_min_average_report.txt, sections 7 and 8.

The report models the game as a tree: a *user* node tries every equation still possible
(``get_possible_equations``, i.e. the remaining candidates, in list order) and a *computer* node
tries every feedback that guess can receive. Leaves carry the size of the reduced candidate set.
``EXPECTIMIN`` (Algorithm 10) backs values up:

* user node: the minimum of its children, the first strictly smaller one winning
  (``if exp_value[1] < value``), so ties go to the first guess in candidate order;
* computer node: ``nr / dr`` with ``nr = sum(v * v)`` and ``dr = sum(v)`` over its children's
  values ``v`` (a weighted average whose weights are the values themselves).

``depth`` here counts *levels* (one user ply plus one computer ply), as in the report's
"search depth = 1/2"; the report's ``BUILD_TREE(depth)`` counts plies, so our ``depth=1`` is its
``BUILD_TREE(depth=2)``.

* depth 1: value of a guess = ``sum(s^2) / sum(s)`` over its buckets ``s``; ``sum(s) = |C|`` is
  the same for every guess, so we compare the integer ``sum(s^2)`` (exact).
* depth 2: for each bucket ``B`` of the root guess, the inner user node's value is
  ``min over g in B of sum(s'^2) / |B|`` over the buckets ``s'`` of ``g`` within ``B`` (a bucket of
  one or two equations has value 1); the root guess's value is ``sum(v_B^2) / sum(v_B)``. The
  numba kernel groups each root guess's candidates by pattern with a counting sort and evaluates
  each inner bucket on its own ``|B| x |B|`` block, stopping an inner scan early when a perfect
  split (value 1) is found, which cannot be beaten. Values are floats, as in the report; values
  equal up to rounding (relative 1e-12) count as ties, resolved in candidate order.

Cost and the root. Depth 2 costs ``sum over root guesses of sum(s^2)``, i.e. ``|C|^2`` times the
mean depth-1 value, not the ``O(n^4)`` the report derives for its tree. At the root of classic
Nerdle (17,723 equations) that sum is about 3.9e10 pattern reads (mean depth-1 value 123): about
7 minutes on two cores (benchmarks/bench_solvers.py extrapolates it from a sample of root
guesses), not the hours the report's bound suggests, but far too slow for a per-decision
baseline. So depth 2 is used only when at most ``max_depth2_candidates`` candidates
remain (default 3,000); larger sets, in particular the root of classic and Midi Nerdle, use the
depth-1 choice. ``max_depth2_candidates=None`` forces depth 2 everywhere.

Seed claims and ambiguities:

* Best opener (section 9.3): the report says ``48-16=32`` (depth 1). Our exhaustive depth-1
  search over the 17,723 answers finds ``48-32=16`` (value 31.11; ``48-16=32`` scores 32.99 and
  ranks 17th). The report's histogram claim that its opener leaves fewer than 110
  equations for every answer also fails for both: the largest bucket is 116 for ``48-16=32`` and
  111 for ``48-32=16``. benchmarks/bench_solvers.py prints the opener and its value.
* Candidate order: the report's lists keep the order of its generator (``generate_expressions``);
  ours are the game's answer list (sorted). Ties (``<`` keeps the first) may therefore resolve to
  a different equation than the report's program would pick.
* Algorithm 10 line 22 assigns ``exp_value[1] <- self.expectimin(n[1])`` (a tuple into one slot);
  we read it as ``exp_value <- ...`` and use its value, the only reading that type-checks.
* The report's generator pseudo-code (Algorithm 3) would format division results as floats
  (``"12/3=4.0"``) and cannot produce its own count of 17,723; our answer list comes from
  :mod:`guessgym.envs.equations`, which reproduces 17,723 exactly.
* Guesses come only from the candidates (the user node enumerates possible equations), so the
  solver is hard-mode legal by construction.
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
    """Min-average (expectimin) search over the candidates, depth 1 or 2 (nerdle_min_average_report.txt 7-8).

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
