"""Move analysis: every move of a finished game judged against optimal play, exactly.

For each move, in the state before it (the answers still possible, ``candidates`` of them):

* ``expected``: the expected number of guesses to finish, counting this one, if this guess is
  played and optimal play follows (uniform over the candidates);
* ``best``: the same for the best guess (``best_guess`` is one);
* ``loss = expected - best``: 0 for a best move;
* ``luck``: what the tiles that came did to the expectation: the expected guesses still needed
  after this one, on average over the tiles the guess could have shown, minus those needed after
  the tiles it did show (positive: fewer than average were left);
* ``possible``: whether the guess could still be the answer; ``hard_mode_violation``: whether it
  ignores a revealed hint (hard mode only).

A chat game's reply that the game refused *and* that used up an attempt (``invalid="forfeit"``,
or retries spent) is a move too, a ``forfeit``: an attempt spent learning nothing, so its
``expected`` is one guess plus the state's value with one attempt fewer, and its luck is 0. A
refused reply that was retried costs no attempt and is not a move. A game ended by invalid replies
with attempts left (``invalid="abort"``) has no price here: an evaluation with such games is
refused. Where the forfeits fell is in the transcripts file
(:func:`guessgym.evaluation.transcripts.read_transcripts`), not in a result.

A won game of ``n`` guesses satisfies ``n = best_1 + sum(loss) - sum(luck)``, ``best_1`` the
starting state's ``best``: the moves' losses are exactly what the game cost beyond optimal play,
up to luck. The values come from :class:`~guessgym.baselines.move_values.StateValues` (the exact
solver, its memo kept between runs). The starting state's value is the shipped optimum's; where it
is only the best known, ``best_proven`` is False and a loss may be negative if the move
beats it. Multi-board games, Absurdle and games whose pattern matrix does not fit in memory are
refused with one line. The judgements as data, and their files, are
:mod:`guessgym.evaluation.analysis_records` (re-exported here).
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..agents.base import UnsupportedGameError
from ..baselines.move_values import Bucket, StateValues, ValuesTimedOut
from ..envs.game import Game
from ..envs.matrix import solver_matrix_refusal
from ..envs.scoring import pattern_to_tiles, tiles_to_pattern
from .analysis_records import (
    BOUND_FIELDS,
    LOSS_BINS,
    NO_BOUND,
    TOLERANCE,
    TURN_LOST,
    Analysis,
    GameAnalysis,
    MoveAnalysis,
    load_analysis,
)
from .conduct import Scorer
from .results import EvaluationResult
from .saved import check_saved_result, game_of_result
from .transcripts import Transcripts, Turn, read_transcripts


def check_analysable(game: Game) -> None:
    """Raise :class:`UnsupportedGameError` for a game move analysis cannot judge exactly."""
    refusal = solver_matrix_refusal(game, "move analysis")
    if game.answers and refusal:
        raise UnsupportedGameError(refusal)


def analyze_moves(values: StateValues, moves: Sequence[tuple[int, int] | None], answer: str = "",
                  notice: Callable[[str], None] | None = None) -> GameAnalysis:
    """Judge one game given as (guess index, tile pattern) pairs, in order, ``None`` standing for a
    forfeited turn (see the module docstring).

    ``notice`` is told before an opener's tree is solved (seconds for a Wordle opener not in the
    shipped table, once: the solved states are kept, and on disk with a ``cache_dir``). Once the
    values' time budget has run out (``values.spent``), the moves left are judged by bounds
    (:class:`MoveAnalysis` ``bounded``), in this game and every later one.
    """
    game = values.game
    answers = values.everyone
    allowed = values.all_guesses
    left = game.max_attempts
    judged: list[MoveAnalysis] = []
    solved = False
    memo, nodes = _judged_moves(values)
    try:
        state_best = 0 if values.spent else values.best(answers, left, allowed)
    except ValuesTimedOut:  # a start no shipped optimum covers, not solved in time
        state_best = 0
    for number, move in enumerate(moves, start=1):
        if solved:
            raise ValueError(f"move {number} comes after the game was won")
        exact_key = (tuple(moves[:number]), False)
        step = memo.get(exact_key)
        if step is None and not values.spent:
            try:
                if move is None:
                    step = _forfeit_move(values, number, answers, left, allowed, state_best)
                else:
                    node_key = (exact_key[0][:-1], move[0])
                    node = nodes.get(node_key)
                    if node is None:
                        node = nodes[node_key] = _exact_node(values, number, move[0], answers, left, allowed,
                                                             state_best, notice)
                    step = _exact_move(values, node, number, move, answers, left, allowed)
                memo[exact_key] = step
            except ValuesTimedOut:
                step = None
        if step is None and values.spent:
            bounded_key = (exact_key[0], True)
            step = memo.get(bounded_key)
            if step is None:
                step = memo[bounded_key] = _bounded_move(values, number, move, answers, left, allowed)
        assert step is not None
        judgement, answers, allowed, state_best, solved = step
        judged.append(judgement)
        left -= 1
    left_after = 0.0 if solved or not judged or judged[-1].bounded else state_best / answers.size
    return GameAnalysis(answer, solved, tuple(judged), left_after)


_Step = tuple[MoveAnalysis, np.ndarray, np.ndarray, int, bool]
_Moves = tuple[tuple[int, int] | None, ...]

#: Each values object's judged moves, keyed by the moves that led to them and whether by bounds:
#: the state a move is played in is a function of the moves before it, so the games of a
#: deterministic agent, and of agents that play alike, share their judgements (a tree's each edge
#: judged once instead of once per game through it).
#: Beside them, each state's judgement of a guess (:class:`_Node`), keyed by the moves before it
#: and the guess: what a move's judgement shares with every other tile that guess could show.
_Memo = tuple[dict[tuple[_Moves, bool], _Step], dict[tuple[_Moves, int], "_Node"]]
_JUDGED: weakref.WeakKeyDictionary[StateValues, _Memo] = weakref.WeakKeyDictionary()


def _judged_moves(values: StateValues) -> _Memo:
    memo = _JUDGED.get(values)
    if memo is None:
        memo = _JUDGED[values] = ({}, {})
    return memo


@dataclass
class _Node:
    """A guess in a state, judged once for whatever tiles it shows: the state's size and value, the
    total with this guess and optimal play after it, the state's best guess, whether the guess could
    be the answer or breaks hard mode, and the buckets of the tiles seen so far (all of them where
    the values solved every bucket)."""

    n: int
    total: int
    state_best: int
    guess: str
    best_guess: str
    possible: bool
    violation: bool
    proven: bool
    buckets: dict[int, Bucket | None]


def _exact_node(values: StateValues, number: int, guess: int, answers: np.ndarray, left: int, allowed: np.ndarray,
                state_best: int, notice: Callable[[str], None] | None) -> _Node:
    """``guess`` played in the state (``answers``, ``left``, ``allowed``) judged exactly."""
    game = values.game
    proven = values.root_proven or not values.is_root(answers, left)
    best_guess = game.guesses[values.best_guess(answers, left, allowed)]
    if notice is not None and number == 1 and not values.knows_after(answers, guess, left, allowed):
        notice(f"solving the tree of the opener {game.guesses[guess]} (once; the solved states are kept)")
    total = values.after_total(answers, guess, left, allowed)
    solved = values.solved_buckets(answers, guess, left, allowed)
    violation = game.hard_mode and not bool(np.isin(guess, allowed))
    possible = bool(np.any(values.kernel.answer_guess[answers] == guess))
    return _Node(int(answers.size), total, state_best, game.guesses[guess], best_guess, possible, violation, proven,
                 {} if solved is None else {b.pattern: b for b in solved})


def _exact_move(values: StateValues, node: _Node, number: int, move: tuple[int, int], answers: np.ndarray,
                left: int, allowed: np.ndarray) -> _Step:
    """One move judged exactly from its state's :class:`_Node`, and the state after it: (move,
    answers, allowed, its value, won)."""
    game = values.game
    guess, pattern = move
    if pattern in node.buckets:
        bucket = node.buckets[pattern]
    else:
        bucket = node.buckets[pattern] = values.bucket_after(answers, guess, pattern, left, allowed)
    if bucket is None:
        raise ValueError(f"move {number}: {game.guesses[guess]} {pattern_to_tiles(pattern, game.length)} leaves no "
                         "answer consistent with the tiles before it")
    n, total = node.n, node.total
    solved = pattern == values.kernel.green
    expected, best = total / n, node.state_best / n
    average_left = (total - n) / n
    left_now = 0.0 if solved else bucket.total / bucket.answers.size
    return (MoveAnalysis(number, node.guess, pattern_to_tiles(pattern, game.length), n, expected, best,
                         expected - best, average_left - left_now, node.best_guess, node.possible, node.violation,
                         node.proven),
            bucket.answers, bucket.allowed, bucket.total, solved)


def _forfeit_move(values: StateValues, number: int, answers: np.ndarray, left: int, allowed: np.ndarray,
                  state_best: int) -> _Step:
    """An attempt spent without tiles, judged exactly: the same state, one attempt fewer."""
    game = values.game
    n = int(answers.size)
    proven = values.root_proven or not values.is_root(answers, left)
    best_guess = game.guesses[values.best_guess(answers, left, allowed)]
    then = values.best(answers, left - 1, allowed)
    expected, best = (n + then) / n, state_best / n
    return (MoveAnalysis(number, "", "", n, expected, best, expected - best, 0.0, best_guess, False, False,
                         proven, forfeit=True), answers, allowed, then, False)


def _bounded_move(values: StateValues, number: int, move: tuple[int, int] | None, answers: np.ndarray, left: int,
                  allowed: np.ndarray) -> _Step:
    """One move judged by bounds (the time budget ran out), and the state after it."""
    game = values.game
    bounds = values.bounds()
    n = int(answers.size)
    best_low, best_high = bounds.state(answers, left, allowed)
    best_guess = bounds.best_guess(answers, left, allowed)
    proven = values.root_proven or not bounds.at_root(answers, left)
    if move is None:
        lo, hi = bounds.state(answers, left - 1, allowed)
        low_total, high_total, after = n + lo, (None if hi is None else n + hi), answers
        guess_text, tiles, possible, violation, solved, then_allowed = "", "", False, False, False, allowed
    else:
        guess, pattern = move
        low_total, high_total, buckets = bounds.after(answers, guess, left, allowed)
        found = next(((b, a) for p, b, a in buckets if p == pattern), None)
        if found is None:
            raise ValueError(f"move {number}: {game.guesses[guess]} {pattern_to_tiles(pattern, game.length)} leaves "
                             "no answer consistent with the tiles before it")
        after, then_allowed = found
        guess_text, tiles = game.guesses[guess], pattern_to_tiles(pattern, game.length)
        possible = bool(np.any(values.kernel.answer_guess[answers] == guess))
        violation = game.hard_mode and not bool(np.isin(guess, allowed))
        solved = pattern == values.kernel.green
    best = NO_BOUND if best_high is None else best_high / n  # no tree found: the best is only bounded below
    loss_low = max(0.0, (low_total - best_high) / n) if best_high is not None else 0.0
    loss_high = NO_BOUND if high_total is None else (high_total - best_low) / n
    expected_high = NO_BOUND if high_total is None else high_total / n
    judgement = MoveAnalysis(number, guess_text, tiles, n, low_total / n, best, loss_low, 0.0, best_guess, possible,
                             violation, proven, forfeit=move is None, bounded=True, expected_high=expected_high,
                             best_low=best_low / n, loss_high=loss_high)
    return judgement, after, then_allowed, 0, solved


def parse_typed_game(game: Game, text: str) -> list[tuple[int, int]]:
    """``"crane BBYBY salet GGGGG"``: guesses each followed by its tiles, as (guess, pattern) pairs.

    Raises:
        ValueError: an odd number of words, more guesses than the game's attempts, an unknown guess
            or tiles that cannot be read.
    """
    words = text.split()
    if not words or len(words) % 2:
        raise ValueError(f"a game is guesses each followed by its tiles, like 'crane BBYBY salet GGGGG'; "
                         f"got {text[:80]!r}")
    if len(words) // 2 > game.max_attempts:
        raise ValueError(f"the game has {len(words) // 2} guesses; {game.name} allows {game.max_attempts} "
                         "(--env-kwargs max_attempts=N for another limit)")
    moves = []
    for guess, tiles in zip(words[::2], words[1::2]):
        problem = game.explain_invalid_guess(guess)
        if problem is not None:
            raise ValueError(problem)
        try:
            pattern = tiles_to_pattern(tiles, game.length)
        except ValueError as exc:
            raise ValueError(f"tiles {tiles!r} after {guess}: {exc}") from None
        moves.append((game.guess_index[game.normalize_guess(guess)], pattern))
    return moves


def record_moves(game: Game, answer: str, played: Iterable[str],
                 score: Scorer | None = None) -> list[tuple[int, int] | None]:
    """A played game's (guess, pattern) pairs, its tiles scored against ``answer`` (by ``score``
    where given: :func:`values_scorer` reads them from the values' matrix)."""
    score = score or (lambda guess, answer: int(game.score(guess, answer)))
    return [(game.guess_index[g], score(g, answer)) for g in played]


