"""The ``guessgym`` command line: thin wrappers over the library.

Subcommands::

    guessgym evaluate --env ID --agent NAME [...]   one agent on one game -> table, JSON, PNG
    guessgym compare [--quick]                       the main job: every baseline, Wordle + Nerdle
    guessgym assist [--game wordle|nerdle ...]       a solver at your side for a real game
    guessgym play [--env ID]                         play in the terminal
    guessgym list                                    environments, agents, the main job
    guessgym train ...                               train a learned agent (training package)

Bad input (unknown environment or agent, malformed keyword arguments, unknown answers) prints one
line to stderr and exits with status 2; a run in which an agent crashed exits with 1.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import re
import shlex
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from .envs.game import MAX_ATTEMPTS_LIMIT
from .envs.wordlists import PRESETS as WORD_LIST_PRESETS
from .infra.optional import DependencyNotInstalled

if TYPE_CHECKING:
    from .envs.kinds import GameKind

PROG = "guessgym"
#: The environment of ``evaluate`` when ``--env`` is not given (and the agent is not a shipped model).
DEFAULT_ENV = "guessgym/Wordle-v1"
AGENT_SPEC_HELP = (
    "a baseline name (see 'guessgym list'), pretrained:NAME for a shipped trained agent "
    "(see 'guessgym pretrained'), model:PATH for a trained agent (.zip or run directory), "
    "llm:MODEL for a language model on an OpenAI-compatible server (--base-url), "
    "or module:Class for your own Agent subclass (module: imports and so runs that module's code; only an Agent "
    "subclass or an @agent_factory function is then called)"
)


#: The largest count an option takes (beam widths, jobs, samples: well inside a C long).
MAX_COUNT = 2**31 - 1


def whole_number(minimum: int, maximum: int = MAX_COUNT) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``minimum`` to ``maximum`` (argparse names the
    option in its error)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"must be a whole number from {minimum} to {maximum:,}, got {text!r}")
        return value

    return parse


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``PROG CMD: error: ...``) and exit status 2;
    ``--help`` still prints the whole usage."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class UsageError(Exception):
    """Bad command-line input: reported on one line, exit status 2."""


# ---- parsing helpers ---------------------------------------------------------------------------
#: ``key=False`` means what it says on a command line written by a Python user.
PYTHON_CONSTANTS: dict[str, Any] = {"True": True, "False": False, "None": None}


def parse_kwargs(values: Sequence[str] | None, what: str = "kwargs") -> dict[str, Any]:
    """``['{"a": 1}']`` or ``['a=1', 'b=x']`` -> dict; values are JSON when they parse, else text.

    Raises:
        UsageError: naming the malformed item.
    """
    result: dict[str, Any] = {}
    for item in values or []:
        text = item.strip()
        if not text:
            continue
        if text.startswith("{"):
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise UsageError(f"--{what}: {text!r} is not valid JSON ({exc.msg} at column {exc.colno})") from None
            if not isinstance(obj, dict):
                raise UsageError(f"--{what}: expected a JSON object, got {text!r}")
            result.update(obj)
            continue
        key, sep, raw = text.partition("=")
        key = key.strip()
        if not sep or not key or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise UsageError(f"--{what}: {text!r} is not key=value or a JSON object")
        try:
            result[key] = json.loads(raw)
        except json.JSONDecodeError:
            # Python spellings of the JSON constants (hard_mode=False), else the text itself
            result[key] = PYTHON_CONSTANTS.get(raw.strip(), raw)
    return result


def parse_answers(text: str | None) -> tuple[list[str] | None, int | None]:
    """``--answers`` value -> (explicit answers, sample size): ``all``, ``N``, ``w1,w2`` or
    ``@file`` (one answer per line)."""
    if text is None or text.strip().lower() == "all":
        return None, None
    text = text.strip()
    if text.isdigit():
        n = int(text)
        if n < 1:
            raise UsageError("--answers: a sample size must be at least 1")
        return None, n
    if text.startswith("@"):
        from .infra.inputs import read_input

        try:
            lines = read_input(text[1:], "--answers file").decode("utf-8").splitlines()
        except (OSError, ValueError) as exc:
            raise UsageError(str(exc)) from None
        words = [w.strip() for w in lines]
        words = [w for w in words if w and not w.startswith("#")]
    else:
        words = [w.strip() for w in text.split(",") if w.strip()]
    if not words:
        raise UsageError("--answers: no answers given")
    return words, None


def make_agent(spec: str, kwargs: dict[str, Any] | None = None) -> Any:
    """Build an agent from a command-line spec (see ``AGENT_SPEC_HELP``) through the agent registry.

    Raises:
        UsageError: unknown name (with the list of known ones), bad kwargs, missing file, or a
            missing optional dependency (naming the extra to install).
    """
    from .agents.registry import AgentSpecError
    from .agents.registry import make_agent as resolve

    try:
        return resolve(spec, **(kwargs or {}))
    except AgentSpecError as exc:
        raise UsageError(str(exc)) from None
    except ImportError as exc:
        raise UsageError(f"agent {spec!r} is not available: {exc}") from None


def _check_env_id(env_id: str) -> None:
    import gymnasium as gym

    from . import envs  # noqa: F401

    if env_id not in gym.registry:
        known = ", ".join(sorted(k for k in gym.registry if k.startswith("guessgym/")))
        raise UsageError(f"unknown environment {env_id!r}; known: {known}")


def _check_kind(command: str, env_id: str) -> GameKind:
    """The kind of game of ``env_id`` (:mod:`guessgym.envs.kinds`), if ``command`` plays it; else a
    one-line refusal naming the kinds it does."""
    from .envs.kinds import kind_of, registered_kinds

    _check_env_id(env_id)
    kind = kind_of(env_id)
    if kind is None or command not in kind.commands:
        supported = [k.description for k in registered_kinds().values() if command in k.commands]
        what = f"one of the {kind.description}" if kind else "not a guessgym id"
        raise UsageError(f"{command} plays the {' and the '.join(supported)}; {env_id} is {what}")
    return kind


def _progress_bar(desc: str) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A tqdm bar on stderr (silent when stderr is not a terminal)."""
    from tqdm.auto import tqdm

    bar = tqdm(total=None, desc=desc, unit="game", file=sys.stderr, disable=None, dynamic_ncols=True)

    def update(done: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
        bar.update(done - bar.n)

    return update, bar.close


def _agent_slug(spec: str) -> str:
    """A file-name part for an agent spec: the baseline name, ``model-<run>``, or the class name."""
    if spec.startswith("model:"):
        path = Path(spec[len("model:"):])
        return "model-" + (path.parent.name if path.stem in ("model", "best_model") and path.parent.name else path.stem)
    return spec.rsplit(":", 1)[-1].rsplit(".", 1)[-1] if ":" in spec else spec


def _slug(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", "__".join(p.split("/")[-1] for p in parts if p))


def check_output_dir(path: Path, option: str) -> None:
    """Fail before any work is done if ``path`` cannot be (or become) a folder this user can write.

    Raises:
        UsageError: ``path`` (or a parent) is a file, or the nearest existing folder is read-only.
    """
    if path.exists() and not path.is_dir():
        raise UsageError(f"{option} {path}: this is a file; give a folder (it is created if missing)")
    existing = path
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{option} {path}: {existing} is a file, so the folder cannot be created")
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write in {existing} ({exc.strerror or exc})") from None


def check_output_file(path: Path, option: str) -> None:
    """Fail before any work is done unless ``path`` can be written as a file: not a folder, a
    device, a FIFO or a socket, in a folder that can be created and written."""
    from .infra.atomic import check_replaceable

    try:
        check_replaceable(path)
    except OSError as exc:
        raise UsageError(f"{option} {path}: {exc.strerror}") from None
    check_output_dir(path.parent, option)


# ---- subcommands -------------------------------------------------------------------------------
def cmd_evaluate(args: argparse.Namespace) -> int:
    from .evaluation.evaluate import Backend, evaluate
    from .evaluation.games import resolve_setup, select_answers, select_games

    env_kwargs = parse_kwargs(args.env_kwargs, "env-kwargs")
    if args.env is None:  # a shipped model plays the game of its card unless told otherwise
        args.env, env_kwargs = _default_env(args.agent, env_kwargs)
    kind = _check_kind("evaluate", args.env)
    agent_kwargs = parse_kwargs(args.agent_kwargs, "agent-kwargs")
    answers, sample = parse_answers(args.answers)
    text_agent = args.agent.startswith("llm:") or kind.name == "chat"
    if args.agent.startswith("llm:"):
        if args.base_url:
            agent_kwargs.setdefault("base_url", args.base_url)
        agent_kwargs.setdefault("concurrency", args.jobs)
    elif args.base_url:
        raise UsageError("--base-url is for language-model agents (--agent llm:MODEL)")
    try:  # validate the cheap things before building a possibly slow agent
        if text_agent:
            from .envs.chat.env import ChatGuessEnv, ChatKind

            game = ChatGuessEnv(**ChatKind.chat_kwargs(args.env, env_kwargs, args.max_attempts)).game
            select_answers(game, answers, sample, args.seed)
        else:
            if answers is not None and not kind.plays_answers:
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
    agent = make_agent(args.agent, agent_kwargs)
    from .agents.text import TextAgent

    transcripts = None
    if isinstance(agent, TextAgent):
        extras = [f"{k}-{v}" for k, v in sorted(env_kwargs.items())]
        which = args.answers.replace("@", "").replace(",", "+")[:40]
        stem = _slug(args.env, _agent_slug(args.agent), *extras)
        default = Path("transcripts") / f"{stem}__seed{args.seed}__{which}.jsonl"
        transcripts = Path(args.transcripts) if args.transcripts else default
        check_output_file(transcripts, "--transcripts")
        print(f"transcripts: {transcripts} (rerun the same command to resume)", file=sys.stderr)
    elif args.transcripts:
        raise UsageError("--transcripts is for language-model agents (--agent llm:MODEL)")
    callback, close = (None, lambda: None) if args.no_progress else _progress_bar(f"{agent.name} on {game.name}")
    from .agents.base import UnsupportedGameError
    from .evaluation.chat import EvaluationStopped

    try:
        result = evaluate(
            agent, args.env, answers=answers, sample=sample, seed=args.seed, max_attempts=args.max_attempts,
            record_guesses=args.guesses or isinstance(agent, TextAgent), n_jobs=args.jobs, backend=backend,
            ray_address=args.address, progress=callback or False, env_kwargs=env_kwargs, transcripts=transcripts,
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
        from .agents.llm.client import split_credentials

        agent_kwargs["base_url"] = split_credentials(str(agent_kwargs["base_url"]))[0]
    if agent_kwargs:
        result.meta["agent_kwargs"] = agent_kwargs
    saved = None
    if args.out:  # saved before anything is printed: a broken stdout must not cost the results
        extras = [f"{k}-{v}" for k, v in sorted({**env_kwargs, **agent_kwargs}.items())]
        stem = _slug(args.env, _agent_slug(args.agent), *extras)
        if args.max_attempts is not None:
            stem += f"__m{args.max_attempts}"
        saved = save_result(result, Path(args.out), stem)
    print(result.to_markdown())
    if saved:
        print(f"\n{saved}")
    return 0


def _default_env(agent_spec: str, env_kwargs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``--env`` when it is not given: a ``pretrained:NAME`` card's environment, else Wordle."""
    from .agents.pretrained import SPEC_PREFIX, PretrainedError, model_card

    if agent_spec.startswith(SPEC_PREFIX):
        try:
            card = model_card(agent_spec[len(SPEC_PREFIX):])
        except PretrainedError as exc:
            raise UsageError(str(exc)) from None
        return card["env_id"], {**card["env_kwargs"], **env_kwargs}
    return DEFAULT_ENV, env_kwargs


def cmd_pretrained(args: argparse.Namespace) -> int:
    from .agents.pretrained import PretrainedError, available, card_markdown, model_card

    if args.name:
        try:
            print(card_markdown(model_card(args.name)))
        except PretrainedError as exc:
            raise UsageError(str(exc)) from None
        return 0
    print("| agent | environment | games | win % | mean | steps | size |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in available():
        card = model_card(name)
        ev = card["evaluation"]
        kwargs = " ".join(f"{k}={v}" for k, v in card["env_kwargs"].items())
        print(f"| pretrained:{name} | {card['env_id']} {kwargs} | {ev['games']:,} | {100 * ev['win_rate']:.2f} | "
              f"{ev['mean_guesses']:.4f} | {card['training']['steps']:,} | {card['model_bytes'] / 1e6:.1f} MB |")
    print("\n'guessgym pretrained NAME' shows a model card; "
          "'guessgym evaluate --agent pretrained:NAME' evaluates it on its game.")
    return 0


def connect_ray_or_fail(address: str | None, n_jobs: int) -> None:
    """Connect to Ray before any game is played; an unreachable cluster is a one-line error."""
    from .infra.pool import connect_ray

    try:
        connect_ray(address, n_jobs)
    except ConnectionError as exc:
        raise UsageError(f"--address: {exc}") from None


def save_result(result: Any, out: Path, stem: str) -> str:
    """Write ``stem.json`` and ``stem.png`` into ``out`` and return the line that says so (printed
    by the caller after the table); finished games are never lost to an output error: the JSON
    then goes to the temporary folder and the message says where."""
    path = out / f"{stem}.json"
    try:
        out.mkdir(parents=True, exist_ok=True)
        result.to_json(path)
    except OSError as exc:
        fallback = Path(tempfile.gettempdir()) / f"{stem}.json"
        result.to_json(fallback)
        raise UsageError(f"--out: could not write {path} ({exc.strerror or exc}); "
                         f"the results were saved to {fallback} instead") from None
    from .evaluation.report import plot_histogram

    try:
        plot_histogram(result, out / f"{stem}.png")
    except DependencyNotInstalled as exc:
        return f"wrote {path} (no histogram: {exc})"
    except OSError as exc:
        return f"wrote {path} (no histogram: {exc.strerror or exc})"
    return f"wrote {path} and {out / (stem + '.png')}"


def cmd_compare(args: argparse.Namespace) -> int:
    from . import main_job
    from .evaluation.evaluate import Backend

    try:
        entries = main_job.select_entries(
            main_job.MAIN_JOB,
            [a.strip() for a in args.agents.split(",")] if args.agents else None,
            [e.strip() for e in args.envs.split(",")] if args.envs else None,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    sample = args.sample if args.sample is not None else (main_job.QUICK_SAMPLE if args.quick else None)
    # Samples go under results/tmp/ (git-ignored) so a smoke test never overwrites the real tables.
    out = Path(args.out or ("results/tmp/quick" if sample is not None else "results/main"))
    check_output_dir(out, "--out")

    def progress(entry: main_job.Entry) -> tuple[Callable[[int, int], None], Callable[[], None]]:
        if args.no_progress:
            return (lambda done, total: None), (lambda: None)
        return _progress_bar(f"{entry.agent} on {entry.env_id.split('/')[-1]}")

    broken: list[OSError] = []

    def report(o: main_job.Outcome) -> None:
        if o.result is not None:
            r = o.result
            line = (f"done  {o.entry.describe()}: win {100 * r.win_rate:.2f}%, mean {r.mean_guesses:.4f}, "
                    f"{r.n_games} games in {r.meta.get('wall_seconds', 0):.1f} s")
        elif o.not_applicable:
            line = f"n/a   {o.entry.describe()}: {o.not_applicable}"
        else:
            line = f"ERROR {o.entry.describe()}: {o.error}"
        if not broken:  # a broken stdout stops the lines, not the job: the report is written at the end
            try:
                print(line, flush=True)
            except OSError as exc:
                broken.append(exc)

    included = [_included_outcome(main_job, path) for path in args.include or []]
    started = time.perf_counter()
    backend: Backend = "ray" if args.address and args.backend == "auto" else args.backend
    if backend == "ray":
        connect_ray_or_fail(args.address, args.jobs)
    outcomes = main_job.run_main_job(
        entries=entries, n_jobs=args.jobs, sample=sample, seed=args.seed, progress=progress,
        on_outcome=report, backend=backend, ray_address=args.address,
    )
    outcomes += included
    command = " ".join([PROG, *map(shlex.quote, args.argv)])
    written = main_job.write_report(outcomes, out, command=command, sample=sample, seed=args.seed)
    if broken:
        raise broken[0]  # reported by main() after the files are written
    print()
    print(written["leaderboard_md"].read_text(encoding="utf-8"))
    print(f"wrote {len(written) + 2 * sum(o.result is not None for o in outcomes)} files to {out}/ "
          f"in {main_job.elapsed(started)}")
    return 1 if any(o.error for o in outcomes) else 0


def _included_outcome(main_job: Any, path: str) -> Any:
    """A saved result (e.g. a learned agent's, written by scripts/train_results.py) as a row of the
    leaderboard, labelled so nobody mistakes it for a run of this job."""
    from .envs.registration import SUPERSEDED, V1_CHANGE
    from .evaluation.results import EvaluationResult

    try:
        result = EvaluationResult.from_json(path)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"--include {path}: not a readable evaluation result ({exc})") from None
    result.meta.setdefault("label", "saved result")
    result.meta.setdefault("note", f"read from {path}, not re-run by this job")
    if result.env_id in SUPERSEDED and "sample" in result.meta and result.meta["sample"] is None:
        # an evaluation of every answer fixes each episode's answer: the version bump left it unchanged
        old, result.env_id = result.env_id, SUPERSEDED[result.env_id]
        result.meta["note"] += f" (measured on {old}; {V1_CHANGE})"
    entry = main_job.Entry(result.env_id or result.game, result.agent, label=result.meta["label"],
                           note=result.meta["note"])
    return main_job.Outcome(entry, result=result)


def assist_game(args: argparse.Namespace) -> Any:
    """The game described by ``assist``'s options."""
    from .envs.game import make_game

    name = args.game.lower()
    nerdle_lengths = {"micro-nerdle": 5, "mini-nerdle": 6, "midi-nerdle": 7, "nerdle": 8}
    overrides: dict[str, Any] = {}
    if args.length is not None:
        overrides["length"] = args.length
    if args.hard:
        overrides["hard_mode"] = True
    try:
        if name.startswith("guessgym/"):
            _check_env_id(args.game)
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
            return make_agent(name, kwargs if name == args.solver else {})
        except UsageError as exc:
            raise AssistError(str(exc)) from None

    try:
        return run_assist(game, make_solver, args.solver, stdin=args.stdin, stdout=args.stdout)
    except AssistError as exc:  # only the first solver can fail this way; later ones are reported inline
        raise UsageError(str(exc)) from None


def cmd_play(args: argparse.Namespace) -> int:
    from guessgym.play import run_play

    _check_kind("play", args.env)
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
    from .envs.chat.export import export_prompts

    _check_env_id(args.env)
    env_kwargs = parse_kwargs(args.env_kwargs, "env-kwargs")
    try:
        summary = export_prompts(args.env, args.out, args.answers_out, env_kwargs=env_kwargs, games=args.games,
                                 seed=args.seed)
    except (ValueError, TypeError, OSError) as exc:
        raise UsageError(str(exc)) from None
    print(f"wrote {summary['games']:,} first-turn prompts of {summary['game']} to {summary['prompts']} "
          f"and their answers, apart, to {summary['answers']}")
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    from .infra.cache import clear_cache, describe_cache, format_size, parse_size, prune_cache

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


def cmd_tree(args: argparse.Namespace) -> int:
    import gymnasium as gym

    from .agents.trees import DecisionTree, show_tree
    from .evaluation.trees import record_tree, verify_tree

    _check_kind("tree", args.env)
    env_kwargs = parse_kwargs(args.env_kwargs, "env-kwargs")
    try:
        env = gym.make(args.env, disable_env_checker=True, **env_kwargs)
    except (ValueError, TypeError, OSError) as exc:
        raise UsageError(str(exc)) from None
    game = env.unwrapped.game  # type: ignore[attr-defined]  # a guessgym id: the unwrapped env is a GuessEnv
    if args.action == "record":
        if not args.agent or not args.out:
            raise UsageError("tree record needs --agent and --out")
        check_output_file(Path(args.out), "--out")
        try:
            tree = record_tree(make_agent(args.agent, parse_kwargs(args.agent_kwargs, "agent-kwargs")), game)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        tree.save(args.out, game)
        print(f"wrote {args.out}: {len(tree.paths)} answers, total {tree.total}, mean {tree.mean:.4f}, "
              f"max {tree.max_depth}")
        return 0
    if not args.file:
        raise UsageError(f"tree {args.action} needs a tree FILE")
    try:
        tree = DecisionTree.load(args.file, game)
    except (OSError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    if args.action == "show":
        print(show_tree(tree, game, args.depth))
        return 0
    check = verify_tree(tree, env)
    print(check.report())
    return 0 if check.ok else 1


def cmd_solve(args: argparse.Namespace) -> int:
    import gymnasium as gym

    from .baselines.opener_search import prove
    from .baselines.optimal import ExactSearch
    from .evaluation.trees import verify_tree
    from .infra.cache import cache_dir

    _check_kind("solve", args.env)
    check_output_file(Path(args.out), "--out")
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
    try:
        env = gym.make(args.env, disable_env_checker=True, **env_kwargs)
    except (ValueError, TypeError, OSError) as exc:
        raise UsageError(str(exc)) from None
    game = env.unwrapped.game  # type: ignore[attr-defined]
    if game.commutative and not args.out.removesuffix(".gz").endswith(".json"):
        raise UsageError(f"--out {args.out}: a commutative game's tree may win an answer with a rearrangement, which "
                         "the text format cannot name: give a .json (or .json.gz) file")
    memo = None if args.no_memo else (args.memo_dir or cache_dir())
    update, close = _progress_bar("openers" if args.proof else "answers")
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
    status = (f"proven optimal {scope}" if result.proven else
              f"not proven {scope}: lower bound {result.lower_bound:,} (gap {result.gap:,}, "
              f"{100 * result.gap / result.lower_bound:.2f}%)")
    print(f"{game.name}: opener {result.tree.root.guess}, total {result.total:,} over {len(result.tree.paths):,} "
          f"answers (mean {result.mean:.4f}, max {result.tree.max_depth}); {status}; width "
          f"{result.settings['width'] or 'every guess'}; {result.seconds:.1f} s, {result.nodes:,} sets searched"
          f"{'; time budget reached' if result.timed_out else ''}")
    print(f"wrote {args.out} (checked against the environment)")
    return 0


def cmd_worst_case(args: argparse.Namespace) -> int:
    import gymnasium as gym

    from .baselines.worst_case import solve_worst_case
    from .infra.atomic import atomic_write_text

    kind = _check_kind("worst-case", args.env)
    if args.out:
        check_output_file(Path(args.out), "--out")
    env_kwargs = parse_kwargs(args.env_kwargs, "env-kwargs")
    try:
        env = gym.make(args.env, disable_env_checker=True, **env_kwargs)
    except (ValueError, TypeError, OSError) as exc:
        raise UsageError(str(exc)) from None
    game = env.unwrapped.game  # type: ignore[attr-defined]
    adversary = args.adversary or ("absurdle" if kind.name == "absurdle" else "any")
    update, close = _progress_bar("openers")
    try:
        result = solve_worst_case(game, adversary, checkpoint=args.checkpoint, time_budget=args.time_budget,
                                  progress=lambda depth, done, total: update(done, total))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    finally:
        close()
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


def cmd_list(args: argparse.Namespace) -> int:
    from . import envs
    from .agents.registry import describe, registered
    from .main_job import MAIN_JOB

    print("Environments:")
    for env_id, kwargs in envs.ENV_SPECS.items():
        print(f"  {env_id:28s} " + " ".join(f"{k}={v}" for k, v in kwargs.items()))
    for env_id, kwargs in envs.CHAT_ENV_SPECS.items():
        print(f"  {env_id:28s} " + " ".join(f"{k}={v}" for k, v in kwargs.items()) + "  (text in, text out)")
    for env_id, kwargs in envs.MULTIBOARD_ENV_SPECS.items():
        print(f"  {env_id:28s} " + " ".join(f"{k}={v}" for k, v in kwargs.items()) + "  (one guess, every board)")
    for env_id, kwargs in envs.ABSURDLE_ENV_SPECS.items():
        described = " ".join(f"{k}={v}" for k, v in kwargs.items())
        print(f"  {env_id:28s} {described}  (the host keeps the most answers)")
    print("Agents:")
    for name, factory in registered().items():
        print(f"  {name:20s} {describe(factory)}")
    from .agents.pretrained import available

    for name in available():
        print(f"  pretrained:{name:9s} a shipped trained agent ('guessgym pretrained {name}' shows its card)")
    print("  model:PATH.zip       a trained agent (guessgym.agents.learned.load_agent)")
    print("  llm:MODEL            a language model on an OpenAI-compatible server (--base-url)")
    print("  module:Class         your own Agent subclass or @agent_factory function (imports, so runs, the module)")
    print("Main job (guessgym compare):")
    for entry in MAIN_JOB:
        described = entry.describe()
        print(f"  {described}" + (f"  [{entry.label}]" if entry.label and entry.label not in described else ""))
    from .infra.cache import cache_dir

    print(f"Cache: {cache_dir()} (guessgym cache shows, prunes or clears it; GUESSGYM_CACHE_DIR moves it)")
    return 0


def _train_unavailable(reason: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        raise UsageError(f"training is not available: {reason}")

    return run


# ---- the parser --------------------------------------------------------------------------------
def build_parser(with_training: bool = False) -> argparse.ArgumentParser:
    """The argument parser. ``with_training`` imports ``guessgym.training.cli`` to add ``train``."""
    parser = OneLineParser(prog=PROG, description="Wordle and Nerdle as Gymnasium environments: "
                                     "evaluate and compare agents, get help with a real game, or play.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("evaluate", help="evaluate one agent on one game",
                       description="Play an agent on every answer (or a sample) and print the table.")
    p.add_argument("--env", help=f"registered environment id (default: {DEFAULT_ENV}, or a pretrained model's own)")
    p.add_argument("--agent", required=True, help=AGENT_SPEC_HELP)
    p.add_argument("--agent-kwargs", nargs="+", metavar="KV", help="agent arguments: key=value ... or one JSON object")
    p.add_argument("--env-kwargs", nargs="+", metavar="KV", help="environment arguments, e.g. guesses=all")
    p.add_argument("--answers", default="all", help="all (default), N for a seeded sample, w1,w2,... or @file")
    p.add_argument("--seed", type=whole_number(0, 2**63 - 1), default=0,
                   help="seed of the sample and of randomised agents")
    p.add_argument("--max-attempts", type=whole_number(1, MAX_ATTEMPTS_LIMIT),
                   help="override the attempt limit (e.g. 25 for win-rate curves)")
    p.add_argument("--jobs", "-j", type=whole_number(1), default=1,
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
    p.add_argument("--out", help="results folder (default: results/main; results/tmp/quick for samples)")
    p.add_argument("--jobs", "-j", type=whole_number(1), default=2,
                   help="worker processes for expensive agents (default: 2)")
    p.add_argument("--quick", action="store_true", help="a seeded sample of answers per game (smoke test)")
    p.add_argument("--sample", type=whole_number(1), help="sample this many answers per game")
    p.add_argument("--seed", type=whole_number(0, 2**63 - 1), default=0)
    p.add_argument("--agents", help="only these agents (comma-separated)")
    p.add_argument("--envs", help="only these environment ids (comma-separated)")
    p.add_argument("--backend", choices=["auto", "process", "ray"], default="auto")
    p.add_argument("--address", help="Ray cluster address (implies --backend ray)")
    p.add_argument("--include", nargs="+", metavar="RESULT.json",
                   help="add saved results (e.g. results/learned/learned-wordle.json) to the leaderboard")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=cmd_compare)

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
    p.set_defaults(func=cmd_assist)

    p = sub.add_parser(
        "export-prompts", help="first-turn prompts of a chat game as JSONL, answers apart",
        description="Write the first-turn messages (system and user) of chat games as JSON lines, one game per "
                    "line with a random id, and the answers to a separate file keyed by the same ids, for "
                    "supervised or RL fine-tuning of language models.",
    )
    p.add_argument("--env", default="guessgym/WordleChat-v0", help="chat environment id (default: %(default)s)")
    p.add_argument("--env-kwargs", nargs="+", metavar="KV", help="environment arguments, e.g. hard_mode=True")
    p.add_argument("--games", type=whole_number(1), default=None,
                   help="number of distinct answers (default: every answer)")
    p.add_argument("--seed", type=whole_number(0, 2**63 - 1), default=0,
                   help="seed of the order and the ids (default: %(default)s)")
    p.add_argument("--out", required=True, help="the prompts file (JSON lines)")
    p.add_argument("--answers-out", required=True, help="the answers file (JSON lines; keep it from the model)")
    p.set_defaults(func=cmd_export_prompts)

    p = sub.add_parser(
        "play", help="play in the terminal",
        description="Play Wordle or Nerdle in the terminal against a hidden answer, through the environment "
                    "itself: type a guess, see its tiles (coloured when the terminal allows). 'quit' ends the game.",
    )
    p.add_argument("--env", default="guessgym/Wordle-v1", help="environment id (default: %(default)s)")
    p.add_argument("--env-kwargs", nargs="+", metavar="KV", help="environment arguments, e.g. hard_mode=True")
    p.add_argument("--seed", type=whole_number(0, 2**63 - 1), help="seed of the hidden answer")
    p.add_argument("--answer", help="fix the hidden answer (for practice or a friend)")
    p.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                   help="coloured tiles: auto (when writing to a terminal, default), always or never")
    p.add_argument("--hints", action="store_true", help="show how many answers remain after each guess")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser(
        "tree", help="decision trees: verify or show a tree file, or record an agent's",
        description="Decision trees in the text format of the published optimal Wordle trees (one line per "
                    "answer: 'guess TILES1 guess TILES2 ... answer GGGGGn') or JSON. verify replays every "
                    "answer through the environment and exits 1 if the tree is wrong for the game.",
    )
    p.add_argument("action", choices=["verify", "show", "record"])
    p.add_argument("file", nargs="?", help="the tree file (verify, show)")
    p.add_argument("--env", default="guessgym/Wordle-v1", help="environment id (default: %(default)s)")
    p.add_argument("--env-kwargs", nargs="+", metavar="KV", help="environment arguments, e.g. word_list=original")
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
    p.add_argument("--env", default="guessgym/Wordle-v1", help="environment id (default: %(default)s)")
    p.add_argument("--env-kwargs", nargs="+", metavar="KV", help="environment arguments, e.g. word_list=original")
    p.add_argument("--opener", help="fix the first guess")
    p.add_argument("--openers", help="openers to search: a number (the most promising first) or 'all' (default 20)")
    p.add_argument("--proof", action="store_true", help="prove the optimum over every opener")
    p.add_argument("--beam", type=whole_number(1), metavar="K", help="near-optimal: only the K best guesses per node")
    p.add_argument("--time-budget", type=float, metavar="S", help="return the best tree found after S seconds")
    p.add_argument("--checkpoint", help="--proof: the resumable record (default: OUT.proof.jsonl)")
    p.add_argument("--backend", choices=["serial", "process", "ray"], default="serial",
                   help="--proof: where openers are searched (default: %(default)s)")
    p.add_argument("--jobs", type=whole_number(1), default=1, help="--proof: worker processes or Ray CPUs (default: 1)")
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
    p.add_argument("--env", default="guessgym/Wordle-v1", help="environment id (default: %(default)s)")
    p.add_argument("--env-kwargs", nargs="+", metavar="KV", help="environment arguments, e.g. word_list=original")
    p.add_argument("--adversary", choices=["any", "absurdle"],
                   help="every host (minimax) or the Absurdle host (default: absurdle for Absurdle ids, else any)")
    p.add_argument("--checkpoint", help="a JSONL record of each opener's outcome, resumed when it exists")
    p.add_argument("--time-budget", type=float, metavar="S", help="stop the proof after S seconds")
    p.add_argument("--out", help="write the result and every answer's guesses as JSON")
    p.set_defaults(func=cmd_worst_case)

    p = sub.add_parser("list", help="environments, agents, the main job and the cache folder")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("pretrained", help="the trained models that ship with guessgym, and their cards",
                       description="Without NAME, a table of the shipped models; with NAME, its model card.")
    p.add_argument("name", nargs="?", help="a shipped model (pretrained:NAME as an agent)")
    p.set_defaults(func=cmd_pretrained)

    from .infra.cache import cache_dir

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

    if with_training:
        try:
            training_cli = importlib.import_module("guessgym.training.cli")
            training_cli.register(sub)
        except (ImportError, AttributeError) as exc:
            p = sub.add_parser("train", help="train a learned agent (unavailable)")
            p.set_defaults(func=_train_unavailable(str(exc)))
    else:
        p = sub.add_parser("train", help="train a learned agent ('guessgym train --help')", add_help=False)
        p.set_defaults(func=_train_unavailable("internal error: training parser not loaded"))
    return parser


def main(argv: Sequence[str] | None = None, *, stdin: Any = None, stdout: Any = None) -> int:
    """Run the command line; return the exit status (never raises SystemExit).

    ``stdin``/``stdout`` are used by the interactive commands (tests inject them); tables and
    messages go to ``sys.stdout``/``sys.stderr``.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    # guessgym.training.cli (and torch behind it) is imported only when the user asks for training.
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(with_training=command == "train")
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


__all__ = ["UsageError", "build_parser", "main", "make_agent", "parse_answers", "parse_kwargs"]
