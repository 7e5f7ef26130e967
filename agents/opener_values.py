"""Every opener's value, shipped: judge the first move of any game at once.

``envs/data/openers/<name>.json.gz`` holds, for each guess of a game, what
``scripts/opener_table.py`` proved about the trees that open with it
(:mod:`guessgym.baselines.opener_table`): a lower bound and the total of a tree it found, equal
where the opener was solved exactly (0 and 0 for a guess the table has not reached). The move
analysis reads it for the first move, so the value of any opener there is known without solving
its tree; :func:`page_markdown` writes the published page ("how good is your opener").
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from ..envs.game import Game
from .optima import known_optimum

#: Largest table file read (a table of 15,000 guesses is about 60 KiB).
MAX_TABLE_BYTES = 8 * 2**20


@dataclass(frozen=True)
class OpenerInterval:
    """What is proven about one opener: every tree opening with it totals at least ``lower``, and
    one totals ``upper`` (equal: the opener's exact total)."""

    opener: str
    lower: int
    upper: int
    fits: bool = True

    @property
    def exact(self) -> bool:
        return self.lower == self.upper


@dataclass(frozen=True)
class OpenerValues:
    """A game's shipped table: ``lower`` and ``upper`` per guess index (0 where not computed)."""

    game: str
    fingerprint: str
    hard_mode: bool
    max_attempts: int
    lower: np.ndarray
    upper: np.ndarray
    unfit: frozenset[int]
    command: str

    def matches(self, game: Game) -> bool:
        return (game.fingerprint, game.hard_mode, game.max_attempts, len(game.guesses)) == (
            self.fingerprint, self.hard_mode, self.max_attempts, self.lower.size)

    def interval(self, game: Game, guess: int) -> OpenerInterval | None:
        """The opener's interval, or ``None`` where the table has not reached it."""
        if self.upper[guess] == 0:
            return None
        return OpenerInterval(game.guesses[guess], int(self.lower[guess]), int(self.upper[guess]),
                              guess not in self.unfit)

    @property
    def always_wins(self) -> np.ndarray:
        """Per guess: computed, and a tree opening with it wins every answer within the attempts
        (the openers that are ranked; a new array each time)."""
        mask = self.upper > 0
        mask[list(self.unfit)] = False
        return mask

    @property
    def computed(self) -> int:
        return int(np.count_nonzero(self.upper))

    @property
    def exact(self) -> int:
        return int(np.count_nonzero((self.upper > 0) & (self.lower == self.upper)))


def _folder() -> Any:
    return resources.files("guessgym.envs") / "data" / "openers"


def parse_table(blob: bytes, where: str) -> OpenerValues:
    """A table file's content, checked (a damaged or foreign file is refused naming ``where``)."""
    from ..infra.inputs import gunzip

    try:
        data = json.loads(gunzip(blob, where, max_bytes=MAX_TABLE_BYTES))
    except RecursionError:
        raise ValueError(f"{where}: not a gzip'd JSON opener table (nested too deep)") from None
    except ValueError as exc:
        raise ValueError(f"{where}: not a gzip'd JSON opener table ({str(exc).removeprefix(where + ': ')})") from None
    if not isinstance(data, dict) or data.get("format") != 1:
        raise ValueError(f"{where}: not an opener table of format 1")
    try:
        lower, upper = (np.asarray(data.get(k), dtype=np.int64) for k in ("lower", "upper"))
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{where}: lower and upper must be lists of whole numbers") from None
    if lower.ndim != 1 or lower.shape != upper.shape or lower.size != data.get("guesses"):
        raise ValueError(f"{where}: lower and upper must be lists of one number per guess")
    if np.any(lower < 0) or np.any(lower > upper) or np.any((upper == 0) != (lower == 0)):
        raise ValueError(f"{where}: every interval must have 0 <= lower <= upper (0 and 0: not computed)")
    unfit = data.get("unfit", [])
    if not isinstance(unfit, list) or not all(type(g) is int and 0 <= g < lower.size for g in unfit):
        raise ValueError(f"{where}: unfit must be a list of guess indices")
    try:
        return OpenerValues(str(data["game"]), str(data["fingerprint"]), bool(data["hard_mode"]),
                            int(data["max_attempts"]), lower, upper, frozenset(unfit), str(data.get("command", "")))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{where}: a field of the table is missing or malformed ({exc})") from None


@cache
def shipped_tables() -> tuple[OpenerValues, ...]:
    """Every shipped table (none if the folder is missing)."""
    folder = _folder()
    if not folder.is_dir():
        return ()
    return tuple(parse_table(f.read_bytes(), f.name) for f in sorted(folder.iterdir(), key=lambda f: f.name)
                 if f.name.endswith(".json.gz"))


def opener_values(game: Game) -> OpenerValues | None:
    """The shipped table of ``game`` (same lists, mode and attempt limit), if there is one."""
    return next((t for t in shipped_tables() if t.matches(game)), None)


def opener_interval(game: Game, guess: int) -> OpenerInterval | None:
    """What the shipped table proves about opening ``game`` with guess index ``guess``."""
    table = opener_values(game)
    return None if table is None else table.interval(game, guess)


def _ranking(game: Game, table: OpenerValues, fits: bool = True) -> list[tuple[int, int, int]]:
    """``(upper, lower, guess)`` of every computed opener that always wins within the attempts
    (``fits=False``: of those that cannot), best first."""
    chosen = table.always_wins if fits else (table.upper > 0) & ~table.always_wins
    return sorted((int(table.upper[g]), int(table.lower[g]), int(g)) for g in np.flatnonzero(chosen))


def certain_count(intervals: Iterable[tuple[int, int]]) -> int:
    """How many of the best openers are ranked for certain, given each opener's ``(upper, lower)``:
    the longest run of exact totals, best first, each at most every unsolved opener's lower bound."""
    rows = sorted(intervals)
    floor = min((lo for up, lo in rows if lo != up), default=None)
    count = 0
    for up, lo in rows:
        if lo != up or (floor is not None and floor < up):
            break
        count += 1
    return count


def _figures(lower: int, upper: int, answers: int, best: int | None) -> tuple[str, str, str]:
    """An opener's total, mean and loss per game against ``best``, as the page shows them: exact
    figures, or the interval's ends."""
    if lower == upper:
        return f"{upper:,}", f"{upper / answers:.4f}", "" if best is None else f"{(upper - best) / answers:.4f}"
    loss = "" if best is None else f"{(lower - best) / answers:.3f} to {(upper - best) / answers:.3f}"
    return f"{lower:,} to {upper:,}", f"{lower / answers:.3f} to {upper / answers:.3f}", loss


#: The picture of every opener's value (drawn by ``scripts/opener_table.py page``), from docs/.
PICTURE = "_static/openers-values.png"


def table_data(games: list[Game]) -> list[dict[str, Any]]:
    """Every computed opener of each game with a shipped table, for the full table's page: per game
    its name, mode, answers, optimum and rows ``[rank, opener, lower, upper]``, the openers that
    always win first, best first (``rank`` a number where certain, ``"(n)"`` where provisional),
    then those that cannot (``rank`` ``"†"``)."""
    out = []
    for game in games:
        table = opener_values(game)
        if table is None:
            continue
        optimum = known_optimum(game)
        rows = _ranking(game, table)
        certain = certain_count((up, lo) for up, lo, _ in rows)
        data: list[list[Any]] = [[str(rank) if rank <= certain else f"({rank})", game.guesses[g], lo, up]
                                 for rank, (up, lo, g) in enumerate(rows, start=1)]
        data += [["†", game.guesses[g], lo, up] for up, lo, g in _ranking(game, table, fits=False)]
        out.append({"game": game.name, "mode": "hard mode" if game.hard_mode else "normal mode",
                    "answers": len(game.answers), "guesses": len(game.guesses),
                    "best": optimum.total if optimum is not None and optimum.proven else None, "rows": data})
    return out


def page_markdown(games: list[Game], top: int = 100) -> str:
    """The published page: for each game with a shipped table, its coverage, the best ``top``
    openers (rank, total, mean, loss against the optimum) and where some well-known openers stand."""
    lines = ["# How good is your opener?", "",
             "Every Wordle opener on the nyt lists (2,309 answers, 12,947 guesses), in normal and hard mode: the",
             "fewest guesses summed over every answer when the game opens with it and is played optimally after",
             "(the *total*; the *mean* is the total over 2,309, the *loss* the extra guesses per game against the",
             "optimum). Exact totals are the exact solver's; for openers not solved yet the table gives a proven",
             "interval (a lower bound from the proofs' machinery, the total of a greedy tree above). Computed by",
             "`python scripts/opener_table.py run normal` and `... run hard` (resumable: the same command goes on",
             "where the last run stopped; `--backend process --jobs N` on N cores, `--backend ray --address",
             "HOST:PORT` on a Ray cluster), shipped by `python scripts/opener_table.py ship`, this page by",
             "`python scripts/opener_table.py page`. `guessgym analyze` and `guessgym assist --judge` read the",
             "shipped table to judge a first move at once, and `guessgym opener WORD [--hard]` gives any opener's",
             "total, mean, rank and loss: from the table at once, else solved on the spot (or bounded within",
             "`--time-budget`).", "",
             "In hard mode many openers *cannot always win within six guesses*: TRACE's tiles YBYGB leave",
             "batch, catch, hatch, latch, match, patch and watch, and hard mode only lets each guess try one",
             "of them, seven answers for five guesses. Such an opener's value counts the games it cannot",
             "win in time as played on without the limit, as the move analysis does; it is marked † and not",
             "ranked among the openers that always win.", "",
             "Every opener of both tables, searchable: [the full table](../envs/data/openers) (a page of the",
             "site; read in the repository, the link is the shipped data the site draws it from, gzipped JSON).",
             "How the openers' values spread (`python scripts/opener_table.py page` draws it from the shipped",
             "tables):", "",
             f"![Every opener's mean guesses, normal and hard mode]({PICTURE})", ""]
    for game in games:
        table = opener_values(game)
        if table is None:
            continue
        optimum = known_optimum(game)
        best = optimum.total if optimum is not None else None
        rows = _ranking(game, table)
        unfit = len(table.unfit)
        certain = certain_count((up, lo) for up, lo, _ in rows)
        n = len(game.answers)
        mode = "hard mode" if game.hard_mode else "normal mode"
        lines += [f"## {game.name}, {mode}", "",
                  f"Coverage: {table.computed:,} openers with an interval, {table.exact:,} solved exactly; the best "
                  f"{certain:,} are ranked for certain (each exact, and no other opener's lower bound is below it)."
                  + (f" Optimum: {best:,} ({optimum.opener})." if optimum is not None and best is not None else "")
                  + " A rank in parentheses is provisional."
                  + (f" {unfit:,} openers cannot always win within {game.max_attempts} guesses: they are not ranked "
                     "here (the full table lists them apart, marked †)." if unfit else ""),
                  "", "| rank | opener | total | mean | loss per game |", "|---:|---|---:|---:|---:|"]
        for rank, (up, lo, g) in enumerate(rows[:top], start=1):
            shown, mean, loss = _figures(lo, up, n, best)
            place = f"{rank}" if rank <= certain else f"({rank})"
            lines.append(f"| {place} | {game.guesses[g]} | {shown} | {mean} | {loss} |")
        famous = [w for w in ("crane", "slate", "adieu", "audio", "raise", "arise", "stare", "roate", "soare",
                              "fuzzy") if w in game.guess_index]
        lines += ["", "Some openers people use:", "", "| opener | total | mean | loss per game |",
                  "|---|---:|---:|---:|"]
        for word in famous:
            interval = table.interval(game, game.guess_index[word])
            if interval is None:
                lines.append(f"| {word} | not computed yet | | |")
                continue
            shown, mean, loss = _figures(interval.lower, interval.upper, n, best)
            mark, loss = ("", loss) if interval.fits else ("†", "")
            lines.append(f"| {word}{mark} | {shown} | {mean} | {loss} |")
        lines.append("")
    return "\n".join(lines)


__all__ = ["PICTURE", "OpenerInterval", "OpenerValues", "certain_count", "opener_interval", "opener_values",
           "page_markdown", "parse_table", "shipped_tables", "table_data"]