def values_scorer(values: StateValues) -> Scorer:
    """``score(guess, answer)`` read from the pattern matrix the values hold (the same tiles as
    :meth:`Game.score`, without scoring each move again)."""
    game = values.game
    guesses, answers = game.guess_index, game.answer_index

    def score(guess: str, answer: str) -> int:
        row = answers.get(answer)
        return int(game.score(guess, answer)) if row is None else values.pattern(guesses[guess], row)
    return score


def turn_moves(game: Game, turns: Iterable[Turn]) -> list[tuple[int, int] | None]:
    """A chat game's moves from its turns: each valid reply's (guess, pattern), ``None`` for a
    forfeited turn; a refused reply that was retried is no move."""
    moves: list[tuple[int, int] | None] = []
    for turn in turns:
        if turn.guess:
            guess = game.guess_index[game.normalize_guess(turn.guess)]
            moves.append((guess, tiles_to_pattern(turn.tiles, game.length)))
        elif turn.forfeit:
            moves.append(None)
    return moves


def rules_key(game: Game) -> tuple[str, bool, int, bool, str]:
    """What a game's state values depend on: its lists and rules (games alike here share values)."""
    return game.fingerprint, game.hard_mode, game.max_attempts, game.commutative, game.kind


def same_rules(a: Game, b: Game) -> bool:
    """Whether two games have the same lists and rules (so the same state values)."""
    return rules_key(a) == rules_key(b)


