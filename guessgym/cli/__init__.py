"""The ``guessgym`` command line: thin wrappers over the library, one module per command family.

Subcommands::

    guessgym evaluate --env ID --agent NAME [...]   one agent on one game -> table, JSON, PNG
    guessgym compare [--quick]                       the main job: every baseline, Wordle + Nerdle
    guessgym analyze RESULT.json | --game '...'      every move judged against optimal play
    guessgym assist [--game wordle|nerdle ...]       a solver at your side for a real game
    guessgym play [--env ID]                         play in the terminal
    guessgym list                                    environments, agents, the main job
    guessgym train ...                               train a learned agent (training package)
    guessgym serve [--env ID]                        a chat game in OpenEnv's protocol
    guessgym opener WORD [--hard] [--list L]         a Wordle opener's exact total, rank and loss
    guessgym benchmark tiers|run|report              the RL benchmark (protocol, runs, rliable)

Modules: :mod:`~guessgym.cli.common` (what the commands share), :mod:`~guessgym.cli.evaluate`
(evaluate, compare), :mod:`~guessgym.cli.analyze` (analyze), :mod:`~guessgym.cli.games` (play, assist, export-prompts),
:mod:`~guessgym.cli.tree_commands` (tree, solve, worst-case), :mod:`~guessgym.cli.opener` (opener),
:mod:`~guessgym.cli.info` (list, pretrained, cache), :mod:`~guessgym.cli.train` (train; imported only when
asked for, as it imports torch).

Bad input (unknown environment or agent, malformed keyword arguments, unknown answers) prints one
line to stderr and exits with status 2; a run in which an agent crashed exits with 1.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..infra.deprecation import moved_names
from ..infra.optional import DependencyNotInstalled
from . import analyze, benchmark, demos, evaluate, games, info, opener, serve, tree_commands
from .common import PROG, OneLineParser, UsageError, agent_from_spec, parse_answers, parse_kwargs

#: The commands of :mod:`guessgym.cli.train`, whose parser is built only when one is asked for.
TRAINING_COMMANDS = ("train", "train-general")

#: The modules of commands, in the order their commands are listed.
COMMAND_MODULES = (evaluate, analyze, demos, games, tree_commands, opener, serve, benchmark, info)


def build_parser(with_training: bool = False) -> argparse.ArgumentParser:
    """The argument parser. ``with_training`` imports :mod:`guessgym.cli.train` (and the training
    package behind it) to add ``train``."""
    parser = OneLineParser(prog=PROG, description="Wordle and Nerdle as Gymnasium environments: "
                                     "evaluate and compare agents, get help with a real game, or play.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMAND_MODULES:
        module.register(sub)
    if with_training:
        try:
            module = importlib.import_module("guessgym.cli.train")
            module.register(sub)
            module.register_general(sub)
        except (ImportError, AttributeError) as exc:
            for name in TRAINING_COMMANDS:
                p = sub.add_parser(name, help="train a learned agent (unavailable)")
                p.set_defaults(func=_train_unavailable(str(exc)))
    else:
        for name in TRAINING_COMMANDS:
            p = sub.add_parser(name, help=f"train a learned agent ('guessgym {name} --help')", add_help=False)
            p.set_defaults(func=_train_unavailable("internal error: training parser not loaded"))
    return parser


def _train_unavailable(reason: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        raise UsageError(f"training is not available: {reason}")

    return run


def main(argv: Sequence[str] | None = None, *, stdin: Any = None, stdout: Any = None) -> int:
    """Run the command line; return the exit status (never raises SystemExit).

    ``stdin``/``stdout`` are used by the interactive commands (tests inject them); tables and
    messages go to ``sys.stdout``/``sys.stderr``.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    # guessgym.cli.train (and torch behind it) is imported only when the user asks for training.
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(with_training=command in TRAINING_COMMANDS)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed usage + message
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    args.stdin = stdin
    args.stdout = stdout
    args.argv = argv
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.func(args) or 0)
    except (UsageError, DependencyNotInstalled) as exc:
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        _tell(f"{PROG}: interrupted" + (f"; {exc}" if str(exc) else ""))
        return 130
    except BrokenPipeError:  # stdout closed early (piped into head): never a success
        _silence_stdout()
        _tell(f"{PROG} {args.command}: standard output was closed before everything was printed "
              "(results are always saved before they are printed)")
        return 1
    except MemoryError:
        _tell(f"{PROG} {args.command}: error: out of memory; use a smaller game, fewer games or fewer jobs")
        return 1
    except OSError as exc:  # e.g. stdout on a full device
        where = f" ({exc.filename})" if exc.filename else ""
        _tell(f"{PROG} {args.command}: error: {exc.strerror or exc}{where}")
        return 1


def _tell(message: str) -> None:
    """A line on stderr, if stderr can still be written."""
    try:
        print(message, file=sys.stderr, flush=True)
    except OSError:
        pass


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


__all__ = ["UsageError", "agent_from_spec", "build_parser", "main", "parse_answers", "parse_kwargs"]

#: ``make_agent`` here shared its name with :func:`guessgym.agents.registry.make_agent` (another signature).
__getattr__ = moved_names(__name__, {"make_agent": "guessgym.cli.common:agent_from_spec"})
