"""``guessgym benchmark``: the RL benchmark's protocol, runs and report.

    guessgym benchmark tiers                                   the protocol's tiers, budgets, anchors
    guessgym benchmark hyperparams ALGO                        the shipped hyperparameter file's path
    guessgym benchmark run --algo ALGO --tier T --seed S       one run, resumable
    guessgym benchmark report [RUNS ...] --out DIR             rliable's aggregates and figures
    guessgym benchmark tune --algo ALGO --tier T --trials N --trial-steps S    the protocol's tuning study

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
from ..training.benchmark.protocol import LATEST_VERSION, PROTOCOLS, Tier, protocol
from .common import UsageError, whole_number

#: Where runs go unless told: one folder per protocol version, so that versions never share one.
DEFAULT_LOG_DIR = Path("runs/benchmark")
LOG_DIRS = {"1": DEFAULT_LOG_DIR, "2": Path("runs/benchmark-v2")}

TIER_NAMES = tuple(dict.fromkeys(t.name for p in PROTOCOLS.values() for t in p.tiers))

ALGORITHM_NAMES = tuple(ALGORITHMS)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "benchmark", help="the RL benchmark: tiers, runs of an algorithm, rliable's report",
        description=f"guessgym's benchmark for reinforcement-learning algorithms (protocols "
        f"{', '.join(PROTOCOLS)}; {LATEST_VERSION} unless --protocol says otherwise): "
        "train from scratch on a tier for its budget, evaluated on every scored answer; the score is the "
        "normalised regret (0: the proven optimum, 1: the random-consistent baseline).")
    sub = parser.add_subparsers(dest="benchmark_command", metavar="SUBCOMMAND", required=True)

    p = sub.add_parser("tiers", help="the protocol's tiers, budgets and anchors")
    _protocol_option(p)
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
    p.add_argument("--tier", required=True, choices=TIER_NAMES)
    _protocol_option(p)
    p.add_argument("--seed", type=whole_number(0, 2**31 - 1), default=0,
                   help="the run's seed (references: those `guessgym benchmark tiers` lists)")
    p.add_argument("--log-dir", type=Path, help="parent of runs (default "
                   f"{', '.join(f'{d} for protocol {v}' for v, d in LOG_DIRS.items())})")
    p.add_argument("--hyperparams", type=Path, help="a hyperparameter file in rl-zoo3's format with the tier's id "
                   "(default: the shipped file of ALGO)")
    p.add_argument("--threads", type=whole_number(1, 64), default=1, help="torch threads (default 1)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run_one)

    p = sub.add_parser("tune", help="the protocol's tuning study of one algorithm on one tier (Optuna, resumable)",
                       description="Search ALGO's settings on TIER with Optuna's seeded TPE sampler: TRIALS trials "
                       "of TRIAL_STEPS steps, none past --max-trial-seconds, each scored by its greedy policy's "
                       "regret on validation answers held out of the tier's training answers (never the scored "
                       "ones). The same command continues a stopped study; best.yml is the best trial's settings "
                       "as a hyperparameter file for `run --hyperparams`.")
    p.add_argument("--algo", required=True, choices=ALGORITHM_NAMES)
    p.add_argument("--tier", required=True, choices=TIER_NAMES)
    _protocol_option(p)
    p.add_argument("--trials", type=whole_number(1, 10_000), default=20, help="trials in all (default 20)")
    p.add_argument("--trial-steps", type=whole_number(1_000, 100_000_000), required=True,
                   help="environment steps per trial (give every algorithm of a comparison the same)")
    p.add_argument("--max-trial-seconds", type=whole_number(1, 86_400), default=600,
                   help="a trial past this many seconds fails (default 600)")
    p.add_argument("--evaluations", type=whole_number(1, 100), default=2,
                   help="validation evaluations per trial, the pruner's points (default 2)")
    p.add_argument("--seed", type=whole_number(0, 2**31 - 1), default=0, help="the study's seed (default 0)")
    p.add_argument("--out", type=Path, help="the study's folder (default runs/tuning/<protocol>-<tier>-<algo>)")
    p.set_defaults(func=tune_one)

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


def _protocol_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--protocol", choices=tuple(PROTOCOLS), default=LATEST_VERSION,
                        help=f"the protocol version (default {LATEST_VERSION}; results of versions are never mixed)")


def _tier(args: argparse.Namespace) -> Tier:
    """The tier ``--tier`` names in ``--protocol`` (a usage error naming that protocol's tiers if it has none)."""
    try:
        return protocol(args.protocol).tier(args.tier)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def show_tiers(args: argparse.Namespace) -> int:
    spec = protocol(args.protocol)
    anchors = spec.all_anchors()
    full = spec.anchors_know == "full"
    print(f"protocol {spec.version}; score: normalised regret (0 = optimum, 1 = random-consistent)"
          + ("; anchors play the whole list, scored on the held-out answers" if full else ""))
    print(f"{'tier':<14} {'id':<28} {'budget':>10} {'every':>8} {'seeds':>5} {'scored':>6} {'optimum':>8} "
          f"{'random':>7}{' uniform' if full else ''} {'1 guess':>7}  summary")
    for t in spec.tiers:
        a = anchors.get(t.name)
        opt = "-" if a is None else f"{a.optimum_mean:.4f}" + ("" if a.proven else "*")
        rnd = "-" if a is None else f"{a.random_mean:.4f}"
        uniform = "-" if a is None or a.uniform_mean is None else f"{a.uniform_mean:.4f}"
        uni = f" {uniform:>7}" if full else ""
        n = "-" if a is None else str(a.answers)
        worth = "-" if a is None else f"{a.guess_worth:.4f}"
        print(f"{t.name:<14} {t.env_id:<28} {t.budget:>10,} {t.eval_every:>8,} {len(t.seeds):>5} {n:>6} {opt:>8} "
              f"{rnd:>7}{uni} {worth:>7}  {t.summary}")
    print("1 guess: the regret one guess more over the scored answers is worth")
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

    tier = _tier(args)
    log_dir = args.log_dir if args.log_dir is not None else LOG_DIRS[args.protocol]
    spec = RunSpec(args.algo, tier, args.seed, log_dir, args.hyperparams, args.threads)
    stop = threading.Event()
    print(f"{args.algo} on {args.tier} of protocol {tier.version} (budget {tier.budget:,} steps), seed {args.seed} "
          f"-> {spec.run_dir}")
    with _first_interrupt_stops(stop, "saving a checkpoint at the next rollout boundary"):
        try:
            path = run(spec, progress_bar=not args.no_progress, stop_event=stop, say=print)
        except (HyperparamsError, ValueError, OSError) as exc:
            raise UsageError(str(exc)) from None
    if stop.is_set():
        print(f"stopped at a checkpoint; the same command continues it ({path.parent})")
        return 130
    return 0


def tune_one(args: argparse.Namespace) -> int:
    require_extra("benchmark", "the tuning study")
    from ..training.benchmark.tuning import StudySpec, tune

    tier = _tier(args)
    folder = args.out or Path("runs/tuning") / f"{tier.version}-{tier.name}-{args.algo}"
    spec = StudySpec(args.algo, tier, args.trials, args.trial_steps, float(args.max_trial_seconds), folder,
                     evaluations=args.evaluations, seed=args.seed)
    print(f"tuning {args.algo} on {tier.name} of protocol {tier.version}: {args.trials} trials of "
          f"{args.trial_steps:,} steps -> {folder}")
    try:
        summary = tune(spec, say=print)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    best = summary["best"]
    print("no trial completed" if best is None else
          f"best: trial {best['number']}, validation regret {best['regret']:.4f}: {folder / 'best.yml'}")
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


__all__ = ["ALGORITHM_NAMES", "DEFAULT_LOG_DIR", "LOG_DIRS", "TIER_NAMES", "register"]
