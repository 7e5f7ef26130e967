"""``guessgym benchmark``: the RL benchmark's protocol, runs and report.

    guessgym benchmark tiers                                   the protocol's tiers, budgets, anchors
    guessgym benchmark hyperparams ALGO                        the shipped hyperparameter file's path
    guessgym benchmark run --algo ALGO --tier T --seed S       one run, resumable
    guessgym benchmark report [RUNS ...] --out DIR             rliable's aggregates and figures

``run`` and ``report`` import torch and rliable only when called; the Ctrl-C of a run saves a
checkpoint at the next rollout boundary (the same command continues it).
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import Any

from ..infra.optional import require_extra
from ..training.benchmark.hyperparams import ALGORITHMS
from ..training.benchmark.protocol import PROTOCOL_VERSION, SEEDS, TIERS, all_anchors, tier
from .common import UsageError, whole_number

#: Where runs go unless told (the reference scores' folder in a checkout).
DEFAULT_LOG_DIR = Path("runs/benchmark")

ALGORITHM_NAMES = tuple(ALGORITHMS)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "benchmark", help="the RL benchmark: tiers, runs of an algorithm, rliable's report",
        description=f"guessgym's benchmark for reinforcement-learning algorithms (protocol {PROTOCOL_VERSION}): "
        "train from scratch on a tier for its budget, evaluated on every scored answer; the score is the "
        "normalised regret (0: the proven optimum, 1: the random-consistent baseline).")
    sub = parser.add_subparsers(dest="benchmark_command", metavar="SUBCOMMAND", required=True)

    p = sub.add_parser("tiers", help="the protocol's tiers, budgets and anchors")
    p.set_defaults(func=show_tiers)

    p = sub.add_parser("hyperparams", help="the path of a shipped hyperparameter file (rl-zoo3's --conf-file)")
    p.add_argument("algo", choices=ALGORITHM_NAMES)
    p.set_defaults(func=show_hyperparams)

    p = sub.add_parser("run", help="train one algorithm on one tier with one seed (resumable)",
                       description="Train ALGO from scratch on TIER for its budget, evaluating the deterministic "
                       "policy on every scored answer every eval_every steps. Writes <log-dir>/<tier>/<algo>/seed-<S>/"
                       "evaluations.json; the same command continues a stopped run and does nothing for a "
                       "complete one.")
    p.add_argument("--algo", required=True, help=f"{', '.join(ALGORITHM_NAMES)}, or your own stable-baselines3 "
                   "algorithm as package.module:Class (with --hyperparams)")
    p.add_argument("--tier", required=True, choices=[t.name for t in TIERS])
    p.add_argument("--seed", type=whole_number(0, 2**31 - 1), default=0,
                   help=f"the run's seed (references: {', '.join(map(str, SEEDS))})")
    p.add_argument("--log-dir", type=Path, default=DEFAULT_LOG_DIR, help=f"parent of runs (default {DEFAULT_LOG_DIR})")
    p.add_argument("--hyperparams", type=Path, help="a hyperparameter file in rl-zoo3's format with the tier's id "
                   "(default: the shipped file of ALGO)")
    p.add_argument("--threads", type=whole_number(1, 64), default=1, help="torch threads (default 1)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run_one)

    p = sub.add_parser("report", help="rliable's aggregates over saved runs: a table, figures, a JSON summary",
                       description="Read every evaluations.json under RUNS (default: results/benchmark/runs of the "
                       "working folder) and write, into --out, summary.json, README.md and the figures (IQM with "
                       "stratified-bootstrap intervals, performance profiles, probability of improvement, learning "
                       "curves), beside whatever else is there: a file of those names is replaced only where an "
                       "earlier report wrote it.")
    p.add_argument("runs", nargs="*", type=Path, help="folders holding runs (searched for evaluations.json; "
                   "default: results/benchmark/runs of the working folder, a checkout's reference runs)")
    p.add_argument("--out", type=Path, required=True, help="the folder to write the report into")
    p.add_argument("--reps", type=whole_number(100, 200_000), default=2000,
                   help="bootstrap resamples (default 2000)")
    p.add_argument("--seed", type=whole_number(0, 2**31 - 1), default=0, help="seed of the bootstrap")
    p.add_argument("--no-plots", action="store_true", help="the table and JSON only")
    p.set_defaults(func=report)


def show_tiers(args: argparse.Namespace) -> int:
    anchors = all_anchors()
    print(f"protocol {PROTOCOL_VERSION}; seeds {', '.join(map(str, SEEDS))}; score: normalised regret "
          "(0 = optimum, 1 = random-consistent)")
    print(f"{'tier':<14} {'id':<26} {'budget':>11} {'every':>8} {'answers':>7} {'optimum':>8} {'random':>7}  summary")
    for t in TIERS:
        a = anchors.get(t.name)
        opt = "-" if a is None else f"{a.optimum_mean:.4f}" + ("" if a.proven else "*")
        rnd = "-" if a is None else f"{a.random_mean:.4f}"
        n = "-" if a is None else str(a.answers)
        print(f"{t.name:<14} {t.env_id:<26} {t.budget:>11,} {t.eval_every:>8,} {n:>7} {opt:>8} {rnd:>7}  {t.summary}")
    if any(not a.proven for a in anchors.values()):
        print("* best known, not proven over every opener (see the benchmark page)")
    return 0


def show_hyperparams(args: argparse.Namespace) -> int:
    from ..training.benchmark.hyperparams import shipped_path

    print(shipped_path(args.algo))
    return 0


def run_one(args: argparse.Namespace) -> int:
    require_extra("benchmark", "benchmark runs")
    from ..training.benchmark.hyperparams import HyperparamsError
    from ..training.benchmark.runner import RunSpec, run
    from .train import _first_interrupt_stops

    spec = RunSpec(args.algo, tier(args.tier), args.seed, args.log_dir, args.hyperparams, args.threads)
    stop = threading.Event()
    print(f"{args.algo} on {args.tier} (budget {spec.tier.budget:,} steps), seed {args.seed} -> {spec.run_dir}")
    with _first_interrupt_stops(stop, "saving a checkpoint at the next rollout boundary"):
        try:
            path = run(spec, progress_bar=not args.no_progress, stop_event=stop, say=print)
        except (HyperparamsError, ValueError, OSError) as exc:
            raise UsageError(str(exc)) from None
    if stop.is_set():
        print(f"stopped at a checkpoint; the same command continues it ({path.parent})")
        return 130
    return 0


def report(args: argparse.Namespace) -> int:
    require_extra("benchmark", "the benchmark report")
    from ..training.benchmark.report import build_report, default_runs

    roots = list(args.runs) or [default_runs()]
    if not args.runs and not roots[0].is_dir():
        raise UsageError(f"no RUNS given and no {roots[0].as_posix()} of the working folder (a checkout's reference "
                         "runs): give RUNS, the folders holding the runs to report")
    try:
        summary = build_report(roots, args.out, reps=args.reps, seed=args.seed, plots=not args.no_plots)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(summary["table"])
    print(f"report: {args.out / 'README.md'} ({len(summary['runs'])} runs; figures: "
          f"{', '.join(summary['figures']) or 'none'})", file=sys.stderr)
    return 0


__all__ = ["ALGORITHM_NAMES", "DEFAULT_LOG_DIR", "register"]
