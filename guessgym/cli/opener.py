"""``guessgym opener WORD``: how good a Wordle opener is, exactly (:mod:`guessgym.baselines.opener_lookup`).

From the shipped opener table at once where it has the opener's exact total; otherwise the opener's
tree is solved with a progress bar (the solved sets kept in the cache folder, so a second ask is
quick), or bounded once ``--time-budget`` runs out.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from .common import UsageError, positive_seconds, progress_bar


def cmd_opener(args: argparse.Namespace) -> int:
    from ..baselines.opener_lookup import opener_report
    from ..envs.game import make_game
    from ..infra.cache import cache_dir

    try:
        game = make_game("guessgym/Wordle-v1", word_list=args.list, hard_mode=args.hard)
    except ValueError as exc:
        raise UsageError(f"--list {args.list}: {exc}") from None
    update, close = progress_bar("answers")
    try:
        report = opener_report(game, args.word, time_budget=args.time_budget, progress=update,
                               cache_dir=None if args.no_memo else cache_dir())
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    finally:
        close()
    print(json.dumps(report.to_dict(), indent=1) if args.json else "\n".join(report.lines()))
    return 0


def register(sub: Any) -> None:
    """Add this module's command to the subparsers ``sub``."""
    from ..envs.wordlists import PRESETS

    p = sub.add_parser(
        "opener", help="a Wordle opener's exact total, mean, rank and loss against the best",
        description="How good a Wordle opener is: the fewest guesses summed over every answer when the game opens "
                    "with WORD and is played optimally after, its mean, its rank among every opener and its loss "
                    "against the best. Read from the shipped opener table at once; an opener the table has not "
                    "solved exactly is solved now (the solved sets are kept in the cache folder), or bounded "
                    "within --time-budget.",
    )
    p.add_argument("word", help="the opener, e.g. crane")
    p.add_argument("--hard", action="store_true", help="hard mode (revealed hints must be used)")
    p.add_argument("--list", default="nyt", choices=[w for w in PRESETS if w != "english"],
                   help="the word lists (default: %(default)s; the opener tables ship for nyt)")
    p.add_argument("--time-budget", type=positive_seconds, metavar="S",
                   help="solve for at most S seconds, then give the proven interval")
    p.add_argument("--no-memo", action="store_true", help="keep solved sets in memory only (not in the cache)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_opener)


__all__ = ["cmd_opener", "register"]
