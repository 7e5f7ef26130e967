"""A game viewer: one self-contained HTML file of evaluation results, to look at instead of read.

:func:`write_viewer` writes the leaderboard, each agent's distribution, and every game's board
drawn with coloured tiles; games can be filtered (by answer, by number of guesses, failures),
sorted (by answer, guesses, loss) and compared side by side between two agents on the same answer.
With a move analysis (:mod:`guessgym.evaluation.analysis`) each row of a board shows its loss and
luck, and a chart the agent's loss by move number. A text agent's refused replies (from its
transcripts file) are rows of their own, marked. The file holds its data and a small vanilla
script: no network, no server, nothing to install; rows are drawn a page at a time, so the 17,723
games of classic Nerdle stay responsive.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from ..envs.game import Game
from ..envs.scoring import pattern_to_tiles
from ..infra.atomic import atomic_write_text
from .analysis import Analysis, game_of_result
from .conduct import saved_conduct_line, scorer
from .report import gap_text
from .results import EvaluationResult
from .transcripts import Turn

#: The longest refused reply shown whole on a board (longer ones are cut).
REPLY_CHARS = 160


def viewer_data(results: Sequence[EvaluationResult], analyses: Mapping[int, Analysis] | None = None,
                turns: Mapping[int, Sequence[Sequence[Turn]]] | None = None) -> dict[str, Any]:
    """What the page shows, as JSON-ready data: per result its figures and, when the result holds
    its games' guesses, every game's rows (guess and tiles), with each move's loss and luck when
    ``analyses[i]`` (by the result's position) judged them, and its loss by move number. A text
    agent's ``turns[i]`` (:class:`~guessgym.evaluation.transcripts.Transcripts`) add its refused
    replies as rows of their own, marked with why they were refused and whether they cost a turn."""
    agents = []
    games_cache: dict[str, Game] = {}
    for i, result in enumerate(results):
        summary = result.summary()
        entry: dict[str, Any] = {
            "label": result.label, "env": result.env_id or "", "game": result.game,
            "games": result.n_games, "win_rate": result.win_rate, "mean": result.mean_guesses,
            "gap": gap_text(result), "max_attempts": result.max_attempts,
            "distribution": {str(k): v for k, v in summary["distribution"].items()},
            "analysis": None, "loss_by_move": None, "records": [],
            "conduct": saved_conduct_line(result.meta),
        }
        game = _game(result, games_cache)
        analysis = (analyses or {}).get(i)
        judged = {g.answer: g for g in analysis.games} if analysis is not None else {}
        if analysis is not None:
            brief = analysis.summary(mistakes=0)
            # the exact moves' mean is not the agent's when some moves were judged by bounds
            entry["analysis"] = None if brief["bounded_moves"] else brief["mean_loss_per_game"]
            entry["loss_by_move"] = {str(n): round(v, 4) for n, v in brief["loss_by_move"].items()}
        elif isinstance(result.meta.get("analysis"), dict):
            entry["analysis"] = result.meta["analysis"].get("mean_loss_per_game")
        replies = (turns or {}).get(i)
        if game is not None:
            entry["kind"] = game.kind
            score = scorer(game)
            for n, record in enumerate(result.records):
                if record.played is None:
                    continue
                moves = judged.get(record.answer)
                if replies is not None:
                    rows = _turn_rows(replies[n])
                elif moves is not None and [m.guess for m in moves.moves] == list(record.played):
                    rows = [[m.guess, m.tiles] for m in moves.moves]  # the analysis holds each move's tiles
                else:
                    rows = [[guess, pattern_to_tiles(score(guess, record.answer), game.length)]
                            for guess in record.played]
                if moves is not None:
                    for row, move in zip((r for r in rows if len(r) == 2 or r[5]), moves.moves):
                        # a move judged by bounds (the time budget ran out) shows its loss's interval
                        row[2:4] = ([round(move.loss, 4), round(move.loss_high, 4)], None) if move.bounded else \
                            [round(move.loss, 4), round(move.luck, 4)]
                exact = moves is not None and not any(m.bounded for m in moves.moves)
                entry["records"].append([record.answer, record.guesses, int(record.solved),
                                         round(moves.loss, 4) if moves is not None and exact else None, rows])
        agents.append(entry)
    return {"agents": agents}


def _turn_rows(turns: Sequence[Turn]) -> list[list[Any]]:
    """A chat game's rows: ``[guess, tiles]`` for a valid reply, ``[reply, "", None, None, why,
    cost a turn]`` for a refused one (its text cut to :data:`REPLY_CHARS`)."""
    rows: list[list[Any]] = []
    for turn in turns:
        if turn.guess:
            rows.append([turn.guess, turn.tiles])
        else:
            text = turn.reply if len(turn.reply) <= REPLY_CHARS else turn.reply[: REPLY_CHARS - 1] + "…"
            rows.append([text, "", None, None, turn.invalid or "invalid", int(turn.forfeit)])
    return rows


def _game(result: EvaluationResult, cache: dict[str, Game]) -> Game | None:
    """The result's game (one per id and arguments), or None for a kind without one answer per game."""
    key = json.dumps([result.env_id, result.meta.get("env_kwargs"), result.max_attempts], sort_keys=True, default=str)
    if key not in cache:
        try:
            cache[key] = game_of_result(result)
        except (ValueError, TypeError):
            return None
    return cache[key]


