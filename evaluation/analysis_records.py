"""A move analysis as data: each move's judgement (:class:`MoveAnalysis`), a game's
(:class:`GameAnalysis`) and an agent's (:class:`Analysis`, with its summary), written to JSON and
read back (:func:`load_analysis`, which refuses what is not an analysis). What the figures mean is
in :mod:`guessgym.evaluation.analysis`, which judges the moves."""

from __future__ import annotations

import copy
import gzip
import json
import math
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..infra.atomic import atomic_write_bytes, atomic_write_text

#: Upper edges of the loss histogram's bins (expected guesses); the last bin is everything above.
LOSS_BINS = (0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0)
#: How a forfeited turn is shown where a move would be.
TURN_LOST = "(turn lost)"
#: Losses below this are rounding, not mistakes (values are ratios of integers).
TOLERANCE = 1e-9
#: A move's fields that only a move judged by bounds has (see :class:`MoveAnalysis`).
BOUND_FIELDS = ("bounded", "expected_high", "best_low", "loss_high")
#: ``expected_high`` and ``loss_high`` where no tree within the attempts was found (no upper bound).
NO_BOUND = -1.0


@dataclass(frozen=True)
class MoveAnalysis:
    """One move, judged (see the module docstring).

    A move judged after the time budget ran out is ``bounded``: its figures are proven bounds, not
    exact (:class:`~guessgym.baselines.move_values.StateBounds`): the expectation lies from
    ``expected`` to ``expected_high``, the best from ``best_low`` to ``best`` (the best tree
    found; ``NO_BOUND``, -1, where no tree within the attempts was found for the state), the loss
    from ``loss`` to ``loss_high`` (``NO_BOUND`` where no tree within the attempts was found after
    the guess); its ``luck`` is not judged (0) and ``best_guess`` is the best tree's first guess.
    """

    number: int
    guess: str
    tiles: str
    candidates: int
    expected: float
    best: float
    loss: float
    luck: float
    best_guess: str
    possible: bool
    hard_mode_violation: bool
    best_proven: bool = True
    forfeit: bool = False
    bounded: bool = False
    expected_high: float = 0.0
    best_low: float = 0.0
    loss_high: float = 0.0

    @property
    def shown(self) -> str:
        """The move in words: ``"crane BBYBY"``, or ``"(turn lost)"`` for a forfeit."""
        return TURN_LOST if self.forfeit else f"{self.guess} {self.tiles}"


@dataclass(frozen=True)
class GameAnalysis:
    """The moves of one game; ``answer`` is ``""`` when a typed-in game did not reveal it."""

    answer: str
    solved: bool
    moves: tuple[MoveAnalysis, ...]
    left_after: float = 0.0

    @property
    def loss(self) -> float:
        return sum(m.loss for m in self.moves)

    @property
    def luck(self) -> float:
        return sum(m.luck for m in self.moves)

    def to_dict(self, written: dict[int, dict[str, Any]] | None = None) -> dict[str, Any]:
        """The game as JSON; ``written`` holds the moves already turned into JSON, by ``id``: the
        games of one analysis share their judged moves (a tree's edge is one object in every game
        through it), each written once."""
        if written is None:
            written = {}
        moves = []
        for m in self.moves:
            d = written.get(id(m))
            if d is None:
                d = written[id(m)] = _move_dict(m)
            moves.append(d)
        return {"answer": self.answer, "solved": self.solved, "guesses": len(self.moves),
                "loss": round(self.loss, 6), "luck": round(self.luck, 6), "left_after": round(self.left_after, 6),
                "moves": moves}


