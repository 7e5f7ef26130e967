"""``guessgym train`` and ``guessgym train-general``: the command-line fronts of
:func:`guessgym.training.train.train` and :func:`guessgym.training.general_loop.train_general`.

:func:`guessgym.cli.build_parser` calls :func:`register` with its subparsers; the sub-command stores its
handler as ``func`` (``args.func(args)`` returns the exit code)::

    guessgym train --config configs/mini-nerdle.toml
    guessgym train --config configs/wordle.toml --set num_envs=64 --set env_kwargs.step_penalty=-0.01
    guessgym train --config configs/wordle.toml --resume --total-steps 30000000

    guessgym train-general --config configs/wordle-general.toml

The first Ctrl-C asks the run to save a checkpoint at the next rollout boundary (a general run:
the end of the iteration) and stop (resume with ``--resume``; a general run resumes by running
the same command again); a second Ctrl-C stops at once (the last checkpoint is still intact).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from ..infra.optional import require_extra
from ..training.config import TrainConfig, apply_overrides, load_config
from .common import add_override_option


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``train`` sub-command to an ``argparse`` subparsers object and return its parser."""
    parser = subparsers.add_parser(
        "train",
        help="train a learned agent (stable-baselines3) from a config file",
        description="Train a guess policy with MaskablePPO, PPO or A2C. Logs go to <log_dir>/<run_name>/ "
        "(TensorBoard in tb/, curve.csv, eval.csv, curve.png, checkpoints/, model.zip). Each evaluation prints "
        "a row against the config's references and the optimum; target_win_rate / target_mean_guesses stop "
        "the run early.",
    )
    parser.add_argument("--config", required=True, type=Path, help="a .toml or .json TrainConfig file (see configs/)")
    parser.add_argument("--resume", action="store_true", help="continue the run from its latest checkpoint")
    parser.add_argument("--total-steps", type=int, default=None, help="override total_steps (e.g. to extend a run)")
    add_override_option(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)
    return parser


def register_general(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``train-general`` sub-command (one policy for every word list) and return its parser."""
    parser = subparsers.add_parser(
        "train-general",
        help="train one guess policy for every word list (DAgger on random games, exact labels)",
        description="Train the guess policy on randomised games of the transfer split's training words, labelled "
        "by the exact solver (guessgym.training.general). Logs go to <log_dir>/<run_name>/ (general.csv, data/, "
        "iterations/, model.zip). Running the same command again continues a stopped run.",
    )
    parser.add_argument("--config", required=True, type=Path, help="a .toml or .json general config "
                        "(configs/wordle-general.toml)")
    add_override_option(parser)
    parser.set_defaults(func=run_general)
    return parser


def run_general(args: argparse.Namespace) -> int:
    """Handle ``guessgym train-general``; returns the process exit code."""
    from ..training.general import load_general_config

    try:
        config = apply_overrides(load_general_config(args.config), list(args.overrides))
        require_extra("train", "training")
    except (OSError, ValueError, ImportError) as exc:
        print(f"guessgym train-general: {exc}", file=sys.stderr)
        return 2
    from ..training.general_loop import train_general

    stop = threading.Event()
    with _first_interrupt_stops(stop, "saving a checkpoint at the end of this iteration"):
        print(f"training one policy for every list: {config.iterations} iterations of {config.games_per_iteration} "
              f"games -> {config.run_dir}")
        try:
            path = train_general(config, report=print, stop_event=stop)
        except (OSError, ValueError) as exc:
            print(f"guessgym train-general: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("aborted; the last checkpoint is intact: run the same command to continue", file=sys.stderr)
            return 130
    if path is None:
        print(f"stopped at a checkpoint ({config.run_dir}); run the same command to continue")
        return 130
    print(f"model: {path}")
    return 0


class _first_interrupt_stops:
    """While active, the first Ctrl-C or SIGTERM sets ``stop`` (the run saves and stops, losing
    nothing since its last checkpoint), a second raises."""

    SIGNALS = ("SIGINT", "SIGTERM")

    def __init__(self, stop: threading.Event, what: str) -> None:
        self.stop, self.what = stop, what
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> None:
        def on_signal(signum: int, frame: Any) -> None:
            if self.stop.is_set():
                raise KeyboardInterrupt
            self.stop.set()
            name = "interrupt" if signum == signal.SIGINT else "terminated"
            print(f"\n{name}: {self.what} (Ctrl-C again to abort now)", file=sys.stderr, flush=True)

        if threading.current_thread() is threading.main_thread():
            for name in self.SIGNALS:
                number = getattr(signal, name, None)
                if number is not None:
                    self.previous[number] = signal.signal(number, on_signal)

    def __exit__(self, *exc: object) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler)
        self.previous.clear()


def build_config(args: argparse.Namespace) -> TrainConfig:
    """The config file with the command line's overrides applied."""
    config = load_config(args.config)
    overrides = list(args.overrides)
    if args.total_steps is not None:
        overrides.append(f"total_steps={args.total_steps}")
    if args.no_progress:
        overrides.append("progress_bar=false")
    elif not any(o.startswith("progress_bar=") for o in overrides):
        overrides.append("progress_bar=true")
    return apply_overrides(config, overrides)


def run(args: argparse.Namespace) -> int:
    """Handle ``guessgym train``; returns the process exit code."""
    try:
        config = build_config(args)
        require_extra("train", "training")
    except (OSError, ValueError, ImportError) as exc:
        print(f"guessgym train: {exc}", file=sys.stderr)
        return 2
    from ..training.train import train

    stop = threading.Event()
    print(f"training {config.algorithm} on {config.env_id} for {config.total_steps:,} steps -> {config.run_dir}")
    with _first_interrupt_stops(stop, "saving a checkpoint at the next rollout boundary"):
        try:
            path = train(config, resume=args.resume, stop_event=stop, print_evaluations=True)
        except (OSError, ValueError) as exc:
            print(f"guessgym train: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("aborted; the last checkpoint is intact: run the same command with --resume", file=sys.stderr)
            return 130
    if stop.is_set():
        print(f"stopped at a checkpoint ({path.parent}); resume: run the same command with --resume")
        return 130
    final = config.run_dir / "final.json"
    if final.is_file():
        summary = json.loads(final.read_text())
        ev = summary["final_eval"]
        target = summary.get("target")
        if target:
            print(f"target reached at step {target['reached_at_step']:,}: the run stopped there")
        print(
            f"done: {summary['steps']:,} steps in {summary['wall_time_s']:.0f} s; greedy policy wins "
            f"{ev['wins']}/{ev['games']} ({100 * ev['win_rate']:.2f}%), {ev['mean_guesses']:.3f} guesses per win"
        )
        best = summary.get("best")
        if best:
            mean = "no win" if best["mean_guesses"] is None else f"{best['mean_guesses']:.4f} guesses per win"
            print(f"best evaluated model: step {best['step']:,} ({100 * best['win_rate']:.2f}% of "
                  f"{best['games']:,} evaluation games, {mean}): {config.run_dir / 'best_model.zip'}")
        if (config.run_dir / "curve.png").is_file():
            print(f"learning curve: {config.run_dir / 'curve.png'}")
    print(f"model: {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry (``python -m guessgym.cli.train --config ...``) until ``guessgym`` wires it in."""
    parser = argparse.ArgumentParser(prog="guessgym")
    sub = parser.add_subparsers(dest="command", required=True)
    register(sub)
    args = parser.parse_args(["train", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
