"""How an agent plays, beside how well: the play metrics language-model studies report.

Per game, from its guesses and its answer (:func:`game_conduct`):

* ``repeated``: guesses that repeat an earlier guess of the game (a wasted attempt, always);
* ``ignores_hints``: guesses that break the hard-mode rule, whatever the mode: a green not kept in
  its place, or a revealed symbol not used again as often as shown (the "hard-mode consistency"
  studies measure);
* ``excluded``: guesses that use a symbol more often than the tiles allow: a symbol shown grey
  (black) with no green or yellow copy, or more copies than a guess showing a grey copy revealed
  (the "reuse of an excluded letter" hard mode does not forbid);
* ``impossible``: guesses that could no longer be the answer: not an answer of the game, or
  contradicted by the tiles of an earlier guess. Not always a mistake (the optimum plays some, to
  split the candidates), but a model that plays many without gaining from them does not reason
  from the tiles.

clembench's Wordle scores, as its scorer computes them (``clp-research/clembench``,
``wordle/utils/compute_metrics.py``; :func:`clembench_scores`): the **speed** of a game, its main
score (won in at most 3 guesses 100, in 4 50, in 5 30, in 6 20; lost 0; aborted: no score), the
**closeness** of each guess (5 per green tile, 3 per yellow), and the **strategy** of each guess
after the first (20 for every letter of the previous guess's greens used again, 10 for its yellows,
-20 for its greys; a game won at once scores 100).

Over an evaluation (:func:`conduct_summary`): those counts, their share of all valid guesses, the
games with at least one, and the *aborted* games: lost, with attempts lost to invalid replies (a
language model's forfeited turns) or ended by invalid actions (an index agent's).
:func:`guessgym.evaluation.evaluate.evaluate` puts the summary in a result's ``meta["conduct"]``
whenever it keeps the games' guesses (a language model's always).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..envs.candidates import HardModeRule
from ..envs.game import Game
from ..envs.scoring import pattern_to_tiles

if TYPE_CHECKING:
    from .records import GameRecord

#: The per-guess counts, in the order they are reported.
COUNTS = ("repeated", "ignores_hints", "excluded", "impossible")


@dataclass(frozen=True)
class GameConduct:
    """The play metrics of one game (see the module docstring)."""

    guesses: int
    repeated: int
    ignores_hints: int
    excluded: int
    impossible: int


Scorer = Callable[[str, str], int]


def scorer(game: Game) -> Scorer:
    """``score(guess, answer)`` of ``game``: read from its pattern matrix where one is in memory or
    the disk cache (never built for this), else computed (:meth:`Game.score`). The same patterns;
    an evaluation's millions of moves are scored in seconds instead of a minute."""
    from ..envs.matrix import PatternMatrix

    dense = PatternMatrix.for_game(game, build=False).dense
    if dense is None:
        return lambda guess, answer: int(game.score(guess, answer))
    guesses, answers = game.guess_index, game.answer_index
    return lambda guess, answer: int(dense[guesses[guess], answers[answer]])


def game_conduct(game: Game, answer: str, played: Sequence[str], score: Scorer | None = None) -> GameConduct:
    """Count the game's repeated guesses, guesses that ignore a hint or use an excluded symbol,
    and impossible guesses (``score``: the game's :func:`scorer`, made once for many games)."""
    return games_conduct(game, [(answer, played)], score)[0]


@dataclass
class _After:
    """What the counts of the next guess depend on, after one move: its (guess, pattern), the
    hard-mode rule, the most copies of each symbol a grey tile allows, the guesses seen and the
    moves so far; the counts of that move, and those of each next guess asked about so far."""

    move: tuple[str, int]
    rule: HardModeRule
    at_most: dict[str, int]
    seen: frozenset[str]
    feedback: tuple[tuple[str, int], ...]
    counts: tuple[int, int, int, int]
    next_counts: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)


