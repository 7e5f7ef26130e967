"""The result of an evaluation: its records, its statistics and its JSON.

:func:`guessgym.evaluation.evaluate.evaluate` returns an :class:`EvaluationResult`: one :class:`GameRecord`
per answer played, plus what was played (agent, game, attempt limit). Every figure in a report is
a property computed from the records, so a result loaded from JSON gives the same table as the
run that produced it.

Conventions, stated once because reports differ on them:

* the **mean** number of guesses is over *solved* games (that is what the research documents
  report); :attr:`EvaluationResult.mean_guesses_with_failures` is a second figure that counts
  every failure as ``max_attempts + 1`` guesses, so an agent cannot look better by failing the
  hard answers;
* the **distribution** maps ``1..max_attempts`` to the number of games solved in that many
  guesses, plus an ``"X"`` bucket for failures (the game's own statistics page does the same);
* time is wall-clock time per game measured by the evaluation loop (``time.perf_counter``), and
  includes the agent's thinking; with memoising solvers the first games pay for the later ones.

Its text and pictures are :mod:`guessgym.evaluation.report`'s (:func:`~guessgym.evaluation.report.result_markdown`,
:func:`~guessgym.evaluation.report.gap_text`, :func:`~guessgym.evaluation.report.plot_histogram`).

Examples:
    >>> r = EvaluationResult("demo", "plays the first candidate", "guessgym/X-v1", "x", 6,
    ...     [GameRecord("aa", 1, True), GameRecord("ab", 3, True), GameRecord("ba", 6, False)])
    >>> r.n_games, round(r.win_rate, 4), r.mean_guesses, r.distribution["X"]
    (3, 0.6667, 2.0, 1)
    >>> r.win_rate_at(1), r.win_rate_at(3)
    (0.3333333333333333, 0.6666666666666666)
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..agents.optima import updated_optimum
from ..envs.game import Game
from ..infra.atomic import atomic_write_text
from ..infra.deprecation import warn_renamed
from ..infra.inputs import read_input
from .formatting import format_number, format_percent, format_seconds
from .meta import json_safe
from .record_checks import check_counts
from .records import GameRecord, records_from_columns, records_to_columns

#: Version of the JSON layout written by :meth:`EvaluationResult.to_json`.
JSON_FORMAT = 1

FAIL = "X"



#: The text renderings of :mod:`guessgym.evaluation.report`, which registers them when imported
#: (``import guessgym.evaluation`` does): the deprecated methods of :class:`EvaluationResult` call
#: them, so that this module need not import the one that renders it.
_TEXT: dict[str, Callable[..., str]] = {}


def register_text(**renderings: Callable[..., str]) -> None:
    """Register the functions behind the deprecated text methods (called by the report module)."""
    _TEXT.update(renderings)


@dataclass
class EvaluationResult:
    """Every game one agent played on one game, and the statistics of them.

    Attributes:
        agent: the agent's name (``Agent.name``), or a label given by the caller.
        description: one line saying what the agent does (``Agent.describe()``).
        env_id: the registered environment id, or ``None`` for a custom game/env.
        game: the game's name (``Game.name``, e.g. ``"wordle-5-nyt"``).
        max_attempts: the attempt limit the games were played with.
        records: one :class:`GameRecord` per answer, in the order played.
        meta: free-form context (seed, sample size, agent kwargs, backend, ...), kept in JSON.
    """

    agent: str
    description: str
    env_id: str | None
    game: str
    max_attempts: int
    records: list[GameRecord]
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_rollout(cls, agent: str, game: Game, answers: Sequence[int] | np.ndarray, guesses: np.ndarray, *,
                     env_id: str | None = None, description: str = "", moves: np.ndarray | None = None,
                     env_kwargs: dict[str, Any] | None = None) -> EvaluationResult:
        """The result of a batched rollout (:func:`guessgym.agents.rollout.play_batched`): game
        ``answers[k]`` took ``guesses[k]`` guesses, 0 meaning lost (after every attempt). With
        ``moves`` (:func:`~guessgym.agents.rollout.play_batched_moves`' second array) each record
        keeps its guesses (``played``), as ``evaluate(..., record_guesses=True)`` does; ``env_id``
        and ``env_kwargs`` name the game as ``gymnasium.make`` builds it (what the move analysis
        rebuilds it from)."""
        records = [GameRecord(game.answers[int(a)], int(g) if g > 0 else game.max_attempts, bool(g > 0))
                   for a, g in zip(answers, guesses)]
        if moves is not None:
            records = [dataclasses.replace(r, played=tuple(game.guesses[int(i)] for i in row if i >= 0))
                       for r, row in zip(records, moves)]
        meta = {"env_kwargs": dict(env_kwargs)} if env_kwargs else {}
        return cls(agent, description, env_id, game.name, game.max_attempts, records, meta=meta)

    def subset(self, answers: Sequence[str]) -> EvaluationResult:
        """The same result restricted to the games of ``answers`` (in their order)."""
        by_answer = {r.answer: r for r in self.records}
        return dataclasses.replace(self, records=[by_answer[a] for a in answers])

    # ---- statistics --------------------------------------------------------------------------
    @property
    def n_games(self) -> int:
        return len(self.records)

    @property
    def n_solved(self) -> int:
        return sum(1 for r in self.records if r.solved)

    @property
    def n_failed(self) -> int:
        return self.n_games - self.n_solved

    @property
    def win_rate(self) -> float:
        """Fraction of games solved within ``max_attempts`` (``nan`` when no game was played)."""
        return self.n_solved / self.n_games if self.records else math.nan

    def _solved_counts(self) -> list[int]:
        return [r.guesses for r in self.records if r.solved]

    @property
    def mean_guesses(self) -> float:
        """Mean guesses over *solved* games only (``nan`` if none was solved)."""
        counts = self._solved_counts()
        return sum(counts) / len(counts) if counts else math.nan

    @property
    def mean_guesses_with_failures(self) -> float:
        """Mean guesses over every game, a failure counting as ``max_attempts + 1``."""
        if not self.records:
            return math.nan
        total = sum(r.guesses if r.solved else self.max_attempts + 1 for r in self.records)
        return total / self.n_games

    @property
    def std_guesses(self) -> float:
        """Population standard deviation of the guesses over solved games (``nan`` if none)."""
        counts = self._solved_counts()
        if not counts:
            return math.nan
        mean = sum(counts) / len(counts)
        return math.sqrt(sum((c - mean) ** 2 for c in counts) / len(counts))

    @property
    def max_guesses(self) -> int | None:
        """Most guesses any solved game needed (``None`` if none was solved)."""
        counts = self._solved_counts()
        return max(counts) if counts else None

    @property
    def distribution(self) -> dict[int | str, int]:
        """``{1: n1, ..., max_attempts: n_max, "X": failures}`` (every key present)."""
        dist: dict[int | str, int] = {k: 0 for k in range(1, self.max_attempts + 1)}
        for r in self.records:
            if r.solved:
                dist[r.guesses] = dist.get(r.guesses, 0) + 1
        dist[FAIL] = self.n_failed
        return dist

    @property
    def total_seconds(self) -> float:
        return sum(r.seconds for r in self.records)

    @property
    def seconds_per_game(self) -> float:
        return self.total_seconds / self.n_games if self.records else math.nan

    def win_rate_at(self, m: int) -> float:
        """Fraction of games solved within ``m`` guesses (``m`` from 1 to ``max_attempts``)."""
        if not 1 <= m <= self.max_attempts:
            raise ValueError(f"m must be between 1 and max_attempts={self.max_attempts}, got {m}")
        if not self.records:
            return math.nan
        return sum(1 for r in self.records if r.solved and r.guesses <= m) / self.n_games

    def win_rate_curve(self) -> list[tuple[int, float]]:
        """``[(m, win_rate_at(m)) for m in 1..max_attempts]``."""
        return [(m, self.win_rate_at(m)) for m in range(1, self.max_attempts + 1)]

    def hardest(self, n: int = 10) -> list[GameRecord]:
        """The ``n`` hardest answers: failures first, then the most guesses (ties in play order)."""
        order = sorted(
            range(self.n_games),
            key=lambda i: (self.records[i].solved, -self.records[i].guesses, i),
        )
        return [self.records[i] for i in order[:n]]

    @property
    def label(self) -> str:
        """``agent`` plus the ``meta["label"]`` suffix if any (used in tables and plots)."""
        extra = self.meta.get("label")
        return f"{self.agent} ({extra})" if extra else self.agent

    @property
    def uncapped(self) -> bool:
        """Whether the game had no attempt limit (uncapped Absurdle: ``max_attempts`` is then the
        most guesses a won game took, and a loss cannot be counted as ``max_attempts + 1``)."""
        return self.meta.get("absurdle", {}).get("max_attempts", 0) is None

    @property
    def total_guesses(self) -> int:
        """Guesses over every game, a lost game counting ``max_attempts + 1``."""
        return sum(r.guesses if r.solved else self.max_attempts + 1 for r in self.records)

    @property
    def optimum(self) -> dict[str, Any]:
        """The optimal tree the result is measured against (``{}`` when none is known), with what is
        proven about it now (:func:`~guessgym.agents.optima.updated_optimum`)."""
        recorded = self.meta.get("optimum")
        hard = self.meta.get("hard_mode")
        return updated_optimum(recorded, None if hard is None else bool(hard)) if recorded else {}

    @property
    def gap_to_optimum(self) -> tuple[int, float] | None:
        """``(extra guesses, percent)`` over the game's optimal tree (:mod:`guessgym.agents.optima`),
        when the optimum is known and every answer was played; ``None`` otherwise."""
        optimum = self.optimum
        if not optimum:
            return None
        extra = self.total_guesses - int(optimum["total"])
        return extra, 100.0 * extra / int(optimum["total"])

    # ---- accounting: invalid moves, turns, tokens, latency --------------------------------------
    @property
    def invalid_by_kind(self) -> dict[str, int]:
        """Invalid actions or replies over every game, by kind (kinds that occurred)."""
        totals: dict[str, int] = {}
        for r in self.records:
            for kind, n in r.invalid.items():
                totals[kind] = totals.get(kind, 0) + n
        return dict(sorted(totals.items()))

    @property
    def invalid_per_game(self) -> float:
        return sum(r.n_invalid for r in self.records) / self.n_games if self.records else math.nan

    @property
    def turns_per_game(self) -> float:
        """Actions or replies per game, invalid ones (retries) included."""
        return sum(r.turns for r in self.records) / self.n_games if self.records else math.nan

    @property
    def n_forfeits(self) -> int:
        return sum(r.forfeits for r in self.records)

    @property
    def tokens_per_game(self) -> dict[str, float] | None:
        """Mean prompt and completion tokens per game, over the games whose server reported them."""
        counted = [r for r in self.records if r.prompt_tokens is not None or r.completion_tokens is not None]
        if not counted:
            return None
        return {"prompt": sum(r.prompt_tokens or 0 for r in counted) / len(counted),
                "completion": sum(r.completion_tokens or 0 for r in counted) / len(counted),
                "games": len(counted)}

    @property
    def latency_per_game(self) -> float | None:
        """Mean seconds per game spent waiting for the model (``None`` without model calls)."""
        timed = [r.latency for r in self.records if r.latency is not None]
        return sum(timed) / len(timed) if timed else None

    def summary(self) -> dict[str, Any]:
        """The headline figures as a plain dict (handy for logging and tests)."""
        gap = self.gap_to_optimum
        accounting: dict[str, Any] = {
            "failures": self.n_failed,
            "invalid_per_game": self.invalid_per_game,
            "invalid_by_kind": self.invalid_by_kind,
            "turns_per_game": self.turns_per_game,
            "forfeits": self.n_forfeits,
        }
        if self.tokens_per_game is not None:
            accounting["tokens_per_game"] = self.tokens_per_game
        if self.latency_per_game is not None:
            accounting["latency_per_game"] = self.latency_per_game
        return {
            "agent": self.label,
            "game": self.game,
            "games": self.n_games,
            "win_rate": self.win_rate,
            "mean_solved": self.mean_guesses,
            "mean_with_failures": self.mean_guesses_with_failures,
            "std": self.std_guesses,
            "max": self.max_guesses,
            "distribution": self.distribution,
            "seconds_per_game": self.seconds_per_game,
            "total_guesses": self.total_guesses,
            "gap_to_optimum": None if gap is None else gap[0],
            "gap_to_optimum_percent": None if gap is None else round(gap[1], 4),
            **accounting,
        }

    # ---- text: deprecated, now guessgym.evaluation.report's ------------------------------------
    def _text(self, method: str, function: str, *args: Any) -> str:
        warn_renamed(f"EvaluationResult.{method}()", f"guessgym.evaluation.report.{function}(result)", stacklevel=4)
        return _TEXT[method](self, *args)

    def to_markdown(self, hardest: int = 10) -> str:
        """Deprecated: :func:`guessgym.evaluation.report.result_markdown`."""
        return self._text("to_markdown", "result_markdown", hardest)

    def gap_text(self) -> str:
        """Deprecated: :func:`guessgym.evaluation.report.gap_text`."""
        return self._text("gap_text", "gap_text")

    def optimum_note(self) -> str:
        """Deprecated: :func:`guessgym.evaluation.report.optimum_note`."""
        return self._text("optimum_note", "optimum_note")

    def compact_distribution(self) -> str:
        """Deprecated: :func:`guessgym.evaluation.report.compact_distribution`."""
        return self._text("compact_distribution", "compact_distribution")

    def accounting_line(self) -> str:
        """Deprecated: :func:`guessgym.evaluation.report.accounting_line`."""
        return self._text("accounting_line", "accounting_line")

    # ---- JSON ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": JSON_FORMAT,
            "agent": self.agent,
            "description": self.description,
            "env_id": self.env_id,
            "game": self.game,
            "max_attempts": self.max_attempts,
            "meta": json_safe(self.meta),
            "summary": json_safe(self.summary()),
            "records": records_to_columns(self.records),
        }

    def to_json(self, path: str | os.PathLike[str] | None = None, *, indent: int | None = 1) -> str:
        """The result as JSON text; also written atomically to ``path`` when given.

        The records are stored column-wise (``{"answer": [...], "guesses": [...], ...}``), which
        keeps a 17,723-game result around half a megabyte. The ``summary`` block is informative
        only: :meth:`from_json` recomputes every figure from the records.
        """
        data = self.to_dict()
        if indent is None:
            text = json.dumps(data, separators=(",", ":"), allow_nan=False)
        else:  # readable header, one line per records column
            records = data.pop("records")
            head = json.dumps(data, indent=indent, allow_nan=False)
            pad = " " * indent
            columns = ",\n".join(
                f"{pad * 2}{json.dumps(k)}: {json.dumps(v, separators=(',', ':'), allow_nan=False)}"
                for k, v in records.items()
            )
            text = head[: head.rindex("}")].rstrip() + f',\n{pad}"records": {{\n{columns}\n{pad}}}\n}}'

        if path is not None:
            atomic_write_text(path, text + "\n")
        return text

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> EvaluationResult:
        fmt = d.get("format", JSON_FORMAT)
        if fmt != JSON_FORMAT:
            raise ValueError(f"unsupported result format {fmt!r}; this version reads format {JSON_FORMAT}")
        result = cls(
            agent=str(d["agent"]),
            description=str(d.get("description", "")),
            env_id=d.get("env_id"),
            game=str(d["game"]),
            max_attempts=int(d["max_attempts"]),
            records=records_from_columns(d["records"]),
            meta=dict(d.get("meta", {})),
        )
        check_counts(result.max_attempts, result.env_id, result.records)
        return result

    @classmethod
    def from_json(cls, source: str | os.PathLike[str]) -> EvaluationResult:
        """Load from JSON text or from a path to a JSON file."""
        text = str(source)
        where = "the text"
        if not text.lstrip().startswith("{"):
            where = str(source)
            text = read_input(source, "result file").decode("utf-8")
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise TypeError("not a JSON object")
            return cls.from_dict(data)
        except RecursionError:
            raise ValueError(f"{where}: nested too deeply to be an evaluation result") from None
        except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
            message = str(exc).splitlines()[0][:200] if str(exc) else ""
            raise ValueError(f"{where}: not an evaluation result ({type(exc).__name__}: {message})") from None


# GameRecord and the column layout are guessgym.evaluation.records' (imported here for older code).
__all__ = ["FAIL", "JSON_FORMAT", "EvaluationResult", "format_number", "format_percent", "format_seconds",
           "register_text"]
