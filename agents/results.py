"""The result of an evaluation, its statistics, and its renderings (Markdown, JSON, plots).

:func:`guessgym.agents.evaluate.evaluate` returns an :class:`EvaluationResult`: one :class:`GameRecord`
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

Plots use matplotlib with the Agg backend and are optional (the ``plots`` extra).

Examples:
    >>> r = EvaluationResult("demo", "plays the first candidate", "guessgym/X-v0", "x", 6,
    ...     [GameRecord("aa", 1, True), GameRecord("ab", 3, True), GameRecord("ba", 6, False)])
    >>> r.n_games, round(r.win_rate, 4), r.mean_guesses, r.distribution["X"]
    (3, 0.6667, 2.0, 1)
    >>> r.win_rate_at(1), r.win_rate_at(3)
    (0.3333333333333333, 0.6666666666666666)
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..envs.atomic import atomic_open, atomic_path

#: Version of the JSON layout written by :meth:`EvaluationResult.to_json`.
JSON_FORMAT = 1

FAIL = "X"

# Colours of the real games' statistics pages.
_BAR_GREEN = "#6aaa64"
_BAR_GREY = "#787c7e"
_BAR_FAIL = "#b0413e"


@dataclass(frozen=True)
class GameRecord:
    """One game of an evaluation.

    Attributes:
        answer: the hidden answer.
        guesses: valid guesses played (the winning one included); for a lost game, the guesses
            used before the game ended.
        solved: whether the last guess was all green within the attempt limit.
        played: the guesses in order, when the evaluation recorded them (``record_guesses``).
        seconds: wall-clock time of the game (not compared: two runs of the same games are
            equal records even though they took different times).
        note: why a game was lost other than by running out of attempts (e.g. the agent kept
            choosing actions the rules reject), ``""`` otherwise.
    """

    answer: str
    guesses: int
    solved: bool
    played: tuple[str, ...] | None = None
    seconds: float = field(default=0.0, compare=False)
    note: str = ""

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
        )


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

    def summary(self) -> dict[str, Any]:
        """The headline figures as a plain dict (handy for logging and tests)."""
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
        }

    # ---- text ----------------------------------------------------------------------------------
    def compact_distribution(self) -> str:
        """The distribution on one line, e.g. ``"2:131 3:999 4:1162 5:17 X:0"`` (zeros before
        the first non-zero bucket omitted, the failure bucket always shown)."""
        return _compact(self.distribution)

    def to_markdown(self, hardest: int = 10) -> str:
        """A one-row Markdown table, the distribution, and the hardest answers."""
        lines = [f"### {self.label} on {self.game}", ""]
        if self.description:
            lines += [self.description, ""]
        lines += [
            "| agent | game | games | win % | mean (solved) | mean (X = "
            f"{self.max_attempts + 1}) | std | max | s/game |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|",
            f"| {self.label} | {self.game} | {self.n_games} | {_pct(self.win_rate)} | "
            f"{_num(self.mean_guesses, 4)} | {_num(self.mean_guesses_with_failures, 4)} | "
            f"{_num(self.std_guesses, 3)} | {self.max_guesses if self.max_guesses is not None else '-'} | "
            f"{_seconds(self.seconds_per_game)} |",
            "",
            "| guesses | " + " | ".join(str(k) for k in self.distribution) + " |",
            "|---|" + "---:|" * len(self.distribution),
            "| games | " + " | ".join(str(v) for v in self.distribution.values()) + " |",
        ]
        if hardest and self.records:
            worst = self.hardest(hardest)
            shown = ", ".join(f"{r.answer} ({r.guesses if r.solved else FAIL})" for r in worst)
            lines += ["", f"Hardest answers: {shown}"]
        notes = sorted({r.note for r in self.records if r.note})
        if notes:
            lines += ["", "Games lost for another reason than the attempt limit: " + "; ".join(notes)]
        return "\n".join(lines)

    # ---- JSON ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": JSON_FORMAT,
            "agent": self.agent,
            "description": self.description,
            "env_id": self.env_id,
            "game": self.game,
            "max_attempts": self.max_attempts,
            "meta": _json_safe(self.meta),
            "summary": _json_safe(self.summary()),
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
            atomic_write_text(Path(path), text + "\n")
        return text

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> EvaluationResult:
        fmt = d.get("format", JSON_FORMAT)
        if fmt != JSON_FORMAT:
            raise ValueError(f"unsupported result format {fmt!r}; this version reads format {JSON_FORMAT}")
        return cls(
            agent=str(d["agent"]),
            description=str(d.get("description", "")),
            env_id=d.get("env_id"),
            game=str(d["game"]),
            max_attempts=int(d["max_attempts"]),
            records=records_from_columns(d["records"]),
            meta=dict(d.get("meta", {})),
        )

    @classmethod
    def from_json(cls, source: str | os.PathLike[str]) -> EvaluationResult:
        """Load from JSON text or from a path to a JSON file."""
        text = str(source)
        if not text.lstrip().startswith("{"):
            text = Path(source).read_text(encoding="utf-8")
        return cls.from_dict(json.loads(text))

    # ---- plots ---------------------------------------------------------------------------------
    def plot_histogram(self, path: str | os.PathLike[str]) -> Path:
        """Save a PNG guess distribution in the style of the game's statistics page.

        Horizontal bars, one per number of guesses (1..max_attempts) and one ``X`` bar for
        failures, with the count printed at the end of each bar; the title names the agent and
        the game, the subtitle gives the win rate and the means.
        """
        plt = _pyplot()
        dist = self.distribution
        keys = [str(k) for k in dist]
        counts = list(dist.values())
        height = 1.2 + 0.42 * len(keys)
        fig, ax = plt.subplots(figsize=(6.4, height), dpi=110)
        peak = max(counts) if any(counts) else 1
        modal = counts.index(peak) if any(counts[:-1]) else -1
        colours = []
        for i, (k, c) in enumerate(zip(keys, counts)):
            if k == FAIL:
                colours.append(_BAR_FAIL if c else _BAR_GREY)
            else:
                colours.append(_BAR_GREEN if i == modal else "#8fbf88")
        # Short bars still show their count, as on the game's page.
        widths = [max(c, peak * 0.035) for c in counts]
        y = list(range(len(keys)))
        ax.barh(y, widths, color=colours, height=0.78)
        for yi, (w, c) in enumerate(zip(widths, counts)):
            if w >= 0.12 * peak:  # inside the bar's end, as on the game's page
                ax.text(w - peak * 0.012, yi, f"{c:,}", va="center", ha="right", color="white",
                        fontsize=9, fontweight="bold")
            else:  # a short bar: just past its end, where the number fits
                ax.text(w + peak * 0.012, yi, f"{c:,}", va="center", ha="left", color="#333333",
                        fontsize=9, fontweight="bold")
        ax.set_yticks(y, keys)
        ax.invert_yaxis()
        ax.set_xticks([])
        for side in ("top", "right", "bottom"):
            ax.spines[side].set_visible(False)
        ax.set_xlim(0, peak * 1.03)
        ax.tick_params(axis="y", length=0, labelsize=10)
        ax.set_ylabel("guesses")
        fig.suptitle(f"{self.label} on {self.game}", fontsize=12, fontweight="bold", x=0.02, ha="left")
        ax.set_title(
            f"{self.n_games:,} games · win {_pct(self.win_rate)}% · mean {_num(self.mean_guesses, 3)} "
            f"(solved), {_num(self.mean_guesses_with_failures, 3)} (X = {self.max_attempts + 1})",
            fontsize=9, loc="left", color="#555555",
        )
        fig.tight_layout()
        return _save(fig, path)


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
    return [
        GameRecord(
            answer=str(data["answer"][i]),
            guesses=int(data["guesses"][i]),
            solved=bool(data["solved"][i]),
            played=tuple(played[i]) if played[i] is not None else None,
            seconds=float(data["seconds"][i]),
            note=notes.get(i, ""),
        )
        for i in range(n)
    ]


def _group(r: EvaluationResult) -> str:
    """Plots put results of one environment id together (variants of a game share a panel)."""
    return r.env_id or r.game


def _title(key: str, results: Sequence[EvaluationResult]) -> str:
    games = list(dict.fromkeys(r.game for r in results))
    return key if games == [key] else f"{key} ({', '.join(games)})"


# ---- several results ---------------------------------------------------------------------------
def rank(results: Iterable[EvaluationResult]) -> list[EvaluationResult]:
    """Results sorted best first: highest win rate, then lowest mean with failures counted, then
    lowest mean over solved games, then name."""
    def key(r: EvaluationResult) -> tuple[float, float, float, str]:
        win = r.win_rate if not math.isnan(r.win_rate) else -1.0
        mean_all = r.mean_guesses_with_failures
        mean = r.mean_guesses
        return (-win, mean_all if not math.isnan(mean_all) else math.inf,
                mean if not math.isnan(mean) else math.inf, r.label)

    return sorted(results, key=key)


def leaderboard(results: Sequence[EvaluationResult], *, by_game: bool = False) -> str:
    """A Markdown table of several results, best first (win rate, then mean guesses).

    ``mean`` is over solved games; ``mean X=m+1`` counts failures as ``max_attempts + 1``.
    With ``by_game=True`` the rows are grouped by game (in order of first appearance), each group
    ranked on its own, which is what a comparison across two games needs.
    """
    header = (
        "| # | agent | game | games | win % | mean | mean X=m+1 | std | max | distribution | s/game |\n"
        "|---:|---|---|---:|---:|---:|---:|---:|---:|---|---:|"
    )
    groups: list[list[EvaluationResult]]
    if by_game:
        order: dict[str, list[EvaluationResult]] = {}
        for r in results:
            order.setdefault(r.game, []).append(r)
        groups = [rank(g) for g in order.values()]
    else:
        groups = [rank(results)]
    rows = []
    for group in groups:
        for i, r in enumerate(group, 1):
            rows.append(
                f"| {i} | {r.label} | {r.game} | {r.n_games} | {_pct(r.win_rate)} | "
                f"{_num(r.mean_guesses, 4)} | {_num(r.mean_guesses_with_failures, 4)} | "
                f"{_num(r.std_guesses, 3)} | {r.max_guesses if r.max_guesses is not None else '-'} | "
                f"{r.compact_distribution()} | {_seconds(r.seconds_per_game)} |"
            )
    return header + ("\n" + "\n".join(rows) if rows else "")


def plot_leaderboard(results: Sequence[EvaluationResult], path: str | os.PathLike[str]) -> Path:
    """Save a PNG heat map of the guess distributions, one panel per game.

    Each row is an agent (best first), each column a number of guesses (1..max, then X); the
    cell colour is the share of games and the cell text the count; the row label carries the win
    rate and the mean. Unlike a table of means, it shows *where* the agents differ: the tail that
    fails and the shape of the bulk.
    """
    plt = _pyplot()
    import numpy as np

    if not results:
        raise ValueError("plot_leaderboard needs at least one result")
    by_game: dict[str, list[EvaluationResult]] = {}
    for r in results:
        by_game.setdefault(_group(r), []).append(r)
    panels = [(game, rank(rs)) for game, rs in by_game.items()]
    heights = [max(len(rs), 1) for _, rs in panels]
    width_cols = max(max(r.max_attempts for r in rs) + 1 for _, rs in panels)
    fig_h = 0.9 + sum(0.42 * h + 0.8 for h in heights)
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(max(7.5, 3.8 + 0.75 * width_cols), fig_h), dpi=110,
        gridspec_kw={"height_ratios": [h + 1.6 for h in heights]}, squeeze=False,
    )
    cmap = plt.get_cmap("Greens")
    for ax, (game, rs) in zip(axes[:, 0], panels):
        cols = max(r.max_attempts for r in rs)
        labels = [str(k) for k in range(1, cols + 1)] + [FAIL]
        share = np.zeros((len(rs), cols + 1))
        counts = np.zeros((len(rs), cols + 1), dtype=np.int64)
        for i, r in enumerate(rs):
            for k, v in r.distribution.items():
                j = cols if k == FAIL else int(k) - 1
                counts[i, j] = v
                share[i, j] = v / r.n_games if r.n_games else 0.0
        ax.imshow(share, cmap=cmap, vmin=0, vmax=max(share.max(), 1e-9), aspect="auto")
        for i in range(len(rs)):
            for j in range(cols + 1):
                c = counts[i, j]
                if c == 0:
                    continue
                dark = share[i, j] > 0.55 * share.max()
                colour = "white" if dark else ("#8b1a1a" if j == cols else "#222222")
                ax.text(j, i, f"{c:,}", ha="center", va="center", fontsize=8, color=colour)
        ax.set_xticks(range(cols + 1), labels)
        ax.set_yticks(
            range(len(rs)),
            [f"{r.label}  ·  {_pct(r.win_rate)}%  ·  {_num(r.mean_guesses, 3)}" for r in rs],
            fontsize=9,
        )
        ax.tick_params(length=0)
        ax.set_xticks(np.arange(-0.5, cols + 1), minor=True)
        ax.set_yticks(np.arange(-0.5, len(rs)), minor=True)
        ax.grid(which="minor", color="white", linewidth=1.5)
        ax.tick_params(which="minor", length=0)
        for side in ax.spines.values():
            side.set_visible(False)
        ax.set_title(f"{_title(game, rs)}\ngames solved in k guesses (X = failed); rows: agent · win % · mean",
                     fontsize=10, loc="right")
    fig.tight_layout()
    return _save(fig, path)


def plot_win_rate_curves(results: Sequence[EvaluationResult], path: str | os.PathLike[str]) -> Path:
    """Save a PNG of win rate against the number of allowed guesses ``m``, one line per result.

    The curve of :meth:`EvaluationResult.win_rate_at` (fraction solved within ``m`` guesses), as
    in the win-rate-versus-m figure of generalised_wordle_greedy_clique.txt; one panel per game.
    """
    plt = _pyplot()
    if not results:
        raise ValueError("plot_win_rate_curves needs at least one result")
    by_game: dict[str, list[EvaluationResult]] = {}
    for r in results:
        by_game.setdefault(_group(r), []).append(r)
    fig, axes = plt.subplots(1, len(by_game), figsize=(5.6 * len(by_game), 4.2), dpi=110, squeeze=False)
    for ax, (game, rs) in zip(axes[0], by_game.items()):
        limits = {r.max_attempts for r in rs}
        for r in rank(rs):
            curve = r.win_rate_curve()
            limit = f"{r.max_attempts} allowed: " if len(limits) > 1 else ""
            ax.plot([m for m, _ in curve], [100 * w for _, w in curve], marker="o", markersize=3,
                    linewidth=1.4, label=f"{r.label} ({limit}{_pct(r.win_rate)}%)")
        top = max(r.max_attempts for r in rs)
        ax.set_xlim(0.8, top + 0.2)
        ax.set_ylim(-2, 102)
        ax.set_xticks(range(1, top + 1) if top <= 12 else range(1, top + 1, max(1, top // 12)))
        ax.set_xlabel("allowed guesses m")
        ax.set_ylabel("games solved within m guesses (%)")
        ax.set_title(_title(game, rs), fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return _save(fig, path)


# ---- helpers -----------------------------------------------------------------------------------
def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and ``os.replace``, so
    a crash never leaves a truncated file behind."""
    with atomic_open(path, "w", encoding="utf-8") as f:
        f.write(text)


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError(
            "plotting needs matplotlib: pip install \"guessgym[plots]\" (or pip install matplotlib)"
        ) from exc
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: str | os.PathLike[str]) -> Path:
    """Save a figure atomically as PNG and close it."""
    import matplotlib.pyplot as plt

    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format="png")
    finally:
        plt.close(fig)
    return Path(path)


def _compact(dist: dict[int | str, int]) -> str:
    items = list(dist.items())
    start = 0
    while start < len(items) - 1 and items[start][1] == 0:
        start += 1
    return " ".join(f"{k}:{v}" for k, v in items[start:])


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.2f}"


def _num(x: float, digits: int) -> str:
    return "-" if math.isnan(x) else f"{x:.{digits}f}"


def _seconds(x: float) -> str:
    if math.isnan(x):
        return "-"
    return f"{x:.2f}" if x >= 10 else f"{x:.4f}"


def _json_safe(value: Any) -> Any:
    """Replace NaN by None (JSON has no NaN) and make keys strings."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


__all__ = [
    "EvaluationResult",
    "GameRecord",
    "atomic_write_text",
    "leaderboard",
    "plot_leaderboard",
    "plot_win_rate_curves",
    "rank",
]
