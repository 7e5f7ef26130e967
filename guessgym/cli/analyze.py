"""``guessgym analyze``: every move of finished games judged against optimal play
(:mod:`guessgym.evaluation.analysis`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .common import (
    UsageError,
    add_env_options,
    check_family,
    check_output_file,
    parse_kwargs,
    positive_seconds,
    progress_bar,
)

#: The default bound on the solving an analysis may do (seconds).
DEFAULT_TIME_BUDGET = 600.0


def cmd_analyze(args: argparse.Namespace) -> int:
    from ..agents.base import UnsupportedGameError
    from ..baselines.move_values import ValuesTimedOut
    from ..evaluation.analysis import Analysis, analyze, analyze_moves, check_analysable, parse_typed_game
    from ..infra.cache import cache_dir

    if (args.result is None) == (args.game is None):
        raise UsageError("give a result file (RESULT.json) or a game typed in (--env ID --game 'crane BBYBY ...'), "
                         "one of the two")
    out = Path(args.out) if args.out else None
    memo = None if args.no_memo else cache_dir()
    if out is not None:
        check_output_file(out, "--out", {"the result read": args.result})
    try:
        if args.result is not None:
            result = _read_evaluation(args.result)
            update, close = progress_bar("analysing") if not args.no_progress else (None, lambda: None)
            try:
                analysis = analyze(result, cache_dir=memo, progress=update, notice=_tell,
                                   time_budget=args.time_budget)
            finally:
                close()
        else:
            family = check_family("analyze", args.env)
            kwargs = parse_kwargs(args.env_kwargs, "--env-kwargs")
            game = family.resolve(args.env, kwargs).game
            check_analysable(game)
            from ..baselines.move_values import StateValues

            moves = parse_typed_game(game, args.game)
            analysis = Analysis(args.env, game.name, "typed in")
            values = StateValues(game, cache_dir=memo)
            values.set_budget(args.time_budget)
            analysis.games.append(analyze_moves(values, moves, notice=_tell))
            values.save()
    except ValuesTimedOut:
        _tell(f"error: the analysis did not finish within its time budget of {args.time_budget:g} s (optimal play "
              "had still to be solved from a state no shipped tree covers); give more with --time-budget SECONDS")
        return 1
    except (ValueError, UnsupportedGameError) as exc:
        raise UsageError(str(exc)) from None
    if out is not None:
        analysis.to_json(out)
    print(analysis.to_markdown() if args.result is not None else _moves_table(analysis))
    if out is not None:
        print(f"wrote {out}")
    return 0


def _read_evaluation(name: str) -> Any:
    """A result file, or a transcripts file (``.jsonl``, every game checked by playing it again)."""
    from ..evaluation.results import EvaluationResult
    from ..evaluation.transcripts import read_transcripts

    if name.endswith(".jsonl"):
        try:
            return read_transcripts(name)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    from ..evaluation.saved import check_saved_result

    try:
        result = EvaluationResult.from_json(name)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{name}: not a readable evaluation result ({exc})") from None
    try:
        check_saved_result(result, name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return result


def _tell(message: str) -> None:
    print(f"guessgym analyze: {message}", file=sys.stderr, flush=True)


def _moves_table(analysis: Any) -> str:
    from ..evaluation.analysis import NO_BOUND, TURN_LOST

    def span(low: float, high: float) -> str:
        return f"{low:.4f} to {'?' if high == NO_BOUND else f'{high:.4f}'}"

    game = analysis.games[0]
    lines = ["| # | guess | tiles | candidates | expected | best | loss | luck | best guess |",
             "|---:|---|---|---:|---:|---:|---:|---:|---|"]
    for m in game.moves:
        flags = (" (not a possible answer)" if not m.possible and not m.forfeit else "") + (
            " (breaks hard mode)" if m.hard_mode_violation else "")
        if m.bounded:
            figures = (f"{span(m.expected, m.expected_high)} | {span(m.best_low, m.best)} | "
                       f"{span(m.loss, m.loss_high)} | - | {m.best_guess or '?'} (best found)")
        else:
            figures = f"{m.expected:.4f} | {m.best:.4f} | {m.loss:.4f} | {m.luck:+.4f} | {m.best_guess}"
        lines.append(f"| {m.number} | {m.guess or TURN_LOST}{flags} | {m.tiles} | {m.candidates:,} | {figures} |")
    bounded = [m for m in game.moves if m.bounded]
    if bounded:
        lines.append(f"\n{len(bounded)} of {len(game.moves)} moves judged by bounds, not exactly: the time budget "
                     "ran out (--time-budget SECONDS gives more); 'a to b' is a proven interval, the best guess "
                     "that of the best tree found.")
        exact = [m for m in game.moves if not m.bounded]
        if exact:
            lines.append(f"loss of the exact moves {sum(m.loss for m in exact):.4f}, luck "
                         f"{sum(m.luck for m in exact):+.4f}" + ("" if game.solved else "; not solved"))
    else:
        lines.append(f"\nloss {game.loss:.4f}, luck {game.luck:+.4f}" + ("" if game.solved else
                     f"; not solved: {game.left_after:.4f} guesses expected still"))
    return "\n".join(lines)


def cmd_report(args: argparse.Namespace) -> int:
    from ..evaluation.analysis import load_analysis
    from ..evaluation.transcripts import Transcripts
    from ..evaluation.viewer import write_viewer

    out = Path(args.html)
    inputs: dict[str, str | os.PathLike[str] | None] = {}
    for name in args.results:
        inputs[f"a result read ({name})"] = name
        for beside in _analysis_files(name):
            inputs[f"the analysis beside {name}"] = beside
    check_output_file(out, "--html", inputs)
    results, analyses, turns = [], {}, {}
    for i, name in enumerate(args.results):
        read = _read_evaluation(name)
        if isinstance(read, Transcripts):
            results.append(read.result)
            turns[i] = read.turns
        else:
            results.append(read)
        found = next((p for p in _analysis_files(name) if p.is_file()), None)
        if found is not None:
            try:
                analyses[i] = load_analysis(found)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            if analyses[i].game != results[-1].game or {g.answer for g in analyses[i].games} - {
                    r.answer for r in results[-1].records}:
                raise UsageError(f"{found}: the move analysis beside {name} is of other games ({analyses[i].game}); "
                                 "analyse the result again (guessgym analyze RESULT --out ...)")
    write_viewer(results, out, analyses=analyses, turns=turns, title=args.title)
    print(f"wrote {out} ({len(results)} results, {len(analyses)} with their move analysis)")
    return 0


def _analysis_files(name: str) -> list[Path]:
    """Where the move analysis of the result ``name`` may lie beside it (what ``report`` reads)."""
    stem = Path(name).with_suffix("")
    return [stem.with_name(stem.name + suffix) for suffix in (".analysis.json.gz", ".analysis.json")]


def register(sub: Any) -> None:
    """Add this module's commands to the subparsers ``sub``."""
    p = sub.add_parser(
        "analyze", help="judge every move of finished games against optimal play",
        description="For every move: the candidates left, the expected guesses to finish with optimal play after "
                    "this guess and after the best one, their difference (the loss) and the luck of the tiles. "
                    "Give a result saved with its guesses (guessgym evaluate --guesses --out DIR), a text agent's "
                    "transcripts file (guessgym evaluate --transcripts), or a game typed in as guesses each "
                    "followed by its tiles.",
    )
    p.add_argument("result", nargs="?", metavar="RESULT.json|TRANSCRIPTS.jsonl",
                   help="an evaluation result holding its games' guesses, or a text agent's transcripts file (its "
                        "forfeited turns judged too)")
    add_env_options(p, env_help="with --game: the environment id (default: %(default)s)")
    p.add_argument("--game", help="a game typed in: guesses each followed by its tiles, e.g. 'crane BBYBY salet GGGGG'")
    p.add_argument("--out", help="write the analysis as JSON to this file")
    p.add_argument("--no-memo", action="store_true",
                   help="keep solved states in memory only (by default they are kept in the cache folder, shared "
                        "with guessgym solve, so an opener is solved once)")
    p.add_argument("--time-budget", type=positive_seconds, default=DEFAULT_TIME_BUDGET, metavar="SECONDS",
                   help="stop, saying so, if solving the optimal play takes longer than this (default: %(default)s s; "
                        "a weak opener or an unusual attempt limit needs the whole game solved)")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=cmd_analyze)
    p = sub.add_parser(
        "report", help="a game viewer of results: one self-contained HTML file",
        description="Write one HTML file (no network, no server) with the leaderboard, each agent's distribution and "
                    "every game's board, filterable, sortable and comparable side by side; each move's loss and luck "
                    "where an <result>.analysis.json.gz lies beside the result (guessgym compare writes them).",
    )
    p.add_argument("results", nargs="+", metavar="RESULT.json|TRANSCRIPTS.jsonl",
                   help="evaluation results (with --guesses for boards), or text agents' transcripts files (their "
                        "refused replies marked on the boards)")
    p.add_argument("--html", required=True, help="the HTML file to write")
    p.add_argument("--title", default="guessgym results", help="the page's title")
    p.set_defaults(func=cmd_report)
