"""The evaluation commands: ``evaluate`` (one agent on one game) and ``compare`` (the main job).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..envs.game import MAX_ATTEMPTS_LIMIT
from .common import (
    DEFAULT_ENV,
    MAX_JOBS,
    PROG,
    UsageError,
    add_agent_options,
    add_env_options,
    add_seed_option,
    agent_from_spec,
    agent_slug,
    check_family,
    check_output_dir,
    check_output_file,
    connect_ray_or_fail,
    parse_answers,
    parse_kwargs,
    positive_seconds,
    progress_bar,
    save_result,
    slug,
    whole_number,
)

#: Where ``guessgym compare`` writes by default: folders git ignores (the committed tables are
#: ``results/main/``, written by ``guessgym compare --out results/main``).
DEFAULT_OUT, QUICK_OUT = "runs/compare", "runs/compare-quick"


def cmd_evaluate(args: argparse.Namespace) -> int:
    from ..evaluation.evaluate import Backend, evaluate
    from ..evaluation.games import resolve_setup, select_answers, select_games

    env_kwargs = parse_kwargs(args.env_kwargs, "env-kwargs")
    if args.env is None:  # a shipped model plays the game of its card unless told otherwise
        args.env, env_kwargs = _default_env(args.agent, env_kwargs)
    family = check_family("evaluate", args.env)
    agent_kwargs = parse_kwargs(args.agent_kwargs, "agent-kwargs")
    answers, sample = parse_answers(args.answers)
    text_agent = args.agent.startswith("llm:") or family.text_actions
    if args.agent.startswith("llm:"):
        if args.base_url:
            agent_kwargs.setdefault("base_url", args.base_url)
        agent_kwargs.setdefault("concurrency", args.jobs)
    elif args.base_url:
        raise UsageError("--base-url is for language-model agents (--agent llm:MODEL)")
    setup = None  # the game resolved once, here, and played as resolved
    try:  # validate the cheap things before building a possibly slow agent
        if text_agent:
            from ..envs.chat.env import ChatFamily, ChatGuessEnv

            game = ChatGuessEnv(**ChatFamily.chat_kwargs(args.env, env_kwargs, args.max_attempts)).game
            select_answers(game, answers, sample, args.seed)
        else:
            if answers is not None and not family.plays_answers:
                raise UsageError(f"{args.env} chooses the answers itself: give --answers N (a number of games)")
            setup = resolve_setup(args.env, env_kwargs, args.max_attempts)
            select_games(setup, answers, sample, args.seed)
            game = setup.game
    except (ValueError, TypeError, OSError) as exc:
        raise UsageError(str(exc)) from None
    if args.out:
        check_output_dir(Path(args.out), "--out")
    backend: Backend = "ray" if args.address and args.backend == "auto" else args.backend
    if backend == "ray":
        connect_ray_or_fail(args.address, args.jobs)
    agent = agent_from_spec(args.agent, agent_kwargs)
    from ..agents.text import TextAgent

    transcripts = None
    if isinstance(agent, TextAgent):
        extras = [f"{k}-{v}" for k, v in sorted(env_kwargs.items())]
        which = args.answers.replace("@", "").replace(",", "+")[:40]
        stem = slug(args.env, agent_slug(args.agent), *extras)
        default = Path("transcripts") / f"{stem}__seed{args.seed}__{which}.jsonl"
        transcripts = Path(args.transcripts) if args.transcripts else default
        answers_file = args.answers[1:] if args.answers.startswith("@") else None
        check_output_file(transcripts, "--transcripts", {"the --answers file": answers_file})
        print(f"transcripts: {transcripts} (rerun the same command to resume)", file=sys.stderr)
    elif args.transcripts:
        raise UsageError("--transcripts is for language-model agents (--agent llm:MODEL)")
    callback, close = (None, lambda: None) if args.no_progress else progress_bar(f"{agent.name} on {game.name}")
    from ..agents.base import UnsupportedGameError
    from ..evaluation.chat import EvaluationStopped

    try:
        played = setup if setup is not None and not isinstance(agent, TextAgent) else args.env
        resolved = played is setup
        result = evaluate(
            agent, played, answers=answers, sample=sample, seed=args.seed,
            max_attempts=None if resolved else args.max_attempts,
            record_guesses=args.guesses or isinstance(agent, TextAgent), n_jobs=args.jobs, backend=backend,
            ray_address=args.address, progress=callback or False, env_kwargs=None if resolved else env_kwargs,
            transcripts=transcripts,
        )
    except UnsupportedGameError as exc:
        raise UsageError(f"agent {args.agent!r} cannot play {game.name}: {exc}") from None
    except EvaluationStopped as exc:
        close()
        print(f"{PROG} evaluate: the evaluation stopped: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:  # e.g. a transcripts file of another evaluation
        raise UsageError(str(exc)) from None
    finally:
        close()
    if "base_url" in agent_kwargs:  # results and file names never hold credentials
        from ..agents.llm.client import split_credentials

        agent_kwargs["base_url"] = split_credentials(str(agent_kwargs["base_url"]))[0]
    if agent_kwargs:
        result.meta["agent_kwargs"] = agent_kwargs
    saved = None
    if args.out:  # saved before anything is printed: a broken stdout must not cost the results
        extras = [f"{k}-{v}" for k, v in sorted({**env_kwargs, **agent_kwargs}.items())]
        stem = slug(args.env, agent_slug(args.agent), *extras)
        if args.max_attempts is not None:
            stem += f"__m{args.max_attempts}"
        saved = save_result(result, Path(args.out), stem)
    from ..evaluation.report import result_markdown

    print(result_markdown(result))
    if saved:
        print(f"\n{saved}")
    return 0


def _default_env(agent_spec: str, env_kwargs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``--env`` when it is not given: a ``pretrained:NAME`` card's environment, else Wordle."""
    from ..agents.pretrained import SPEC_PREFIX, PretrainedError, model_card

    if agent_spec.startswith(SPEC_PREFIX):
        try:
            card = model_card(agent_spec[len(SPEC_PREFIX):])
        except PretrainedError as exc:
            raise UsageError(str(exc)) from None
        return card["env_id"], {**card["env_kwargs"], **env_kwargs}
    return DEFAULT_ENV, env_kwargs