def games_conduct(game: Game, games: Sequence[tuple[str, Sequence[str]]],
                  score: Scorer | None = None) -> list[GameConduct]:
    """:func:`game_conduct` of each ``(answer, guesses)``. A guess's counts depend only on the moves
    before it, so the games are walked in the order of their moves, as the tree they share: a guess
    is counted once in each state it is played in, whatever tiles it then shows, and the state after
    a move is made only where a game goes on from it (a deterministic agent's 17,723 classic Nerdle
    games have some 54,000 moves but far fewer distinct ones)."""
    score = score or scorer(game)
    moves = [[(guess, score(guess, answer)) for guess in played] for answer, played in games]
    conducts: list[GameConduct | None] = [None] * len(games)
    start: dict[str, tuple[int, int, int, int]] = {}
    path: list[_After] = []
    for i in sorted(range(len(games)), key=moves.__getitem__):
        played = moves[i]
        shared = 0
        while shared < min(len(path), len(played) - 1) and path[shared].move == played[shared]:
            shared += 1
        del path[shared:]
        for move in played[shared:-1]:
            path.append(_after(game, path[-1] if path else None, move, _counts(game, path, move[0], start, score)))
        last = _counts(game, path, played[-1][0], start, score) if played else (0, 0, 0, 0)
        counts = [sum(after.counts[k] for after in path) + last[k] for k in range(len(COUNTS))]
        conducts[i] = GameConduct(len(played), *counts)
    return [c for c in conducts if c is not None]


def _counts(game: Game, path: list[_After], guess: str, start: dict[str, tuple[int, int, int, int]],
            score: Scorer) -> tuple[int, int, int, int]:
    """The counts of ``guess`` played after the moves of ``path`` (memoised in the state)."""
    before = path[-1] if path else None
    known = start if before is None else before.next_counts
    if guess not in known:
        if before is None:
            known[guess] = (0, int(HardModeRule(game).violation(game.guess_index[guess]) is not None), 0,
                            int(guess not in game.answer_index))
        else:
            known[guess] = (int(guess in before.seen),
                            int(before.rule.violation(game.guess_index[guess]) is not None),
                            int(any(guess.count(symbol) > n for symbol, n in before.at_most.items())),
                            int(guess not in game.answer_index or any(score(g, guess) != p
                                                                      for g, p in before.feedback)))
    return known[guess]


def _after(game: Game, before: _After | None, move: tuple[str, int], counts: tuple[int, int, int, int]) -> _After:
    """The state after ``move`` played from ``before`` (``None``: the start), with its ``counts``."""
    guess, pattern = move
    rule = HardModeRule(game) if before is None else before.rule.copy()
    at_most = {} if before is None else dict(before.at_most)
    seen = frozenset() if before is None else before.seen
    feedback = () if before is None else before.feedback
    rule.add(game.guess_index[guess], pattern)
    tiles = pattern_to_tiles(pattern, game.length)
    for symbol in {s for s, t in zip(guess, tiles) if t == "B"}:
        shown = sum(1 for s, t in zip(guess, tiles) if s == symbol and t != "B")
        at_most[symbol] = min(shown, at_most.get(symbol, shown))
    return _After(move, rule, at_most, seen | {guess}, (*feedback, move), counts)


#: clembench's speed of a won Wordle game by its guesses (more than 6: ``100 / guesses``, its other games' rule).
CLEMBENCH_SPEED = {1: 100.0, 2: 100.0, 3: 100.0, 4: 50.0, 5: 30.0, 6: 20.0}