def analyze(result: EvaluationResult | Transcripts | str | os.PathLike[str], *,
            cache_dir: str | os.PathLike[str] | None = None,
            progress: Callable[[int, int], None] | None = None,
            notice: Callable[[str], None] | None = None, values: StateValues | None = None,
            max_openers: int | None = None, time_budget: float | None = None) -> Analysis:
    """Judge every move of every game of an evaluation: a result or its JSON file, or a text
    agent's transcripts (:class:`~guessgym.evaluation.transcripts.Transcripts` or its ``.jsonl`` file,
    where the forfeited turns are moves too).

    A result must hold each game's guesses (``evaluate(..., record_guesses=True)``, ``guessgym
    evaluate --guesses``). ``cache_dir`` keeps the solved states between runs (the command line
    uses the cache folder); ``progress`` is called with (games done, games); ``notice`` is told
    when an opener's tree is being solved. ``values`` shares solved states between analyses of the
    same game (the main job analyses every agent with one). Each distinct opener costs a solve of
    its whole tree (seconds on Wordle and classic Nerdle, kept in the cache after): ``max_openers``
    refuses, before any work, a result whose games open with more distinct guesses than that (a
    randomised agent's). ``time_budget`` bounds the solving, in seconds
    (:class:`~guessgym.baselines.move_values.ValuesTimedOut` past it; ``values`` is then spent),
    then the bounds that judge the moves left as long again; past both, the games left are not
    judged (counted as the analysis's ``unjudged``), so a smaller budget always takes less time.

    Raises:
        ValueError: a result without the games' guesses, a game that cannot be replayed, or more
            distinct openers than ``max_openers``.
        UnsupportedGameError: a kind of game or a size that move analysis does not judge.
    """
    if isinstance(result, (str, os.PathLike)):
        if str(result).endswith(".jsonl"):
            result = read_transcripts(result)
        else:
            where = str(result)
            result = EvaluationResult.from_json(result)
            check_saved_result(result, where)
    turns = result.turns if isinstance(result, Transcripts) else None
    if isinstance(result, Transcripts):
        result = result.result
    game = game_of_result(result)
    check_analysable(game)
    missing = [r.answer for r in result.records if r.played is None]
    if missing:
        raise ValueError(f"the result holds no guesses for {len(missing):,} games (e.g. {missing[0]}); evaluate with "
                         "record_guesses=True (guessgym evaluate --guesses) to analyse its moves")
    aborted = [r.answer for r in result.records if r.note.startswith("aborted")]
    if aborted:
        raise ValueError(f"{len(aborted):,} games were ended by invalid replies with attempts left (e.g. {aborted[0]}; "
                         "invalid='abort'), an end the move analysis has no price for; it judges games played to "
                         "their end (invalid='retry' or 'forfeit')")
    forfeited = [r.answer for r in result.records if r.forfeits]
    if forfeited and turns is None:
        raise ValueError(f"{len(forfeited):,} games lost turns to invalid replies (e.g. {forfeited[0]}), and a result "
                         "does not say where; analyse the evaluation's transcripts file (.jsonl) instead")
    openers = {r.played[0] for r in result.records if r.played}
    if max_openers is not None and len(openers) > max_openers:
        raise ValueError(f"its games open with {len(openers):,} different guesses, each of whose trees would be solved "
                         f"(more than {max_openers}); guessgym analyze does it, keeping what it solved")
    if values is None or not same_rules(values.game, game):
        values = StateValues(game, cache_dir=cache_dir)
    values.set_budget(time_budget)
    analysis = Analysis(str(result.env_id), game.name, result.agent)
    score = values_scorer(values)
    total = len(result.records)
    for i, record in enumerate(result.records):
        assert record.played is not None
        if values.exhausted:  # the solving's budget and the bounds' after it both ran out
            analysis.unjudged = total - i
            break
        moves = turn_moves(game, turns[i]) if turns is not None else record_moves(game, record.answer, record.played,
                                                                                     score)
        analysis.games.append(analyze_moves(values, moves, record.answer, notice))
        if progress is not None:
            progress(i + 1, total)
    values.save()
    return analysis


__all__ = ["BOUND_FIELDS", "NO_BOUND", "TOLERANCE", "TURN_LOST", "Analysis", "GameAnalysis", "LOSS_BINS",
           "MoveAnalysis", "analyze", "analyze_moves", "check_analysable",
           "game_of_result", "load_analysis", "parse_typed_game", "record_moves", "rules_key", "same_rules",
           "turn_moves", "values_scorer"]
