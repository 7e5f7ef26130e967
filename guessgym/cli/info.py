"""The commands that describe what is installed: ``list``, ``pretrained`` and ``cache``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from .common import UsageError


def cmd_list(args: argparse.Namespace) -> int:
    import gymnasium as gym

    from .. import envs  # noqa: F401  (registers the ids)
    from ..agents.registry import describe, registered
    from ..envs.families import family_of, guessgym_ids
    from ..main_job import MAIN_JOB

    print("Environments:")
    envs_rows = [(env_id, " ".join(f"{k}={v}" for k, v in gym.registry[env_id].kwargs.items()),
                  getattr(family_of(env_id), "summary", "")) for env_id in guessgym_ids()]
    print(_table(envs_rows))
    print("Agents:")
    from ..agents.pretrained import available

    agent_rows = [(name, describe(factory)) for name, factory in registered().items()]
    agent_rows += [(f"pretrained:{name}", f"a shipped trained agent ('guessgym pretrained {name}' shows its card)")
                   for name in available()]
    agent_rows += [("model:PATH.zip", "a trained agent (guessgym.agents.learned.load_agent)"),
                   ("llm:MODEL", "a language model on an OpenAI-compatible server (--base-url)"),
                   ("module:Class",
                    "your own Agent subclass or @agent_factory function (imports, so runs, the module)")]
    print(_table(agent_rows))
    print("Main job (guessgym compare):")
    for entry in MAIN_JOB:
        described = entry.describe()
        print(f"  {described}" + (f"  [{entry.label}]" if entry.label and entry.label not in described else ""))
    from ..infra.cache import cache_dir

    print(f"Cache: {cache_dir()} (guessgym cache shows, prunes or clears it; GUESSGYM_CACHE_DIR moves it)")
    return 0


def _table(rows: Sequence[tuple[str, ...]]) -> str:
    """Rows as columns two spaces apart, each as wide as its longest cell (the last left ragged),
    indented by two."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths)] + [row[-1]]
        lines.append(("  " + "  ".join(cells)).rstrip())
    return "\n".join(lines)


def cmd_pretrained(args: argparse.Namespace) -> int:
    from ..agents.pretrained import PretrainedError, available, card_markdown, model_card, training_summary

    if args.name:
        try:
            print(card_markdown(model_card(args.name)))
        except PretrainedError as exc:
            raise UsageError(str(exc)) from None
        return 0
    print("| agent | environment | games | win % | mean | training | size |")
    print("|---|---|---:|---:|---:|---|---:|")
    for name in available():
        card = model_card(name)
        ev = card["evaluation"]
        kwargs = " ".join(f"{k}={v}" for k, v in card["env_kwargs"].items())
        print(f"| pretrained:{name} | {card['env_id']} {kwargs} | {ev['games']:,} | {100 * ev['win_rate']:.2f} | "
              f"{ev['mean_guesses']:.4f} | {training_summary(card['training'])} | {card['model_bytes'] / 1e6:.1f} MB |")
    print("\n'guessgym pretrained NAME' shows a model card; "
          "'guessgym evaluate --agent pretrained:NAME' evaluates it on its game.")
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    from ..infra.cache import clear_cache, describe_cache, format_size, parse_size, prune_cache

    if args.clear and args.prune is not None:
        raise UsageError("give --clear or --prune SIZE, not both")
    if args.clear or args.prune is not None:
        try:
            removed = clear_cache() if args.clear else prune_cache(parse_size(args.prune))
        except ValueError as exc:
            raise UsageError(f"--prune: {exc}") from None
        freed = sum(e.size for e in removed)
        print(f"removed {len(removed)} {'entry' if len(removed) == 1 else 'entries'}, {format_size(freed)}")
    print(describe_cache())
    return 0


def register(sub: Any) -> None:
    """Add this module's commands to the subparsers ``sub``."""
    p = sub.add_parser("list", help="environments, agents, the main job and the cache folder")
    p.set_defaults(func=cmd_list)
    p = sub.add_parser("pretrained", help="the trained models that ship with guessgym, and their cards",
                       description="Without NAME, a table of the shipped models; with NAME, its model card.")
    p.add_argument("name", nargs="?", help="a shipped model (pretrained:NAME as an agent)")
    p.set_defaults(func=cmd_pretrained)
    from ..infra.cache import cache_dir

    p = sub.add_parser(
        "cache", help="show, prune or clear the cache (pattern matrices, solved trees and subproblems)",
        description=f"The cache is {cache_dir()} (set GUESSGYM_CACHE_DIR to move it): pattern matrices, "
                    "optimal trees and the exact search's solved subproblems. Without options, list it. Everything "
                    "is rebuilt when needed, so removing it is safe.",
    )
    p.add_argument("--clear", action="store_true", help="remove everything (not files being written now)")
    p.add_argument("--prune", metavar="SIZE",
                   help="remove leftovers, then the least recently used files, down to SIZE (e.g. 500M, 2G)")
    p.set_defaults(func=cmd_cache)