def cmd_compare(args: argparse.Namespace) -> int:
    from .. import main_job
    from ..evaluation.evaluate import Backend

    try:
        entries = main_job.select_entries(
            main_job.MAIN_JOB,
            [a.strip() for a in args.agents.split(",")] if args.agents else None,
            [e.strip() for e in args.envs.split(",")] if args.envs else None,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    sample = args.sample if args.sample is not None else (main_job.QUICK_SAMPLE if args.quick else None)
    # Runs go to git-ignored folders by default, so a newcomer's run never looks like a change to the
    # project; the committed tables (results/main/) are rewritten only when asked for with --out.
    out = Path(args.out or (QUICK_OUT if sample is not None else DEFAULT_OUT))
    check_output_dir(out, "--out")

    def progress(entry: main_job.Entry) -> tuple[Callable[[int, int], None], Callable[[], None]]:
        if args.no_progress:
            return (lambda done, total: None), (lambda: None)
        return progress_bar(f"{entry.agent} on {entry.env_id.split('/')[-1]}")

    broken: list[OSError] = []
    finished: list[main_job.Outcome] = []

    def report(o: main_job.Outcome) -> None:
        main_job.write_entry(o, out)  # at once: a run stopped part-way keeps every entry it finished
        finished.append(o)
        if o.result is not None:
            r = o.result
            line = (f"done  {o.entry.describe()}: win {100 * r.win_rate:.2f}%, mean {r.mean_guesses:.4f}, "
                    f"{r.n_games} games in {r.meta.get('wall_seconds', 0):.1f} s")
            brief = r.meta.get("analysis")
            if brief is not None:
                line += (f"; moves: {brief['mean_loss_per_game']:.4f} guesses lost per game, "
                         f"{100 * brief['best_move_share']:.1f}% best")
            elif r.meta.get("analysis_note"):
                line += f"; {r.meta['analysis_note']}"
        elif o.not_applicable:
            line = f"n/a   {o.entry.describe()}: {o.not_applicable}"
        else:
            line = f"ERROR {o.entry.describe()}: {o.error}"
        if not broken:  # a broken stdout stops the lines, not the job: the report is written at the end
            try:
                print(line, flush=True)
            except OSError as exc:
                broken.append(exc)

    try:
        included = [main_job.included_outcome(path) for path in args.include or []]
    except ValueError as exc:
        raise UsageError(f"--include {exc}") from None
    named: dict[str, str] = {}
    for path, outcome in zip(args.include or [], included):
        if outcome.entry.slug in named:
            raise UsageError(f"--include {named[outcome.entry.slug]} and {path} are results of the same game and agent "
                             f"(both would be written as {outcome.entry.slug}.json); include one")
        named[outcome.entry.slug] = path
    started = time.perf_counter()
    backend: Backend = "ray" if args.address and args.backend == "auto" else args.backend
    if backend == "ray":
        connect_ray_or_fail(args.address, args.jobs)
    from ..infra.cache import cache_dir

    def notice(message: str) -> None:
        if not broken and not args.no_progress:
            print(f"      {message}", file=sys.stderr, flush=True)

    command = " ".join([PROG, *map(shlex.quote, args.argv)])
    try:
        outcomes = main_job.run_main_job(
            entries=entries, n_jobs=args.jobs, sample=sample, seed=args.seed, progress=progress,
            on_outcome=report, backend=backend, ray_address=args.address, analyse=not args.no_analysis,
            memo_dir=cache_dir(), notice=notice, included=included, analysis_budget=args.analysis_budget,
        )
    except KeyboardInterrupt:  # Ctrl-C: the report of what finished, with the earlier run's other rows
        main_job.write_report(finished, out, command=command, sample=sample, seed=args.seed)
        raise KeyboardInterrupt(f"{len(finished)} of {len(entries) + len(included)} entries finished and are written "
                                f"to {out}/ with the leaderboard; rerun to go on (what was solved is kept)") from None
    written = main_job.write_report(outcomes, out, command=command, sample=sample, seed=args.seed)
    if broken:
        raise broken[0]  # reported by main() after the files are written
    print()
    print(written["leaderboard_md"].read_text(encoding="utf-8"))
    files = len(written) + sum(len(o.files) for o in outcomes)
    print(f"wrote {files} files to {out}/ in {main_job.elapsed(started)}")
    return 1 if any(o.error for o in outcomes) else 0


#: ``compare --analysis-budget``'s default as its help states it (:data:`guessgym.main_job.ANALYSIS_BUDGET`,
#: not imported here: the command line's start stays light).
ANALYSIS_BUDGET_DEFAULT = 90.0


def register(sub: Any) -> None:
    """Add this module's commands to the subparsers ``sub``."""
    p = sub.add_parser("evaluate", help="evaluate one agent on one game",
                       description="Play an agent on every answer (or a sample) and print the table.")
    add_env_options(p, None, f"registered environment id (default: {DEFAULT_ENV}, or a pretrained model's own)",
                    "environment arguments, e.g. guesses=all")
    add_agent_options(p, required=True, kwargs_help="agent arguments: key=value ... or one JSON object")
    p.add_argument("--answers", default="all", help="all (default), N for a seeded sample, w1,w2,... or @file")
    add_seed_option(p, "seed of the sample and of randomised agents")
    p.add_argument("--max-attempts", type=whole_number(1, MAX_ATTEMPTS_LIMIT),
                   help="override the attempt limit (e.g. 25 for win-rate curves)")
    p.add_argument("--jobs", "-j", type=whole_number(1, MAX_JOBS), default=1,
                   help="worker processes; for a language model, games in flight (default: 1)")
    p.add_argument("--backend", choices=["auto", "serial", "process", "ray"], default="auto")
    p.add_argument("--base-url", help="llm:MODEL: the OpenAI-compatible API root (default http://127.0.0.1:8000/v1; "
                                      "the key is read from $OPENAI_API_KEY)")
    p.add_argument("--transcripts", help="llm:MODEL: the JSON-lines file of every conversation, resumed when rerun "
                                         "(default: transcripts/<env>__<agent>__...jsonl)")
    p.add_argument("--address", help="Ray cluster address (implies --backend ray; default: a local instance)")
    p.add_argument("--out", help="folder for the result JSON and the histogram PNG")
    p.add_argument("--guesses", action="store_true", help="record every game's guesses in the JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_evaluate)
    p = sub.add_parser("compare", help="the main job: every baseline on Wordle and Nerdle",
                       description="Evaluate every baseline of guessgym.main_job.MAIN_JOB and write the "
                                   "leaderboard, per-agent JSON and plots.")
    p.add_argument("--out", help=f"results folder (default: {DEFAULT_OUT}/, {QUICK_OUT}/ for samples; the "
                                  "committed tables are results/main/)")
    p.add_argument("--jobs", "-j", type=whole_number(1, MAX_JOBS), default=2,
                   help="worker processes for expensive agents (default: 2)")
    p.add_argument("--quick", action="store_true", help="a seeded sample of answers per game (smoke test)")
    p.add_argument("--sample", type=whole_number(1), help="sample this many answers per game")
    add_seed_option(p)
    p.add_argument("--agents", help="only these agents (comma-separated)")
    p.add_argument("--envs", help="only these environment ids (comma-separated)")
    p.add_argument("--backend", choices=["auto", "process", "ray"], default="auto")
    p.add_argument("--address", help="Ray cluster address (implies --backend ray)")
    p.add_argument("--include", nargs="+", metavar="RESULT.json",
                   help="add saved results (e.g. results/learned/learned-wordle.json) to the leaderboard")
    p.add_argument("--analysis-budget", type=positive_seconds, default=ANALYSIS_BUDGET_DEFAULT, metavar="SECONDS",
                   help="seconds of solving the move analysis of one entry may take; past them its moves left are "
                        "judged by bounds and its row says so, and a rerun goes on from what was solved "
                        "(default: %(default)g)")
    p.add_argument("--no-analysis", action="store_true",
                   help="skip the move analysis (every move judged against optimal play: the loss/game column "
                        "and <entry>.analysis.json.gz)")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=cmd_compare)
