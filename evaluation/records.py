"""One game of an evaluation (:class:`GameRecord`) and the column layout results are saved in.

A record is data: what was played and what it cost. Statistics over many records are
:class:`~guessgym.evaluation.results.EvaluationResult`'s; their text is
:mod:`guessgym.evaluation.report`'s.

Examples:
    >>> records = [GameRecord("aa", 2, True), GameRecord("ab", 6, False, note="gave up")]
    >>> columns = records_to_columns(records)
    >>> columns["guesses"], columns["notes"]
    ([2, 6], [[1, 'gave up']])
    >>> records_from_columns(columns) == records
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class GameRecord:
    """One game of an evaluation.

    Attributes:
        answer: the hidden answer.
        guesses: attempts used (the winning guess included): valid guesses, plus turns lost to
            an invalid reply (chat games with ``invalid="forfeit"`` or after the retries); for a
            lost game, the attempts used before the game ended.
        solved: whether the last guess was all green within the attempt limit.
        played: the guesses in order, when the evaluation recorded them (``record_guesses``).
        seconds: wall-clock time of the game (not compared: two runs of the same games are
            equal records even though they took different times).
        note: why a game was lost other than by running out of attempts (e.g. the agent kept
            choosing actions the rules reject), ``""`` otherwise.
        invalid: invalid actions or replies by kind (``"hard_mode"`` for a rejected action of an
            index agent; ``"format"``, ``"length"``, ``"unknown"``, ``"hard_mode"`` for a chat
            reply); kinds that did not occur are left out.
        turns: actions or replies submitted, invalid ones included (``guesses - forfeits +
            sum(invalid)`` unless given).
        forfeits: turns lost to an invalid reply (each used an attempt without tiles).
        prompt_tokens, completion_tokens: tokens of the game's model requests, when the server
            reported them (``None`` otherwise).
        latency: seconds spent waiting for the model over the game (``None`` for agents that do
            not call one; not compared).
    """

    answer: str
    guesses: int
    solved: bool
    played: tuple[str, ...] | None = None
    seconds: float = field(default=0.0, compare=False)
    note: str = ""
    invalid: dict[str, int] = field(default_factory=dict, hash=False)
    turns: int = -1
    forfeits: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency: float | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "invalid", {k: int(v) for k, v in self.invalid.items() if v})
        if self.turns < 0:
            object.__setattr__(self, "turns", self.guesses - self.forfeits + sum(self.invalid.values()))

    @property
    def n_invalid(self) -> int:
        """Invalid actions or replies of every kind."""
        return sum(self.invalid.values())

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["played"] = list(self.played) if self.played is not None else None
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRecord:
        played = d.get("played")
        return cls(
            answer=str(d["answer"]),
            guesses=int(d["guesses"]),
            solved=bool(d["solved"]),
            played=tuple(played) if played is not None else None,
            seconds=float(d.get("seconds", 0.0)),
            note=str(d.get("note", "")),
            invalid={str(k): int(v) for k, v in (d.get("invalid") or {}).items()},
            turns=int(d.get("turns", -1)),
            forfeits=int(d.get("forfeits", 0)),
            prompt_tokens=_optional_int(d.get("prompt_tokens")),
            completion_tokens=_optional_int(d.get("completion_tokens")),
            latency=None if d.get("latency") is None else float(d["latency"]),
        )


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


def records_to_columns(records: Sequence[GameRecord]) -> dict[str, Any]:
    """Records as columns; ``played`` only if some game recorded its guesses, ``notes`` as
    ``[[position, note], ...]`` for the games that have one."""
    columns: dict[str, Any] = {
        "answer": [r.answer for r in records],
        "guesses": [r.guesses for r in records],
        "solved": [int(r.solved) for r in records],
        "seconds": [round(r.seconds, 6) for r in records],
    }
    if any(r.played is not None for r in records):
        columns["played"] = [list(r.played) if r.played is not None else None for r in records]
    notes = [[i, r.note] for i, r in enumerate(records) if r.note]
    if notes:
        columns["notes"] = notes
    kinds = sorted({kind for r in records for kind in r.invalid})
    if kinds:
        columns["invalid"] = {kind: [r.invalid.get(kind, 0) for r in records] for kind in kinds}
    if any(r.turns != r.guesses - r.forfeits + r.n_invalid for r in records):
        columns["turns"] = [r.turns for r in records]
    if any(r.forfeits for r in records):
        columns["forfeits"] = [r.forfeits for r in records]
    for key in ("prompt_tokens", "completion_tokens"):
        if any(getattr(r, key) is not None for r in records):
            columns[key] = [getattr(r, key) for r in records]
    if any(r.latency is not None for r in records):
        columns["latency"] = [None if r.latency is None else round(r.latency, 6) for r in records]
    return columns


def records_from_columns(data: dict[str, Any] | list[dict[str, Any]]) -> list[GameRecord]:
    """Inverse of :func:`records_to_columns` (also reads a plain list of record dicts)."""
    if isinstance(data, list):
        return [GameRecord.from_dict(r) for r in data]
    n = len(data["answer"])
    for key in ("guesses", "solved", "seconds"):
        if len(data.get(key, ())) != n:
            raise ValueError(f"records column {key!r} has {len(data.get(key, ()))} entries, expected {n}")
    played = data.get("played") or [None] * n
    notes = {int(i): str(note) for i, note in data.get("notes", [])}
    invalid: dict[str, list[int]] = data.get("invalid", {})
    optional: dict[str, list[Any]] = {}
    for key in ("turns", "forfeits", "prompt_tokens", "completion_tokens", "latency", *invalid):
        column = data.get(key) if key not in invalid else invalid[key]
        if column is not None:
            if len(column) != n:
                raise ValueError(f"records column {key!r} has {len(column)} entries, expected {n}")
            optional[key] = column
    none = [None] * n
    return [
        GameRecord(
            answer=str(data["answer"][i]),
            guesses=int(data["guesses"][i]),
            solved=bool(data["solved"][i]),
            played=tuple(played[i]) if played[i] is not None else None,
            seconds=float(data["seconds"][i]),
            note=notes.get(i, ""),
            invalid={kind: int(counts[i]) for kind, counts in invalid.items()},
            turns=int(optional.get("turns", [-1] * n)[i]),
            forfeits=int(optional.get("forfeits", [0] * n)[i]),
            prompt_tokens=_optional_int(optional.get("prompt_tokens", none)[i]),
            completion_tokens=_optional_int(optional.get("completion_tokens", none)[i]),
            latency=None if optional.get("latency", none)[i] is None else float(optional["latency"][i]),
        )
        for i in range(n)
    ]


__all__ = ["GameRecord", "records_from_columns", "records_to_columns"]
