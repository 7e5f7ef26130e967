"""The commands of decision trees and exact search: ``tree`` (verify, show, record), ``solve`` (the
optimal tree) and ``worst-case`` (the fewest guesses whatever the answer).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import (
    DEFAULT_ENV,
    MAX_JOBS,
    UsageError,
    add_env_options,
    agent_from_spec,
    check_family,
    check_output_file,
    make_env,
    parse_kwargs,
    plays,
    progress_bar,
    whole_number,
)

if TYPE_CHECKING:
    from ..agents.decision_tree import DecisionTree


def cmd_tree(args: argparse.Namespace) -> int:
    from ..agents.decision_tree import DecisionTree, TreeMismatch, show_tree
    from ..evaluation.tree_checks import record_tree, verify_tree

    env_kwargs = parse_kwargs(args.env_kwargs, "env-kwargs")
    if args.action != "record" and not args.file:
        raise UsageError(f"tree {args.action} needs a tree FILE")
    inferred: DecisionTree | None = None  # the tree as read while finding its game
    if args.env is None:
        if args.action == "record":
            args.env = DEFAULT_ENV
        else:
            args.env, inferred = game_of_tree(args.file, env_kwargs)
    check_family("tree", args.env)
    env, game = make_env(args.env, env_kwargs)
    if args.action == "record":
        if not args.agent or not args.out:
            raise UsageError("tree record needs --agent and --out")
        check_output_file(Path(args.out), "--out")
        try:
            tree = record_tree(agent_from_spec(args.agent, parse_kwargs(args.agent_kwargs, "agent-kwargs")), game)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        tree.save(args.out, game)
        print(f"wrote {args.out}: {len(tree.paths)} answers, total {tree.total}, mean {tree.mean:.4f}, "
              f"max {tree.max_depth}")
        return 0
    try:
        tree = inferred if inferred is not None else DecisionTree.load(args.file, game)
    except TreeMismatch as exc:  # a tree, but wrong for this game: what verify reports (exit 1)
        if args.action == "verify":
            print(f"{game.name}: the tree is wrong for this game: {exc}")
            return 1
        raise UsageError(f"{exc} (is {args.env} the tree's game? pass --env ID)") from None
    except (OSError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    if args.action == "show":
        print(show_tree(tree, game, args.depth))
        return 0
    check = verify_tree(tree, env)
    print(check.report())
    return 0 if check.ok else 1


def game_of_tree(path: str, env_kwargs: dict[str, Any]) -> tuple[str, DecisionTree]:
    """The first registered single-board id whose game the tree file plays (told on stderr), and
    the tree as read for it.

    Raises:
        UsageError: the file is not a tree, or no registered game plays it (pass ``--env``).
    """
    from ..agents.decision_tree import DecisionTree, TreeMismatch
    from ..envs.families import family_of, guessgym_ids
    from ..envs.game import make_game, split_env_options

    game_kwargs, _ = split_env_options(env_kwargs)
    for env_id in guessgym_ids():
        if not plays("tree", family_of(env_id)):
            continue
        try:
            tree = DecisionTree.load(path, make_game(env_id, **game_kwargs))
        except TreeMismatch:
            continue
        except (OSError, ValueError, TypeError) as exc:
            raise UsageError(str(exc)) from None
        print(f"{path}: read as a tree of {env_id} (--env ID for another game)", file=sys.stderr)
        return env_id, tree
    raise UsageError(f"{path}: no registered game plays this tree; pass --env ID (and --env-kwargs) for its game")


def cmd_solve(args: argparse.Namespace) -> int:

    from ..baselines.opener_search import prove
    from ..baselines.optimal import ExactSearch
    from ..evaluation.tree_checks import verify_tree
    from ..infra.cache import cache_dir

    check_family("solve", args.env)
    check_output_file(Path(args.out), "--out", {"the proof's checkpoint (--checkpoint)": args.checkpoint})
    if args.proof and (args.opener or args.openers or args.beam or args.time_budget):
        raise UsageError("--proof searches every opener exactly: leave out --opener, --openers, --beam and "
                         "--time-budget")
    if args.opener and args.openers:
        raise UsageError("give --opener or --openers, not both")
    openers: int | str = 20
    if args.openers:
        if args.openers != "all" and not args.openers.isdigit():
            raise UsageError(f"--openers must be 'all' or a number, not {args.openers!r}")
        openers = args.openers if args.openers == "all" else int(args.openers)
    env_kwargs = parse_kwargs(args.env_kwargs, "env-kwargs")
    check_opener_first(args.env, env_kwargs, args.opener)
    env, game = make_env(args.env, env_kwargs)
    if game.commutative and not args.out.removesuffix(".gz").endswith(".json"):
        raise UsageError(f"--out {args.out}: a commutative game's tree may win an answer with a rearrangement, which "
                         "the text format cannot name: give a .json (or .json.gz) file")
    memo = None if args.no_memo else (args.memo_dir or cache_dir())
    update, close = progress_bar("openers" if args.proof else "answers")
    try:
        if args.proof:
            checkpoint = args.checkpoint or f"{args.out}.proof.jsonl"
            result = prove(game, checkpoint=checkpoint, backend=args.backend, n_jobs=args.jobs,
                           address=args.address, progress=update, cache_dir=memo)
        else:
            result = ExactSearch(game, opener=args.opener, openers=openers, width=args.beam or 0,
                                 time_budget=args.time_budget, progress=update, cache_dir=memo).solve()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    finally:
        close()
    check = verify_tree(result.tree, env)
    if not check.ok:  # pragma: no cover - the search and the environment disagree: a bug
        print(check.report(), file=sys.stderr)
        return 1
    result.tree.save(args.out, game)
    scope = (f"among trees opening with {args.opener}" if args.opener else
             "over every opener" if args.proof or openers == "all" else f"among the {openers} most promising openers")
    if result.proven:
        status = f"proven optimal {scope}"
    elif result.gap == 0:  # exact over the openers searched, which are not every opener
        status = f"proven optimal {scope}, not over every opener (--openers all or --proof for that)"
    else:
        status = (f"not proven {scope}: lower bound {result.lower_bound:,} (gap {result.gap:,}, "
                  f"{100 * result.gap / result.lower_bound:.2f}%)")
    print(f"{game.name}: opener {result.tree.root.guess}, total {result.total:,} over {len(result.tree.paths):,} "
          f"answers (mean {result.mean:.4f}, max {result.tree.max_depth}); {status}; width "
          f"{result.settings['width'] or 'every guess'}; {result.seconds:.1f} s, {result.nodes:,} sets searched"
          f"{'; time budget reached' if result.timed_out else ''}")
    print(f"wrote {args.out} (checked against the environment)")
    return 0


def check_opener_first(env_id: str, env_kwargs: dict[str, Any], opener: str | None) -> None:
    """Refuse an ``--opener`` that is not a guess of the game before the environment and its pattern
    matrix are built (a Nerdle opener with a wrong sum was refused after 34 s and 1.4 GB); options the
    game itself refuses are left to the environment to name."""
    if not opener:
        return
    from ..envs.game import make_game, split_env_options

    try:
        game = make_game(env_id, **split_env_options(env_kwargs)[0])
    except (ValueError, TypeError):
        return
    problem = game.explain_invalid_guess(opener)
    if problem is not None:
        raise UsageError(f"--opener: {problem}")


def cmd_worst_case(args: argparse.Namespace) -> int:

    from ..baselines.worst_case import WorstCaseTimeout, solve_worst_case
    from ..infra.atomic import atomic_write_text

    family = check_family("worst-case", args.env)
    if args.out:
        check_output_file(Path(args.out), "--out", {"the checkpoint (--checkpoint)": args.checkpoint})
    env_kwargs = parse_kwargs(args.env_kwargs, "env-kwargs")
    env, game = make_env(args.env, env_kwargs)
    adversary = args.adversary or ("absurdle" if family.adversarial else "any")
    update, close = progress_bar("openers")
    timed_out: WorstCaseTimeout | None = None
    try:
        result = solve_worst_case(game, adversary, checkpoint=args.checkpoint, time_budget=args.time_budget,
                                  progress=lambda depth, done, total: update(done, total), n_jobs=args.jobs)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except WorstCaseTimeout as exc:
        timed_out = exc
    finally:
        close()  # the bar's line ends before any message
    if timed_out is not None:
        print(f"guessgym worst-case: error: {timed_out}", file=sys.stderr)
        return 1
    if args.out:  # saved before anything is printed
        atomic_write_text(args.out, json.dumps(result.to_dict(), indent=1) + "\n")
    against = "the Absurdle host" if adversary == "absurdle" else "every host"
    status = ("proven minimum" if result.proven else
              f"not proven: no strategy wins within {result.lower_bound - 1} (time budget reached)")
    print(f"{game.name}, against {against}: {result.guesses} guesses ({status}); "
          f"{'line' if adversary == 'absurdle' else 'longest path'}: {' '.join(result.line)}; "
          f"{result.openers_refuted:,} openers refuted at {result.guesses - 1}; {result.seconds:.1f} s")
    if args.out:
        print(f"wrote {args.out}")
    return 0


def register(sub: Any) -> None:
    """Add this module's commands to the subparsers ``sub``."""
    p = sub.add_parser(
        "tree", help="decision trees: verify or show a tree file, or record an agent's",
        description="Decision trees in the text format of the published optimal Wordle trees (one line per "
                    "answer: 'guess TILES1 guess TILES2 ... answer GGGGGn') or JSON. verify replays every "
                    "answer through the environment and exits 1 if the tree is wrong for the game.",
    )
    p.add_argument("action", choices=["verify", "show", "record"])
    p.add_argument("file", nargs="?", help="the tree file (verify, show)")
    add_env_options(p, None, "environment id (default: the registered game the tree file plays; for record, "
                    f"{DEFAULT_ENV})", "environment arguments, e.g. word_list=original")
    p.add_argument("--depth", type=whole_number(0), default=2, help="levels shown by show (default: 2)")
    p.add_argument("--agent", help="record: the agent whose play becomes the tree")
    p.add_argument("--agent-kwargs", nargs="+", metavar="KV")
    p.add_argument("--out", help="record: the tree file to write (.json for JSON, else text)")
    p.set_defaults(func=cmd_tree)
    p = sub.add_parser(
        "solve", help="the optimal decision tree of a game (exact search), or a near-optimal one",
        description="Exact branch-and-bound search for the tree with the fewest total guesses. By default the 20 "
                    "most promising openers are searched exactly; --opener fixes one, --openers all tries every "
                    "one, --proof proves the optimum over every opener (resumable: run the same command again), "
                    "--beam K searches only the K best guesses per node (near-optimal, fast).",
    )
    add_env_options(p, kwargs_help="environment arguments, e.g. word_list=original")
    p.add_argument("--opener", help="fix the first guess")
    p.add_argument("--openers", help="openers to search: a number (the most promising first) or 'all' (default 20)")
    p.add_argument("--proof", action="store_true", help="prove the optimum over every opener")
    p.add_argument("--beam", type=whole_number(1), metavar="K", help="near-optimal: only the K best guesses per node")
    p.add_argument("--time-budget", type=float, metavar="S", help="return the best tree found after S seconds")
    p.add_argument("--checkpoint", help="--proof: the resumable record (default: OUT.proof.jsonl)")
    p.add_argument("--backend", choices=["serial", "process", "ray"], default="serial",
                   help="--proof: where openers are searched (default: %(default)s)")
    p.add_argument("--jobs", type=whole_number(1, MAX_JOBS), default=1,
                   help="--proof: worker processes or Ray CPUs (default: 1)")
    p.add_argument("--address", help="--proof with --backend ray: the cluster address (default: a local instance)")
    p.add_argument("--memo-dir", help="where solved subproblems are kept between runs, so an interrupted or "
                                      "timed-out search continues (default: the cache folder)")
    p.add_argument("--no-memo", action="store_true", help="keep solved subproblems in memory only")
    p.add_argument("--out", required=True, help="the tree file to write (.json for JSON, .gz to compress)")
    p.set_defaults(func=cmd_solve)
    p = sub.add_parser(
        "worst-case", help="the fewest guesses that win whatever the answer, or Absurdle's minimum",
        description="Exact search for the fewest guesses that win every answer whatever the host answers (the "
                    "minimax objective), or against the Absurdle host (the default for guessgym/Absurdle-v0), "
                    "proven over every opener. --checkpoint makes a long proof resumable: run the same command "
                    "again.",
    )
    add_env_options(p, kwargs_help="environment arguments, e.g. word_list=original")
    p.add_argument("--adversary", choices=["any", "absurdle"],
                   help="every host (minimax) or the Absurdle host (default: absurdle for Absurdle ids, else any)")
    p.add_argument("--checkpoint", help="a JSONL record of each opener's outcome, resumed when it exists")
    p.add_argument("--time-budget", type=float, metavar="S",
                   help="stop after about S seconds: the strategy found so far, unproven (exit 1 if none yet)")
    p.add_argument("--jobs", "-j", type=whole_number(1, MAX_JOBS), default=1,
                   help="worker processes for the proof over every opener (default: 1)")
    p.add_argument("--out", help="write the result and every answer's guesses as JSON")
    p.set_defaults(func=cmd_worst_case)
