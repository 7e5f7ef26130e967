"""The exact optimum: the decision tree with the fewest total guesses over all answers.

``solve(game)`` searches for the tree minimising the total number of guesses over every answer,
within the game's attempt limit (and hard mode's rule when it is set), and returns it as a
:class:`~guessgym.agents.decision_tree.DecisionTree` with its total. The search over candidate sets is
the numba kernel of :mod:`guessgym.baselines.search_kernels` (branch and bound with admissible
lower bounds, memoisation, move ordering and collapsing of identical splits); this module chooses
the openers, drives the kernel over the first guess's buckets, applies the time budget and reads
the tree back out of the memo.

Modes:

* **exact** (``width=0``, the default): every guess is considered at every node below the
  opener, so the tree is optimal for its opener; over ``openers="all"`` it is the optimum.
  ``proof=True`` asks for exactly that combination and :attr:`SolveResult.proven` says whether it
  held.
* **near-optimal** (``width=K``): only the ``K`` most promising distinct guesses per node; never
  below the optimum, and within a fraction of a percent of it for small ``K``.

Objective: the fewest *total* guesses (the mean). The fewest guesses in the *worst case* (minimax,
and Absurdle's minimum) is :func:`guessgym.baselines.worst_case.solve_worst_case`.

Openers: ``opener="salet"`` fixes one; ``openers=K`` tries the ``K`` most promising by the same
ordering as the inner nodes (most buckets, then smallest sum of squares); ``openers="all"`` tries
every guess, skipping those whose lower bound cannot beat the best total found. With several
openers the exact search starts from an upper bound: the best width-3 tree over the first 20
openers (seconds for Wordle), so that each exact search only has to beat it; an opener that cannot
is refuted early, and when none can, that tree is optimal.

Examples:
    >>> from guessgym.envs.game import wordle
    >>> game = wordle(answers=["crane", "crate", "grate", "slate"], guesses=["crane", "crate", "grate",
    ...                                                                       "slate", "scrag"])
    >>> result = solve(game)
    >>> result.total, result.tree.max_depth, result.proven
    (7, 2, True)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..agents.base import UnsupportedGameError
from ..agents.decision_tree import DecisionTree
from ..envs import matrix
from ..envs.candidates import hard_filter
from ..envs.equations import commutative_form
from ..envs.game import Game
from ..envs.matrix import PatternMatrix
from ..envs.scoring import all_green, num_patterns
from . import search_kernels as K
from .memo_store import MemoStore
from .memo_tables import new_memo
from .search_kernels import INF

#: The exact search over several openers starts from the best near-optimal tree of this width
#: over the first openers of the order, whose total bounds (and so prunes) every exact search.
SEED_WIDTH, SEED_OPENERS = 3, 20



def answer_classes(game: Game) -> np.ndarray:
    """Each answer's class: the answers one guess wins together (itself in a plain game; its
    commutative rearrangements with Nerdle's rule)."""
    if not game.commutative:
        return np.arange(len(game.answers), dtype=np.int64)
    forms: dict[str, int] = {}
    return np.array([forms.setdefault(commutative_form(a), len(forms)) for a in game.answers], dtype=np.int64)


def lower_bound(n: int) -> int:
    """Fewest total guesses any tree needs for ``n`` candidates: 1 for one, else ``2n - 1``."""
    return 1 if n == 1 else 2 * n - 1


@dataclass
class SolveResult:
    """The best tree found and what is known about the optimum.

    Attributes:
        total: guesses over all answers of ``tree``.
        tree: the tree.
        lower_bound: a proven lower bound of the optimum within the scope searched: the trees
            starting with the fixed opener, or with one of the openers tried (equal to ``total``
            when an exact search finished).
        proven: ``total`` is the optimum of the game (exact mode, every opener, finished), or of
            the trees starting with the fixed opener when one was given.
        nodes: candidate sets searched.
        seconds: wall-clock time.
        openers_searched: openers whose trees were searched to the end.
        timed_out: the time budget ran out (``tree`` is the best found so far).
        settings: the options the search ran with (``width`` is the one that produced the tree).
    """

    total: int
    tree: DecisionTree
    lower_bound: int
    proven: bool
    nodes: int
    seconds: float
    openers_searched: int = 0
    timed_out: bool = False
    settings: dict[str, object] = field(default_factory=dict)

    @property
    def mean(self) -> float:
        return self.total / len(self.tree.paths)

    @property
    def gap(self) -> int:
        """Total minus the proven lower bound (0 when proven)."""
        return self.total - self.lower_bound