def script_json(value: Any) -> str:
    """``value`` as JSON that can sit inside an HTML ``<script>`` element and never end it or
    change how the page is parsed: ``<``, ``>`` and ``&`` (so no ``</script>``, ``<!--`` or
    ``<script``) and the line separators U+2028/U+2029 are written as ``\\u`` escapes, which
    ``JSON.parse`` reads back as the same characters. A number that is not finite (NaN, an
    agent with no win) becomes ``null``, which the page draws as "-" (JSON has no NaN)."""
    try:  # the usual case, every number finite: no copy of the data
        text = json.dumps(value, separators=(",", ":"), allow_nan=False)
    except ValueError:
        text = json.dumps(_finite(value), separators=(",", ":"), allow_nan=False)
    return text.translate(_SCRIPT_ESCAPES)


_SCRIPT_ESCAPES = {ord(c): f"\\u{ord(c):04x}" for c in "<>&\u2028\u2029"}


def _finite(value: Any) -> Any:
    """``value`` with every float that is not finite replaced by None, at any depth."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


#: The page template's placeholders, filled in one pass (so a value never fills another's).
_PLACEHOLDER = re.compile(r"\{\{(title|style|script|data)\}\}")


def render_page(title: str, data: Any) -> str:
    """The viewer's page: the template with the title as escaped HTML text and ``data`` as
    :func:`script_json`. Every placeholder is filled in one pass over the template, so text in
    the title or the data that looks like a placeholder stays text."""
    folder = resources.files("guessgym.evaluation") / "viewer_assets"
    template = (folder / "viewer.html").read_text(encoding="utf-8")
    values = {"title": html.escape(title, quote=True), "data": script_json(data),
              "style": (folder / "viewer.css").read_text(encoding="utf-8"),
              "script": (folder / "viewer.js").read_text(encoding="utf-8")}
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def write_viewer(results: Sequence[EvaluationResult], path: str | os.PathLike[str], *,
                 analyses: Mapping[int, Analysis] | None = None,
                 turns: Mapping[int, Sequence[Sequence[Turn]]] | None = None,
                 title: str = "guessgym results") -> Path:
    """Write the viewer of ``results`` (see :func:`viewer_data`) to ``path`` (atomically) and return
    the path. Any text in the results (labels, replies, answers) and the title reach the page only as
    escaped text or as :func:`script_json` (the promise of the safety page)."""
    page = render_page(title, viewer_data(results, analyses, turns))
    out = Path(path)
    atomic_write_text(out, page)
    return out


__all__ = ["REPLY_CHARS", "render_page", "script_json", "viewer_data", "write_viewer"]
