"""The commands that play a game with a person: ``play``, ``assist`` (a solver at your side for a real
game) and ``export-prompts`` (a chat game's first turns for fine-tuning).
"""

from __future__ import annotations

import argparse
from typing import Any

from ..envs.wordlists import PRESETS as WORD_LIST_PRESETS
from .common import (
    UsageError,
    add_env_options,
    add_seed_option,
    agent_from_spec,
    check_env_id,
    check_family,
    parse_kwargs,
    positive_seconds,
    whole_number,
)


def assist_game(args: argparse.Namespace) -> Any:
    """The game described by ``assist``'s options."""
    from ..envs.game import make_game

    name = args.game.lower()
    nerdle_lengths = {"micro-nerdle": 5, "mini-nerdle": 6, "midi-nerdle": 7, "nerdle": 8}
    overrides: dict[str, Any] = {}
    if args.length is not None:
        overrides["length"] = args.length
    if args.hard:
        overrides["hard_mode"] = True
    try:
        if name.startswith("guessgym/"):
            check_env_id(args.game)
            return make_game(args.game, **overrides)
        if name == "wordle":
            return make_game(kind="wordle", word_list=args.word_list, **overrides)
        if name in nerdle_lengths:
            overrides.setdefault("length", nerdle_lengths[name])
            return make_game(kind="nerdle", guesses=args.nerdle_guesses, **overrides)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    raise UsageError(f"unknown game {args.game!r}; choose wordle, nerdle, midi-nerdle, mini-nerdle, micro-nerdle "
                     "or a guessgym environment id")


def cmd_assist(args: argparse.Namespace) -> int:
    from guessgym.assist import AssistError, run_assist

    game = assist_game(args)
    kwargs = parse_kwargs(args.solver_kwargs, "solver-kwargs")

    def make_solver(name: str) -> Any:
        try:
            return agent_from_spec(name, kwargs if name == args.solver else {})
        except UsageError as exc:
            raise AssistError(str(exc)) from None

    try:
        return run_assist(game, make_solver, args.solver, stdin=args.stdin, stdout=args.stdout, judge=args.judge,
                          judge_budget=args.judge_budget)
    except AssistError as exc:  # only the first solver can fail this way; later ones are reported inline
        raise UsageError(str(exc)) from None


def cmd_play(args: argparse.Namespace) -> int:
    from guessgym.play import run_play

    check_family("play", args.env)
    env_kwargs = parse_kwargs(args.env_kwargs, "env-kwargs")
    color = None if args.color == "auto" else args.color == "always"
    try:
        return run_play(args.env, seed=args.seed, answer=args.answer, env_kwargs=env_kwargs, color=color,
                        hints=args.hints, stdin=args.stdin, stdout=args.stdout)
    except BrokenPipeError:
        raise
    except (ValueError, TypeError, OSError) as exc:
        raise UsageError(str(exc)) from None


def cmd_export_prompts(args: argparse.Namespace) -> int:
    from ..envs.chat.export import export_prompts

    check_env_id(args.env)
    env_kwargs = parse_kwargs(args.env_kwargs, "env-kwargs")
    try:
        summary = export_prompts(args.env, args.out, args.answers_out, env_kwargs=env_kwargs, games=args.games,
                                 seed=args.seed)
    except (ValueError, TypeError, OSError) as exc:
        raise UsageError(str(exc)) from None
    print(f"wrote {summary['games']:,} first-turn prompts of {summary['game']} to {summary['prompts']} "
          f"and their answers, apart, to {summary['answers']}")
    return 0


def register(sub: Any) -> None:
    """Add this module's commands to the subparsers ``sub``."""
    p = sub.add_parser("assist", help="a solver at your side for a real game",
                       description="Proposes guesses; type the tiles the game showed (G/Y/B, */+/_, 2/1/0, "
                                   "P for purple). Commands: undo, guess WORD, list, solver NAME, help, quit.")
    p.add_argument("--game", default="wordle",
                   help="wordle (default), nerdle, midi-nerdle, mini-nerdle, micro-nerdle, or an environment id")
    p.add_argument("--length", type=int, help="word/equation length (Wordle 3-9, Nerdle 5-8)")
    p.add_argument("--hard", action="store_true", help="hard mode")
    p.add_argument("--word-list", choices=list(WORD_LIST_PRESETS), help="Wordle word list")
    p.add_argument("--nerdle-guesses", choices=["answers", "all"], default="answers",
                   help="Nerdle guess vocabulary (all: every valid equation)")
    p.add_argument("--solver", default="least-worst", help="solver name (default: %(default)s)")
    p.add_argument("--solver-kwargs", nargs="+", metavar="KV")
    p.add_argument("--judge", action="store_true",
                   help="after each move, say how it compares with optimal play (exact: its loss in expected "
                        "guesses, the best guess, the luck; an opener's tree is solved once, in seconds)")
    p.add_argument("--judge-budget", type=positive_seconds, default=120.0, metavar="SECONDS",
                   help="--judge: the most seconds spent solving optimal play for one move; past it the move is "
                        "left unjudged, saying so (default: %(default)s)")
    p.set_defaults(func=cmd_assist)
    p = sub.add_parser(
        "export-prompts", help="first-turn prompts of a chat game as JSONL, answers apart",
        description="Write the first-turn messages (system and user) of chat games as JSON lines, one game per "
                    "line with a random id, and the answers to a separate file keyed by the same ids, for "
                    "supervised or RL fine-tuning of language models.",
    )
    add_env_options(p, "guessgym/WordleChat-v0", "chat environment id (default: %(default)s)")
    p.add_argument("--games", type=whole_number(1), default=None,
                   help="number of distinct answers (default: every answer)")
    add_seed_option(p, "seed of the order and the ids (default: %(default)s)")
    p.add_argument("--out", required=True, help="the prompts file (JSON lines)")
    p.add_argument("--answers-out", required=True, help="the answers file (JSON lines; keep it from the model)")
    p.set_defaults(func=cmd_export_prompts)
    p = sub.add_parser(
        "play", help="play in the terminal",
        description="Play Wordle or Nerdle in the terminal against a hidden answer, through the environment "
                    "itself: type a guess, see its tiles (coloured when the terminal allows). 'quit' ends the game.",
    )
    add_env_options(p, kwargs_help="environment arguments, e.g. hard_mode=True")
    add_seed_option(p, "seed of the hidden answer", default=None)
    p.add_argument("--answer", help="fix the hidden answer (for practice or a friend)")
    p.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                   help="coloured tiles: auto (when writing to a terminal, default), always or never")
    p.add_argument("--hints", action="store_true", help="show how many answers remain after each guess")
    p.set_defaults(func=cmd_play)
