"""Greedy bucket solvers: minimax ("least worst"), expected size, and most buckets.

Seeds: wordle_minimax_solver.txt (R. Pawson, the C# ``BestAttempt``/``BetterOf`` solver and its two
variants plus a hard-mode variant) and generalised_wordle_greedy_clique.txt section 6.1 (the same
greedy rule for word lengths 3 to 9).

Rule. For every guess in a pool, split the remaining candidates by the feedback they would give
and score the guess by the size of its largest bucket (variant 1, "least worst") or by the sum of
the squared bucket sizes (variant 2, "expected": the report's ``Sum(g.Count() * g.Count())``,
which is ``|C|`` times the expected number of candidates left). The smallest score wins.

Pools and tie-breaks (constructor options; the defaults reproduce the report):

* ``pool="all"`` (easy mode): every allowed guess, visited in ``order="answers-first"``: the
  report's ``ValidWords`` list is the 2,309 answers followed by the 10,638 other words.
* ``hard_pool="candidates"`` (hard mode): the report's hard variant,
  ``AllRemainingWordCounts(possAnswers, possAnswers)``: attempts drawn from the remaining
  candidates, which always satisfy the hard-mode rule. ``hard_pool="all"`` instead searches every
  guess the real hard-mode rule allows (greens kept in place, revealed letters reused): the hard
  mode as generalised_wordle_greedy_clique.txt section 4 *states* it (its Greedy still draws
  guesses from the pruned vocabulary, i.e. the candidates, see below).
* ``tie_break="betterof"``: the report's ``Aggregate(BetterOf)`` fold: a challenger replaces the
  best so far when its count is strictly smaller, or equal and the challenger is itself a
  remaining candidate. Implemented without a loop by :func:`guessgym.envs.buckets.betterof_fold`: the
  result is the *last* candidate with the minimum count if any, otherwise the *first* word with
  the minimum count. ``tie_break="first"``: ``Vocab[argmin(worst_case_words)]`` of the
  generalised paper (first minimum in list order).

The generalised paper's Greedy (Algorithm 2) is
``make_baseline("least-worst", pool="candidates", tie_break="first", order="game")``: its guesses
come from the pruned vocabulary (the candidates, since its vocabulary is one list of words that
are both guesses and answers), in both modes.

Seed ambiguities and errors found (our measurements on the nyt lists, 12,947 guesses and 2,309
answers):

* The report says list order "makes no difference" (Appendix I). It does: five words tie at the
  minimum worst case of 167 for the first guess (AESIR, ARISE, RAISE, REAIS, SERAI). With the
  answers-first order the fold visits ARISE, RAISE (both answers), then AESIR, REAIS, SERAI; it
  returns RAISE, the report's opener. A plain first-minimum rule would return ARISE in that order
  and AESIR in alphabetical order.
* ``AllRemainingWordCounts`` uses ``AsParallel()`` without ``AsOrdered()``, so in the C# program
  the fold order, and hence the tie-break, is not even deterministic; we fold in list order.
* With ``BetterOf`` in the hard variant every challenger is a candidate, so ties go to the *last*
  candidate in list order with the minimum count.
* The report's commentary prints ``MarkAttempt`` returning ``EvaluateYellows(...).target``, while
  the listing (correctly) returns ``.attempt``; ``TestBestAttempt`` and ``TestAllRemainingWordCounts``
  contain six-letter typos ("BBBBBB", "DDDDDD"). The scoring itself (greens first, then yellows
  left to right against unused letters) is the one :mod:`guessgym.envs.scoring` implements.
* The generalised paper's ``GetPattern`` marks a letter yellow whenever it occurs anywhere in the
  hidden word (its vocabulary is assumed to have distinct letters); we always use the exact
  two-pass scoring, which agrees with it on words with distinct letters.
* With ``tie_break="first"`` and ``pool="all"`` a single remaining candidate would lose to the
  first word of the list (every guess then scores 1) and the game would never end; we always play
  the last remaining candidate (``BetterOf`` does so by itself).
* Claims checked by benchmarks/bench_solvers.py (and tests): RAISE's worst case is 167 and after
  an all-grey RAISE the solver plays BLUDY (worst case 13): confirmed. Least worst over all 2,309
  answers: mean 3.5548 with 1/67/977/1,178/86 games in 1/2/3/4/5 guesses, exactly the report's
  percentages. Hard variant: mean 3.6652 with 13 answers needing more than 6 guesses: the
  report's 3.67 and 13. Expected variant: *not* reproduced. We measure mean 3.4812 and never more
  than 5 guesses (opener ROATE; 3.4942, still at most 5, when RAISE is forced first as in the
  report's simulation loop), against the report's 3.57 with ten answers needing 6; no reading of
  the listing we tried (sum of squares, number of groups, integer average) gives its figures.

``most-buckets`` is not from a seed document: it keeps the guess with the *most* buckets (the
"most distinct feedback patterns" rule), with the same pools and tie-breaks. It is here because
the learned policies start from it (``split_prior = {"log buckets": ...}`` in configs/), so a
learned row can be read against the greedy rule it started from, not only against the seeds'.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from ..agents.base import SolverState
from ..envs.buckets import STAT_COUNT, STAT_MAX, STAT_SUMSQ, betterof_fold, bucket_stat, first_min
from .common import BaselineAgent, GuessOrder, candidate_guesses, check_choice, guess_order

Pool = Literal["all", "candidates"]
TieBreak = Literal["betterof", "first"]


class _GreedyBucketAgent(BaselineAgent):
    """Shared machinery: score a pool of guesses by one bucket statistic, keep the smallest
    (the largest when ``maximise``)."""

    stat: int = STAT_MAX
    maximise: bool = False

    def __init__(
        self,
        *,
        pool: Pool = "all",
        hard_pool: Pool = "candidates",
        tie_break: TieBreak = "betterof",
        order: GuessOrder = "answers-first",
    ) -> None:
        super().__init__()
        self.pool = check_choice(pool, ("all", "candidates"), "pool")
        self.hard_pool = check_choice(hard_pool, ("all", "candidates"), "hard_pool")
        self.tie_break = check_choice(tie_break, ("betterof", "first"), "tie_break")
        self.order = check_choice(order, ("answers-first", "game"), "order")

    def _pool_mode(self, state: SolverState) -> str:
        return self.hard_pool if state.hard is not None else self.pool

    def candidate_pool(self, state: SolverState) -> np.ndarray:
        """The guesses this solver considers now, in the order its fold visits them."""
        if self._pool_mode(state) == "candidates":
            guesses = candidate_guesses(state)  # answer-list order
            return guesses if self.order == "answers-first" else np.sort(guesses)
        ordered = self.cached("order", lambda: guess_order(state.game, self.order))
        if state.hard is not None:
            ordered = ordered[state.hard.legal_mask()[ordered]]
        return ordered

    def scores(self, state: SolverState) -> tuple[np.ndarray, np.ndarray]:
        """``(pool, score)``: the guesses considered and their score (smaller is better)."""
        pool = self.candidate_pool(state)
        score = bucket_stat(self.matrix, pool, state.candidates.indices, self.stat)
        return pool, -score if self.maximise else score

    def choose(self, state: SolverState) -> int:
        if len(state.candidates) == 1:
            # every guess then has count 1; BetterOf returns the candidate anyway, and the plain
            # first-minimum rule would otherwise replay the first word of the pool forever
            return int(candidate_guesses(state)[0])
        pool, counts = self.scores(state)
        if self.tie_break == "first":
            return int(pool[first_min(counts)])
        is_candidate = np.zeros(len(state.game.guesses), dtype=bool)
        is_candidate[candidate_guesses(state)] = True
        return int(pool[betterof_fold(counts, is_candidate[pool])])

    def memo_key(self, state: SolverState) -> tuple[Any, ...] | None:
        # The decision depends on the candidates, plus the legal guesses when hard mode searches
        # beyond the candidates.
        if state.hard is not None and self.hard_pool == "all":
            return (state.candidates.key(), np.packbits(state.hard.legal_mask()).tobytes())
        return (state.candidates.key(),)


class LeastWorstAgent(_GreedyBucketAgent):
    """Greedy minimax: smallest worst-case feedback bucket (wordle_minimax_solver.txt; generalised paper 6.1).

    Keyword arguments (defaults reproduce the report's ``BestAttempt``):
        pool: ``"all"`` guesses (default) or the remaining ``"candidates"`` in easy mode.
        hard_pool: pool in hard mode: ``"candidates"`` (default, the report's hard variant) or
            ``"all"`` guesses the hard-mode rule allows.
        tie_break: ``"betterof"`` (default, the report's fold) or ``"first"`` minimum.
        order: ``"answers-first"`` (default, the report's ValidWords) or ``"game"`` list order.
    """

    name = "least-worst"
    stat = STAT_MAX


class ExpectedSizeAgent(_GreedyBucketAgent):
    """Smallest sum of squared bucket sizes, i.e. expected candidates left (wordle_minimax_solver.txt variant 2).

    Same keyword arguments and defaults as :class:`LeastWorstAgent`; only the score differs
    (``Sum(g.Count() * g.Count())``).
    """

    name = "expected-size"
    stat = STAT_SUMSQ


class MostBucketsAgent(_GreedyBucketAgent):
    """Most distinct feedback patterns, i.e. buckets (no seed: the learned policies' starting rule).

    Same keyword arguments and defaults as :class:`LeastWorstAgent`; the score is the number of
    buckets, largest first. On the nyt lists it wins every game in 3.4314 guesses on average,
    against 3.4812 for expected-size (results/main/leaderboard.md).
    """

    name = "most-buckets"
    stat = STAT_COUNT
    maximise = True