class SearchKernel:
    """One memo and the arrays :func:`search_kernels.search` needs, for one game and width.

    Kept across searches (openers, games of a run), the memo lets later searches reuse every set
    solved before. ``scan_min``: the fewest answers a set or bucket needs to be bounded by the
    bit-table scan before it is searched (:data:`search_kernels.PRECHECK_MIN`), ``block_after``: the
    bucket scans after which a node scans from a copy of its rows (:data:`search_kernels.BLOCK_AFTER`);
    tests lower both, so that these paths work on games small enough to brute-force.
    """

    def __init__(self, game: Game, mt: np.ndarray | Callable[[], np.ndarray], width: int, deadline: float,
                 cache_dir: str | os.PathLike[str] | None = None, scan_min: int = K.PRECHECK_MIN,
                 block_after: int = K.BLOCK_AFTER) -> None:
        rng = np.random.default_rng(K.KEY_SEED)
        self.game = game
        self._mt = mt if isinstance(mt, np.ndarray) else None
        self._make_mt = None if isinstance(mt, np.ndarray) else mt
        self.answer_guess = np.asarray(game.answer_to_guess, dtype=np.int32)
        self.codes = np.ascontiguousarray(game.guess_codes)
        self.keys = rng.integers(0, 2**63, size=len(game.answers), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        self.guess_keys = rng.integers(0, 2**63, size=len(game.guesses), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        self.exact = new_memo()
        self.floor = new_memo()
        self.links = new_memo()  # hard mode: a bucket's allowed guesses' hash (search_kernels.hard_hash)
        n_patterns = num_patterns(game.length)
        self.counts = np.zeros((K.CHUNK, n_patterns), dtype=np.uint16 if len(game.answers) < 65535 else np.uint32)
        self.tally = np.zeros(n_patterns, dtype=np.int64)
        self.stamp = np.zeros(n_patterns, dtype=np.int64)
        self.seen = K.scan_table(n_patterns)
        self.clock = np.zeros(1, dtype=np.int64)
        self.green = all_green(game.length)
        self.params = np.array([width, int(game.hard_mode), self.green, game.n_symbols, int(game.commutative),
                                scan_min, block_after], dtype=np.int64)
        self.cls = answer_classes(game)
        self.class_tally = np.zeros(len(game.answers), dtype=np.int64)
        self.stats = np.zeros(4, dtype=np.int64)
        self.deadline = deadline
        self.all_guesses = np.arange(len(game.guesses), dtype=np.int32)
        self.store = None if cache_dir is None else MemoStore(cache_dir, game, width)
        self.loaded = 0 if self.store is None else self.store.load(self)
        self._nodes_saved = 0

    @property
    def mt(self) -> np.ndarray:
        """The transposed pattern matrix (answers x guesses) the search scans; given as a function,
        it is made on the first search that needs it (a search answered from the memo alone never
        does: the move analysis of classic Nerdle with every equation as a guess, 2.4 GB)."""
        if self._mt is None:
            assert self._make_mt is not None
            self._mt, self._make_mt = self._make_mt(), None
        return self._mt

    @property
    def has_matrix(self) -> bool:
        """Whether :attr:`mt` is made (or was given)."""
        return self._mt is not None

    def checkpoint(self, force: bool = False) -> None:
        """Save the memo to the cache folder (if any): now when ``force``, else when a minute has
        passed. A search that only read the memo leaves the file alone (rewriting a large one, as
        hard mode's grows to tens of MB, cost more than the search it served)."""
        if self.store is None:
            return
        if not force:
            self.store.maybe_save(self)
        elif self.stats[K.NODES] > self._nodes_saved or self.store.grew(self):
            self.store.save(self)
            self._nodes_saved = int(self.stats[K.NODES])

    @property
    def aborted(self) -> bool:
        return bool(self.stats[K.ABORTED])

    def cost(self, cands: np.ndarray, left: int, allowed: np.ndarray, beta: int) -> int:
        return int(K.solve_set(self.mt, self.answer_guess, self.codes, self.keys, self.guess_keys, self.exact,
                               self.floor, self.links, self.counts, self.seen, self.tally, self.stamp, self.clock,
                               self.params, self.stats, self.deadline, self.cls, self.class_tally, cands, left,
                               allowed, beta))

    def class_max(self, cands: np.ndarray) -> int:
        """The most answers of ``cands`` one guess wins (1 in a plain game)."""
        return int(K.class_max(cands, self.cls, self.class_tally)) if self.game.commutative else 1

    def known(self, cands: np.ndarray, left: int, allowed: np.ndarray) -> tuple[int, int, int]:
        """``(cost or -1, guess or -1, proven lower bound)`` of a subproblem from the memo."""
        n = cands.size
        cmax = self.class_max(cands)
        if n == 1 or cmax == n:
            return (n, int(self.answer_guess[cands[0]]), n) if left >= 1 else (-1, -1, INF)
        if left <= 1:
            return -1, -1, INF
        if n == 2:
            return 3, int(self.answer_guess[cands[0]]), 3
        value, floor = K.probe(self.exact, self.floor, cands, self.keys, left, allowed, self.guess_keys,
                               self.game.hard_mode)
        if value >= 0:
            cost = value >> K.GUESS_BITS
            return cost, value & ((1 << K.GUESS_BITS) - 1), cost
        return -1, -1, max(2 * n - cmax, floor)

    def quick_floor(self, cands: np.ndarray, floor: int) -> int:
        """``floor`` raised to ``2n`` when no candidate splits the others into singletons (then every
        first guess leaves two answers in a bucket, or wins nothing): the search's own pre-pass,
        for the buckets of an opener before any is scanned."""
        if cands.size > 2 and floor < 2 * cands.size and not self.game.commutative and \
                K.perfect_candidate(self.mt, cands, self.answer_guess, self.stamp, self.clock) < 0:
            return 2 * cands.size
        return floor

    def scan_bound(self, cands: np.ndarray, left: int, allowed: np.ndarray, at_least: int = 0) -> int:
        """A lower bound of the subproblem from one scan of its guesses: the least of every guess's
        own bound (:func:`search_kernels.guess_lb`: its buckets each need two guesses but one), at
        least the memo's bound and ``at_least`` (a bound the caller already proved, such as
        :meth:`quick_floor`'s); exact when the memo has it. Far above ``2n - 1`` for the large
        buckets of a weak opener, which then fail against the best total without being searched."""
        cost, _, floor = self.known(cands, left, allowed)
        if cost >= 0 or floor >= INF or cands.size <= 2:
            return cost if cost >= 0 else floor
        floor = max(floor, at_least)
        if not self.game.commutative:  # a guess wins at most one answer: the bit-table scan
            # A proven floor of 2n already rules out a candidate that splits the others (cost 2n - 1).
            if floor < 2 * cands.size and \
                    K.perfect_candidate(self.mt, cands, self.answer_guess, self.stamp, self.clock) >= 0:
                return max(floor, 2 * cands.size - 1)  # the least any set of this size can cost
            return max(floor, int(K.least_lb_scan(self.mt, cands, allowed, self.green, self.seen, left)))
        m = allowed.size
        k, wins, sumsq = np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.int64)
        K.scan(self.mt, cands, allowed, self.green, self.counts, k, wins, sumsq)
        return max(floor, int(K.least_guess_lb(cands.size, k, wins, left, self.class_max(cands))))

    def children(self, cands: np.ndarray, guess: int, allowed: np.ndarray) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """``(pattern, bucket, allowed guesses)`` of each non-green bucket, largest first."""
        patterns = self.mt[cands, guess].astype(np.int64)
        out = []
        for p in np.unique(patterns):
            if p == self.green:
                continue
            bucket = cands[patterns == p]
            child_allowed = (hard_filter(allowed, self.codes, guess, int(p), self.game.n_symbols)
                             if self.game.hard_mode else allowed)
            out.append((int(p), bucket, child_allowed))
        out.sort(key=lambda c: -c[1].size)
        return out

    def paths(self, cands: np.ndarray, left: int, allowed: np.ndarray, prefix: list[str],
              out: dict[str, list[str]], fallback: SearchKernel | None = None, guess: int = -1) -> None:
        """Every answer's path through the memo's tree (``fallback``'s for unsolved sets), starting
        with ``guess`` when given (the opener), else with the memo's guess for ``cands``."""
        if guess < 0:
            guess = self.known(cands, left, allowed)[1]
        if guess < 0:
            if fallback is None:
                raise RuntimeError("the search left a subproblem unsolved")
            fallback.paths(cands, left, allowed, prefix, out)
            return
        word = self.game.guesses[guess]
        path = [*prefix, word]
        for a in cands[self.mt[cands, guess] == self.green]:  # the guess itself, or its rearrangements
            out[self.game.answers[int(a)]] = path
        for _, bucket, child_allowed in self.children(cands, guess, allowed):
            self.paths(bucket, left - 1, child_allowed, path, out, fallback)


class ExactSearch:
    """Search a game's optimal (or near-optimal) tree; see the module docstring for the options.

    Args:
        game: any game whose pattern matrix fits in memory.
        max_attempts: the attempt limit (default: the game's).
        opener: fix the first guess.
        openers: the openers to try when none is fixed: ``"all"``, the best ``K`` by the move
            ordering, or a list of words.
        width: guesses searched per node (0: every guess, exact).
        proof: require the exact mode over every opener (an error otherwise).
        time_budget: seconds after which the best tree so far is returned with its gap.
        progress: called with ``(done, total)`` answers of the opener being searched.
        patterns: the game's pattern matrix (guesses x answers), when the caller has it already
            (a sub-game); by default the disk-cached matrix of :class:`PatternMatrix`.
        cache_dir: a folder for the solved subproblems (:class:`~guessgym.baselines.memo_store.MemoStore`):
            loaded before the search, saved every minute and at the end (also after a time-out or
            an interruption), so the same search run again continues where it stopped.
    """

    def __init__(self, game: Game, *, max_attempts: int | None = None, opener: str | None = None,
                 openers: int | str | Sequence[str] = "all", width: int = 0, proof: bool = False,
                 time_budget: float | None = None, progress: Callable[[int, int], None] | None = None,
                 patterns: np.ndarray | None = None, cache_dir: str | os.PathLike[str] | None = None) -> None:
        if patterns is None:
            refusal = matrix.solver_matrix_refusal(game, "the exact solver")
            if refusal:
                raise UnsupportedGameError(refusal)
            mt = PatternMatrix.for_game(game).transposed()
            assert mt is not None  # it fits, as just checked
        elif patterns.shape != (len(game.guesses), len(game.answers)):
            raise ValueError(f"patterns has shape {patterns.shape}, expected (guesses, answers) = "
                             f"{(len(game.guesses), len(game.answers))}")
        else:
            mt = np.ascontiguousarray(patterns.T)
        if width < 0:
            raise ValueError(f"width must be 0 (every guess) or a positive number of guesses, not {width}")
        if proof and (width != 0 or opener is not None or openers != "all"):
            raise ValueError("proof mode searches every guess at every node and every opener: "
                             "it cannot be combined with width, opener or openers")
        if time_budget is not None and not time_budget > 0:
            raise ValueError(f"time_budget must be a positive number of seconds, not {time_budget}")
        self.game = game
        self.max_attempts = game.max_attempts if max_attempts is None else int(max_attempts)
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, not {self.max_attempts}")
        self.mt = mt
        self.width = int(width)
        self.opener = None if opener is None else self._guess(opener, "opener")
        self.openers = openers
        self.time_budget = time_budget
        self.progress = progress
        self.cache_dir = cache_dir

    def _guess(self, word: str, option: str) -> int:
        """The index of a guess given as text (an error naming ``option`` and why it is invalid)."""
        problem = self.game.explain_invalid_guess(word)
        if problem is not None:
            raise ValueError(f"{option}: {problem}")
        return self.game.guess_index[self.game.normalize_guess(word)]

    def opener_order(self, kernel: SearchKernel, every: bool = False) -> tuple[list[int], dict[int, int]]:
        """The openers to search (``every``: all that tell answers apart), most promising first,
        and each one's lower bound."""
        everyone = self._everyone
        guesses = kernel.all_guesses
        k = np.empty(guesses.size, np.int64)
        wins = np.empty(guesses.size, np.int64)
        sumsq = np.empty(guesses.size, np.int64)
        K.scan(self.mt, everyone, guesses, kernel.green, kernel.counts, k, wins, sumsq)
        n = everyone.size
        cmax = kernel.class_max(everyone)
        lbs = {g: int(K.guess_lb(n, int(k[g]), int(wins[g]), self.max_attempts, cmax)) for g in range(guesses.size)}
        if self.opener is not None and not every:
            return [self.opener], lbs
        if every:
            chosen = list(range(guesses.size))
        elif isinstance(self.openers, str):
            if self.openers != "all":
                raise ValueError(f"openers must be 'all', a number or a list of words, not {self.openers!r}")
            chosen = list(range(guesses.size))
        elif isinstance(self.openers, int):
            if self.openers < 1:
                raise ValueError(f"openers must be at least 1, not {self.openers}")
            chosen = list(range(guesses.size))
        else:
            chosen = [self._guess(w, "openers") for w in self.openers]
        chosen = [g for g in chosen if k[g] > 0 or wins[g] > 0]
        chosen.sort(key=lambda g: (lbs[g], int(sumsq[g]), g))
        if isinstance(self.openers, int) and not every:
            chosen = chosen[: self.openers]
        return chosen, lbs

    def opener_cost(self, kernel: SearchKernel, opener: int, beta: int) -> tuple[int, int]:
        """``(cost, proven lower bound)`` of the tree starting with ``opener``; the cost is exact
        when below ``beta`` and the search was not aborted."""
        n = len(self.game.answers)
        children = kernel.children(self._everyone, opener, kernel.all_guesses)
        left = self.max_attempts - 1
        wins = int(n - sum(b.size for _, b, _ in children))
        # Each bucket starts at what the memo knows (an exact cost, else a floor of at least 2m - 1);
        # then the largest buckets get their one-scan bounds, until the opener fails: a weak opener
        # fails after scanning a few buckets, not all of them (each scan reads its bucket's patterns
        # against every allowed guess).
        known = [kernel.known(b, left, a) for _, b, a in children]
        lbs = [cost if cost >= 0 else kernel.quick_floor(b, floor)
               for (_, b, _), (cost, _, floor) in zip(children, known)]
        total = n + sum(lbs)
        for i, (_, bucket, child_allowed) in enumerate(children):
            if total >= beta:
                break
            if known[i][0] < 0 and bucket.size > 2:
                lb = kernel.scan_bound(bucket, left, child_allowed, lbs[i])
                total += lb - lbs[i]
                lbs[i] = lb
        done = wins
        if self.progress is not None:
            self.progress(done, n)
        for (_, bucket, child_allowed), lb in zip(children, lbs):
            if total >= beta or kernel.aborted:
                break
            rest = total - lb
            sub = kernel.cost(bucket, left, child_allowed, beta - rest)
            if kernel.aborted:
                break
            total = rest + sub
            done += bucket.size
            kernel.checkpoint()
            if self.progress is not None:
                self.progress(done, n)
        bound = n + sum(kernel.known(b, left, a)[2] for _, b, a in children)  # floors only ever rise
        if not kernel.aborted:
            bound = total if total < beta else max(bound, total)
        return total, bound

    def solve(self) -> SolveResult:
        """The best tree over the openers (see the class docstring).

        In the near-optimal mode the ``width`` best guesses may not fit a tree within the attempt
        limit (hard mode's rule makes this common); the width is then doubled until one does.
        """
        started = time.perf_counter()
        width = self.width
        while True:
            result = self._search(width, started)
            if result is not None:
                return result
            if width == 0 or width >= len(self.game.guesses):
                raise ValueError(f"no tree solves every answer of {self.game.name} in {self.max_attempts} guesses")
            width = min(2 * width, len(self.game.guesses))

    def _search(self, width: int, started: float) -> SolveResult | None:
        """The search at one width; ``None`` when no tree fits the attempt limit."""
        deadline = 0.0 if self.time_budget is None else started + self.time_budget
        game = self.game
        kernel = SearchKernel(game, self.mt, width, deadline, self.cache_dir)
        order, lbs = self.opener_order(kernel)
        if not order:
            raise ValueError(f"no guess of {game.name} tells any answer apart")
        best, best_opener, searched = INF, -1, 0
        bounds: dict[int, int] = {}
        fallback: SearchKernel | None = None
        seed: SearchKernel | None = None
        if width == 0 and len(order) > 1:  # a near-optimal tree first: its total prunes every opener
            seed = SearchKernel(game, self.mt, SEED_WIDTH, deadline, self.cache_dir)
            for opener in order[:SEED_OPENERS]:
                if lbs[opener] >= best:
                    break
                total, _ = self.opener_cost(seed, opener, best)
                if seed.aborted:
                    break
                if total < best:
                    best, best_opener = total, opener
            seed.checkpoint(force=True)
        tree_kernel = seed if best_opener >= 0 else kernel
        try:
            for opener in order:
                if lbs[opener] >= best or kernel.aborted:
                    break
                total, bound = self.opener_cost(kernel, opener, best)
                bounds[opener] = bound
                if kernel.aborted:
                    if best_opener < 0:  # nothing complete yet: finish this opener's tree quickly
                        fallback = self._fallback(kernel, opener)
                        best_opener = opener
                    break
                searched += 1
                if total < best:
                    best, best_opener, tree_kernel = total, opener, kernel
        finally:  # a time-out or Ctrl-C keeps what was solved
            kernel.checkpoint(force=True)
        if best_opener < 0:
            return None
        paths: dict[str, list[str]] = {}
        assert tree_kernel is not None
        tree_kernel.paths(self._everyone, self.max_attempts, kernel.all_guesses, [], paths, fallback,
                          guess=best_opener)
        tree = DecisionTree.from_paths(game, paths)
        assert len(tree.paths) == len(game.answers) and tree.max_depth <= self.max_attempts
        # The optimum over the openers considered is at least the smallest of: the bound of every
        # opener searched, and the static bound of every opener not reached.
        unreached = [lbs[g] for g in order if g not in bounds]
        lower = min([*bounds.values(), *unreached, tree.total])
        if width > 0:  # bounds proven under a width hold for that width only
            lower = min(lbs[g] for g in order)
        every_opener = self.opener is not None or self.openers == "all" or (
            isinstance(self.openers, int) and self.openers >= len(game.guesses))
        proven = not kernel.aborted and width == 0 and every_opener and lower == tree.total
        nodes = sum(int(k.stats[K.NODES]) for k in (kernel, fallback, seed) if k is not None)
        settings: dict[str, object] = {
            "max_attempts": self.max_attempts, "width": width,
            "opener": None if self.opener is None else game.guesses[self.opener],
            "openers": self.openers if isinstance(self.openers, (int, str)) else list(self.openers),
            "time_budget": self.time_budget,
        }
        return SolveResult(tree.total, tree, lower, proven, nodes, time.perf_counter() - started, searched,
                           kernel.aborted, settings)

    @property
    def _everyone(self) -> np.ndarray:
        return np.arange(len(self.game.answers), dtype=np.int32)

    def _fallback(self, kernel: SearchKernel, opener: int) -> SearchKernel:
        """A near-optimal search that completes every bucket of ``opener`` the exact search left
        unsolved (widening until each fits the attempt limit)."""
        left = self.max_attempts - 1
        width = 1
        while True:
            fallback = SearchKernel(self.game, self.mt, width, 0.0)
            costs = [fallback.cost(bucket, left, allowed, INF) if kernel.known(bucket, left, allowed)[1] < 0 else 0
                     for _, bucket, allowed in kernel.children(self._everyone, opener, kernel.all_guesses)]
            if max(costs, default=0) < INF or width >= len(self.game.guesses):
                return fallback
            width *= 2


def static_lower_bound(game: Game, max_attempts: int | None = None) -> int:
    """A lower bound of the optimum over every tree: the smallest first-guess bound
    (``3n - 2*wins - k``) over every opener. Cheap (one scan) and weak; a proof does better."""
    search = ExactSearch(game, max_attempts=max_attempts)
    order, lbs = search.opener_order(SearchKernel(game, search.mt, 0, 0.0), every=True)
    return min(lbs[g] for g in order)


def solve(game: Game, **options: object) -> SolveResult:
    """The optimal decision tree of ``game`` (see :class:`ExactSearch` for the options)."""
    return ExactSearch(game, **options).solve()  # type: ignore[arg-type]


__all__ = ["INF", "ExactSearch", "SearchKernel", "SolveResult", "answer_classes", "lower_bound", "solve",
           "static_lower_bound"]