@dataclass
class Analysis:
    """The analysis of one agent's games, with its summary (:meth:`summary`); ``unjudged``: games
    left unjudged once the time budgets ran out (the figures are the judged games')."""

    env_id: str
    game: str
    agent: str
    games: list[GameAnalysis] = field(default_factory=list)
    unjudged: int = 0
    #: The last :meth:`_figures`, with what they were made of (the games and ``unjudged``; the games held,
    #: not their ids, which a freed game's successor may reuse): a report asks for the summary several
    #: times (its file, the result's meta, the viewer).
    _figures_of: tuple[tuple[GameAnalysis, ...], int, dict[str, Any]] | None = field(
        default=None, init=False, repr=False, compare=False)

    def summary(self, mistakes: int = 10) -> dict[str, Any]:
        """The figures of the exact moves; moves judged by bounds (the time budget ran out) are
        counted apart, with the bounds of their loss per game. ``mistakes``: how many of the
        costliest mistakes to list."""
        made_of = tuple(self.games)  # compared element by element, identity first
        if self._figures_of is None or self._figures_of[:2] != (made_of, self.unjudged):
            self._figures_of = (made_of, self.unjudged, self._figures())
        figures = self._figures_of[2]
        return {k: copy.deepcopy(v[:mistakes] if k == "mistakes" else v) for k, v in figures.items()}  # in order

    def _figures(self) -> dict[str, Any]:
        """:meth:`summary` with every mistake listed, costliest first."""
        bounded = [m for g in self.games for m in g.moves if m.bounded]
        moves = [m for g in self.games for m in g.moves if not m.bounded]
        losses = np.array([m.loss for m in moves]) if moves else np.zeros(0)
        by_number: dict[int, list[float]] = {}
        for m in moves:
            by_number.setdefault(m.number, []).append(m.loss)
        edges = [*LOSS_BINS, float("inf")]
        histogram = {f"<= {hi:g}" if np.isfinite(hi) else f"> {LOSS_BINS[-1]:g}":
                     int(np.sum((losses > lo + TOLERANCE) & (losses <= hi + TOLERANCE)) if i else
                         np.sum(losses <= TOLERANCE))
                     for i, (lo, hi) in enumerate(zip([-np.inf, *edges[:-1]], edges))}
        mistakes_by_state: dict[tuple[str, ...], dict[str, Any]] = {}
        for g in self.games:
            for m in g.moves:
                if m.loss <= TOLERANCE or m.bounded:
                    continue
                before = tuple(x.shown for x in g.moves[: m.number - 1])
                guess = TURN_LOST if m.forfeit else m.guess
                seen = mistakes_by_state.setdefault((*before, guess), {
                    "before": list(before), "move": m.number, "guess": guess, "best_guess": m.best_guess,
                    "candidates": m.candidates, "loss": round(m.loss, 6), "games": 0, "answers": []})
                seen["games"] += 1
                if len(seen["answers"]) < 5:
                    seen["answers"].append(g.answer)
        worst = sorted(mistakes_by_state.values(), key=lambda d: (-d["loss"] * d["games"], -d["loss"]))
        return {
            "games": len(self.games), "moves": len(moves),
            "mean_loss_per_move": float(losses.mean()) if moves else 0.0,
            "mean_loss_per_game": float(losses.sum() / len(self.games)) if self.games else 0.0,
            "best_move_share": float(np.mean(losses <= TOLERANCE)) if moves else 1.0,
            "loss_by_move": {n: float(np.mean(v)) for n, v in sorted(by_number.items())},
            "histogram": histogram,
            "mistakes": worst,
            "best_proven": all(m.best_proven for m in moves),
            "unjudged_games": self.unjudged,
            "bounded_moves": len(bounded),
            "bounded_loss_per_game": [sum(m.loss for m in bounded) / max(len(self.games), 1),
                                      None if any(m.loss_high == NO_BOUND for m in bounded) else
                                      sum(m.loss_high for m in bounded) / max(len(self.games), 1)],
        }

    def brief(self) -> dict[str, Any]:
        """The summary's headline figures (what a result's ``meta["analysis"]`` and a leaderboard keep)."""
        s = self.summary(mistakes=3)
        return {k: s[k] for k in ("moves", "mean_loss_per_move", "mean_loss_per_game", "best_move_share",
                                  "loss_by_move", "histogram", "best_proven", "mistakes")}

    def to_dict(self) -> dict[str, Any]:
        written: dict[int, dict[str, Any]] = {}  # the moves' objects stay alive with self.games meanwhile
        return {"format": 1, "env_id": self.env_id, "game": self.game, "agent": self.agent,
                "summary": self.summary(), "games": [g.to_dict(written) for g in self.games],
                "unjudged": self.unjudged}

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """The analysis as JSON text; also written atomically to ``path`` when given (gzipped and
        compact when it ends in ``.gz``: a classic Nerdle agent has some 53,000 moves; at zlib's usual
        level, 6: level 9 took longer than the JSON itself for a few percent fewer bytes)."""
        if path is not None and str(path).endswith(".gz"):
            text = json.dumps(self.to_dict(), separators=(",", ":"))
            atomic_write_bytes(Path(path), gzip.compress(text.encode(), compresslevel=6, mtime=0))
            return text
        text = json.dumps(self.to_dict(), indent=1)
        if path is not None:
            atomic_write_text(Path(path), text + "\n")
        return text

    def to_markdown(self) -> str:
        s = self.summary(mistakes=5)
        lines = [f"Move analysis of {self.agent} on {self.game}: {s['games']:,} games, {s['moves']:,} moves",
                 "", "| loss per move | loss per game | best moves | loss by move |", "|---:|---:|---:|---|",
                 f"| {s['mean_loss_per_move']:.4f} | {s['mean_loss_per_game']:.4f} | {100 * s['best_move_share']:.2f}% "
                 f"| {' '.join(f'{n}:{v:.3f}' for n, v in s['loss_by_move'].items())} |"]
        bins = [f"{'0' if i == 0 else edge}: {count:,}" for i, (edge, count) in enumerate(s["histogram"].items())]
        lines += ["", "Moves by loss (guesses lost in expectation): " + ", ".join(bins)]
        if s["mistakes"]:
            lines += ["", "Costliest mistakes (loss x games that reached the state):", ""]
            for m in s["mistakes"]:
                before = "after " + ", ".join(m["before"]) if m["before"] else "as the first move"
                lines.append(f"- {before}: {m['guess']} instead of {m['best_guess']} ({m['candidates']} candidates) "
                             f"loses {m['loss']:.4f} in each of {m['games']} games (e.g. {', '.join(m['answers'])})")
        if not s["best_proven"]:
            lines += ["", "The first move's best value is the best known tree's, not proven optimal."]
        if s["unjudged_games"]:
            lines += ["", f"{s['unjudged_games']:,} more games were not judged: the time budget and the bounds' "
                      "after it ran out (the figures are those of the games judged)."]
        if s["bounded_moves"]:
            low, high = s["bounded_loss_per_game"]
            lines += ["", f"{s['bounded_moves']:,} moves were judged by bounds, not exactly (the time budget ran out): "
                      "the figures above are the exact moves'; the bounded ones lose from "
                      f"{low:.4f} to {'?' if high is None else f'{high:.4f}'} guesses per game more."]
        return "\n".join(lines)


