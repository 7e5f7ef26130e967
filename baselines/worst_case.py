"""The fewest guesses that win in the worst case: against every host (minimax), or Absurdle's.

``solve_worst_case(game)`` finds the smallest ``d`` such that some strategy wins within ``d``
guesses *whatever the answer* (the minimax objective: the host may answer any bucket), proves
that ``d - 1`` is impossible, and returns the strategy (every answer's guesses).
``adversary="absurdle"`` plays against the Absurdle host of :class:`~guessgym.envs.absurdle.AbsurdleEnv`
instead: it keeps the largest bucket (deterministic tie-break), so the strategy is one line of
guesses, and ``d`` is Absurdle's minimum for that list. A strategy that beats every host beats
Absurdle's, so the Absurdle minimum is at most the minimax one.

How. "Can every answer of a set ``S`` be won within ``d`` guesses?" is an AND-OR search:
some guess such that every bucket (Absurdle: the host's bucket) can be won within ``d - 1``;
green buckets are won at once. The two lowest levels (two and three guesses left) are numba
kernels (:mod:`~guessgym.baselines.worst_case_kernels`) that stop at the first bucket that fails;
the levels above run here, with guesses ordered and pruned by the bucket the adversary would keep
(a set larger than the most a depth can win, ``capacity(d)``, cannot be won), and memoised by
set hash. The root is searched in two phases: first the most promising openers at increasing
depths, from the Absurdle host's minimum up (a strategy that beats every host beats that one),
give an upper bound ``U`` and its strategy (the first searched to its end, the others each for a
growing allowance of sets in turn, so that one slow refutation does not hold up a quick win); then
every opener is refuted at ``U - 1`` (each opener's outcome is appended to an optional checkpoint
file as soon as it is known, so a long proof resumes where it stopped). An opener that wins at
``U - 1`` lowers ``U`` and the proof goes on one depth lower.

Rules covered: plain games and Nerdle's commutative rule (a winning bucket of rearrangements is
won by one guess). Hard mode is refused: its allowed guesses depend on the history, which this
search does not track.

Examples:
    >>> from guessgym.envs.game import wordle
    >>> game = wordle(answers=["crane", "crate", "grate", "slate", "skate"],
    ...               guesses=["crane", "crate", "grate", "slate", "skate", "scrag"])
    >>> r = solve_worst_case(game)
    >>> r.guesses, r.proven
    (3, True)
    >>> solve_worst_case(game, adversary="absurdle").line
    ('crane', 'slate', 'skate')
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..agents.decision_tree import DecisionTree
from ..envs.game import Game
from ..envs.matrix import PatternMatrix
from ..envs.scoring import num_patterns, pattern_to_list
from ..infra.pool import settle_in_chunks
from ..infra.resumable_log import OutcomeLog
from . import worst_case_kernels as W
from .memo_tables import new_memo, set_hash
from .optimal import answer_classes

ADVERSARIES = ("any", "absurdle")

#: Openers searched at each depth in the first phase (the upper bound), from each of two orders:
#: the smallest bucket kept by the adversary, then the most buckets.
PROMISING_OPENERS = 20

#: Sets the first phase lets one opener (after the first, searched to its end) search before
#: trying the next; the allowance grows fourfold each round until an opener wins or all are settled
#: (a win usually takes a few hundred sets, a refutation thousands: the docs' "Optimal play").
FIRST_ALLOWANCE = 1024

#: The Absurdle host's rule, recorded in checkpoints (a checkpoint of another rule is refused).
ABSURDLE_HOST = "largest bucket not won by the guess; ties: fewest greens, fewest yellows, smallest code"

#: The largest transposed copy of the pattern matrix the search keeps for its two-guess kernel (a
#: game whose copy would be larger runs the kernel without it, slower, same results).
TRANSPOSED_MAX_BYTES = 1 << 30

#: Checkpoint file format.
CHECKPOINT_FORMAT = 1

_KEY_SEED = 0x776F_7273


class WorstCaseTimeout(TimeoutError):
    """The time budget ran out before any strategy was found (nothing to return yet)."""


class _OutOfTime(Exception):
    """Raised inside the search when its deadline passes; the set being searched is not recorded."""


class _OutOfNodes(Exception):
    """Raised inside the search when it has searched ``node_limit`` sets; the set being searched is
    not recorded (a count, not a clock: where it stops does not depend on the machine)."""


@dataclass
class WorstCaseResult:
    """The fewest guesses that win whatever the answer (``adversary="any"``) or against the
    Absurdle host, and a strategy that achieves them.

    Attributes:
        guesses: guesses the strategy needs in the worst case (the minimum when ``proven``).
        lower_bound: no strategy wins within fewer guesses than this (proven).
        proven: ``guesses == lower_bound``.
        adversary: ``"any"`` or ``"absurdle"``.
        paths: the guesses played against each answer (``"any"``: every answer; ``"absurdle"``: the
            answer the host concedes).
        line: ``"absurdle"``: the guesses of the winning game; ``"any"``: the longest path.
        nodes: sets searched above the numba levels.
        seconds: wall-clock time of this call.
        openers_refuted: openers proven unable to win within ``guesses - 1`` (all of them when
            ``proven``).
        timed_out: the time budget ended the proof early (``lower_bound`` may be below ``guesses``).
    """

    guesses: int
    lower_bound: int
    proven: bool
    adversary: str
    paths: dict[str, tuple[str, ...]]
    line: tuple[str, ...]
    nodes: int = 0
    seconds: float = 0.0
    openers_refuted: int = 0
    timed_out: bool = False
    settings: dict[str, Any] = field(default_factory=dict)

    def tree(self, game: Game) -> DecisionTree:
        """The strategy as a :class:`~guessgym.agents.decision_tree.DecisionTree` (``adversary="any"``:
        every answer's path), to save, show, verify or play like any other tree.

        Raises:
            ValueError: an Absurdle result (one game against the host, not a tree over the answers).
        """
        if self.adversary != "any":
            raise ValueError("an Absurdle result is one line of play, not a tree over every answer")
        return DecisionTree.from_paths(game, self.paths)

    def to_dict(self) -> dict[str, Any]:
        return {"guesses": self.guesses, "lower_bound": self.lower_bound, "proven": self.proven,
                "adversary": self.adversary, "line": list(self.line), "nodes": self.nodes,
                "seconds": round(self.seconds, 3), "openers_refuted": self.openers_refuted,
                "timed_out": self.timed_out, "settings": self.settings,
                "paths": {a: list(p) for a, p in self.paths.items()}}


def capacity(depth: int, n_patterns: int) -> float:
    """The most answers of a plain game any strategy can win within ``depth`` guesses: one per
    guess played plus, after it, ``n_patterns - 1`` buckets of ``capacity(depth - 1)``."""
    total = 0
    for _ in range(depth):
        total = 1 + (n_patterns - 1) * total
        if total > 1 << 62:
            return math.inf
    return total


def host_ranks(length: int) -> np.ndarray:
    """Each pattern's place in the Absurdle host's tie-break: fewest greens, then fewest yellows,
    then the smallest code (the order of :func:`guessgym.envs.hosts.host_choice`)."""
    n = num_patterns(length)

    def key(code: int) -> tuple[int, int, int]:
        tiles = pattern_to_list(code, length)
        return tiles.count(2), tiles.count(1), code

    ranks = np.empty(n, dtype=np.int64)
    ranks[sorted(range(n), key=key)] = np.arange(n)
    return ranks


class WorstCaseSearch:
    """The search behind :func:`solve_worst_case` (one game, one adversary)."""

    def __init__(self, game: Game, adversary: str = "any", *, matrix_cache: bool = True) -> None:
        if adversary not in ADVERSARIES:
            raise ValueError(f"unknown adversary {adversary!r}; choose one of {', '.join(ADVERSARIES)}")
        if game.hard_mode:
            raise ValueError("the worst-case search covers plain games only: hard mode's allowed guesses depend "
                             "on the history; pass hard_mode=False")
        self.game = game
        self.adversary = adversary
        self.absurdle = adversary == "absurdle"
        matrix = PatternMatrix.for_game(game, cache=matrix_cache)
        self.mt = np.ascontiguousarray(matrix.submatrix(None, None))
        self.n_guesses, self.n_answers = self.mt.shape
        transposed = matrix.transposed(max_bytes=TRANSPOSED_MAX_BYTES)
        #: The answers-major copy the two-guess kernel sweeps pairs of answers in (empty: none).
        self.mtT = np.empty((0, 0), dtype=self.mt.dtype) if transposed is None else transposed
        self.alive = np.ones(self.n_guesses, dtype=np.uint8)
        self.green = int(game.solved_pattern)
        self.n_patterns = num_patterns(game.length)
        self.plain = not game.commutative
        #: Per guess, the buckets (the green one counted) it makes of all the answers.
        self.root_buckets = W.bucket_counts(self.mt, np.arange(self.n_answers, dtype=np.int64),
                                            np.zeros(self.n_patterns, dtype=np.int64))
        #: The most buckets any guess makes of all the answers (so of any set).
        self.most_buckets = int(self.root_buckets.max())
        self.cls = answer_classes(game)
        self.answer_guess = np.asarray(game.answer_to_guess, dtype=np.int64)
        self.host_rank = host_ranks(game.length)
        rng = np.random.default_rng(_KEY_SEED)
        self.keys = np.asarray(rng.integers(1, 2**63, size=self.n_answers, dtype=np.int64), dtype=np.uint64)
        self.counts = np.zeros(self.n_patterns, dtype=np.int64)
        self.stamp = np.zeros(self.n_patterns, dtype=np.int64)
        self.owner = np.zeros(self.n_patterns, dtype=np.int64)
        self.gen = np.zeros(1, dtype=np.int64)
        self.memo2 = new_memo("bool")
        # set hash -> (deepest depth proven impossible, shallowest depth proven possible, its guess)
        self.known: dict[int, tuple[int, int, int]] = {}
        self.nodes = 0
        #: ``time.perf_counter()`` value after which a search of a new set raises ``_OutOfTime``.
        self.deadline = math.inf
        #: Value of :attr:`nodes` at which a search of a new set raises ``_OutOfNodes``.
        self.node_limit: float = math.inf

    # ---- the question at one node ---------------------------------------------------------------
    def cap(self, depth: int) -> float:
        """The most answers ``depth`` guesses can win (a plain game; unbounded with classes): by
        :func:`capacity`, and by :attr:`most_buckets`, the most buckets any guess makes of all the
        answers (so of any set): ``most_buckets ** (depth - 1)``."""
        if not self.plain:
            return math.inf
        return min(capacity(depth, self.n_patterns), float(self.most_buckets) ** (depth - 1) if depth >= 1 else 0)

    def adversary_sizes(self, cands: np.ndarray) -> np.ndarray:
        """Per guess, the size of the bucket the adversary keeps (0: the guess wins at once)."""
        return W.guess_order_stats(self.mt, cands, self.green, self.absurdle, self.host_rank, self.counts)

    def ordered_guesses(self, cands: np.ndarray, depth: int) -> np.ndarray:
        """The guesses worth trying at a node: those leaving the adversary a set that ``depth - 1``
        guesses can still win, the smallest kept bucket first."""
        sizes = self.adversary_sizes(cands)
        order = np.argsort(sizes, kind="stable")
        cap = self.cap(depth - 1)
        if cap != math.inf:
            order = order[sizes[order] <= cap]
        return order

    def buckets(self, cands: np.ndarray, guess: int) -> list[np.ndarray]:
        """The sets the adversary may answer with after ``guess`` (never the green one), largest
        first; Absurdle: only the host's."""
        row = self.mt[guess, cands]
        if self.absurdle:
            p = W.host_pattern(self.mt, cands, guess, self.counts, self.host_rank, self.green)
            return [] if p == self.green else [cands[row == p]]
        patterns, sizes = np.unique(row, return_counts=True)
        keep = patterns != self.green
        patterns, sizes = patterns[keep], sizes[keep]
        return [cands[row == p] for p in patterns[np.argsort(-sizes, kind="stable")]]

    def win(self, cands: np.ndarray, depth: int) -> int:
        """A guess that wins every answer of ``cands`` within ``depth`` guesses, or -1."""
        if depth <= 0:
            return -1
        if W.one_class(cands, self.cls):
            return int(self.answer_guess[cands[0]])
        if depth == 1 or len(cands) > self.cap(depth):
            return -1
        if depth == 2:
            return int(W.two_guess_win(self.mt, self.mtT, cands, self.cls, self.green, self.absurdle, self.plain,
                                       self.host_rank, self.counts, self.stamp, self.owner, self.gen, self.alive))
        h = int(set_hash(cands, self.keys))
        failed, won, guess = self.known.get(h, (0, 1 << 30, -1))
        if depth >= won:
            return guess
        if depth <= failed:
            return -1
        if time.perf_counter() > self.deadline:
            raise _OutOfTime
        if self.nodes >= self.node_limit:
            raise _OutOfNodes
        self.nodes += 1
        if depth == 3:
            result = int(W.three_guess_win(self.mt, self.mtT, cands, self.ordered_guesses(cands, 3), self.cls,
                                           self.green, self.absurdle, self.plain, self.host_rank, self.keys,
                                           self.memo2, self.counts, self.stamp, self.owner, self.gen, self.alive))
        else:
            result = -1
            for g in self.ordered_guesses(cands, depth):
                if self.wins_after(cands, int(g), depth):
                    result = int(g)
                    break
        failed, won, guess = self.known.get(h, (0, 1 << 30, -1))
        self.known[h] = (failed, depth, result) if result >= 0 else (max(failed, depth), won, guess)
        return result

    def wins_after(self, cands: np.ndarray, guess: int, depth: int) -> bool:
        """Whether playing ``guess`` first wins every answer of ``cands`` within ``depth`` guesses."""
        return all(self.win(b, depth - 1) >= 0 for b in self.buckets(cands, guess))

    # ---- reading the strategy back --------------------------------------------------------------
    def strategy(self, depth: int, opener: int) -> dict[str, tuple[str, ...]]:
        """Every answer's guesses (Absurdle: the conceded answer's) under the strategy found."""
        paths: dict[str, tuple[str, ...]] = {}
        words = self.game.guesses

        def walk(cands: np.ndarray, depth: int, guess: int, history: tuple[str, ...]) -> None:
            history = (*history, words[guess])
            rest = self.buckets(cands, guess)
            if not self.absurdle or not rest:  # the Absurdle host concedes only when it must
                for a in cands[self.mt[guess, cands] == self.green]:
                    paths[self.game.answers[int(a)]] = history
            for b in rest:
                nxt = self.win(b, depth - 1)
                if nxt < 0:
                    raise AssertionError("the strategy lost a bucket it had won (hash collision?)")
                walk(b, depth - 1, nxt, history)

        walk(np.arange(self.n_answers, dtype=np.int64), depth, opener, ())
        return paths


def _checkpoint(path: str | Path | None, header: dict[str, Any], game: Game) -> OutcomeLog[tuple[int, str], bool]:
    """Each opener's outcome at each depth, appended as a JSON line when known (rows are checked
    against the game)."""

    def parse(row: Any) -> tuple[tuple[int, str], bool]:
        if not isinstance(row, dict) or set(row) != {"depth", "opener", "win"}:
            raise ValueError('expected {"depth", "opener", "win"}')
        depth, opener, win = row["depth"], row["opener"], row["win"]
        if type(depth) is not int or not 1 <= depth <= len(game.answers) + 1:
            raise ValueError(f"depth {depth!r} is not a whole number 1..{len(game.answers) + 1}")
        if not isinstance(opener, str) or opener not in game.guess_index:
            raise ValueError(f"opener {opener!r} is not a guess of {game.name}")
        if not isinstance(win, bool):
            raise ValueError(f"win must be true or false, got {win!r}")
        return (depth, opener), win

    return OutcomeLog(path, header, parse, lambda key, win: {"depth": key[0], "opener": key[1], "win": win})


# ---- the proof's openers on several processes ----------------------------------------------------
_WORKER: dict[tuple[str, str], WorstCaseSearch] = {}


def _worker_setup(game: Game, adversary: str, matrix_cache: bool) -> tuple[str, str]:
    """A worker's search, built once and kept (with its memo) for every task of the run."""
    key = (game.fingerprint, adversary)
    if key not in _WORKER:
        _WORKER.clear()  # one search per worker at a time: the memo can be large
        _WORKER[key] = WorstCaseSearch(game, adversary, matrix_cache=matrix_cache)
    return key


def _settle_openers(key: tuple[str, str], task: tuple[list[int], int, float]) -> list[tuple[int, bool | None]]:
    """Each opener's outcome at ``depth`` (``None``: the wall-clock deadline passed first), up to
    the first win or the deadline."""
    openers, depth, wall_deadline = task
    search = _WORKER[key]
    search.deadline = time.perf_counter() + (wall_deadline - time.time())
    everyone = np.arange(search.n_answers, dtype=np.int64)
    out: list[tuple[int, bool | None]] = []
    for opener in openers:
        try:
            if time.perf_counter() > search.deadline:
                raise _OutOfTime
            won = search.wins_after(everyone, opener, depth)
        except _OutOfTime:
            out.append((opener, None))
            break
        out.append((opener, won))
        if won:
            break
    return out


#: Openers per task when the proof runs on several processes.
CHUNK = 8


def solve_worst_case(game: Game, adversary: str = "any", *, checkpoint: str | Path | None = None,
                     time_budget: float | None = None, matrix_cache: bool = True,
                     progress: Callable[[int, int, int], None] | None = None, n_jobs: int = 1) -> WorstCaseResult:
    """The fewest guesses that win whatever the answer (or against the Absurdle host), proven.

    Args:
        game: a plain or commutative game (hard mode is refused).
        adversary: ``"any"`` (every host: the minimax objective) or ``"absurdle"``.
        checkpoint: a JSONL file recording each opener's outcome; rerunning with the same file
            skips the openers already settled (the file of another game or adversary is refused).
        time_budget: seconds for the whole call, checked before each set the search opens (a set
            searched with three guesses or fewer runs to its end: at most seconds). Run out during
            the proof, the result is the strategy found, ``proven`` False and ``timed_out``; run
            out before any strategy was found, :class:`WorstCaseTimeout` is raised. The checkpoint
            keeps every opener settled before either.
        progress: called as ``progress(depth, openers_done, openers_total)`` during the proof.
        n_jobs: worker processes for the proof over every opener (the second phase): each settles
            chunks of openers with its own search and memo, the outcomes reach the checkpoint as
            they arrive, and the result is the one a single process finds (the openers are then
            read in order from what was settled). ``nodes`` counts this process's sets only.

    Raises:
        ValueError: an unknown adversary, hard mode, or a checkpoint of another search.
        WorstCaseTimeout: the time budget ran out before the first strategy was found.
    """
    started = time.perf_counter()
    if time_budget is not None and not time_budget > 0:
        raise ValueError(f"time_budget must be a positive number of seconds, not {time_budget}")
    if type(n_jobs) is not int or n_jobs < 1:
        raise ValueError(f"n_jobs must be a whole number of processes, at least 1, not {n_jobs!r}")
    proof = WorstCaseProof(game, adversary, checkpoint=checkpoint, time_budget=time_budget, matrix_cache=matrix_cache,
                           progress=progress, n_jobs=n_jobs, started=started)
    try:
        return proof.run()
    finally:
        proof.log.close()


class WorstCaseProof:
    """One run of :func:`solve_worst_case`: its search, its checkpoint and its deadline, and the two
    phases of the proof (an upper bound from the most promising openers, then every opener refuted
    one guess below it)."""

    def __init__(self, game: Game, adversary: str, *, checkpoint: str | Path | None, time_budget: float | None,
                 matrix_cache: bool, progress: Callable[[int, int, int], None] | None, n_jobs: int,
                 started: float) -> None:
        self.game, self.adversary, self.checkpoint = game, adversary, checkpoint
        self.time_budget, self.matrix_cache, self.progress, self.n_jobs = time_budget, matrix_cache, progress, n_jobs
        self.started = started
        self.search = WorstCaseSearch(game, adversary, matrix_cache=matrix_cache)
        header: dict[str, Any] = {"format": CHECKPOINT_FORMAT, "game": game.name, "fingerprint": game.fingerprint,
                                  "commutative": game.commutative, "adversary": adversary}
        if adversary == "absurdle":
            header["host"] = ABSURDLE_HOST
        self.log = _checkpoint(checkpoint, header, game)
        self.everyone = np.arange(self.search.n_answers, dtype=np.int64)
        self.words = game.guesses
        self.deadline = math.inf if time_budget is None else started + time_budget
        self.search.deadline = self.deadline

    # ---- one opener -------------------------------------------------------------------------------
    def opener_wins(self, opener: int, depth: int) -> bool:
        """Whether ``opener`` wins within ``depth`` guesses (read from the checkpoint, or searched and recorded)."""
        key = (depth, self.words[opener])
        if key not in self.log.values:
            self.log.record(key, self.search.wins_after(self.everyone, opener, depth))
        return self.log.values[key]

    def out_of_time(self, doing: str) -> WorstCaseTimeout:
        kept = "; the checkpoint keeps the openers settled so far" if self.checkpoint is not None else ""
        return WorstCaseTimeout(f"the time budget ({self.time_budget:g} s) ran out before any strategy was found "
                                f"({doing}); give more time, or none{kept}")

    # ---- phase 1: an upper bound ------------------------------------------------------------------
    def promising(self, depth: int) -> tuple[list[int], int]:
        """The openers phase 1 tries at ``depth`` (the first of the kept-bucket order, then those of
        the bucket-count order not among them), and how many openers are left after the capacity bound."""
        order = self.search.ordered_guesses(self.everyone, depth)
        by_buckets = order[np.argsort(-self.search.root_buckets[order], kind="stable")]
        picks = [int(g) for g in order[:PROMISING_OPENERS]]
        picks += [int(g) for g in by_buckets[:PROMISING_OPENERS] if int(g) not in picks]
        return picks, len(order)

    def first_win(self, openers: list[int], depth: int) -> int | None:
        """The first of ``openers`` found to win at ``depth``: the first searched to its end (most
        often it wins, and the strategy is the one a plain search in order finds), then the others
        each for a growing allowance of sets in turn; ``None`` when every one is refuted."""
        if openers and self.opener_wins(openers[0], depth):
            return openers[0]
        allowance = FIRST_ALLOWANCE
        while True:
            won = next((g for g in openers if self.log.values.get((depth, self.words[g]), False)), None)
            if won is not None:
                return won
            unsettled = [g for g in openers if (depth, self.words[g]) not in self.log.values]
            if not unsettled:
                return None
            for g in unsettled:
                self.search.node_limit = self.search.nodes + allowance
                try:
                    if self.opener_wins(g, depth):
                        return g
                except _OutOfNodes:
                    pass
                finally:
                    self.search.node_limit = math.inf
            allowance *= 4

    def upper_bound(self) -> tuple[tuple[int, int], int]:
        """Phase 1: ``((depth, opener), lower)``, the first winning opener at the smallest depth the
        promising openers reach, and the lower bound known so far. Below the capacity bound nothing
        wins; against every host, nothing wins below the Absurdle host's minimum either."""
        search = self.search
        depth = 1
        while search.cap(depth) < search.n_answers:
            depth += 1
        if self.adversary == "any":  # the Absurdle host's proven lower bound (its minimum when proven)
            left = None if self.time_budget is None else self.deadline - time.perf_counter()
            if left is not None and left <= 0:
                raise self.out_of_time("finding the Absurdle host's minimum, a lower bound")
            try:
                depth = max(depth, solve_worst_case(self.game, "absurdle", matrix_cache=self.matrix_cache,
                                                    time_budget=left).lower_bound)
            except WorstCaseTimeout:
                raise self.out_of_time("finding the Absurdle host's minimum, a lower bound") from None
        lower = depth
        try:
            while True:
                openers, left_after_cap = self.promising(depth)
                winner = self.first_win(openers, depth)
                if winner is not None:
                    return (depth, winner), lower
                if len(openers) == left_after_cap:  # every opener was tried: depth is impossible
                    lower = depth + 1
                depth += 1
                if depth > search.n_answers + 1:
                    raise AssertionError("no strategy found within one guess per answer")
        except _OutOfTime:
            raise self.out_of_time(f"searching openers at {depth} guesses") from None

    # ---- phase 2: every opener refuted below it ----------------------------------------------------
    def settle_in_parallel(self, order: np.ndarray, depth: int) -> None:
        """Record the outcome of every opener of ``order`` not in the checkpoint yet, on ``n_jobs``
        processes, until one wins or the deadline passes."""
        words = self.words
        todo = [int(g) for g in order if (depth, words[int(g)]) not in self.log.values]
        wall = time.time() + (self.deadline - time.perf_counter())
        done = len(order) - len(todo)

        def settled(outcomes: list[tuple[int, bool | None]]) -> bool:
            nonlocal done
            known = [(g, won) for g, won in outcomes if won is not None]
            for g, won in known:
                self.log.record((depth, words[g]), won)
            done += len(known)
            if self.progress is not None:
                self.progress(depth, done, len(order))
            # out of time, or an opener wins: the serial pass after this settles the rest in order
            return len(known) == len(outcomes) and not any(won for _, won in known)

        settle_in_chunks(todo, CHUNK, lambda chunk: (chunk, depth, wall), _settle_openers, settled,
                         setup=_worker_setup, setup_args=(self.game, self.adversary, self.matrix_cache),
                         backend="process", n_jobs=self.n_jobs,
                         died="rerun the same command: the checkpoint keeps the settled openers")

    def refute_below(self, best: tuple[int, int], lower: int) -> tuple[tuple[int, int], int, int, bool]:
        """Phase 2: prove that no opener wins within one guess fewer than ``best``, lowering it when
        one does; ``(best, lower, openers refuted, timed out)``."""
        refuted, timed_out = 0, False
        while best[0] - 1 >= lower:
            depth = best[0] - 1
            order = self.search.ordered_guesses(self.everyone, depth)
            refuted = 0
            lowered = False
            if self.n_jobs > 1:
                self.settle_in_parallel(order, depth)
            for i, opener in enumerate(order):
                try:
                    if time.perf_counter() > self.deadline:
                        raise _OutOfTime
                    won = self.opener_wins(int(opener), depth)
                except _OutOfTime:
                    timed_out = True
                    break
                if won:
                    best, lowered = (depth, int(opener)), True
                    break
                refuted += 1
                if self.progress is not None:
                    self.progress(depth, i + 1, len(order))
            if timed_out:
                break
            if not lowered:
                lower = best[0]
        if lower == best[0]:  # every opener refuted at best - 1 (searched, or pruned by capacity)
            refuted = self.search.n_guesses
        return best, lower, refuted, timed_out

    # ---- the whole proof ---------------------------------------------------------------------------
    def run(self) -> WorstCaseResult:
        search, words, game = self.search, self.words, self.game
        if W.one_class(self.everyone, search.cls):
            guess = int(search.answer_guess[0])
            paths: dict[str, tuple[str, ...]] = {a: (words[guess],) for a in game.answers}
            return WorstCaseResult(1, 1, True, self.adversary, paths, (words[guess],),
                                   seconds=time.perf_counter() - self.started)
        best, lower = self.upper_bound()
        best, lower, refuted, timed_out = self.refute_below(best, lower)
        search.deadline = math.inf  # reading the strategy back may re-solve sets a checkpoint skipped: never cut short
        try:
            paths = search.strategy(*best)
        except AssertionError:
            key = (best[0], words[best[1]])
            if key not in self.log.lines:
                raise
            raise ValueError(f"{self.checkpoint}: line {self.log.lines[key]} claims that opener {key[1]!r} wins "
                             f"within {key[0]} guesses, but it does not: the checkpoint is damaged or edited; remove "
                             "that line (or the file) and rerun") from None
        line = paths[next(iter(paths))] if search.absurdle else max(paths.values(), key=len)
        return WorstCaseResult(best[0], lower, lower == best[0], self.adversary, paths, line, nodes=search.nodes,
                               seconds=time.perf_counter() - self.started, openers_refuted=refuted,
                               timed_out=timed_out,
                               settings={"game": game.name, "commutative": game.commutative,
                                         "answers": search.n_answers, "guesses": search.n_guesses})


__all__ = ["ADVERSARIES", "WorstCaseProof", "WorstCaseResult", "WorstCaseSearch", "WorstCaseTimeout", "capacity",
           "host_ranks", "solve_worst_case"]
