"""``guessgym export-demos``: expert demonstrations as training data (:mod:`guessgym.training.demos`)."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .common import (
    PROG,
    UsageError,
    add_env_options,
    add_seed_option,
    check_family,
    check_output_dir,
    parse_kwargs,
    progress_bar,
    whole_number,
)

#: The share of the answers in the train file unless ``--split`` says otherwise.
DEFAULT_SPLIT = 0.9


def cmd_export_demos(args: argparse.Namespace) -> int:
    from ..infra.cache import cache_dir
    from ..training.demos import export_demos

    check_family("export-demos", args.env)
    out = Path(args.out)
    check_output_dir(out, "--out")
    if args.format == "minari":
        return _export_minari(args, out)
    if not 0 < args.split <= 1:
        raise UsageError(f"--split must be a fraction in (0, 1], the share of answers for training; got {args.split}")
    manifest = _exporting(args, lambda progress: export_demos(
        args.env, out, env_kwargs=parse_kwargs(args.env_kwargs, "--env-kwargs"), agent=args.agent,
        agent_kwargs=parse_kwargs(args.agent_kwargs, "--agent-kwargs"), games=args.games, split=args.split,
        seed=args.seed, fmt=args.format, rationale_style=args.rationale, policy=args.policy,
        cache_dir=cache_dir(), command=_command(args), progress=progress, datasets=args.datasets))
    counts = manifest["counts"]
    print(f"{manifest['game']}: {counts['train']['games']:,} train and {counts['test']['games']:,} test games by "
          f"{manifest['agent']} ({manifest['conversation_format']}, rationale {manifest['rationale']}), "
          f"mean {manifest['mean_guesses']['train']} guesses; wrote {', '.join(manifest['files'])} and manifest.json "
          f"to {out}/" + (" and a datasets folder" if args.datasets else ""))
    return 0


def _exporting(args: argparse.Namespace, export: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """``export(progress)`` under a progress bar (unless ``--no-progress``); a bad option or game is
    a one-line :class:`UsageError`."""
    from ..agents.base import UnsupportedGameError

    update, close = progress_bar(f"{args.agent} on {args.env.split('/')[-1]}") if not args.no_progress else (
        None, lambda: None)
    try:
        return export(update or False)
    except (ValueError, TypeError, KeyError, UnsupportedGameError) as exc:
        raise UsageError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
    finally:
        close()


def _command(args: argparse.Namespace) -> str:
    """The command line, for a manifest or a description."""
    return " ".join([PROG, *map(shlex.quote, args.argv)])


def _export_minari(args: argparse.Namespace, out: Path) -> int:
    """``--format minari``: a Minari dataset of the array game (:mod:`guessgym.training.minari_demos`)."""
    from ..training.minari_demos import export_minari

    given = {"--rationale": args.rationale != "none", "--policy": args.policy, "--datasets": args.datasets,
             "--split": args.split != DEFAULT_SPLIT}
    unused = [name for name, used in given.items() if used]
    if unused:
        raise UsageError(f"--format minari writes the array episodes only; leave out {', '.join(unused)}")
    made = _exporting(args, lambda progress: export_minari(
        args.env, out, env_kwargs=parse_kwargs(args.env_kwargs, "--env-kwargs"), agent=args.agent,
        agent_kwargs=parse_kwargs(args.agent_kwargs, "--agent-kwargs"), games=args.games, seed=args.seed,
        data_format=args.minari_format, progress=progress, command=_command(args)))
    print(f"{made['dataset_id']}: {made['episodes']:,} episodes, {made['steps']:,} steps, mean return "
          f"{made['mean_return']:.4f} (reference: {made['ref_min_score']:.4f} random-consistent, "
          f"{made['ref_max_score']:.4f} optimal); wrote {made['path']}\n"
          f"load it: MINARI_DATASETS_PATH={out} python -c \"import minari; "
          f"print(minari.load_dataset('{made['dataset_id']}'))\"")
    return 0


def register(sub: Any) -> None:
    """Add this module's commands to the subparsers ``sub``."""
    p = sub.add_parser(
        "export-demos", help="expert demonstrations (the optimum's games) as fine-tuning data",
        description="Play every answer (or a seeded sample) with an agent, the optimal tree by default, and write "
                    "each game as the conversation a language model would have had, rendered by the chat "
                    "environment: train.jsonl and test.jsonl, split by answer, and manifest.json (command, game, "
                    "agent, counts, each file's SHA-256). Every game is replayed in the chat environment to a win "
                    "in exactly the agent's number of guesses before it is written.",
    )
    add_env_options(p, env_help="a plain or chat id (default: %(default)s; a plain id is played in conversation)",
                    kwargs_help="game and chat options, e.g. hard_mode=True reply_format=tags")
    p.add_argument("--agent", default="optimal", help="the agent that plays (default: %(default)s)")
    p.add_argument("--agent-kwargs", nargs="*", default=[], metavar="KEY=VALUE", help="the agent's arguments")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--games", type=whole_number(1), help="a seeded sample of this many answers")
    which.add_argument("--all", action="store_true", help="every answer (the default)")
    p.add_argument("--split", type=float, default=DEFAULT_SPLIT,
                   help="share of the answers for training (default: %(default)s)")
    p.add_argument("--format", choices=["messages", "tools", "minari"], default="messages",
                   help="chat messages with bracketed replies, tool calls to the guess tool TRL's environment "
                        "games use, or a Minari dataset of the array game for offline RL (the minari extra; OUT is "
                        "then Minari's datasets root) (default: %(default)s)")
    p.add_argument("--minari-format", choices=["arrow", "hdf5"], default="arrow",
                   help="--format minari: Minari's storage format (default: %(default)s)")
    p.add_argument("--rationale", choices=["none", "plain", "thinking"], default="none",
                   help="before each guess, what it does from the exact state: as text, or in <think> tags "
                        "(default: %(default)s)")
    p.add_argument("--policy", action="store_true",
                   help="also write policy-train.npz and policy-test.npz (observations, masks, actions) for "
                        "behaviour cloning")
    p.add_argument("--datasets", action="store_true",
                   help="also save the splits as a Hugging Face DatasetDict in OUT/datasets (the datasets extra)")
    add_seed_option(p, "seed of the sample and of the split")
    p.add_argument("--out", required=True, help="the folder to write")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=cmd_export_demos)