def load_analysis(path: str | os.PathLike[str]) -> Analysis:
    """An analysis written by :meth:`Analysis.to_json` (``.json`` or ``.json.gz``).

    Raises:
        ValueError: the file is not an analysis (named, with why).
    """
    from ..infra.inputs import gunzip, read_input

    raw = read_input(path, "move analysis")
    try:
        data = json.loads(gunzip(raw, str(path)) if str(path).endswith(".gz") else raw)
        games = [GameAnalysis(str(g["answer"]), _typed(g["solved"], bool, "solved"),
                              tuple(_move(m) for m in g["moves"]),
                              _typed(g.get("left_after", 0.0), float, "left_after")) for g in data["games"]]
        unjudged = _typed(data.get("unjudged", 0), int, "unjudged")
        if unjudged < 0:
            raise ValueError(f"unjudged is {unjudged}, not a count of games")
        return Analysis(str(data["env_id"]), str(data["game"]), str(data["agent"]), games, unjudged)
    except (OSError, EOFError, zlib.error, RecursionError, ValueError, KeyError, TypeError, AttributeError) as exc:
        why = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise ValueError(f"{path}: not a move analysis ({why})") from None


def _typed(value: Any, kind: type, name: str) -> Any:
    """``value`` if it is of ``kind`` (an int for a float; a float finite), else ``ValueError`` naming ``name``."""
    ok = (type(value) is bool if kind is bool else
          type(value) is int if kind is int else
          type(value) in (int, float) and math.isfinite(value) if kind is float else isinstance(value, kind))
    if not ok:
        raise ValueError(f"{name} is {str(value)[:40]!r}, not {'a number' if kind is float else kind.__name__}")
    return kind(value)


def _move(m: Any) -> MoveAnalysis:
    """A move of an analysis file, every field of its type."""
    if not isinstance(m, dict):
        raise ValueError(f"a move is {type(m).__name__}, not an object")
    fields = MoveAnalysis.__dataclass_fields__
    return MoveAnalysis(**{k: _typed(v, {"int": int, "str": str, "float": float, "bool": bool}[str(fields[k].type)], k)
                           for k, v in m.items() if k in fields})


#: A move's fields in the order written, and those written only for a move judged by bounds.
_MOVE_FIELDS = tuple(MoveAnalysis.__dataclass_fields__)
_EXACT_FIELDS = tuple(k for k in _MOVE_FIELDS if k not in BOUND_FIELDS)


def _move_dict(m: MoveAnalysis) -> dict[str, Any]:
    """A move as JSON; the bounds' fields only where the move is judged by bounds. (Its fields are
    plain values: read directly, not through ``dataclasses.asdict``, whose deep copy took most of
    the time of writing a Nerdle agent's 53,000 moves.)"""
    d = {k: getattr(m, k) for k in (_MOVE_FIELDS if m.bounded else _EXACT_FIELDS)}
    return _rounded(d)


def _rounded(d: dict[str, Any]) -> dict[str, Any]:
    return {k: round(v, 6) if isinstance(v, float) else v for k, v in d.items()}


__all__ = ["BOUND_FIELDS", "LOSS_BINS", "NO_BOUND", "TOLERANCE", "TURN_LOST", "Analysis", "GameAnalysis",
           "MoveAnalysis", "load_analysis"]