def clembench_scores(game: Game, record: GameRecord, score: Scorer | None = None) -> dict[str, Any]:
    """clembench's speed of the game (``None`` when aborted) and the closeness and strategy of each guess."""
    score = score or scorer(game)
    played = list(record.played or ())
    tiles = [pattern_to_tiles(score(g, record.answer), game.length) for g in played]
    closeness = [5 * t.count("G") + 3 * t.count("Y") for t in tiles]
    strategy: list[float] = [100.0] if len(played) == 1 else [0.0] * bool(played)
    for (before, shown), after in zip(zip(played, tiles), played[1:]):
        letters = set(after)
        by_tile = {tile: {ch for ch, t in zip(before, shown) if t == tile} for tile in "GYB"}
        strategy.append(20.0 * len(by_tile["G"] & letters) + 10.0 * len(by_tile["Y"] & letters)
                        - 20.0 * len(by_tile["B"] & letters))
    aborted = not record.solved and bool(record.note or record.forfeits)
    speed = None if aborted else (0.0 if not record.solved else
                                  CLEMBENCH_SPEED.get(record.guesses, 100.0 / record.guesses))
    return {"speed": speed, "closeness": closeness, "strategy": strategy}


def conduct_summary(game: Game, records: Iterable[GameRecord]) -> dict[str, Any] | None:
    """The play metrics over ``records`` (``None`` when a record lacks its guesses)."""
    rows = list(records)
    if not rows or any(r.played is None for r in rows):
        return None
    score = scorer(game)
    per_game = games_conduct(game, [(r.answer, r.played or ()) for r in rows], score)
    guesses = sum(c.guesses for c in per_game)
    summary: dict[str, Any] = {"games": len(rows), "guesses": guesses,
                               "aborted": sum(1 for r in rows if not r.solved and (r.note or r.forfeits))}
    for name in COUNTS:
        counts = [getattr(c, name) for c in per_game]
        summary[name] = sum(counts)
        summary[f"{name}_share"] = round(sum(counts) / guesses, 6) if guesses else 0.0
        summary[f"games_with_{name}"] = sum(1 for n in counts if n)
    clem = [clembench_scores(game, r, score) for r in rows]
    speeds = [c["speed"] for c in clem if c["speed"] is not None]
    closeness = [x for c in clem for x in c["closeness"]]
    strategy = [x for c in clem for x in c["strategy"]]
    summary["clembench"] = {
        "speed": round(sum(speeds) / len(speeds), 4) if speeds else None,
        "closeness_per_guess": round(sum(closeness) / len(closeness), 4) if closeness else None,
        "strategy_per_guess": round(sum(strategy) / len(strategy), 4) if strategy else None,
    }
    return summary


def conduct_line(summary: dict[str, Any]) -> str:
    """The summary in one sentence, for reports."""
    parts = [f"{summary[name]:,} {label} ({100 * summary[f'{name}_share']:.1f}% of guesses, "
             f"{summary[f'games_with_{name}']:,} games)"
             for name, label in zip(COUNTS, ("repeated", "ignoring a hint", "using an excluded symbol", "impossible"),
                                     strict=True)]
    clem = summary.get("clembench") or {}
    scores = (f" clembench speed {clem['speed']:.2f}, closeness {clem['closeness_per_guess']:.2f} and strategy "
              f"{clem['strategy_per_guess']:.2f} per guess." if clem.get("speed") is not None
              and clem.get("closeness_per_guess") is not None else "")
    return (f"Play: of {summary['guesses']:,} guesses, " + ", ".join(parts) +
            f"; {summary['aborted']:,} games aborted by invalid replies." + scores)


def saved_conduct_line(meta: dict[str, Any]) -> str:
    """The :func:`conduct_line` of a result's ``meta["conduct"]``, ``""`` when it has none or a
    damaged one (a result read from a file: the line summarises the records, which stay readable)."""
    saved = meta.get("conduct")
    if not isinstance(saved, dict):
        return ""
    try:
        return conduct_line(saved)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, AttributeError):
        return ""


__all__ = ["CLEMBENCH_SPEED", "COUNTS", "GameConduct", "clembench_scores", "conduct_line", "conduct_summary",
           "game_conduct", "games_conduct", "saved_conduct_line"]
