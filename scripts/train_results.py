"""Reproduce the learned-agent results: train, evaluate on every answer, write JSON and plots.

For each game (Mini Nerdle, classic Nerdle, Wordle nyt by default) this script

1. trains with ``configs/<game>.toml`` (``--steps`` overrides the budget) through
   :func:`guessgym.training.train.train`; runs live in ``--runs-dir`` and are *resumed* when the script is
   run again, so an interrupted reproduction continues where it stopped and a finished one is
   not retrained;
2. evaluates the trained model on every answer through the shared evaluation loop
   (:func:`guessgym.agents.evaluate.evaluate`, the same code that ranks the baselines);
3. writes into ``--out`` (default ``results/learned/``): ``learned-<game>.json`` (the
   :class:`~guessgym.agents.results.EvaluationResult`, loadable by the leaderboard), ``learned-<game>.png``
   (guess histogram), ``learned-<game>-curve.png`` (learning curve from the run's ``eval.csv`` and
   ``curve.csv``), ``summary.json`` (steps, training wall time, steps/s, untrained and final
   figures, config) and ``leaderboard.md``.

This is the long-run reproduction, not a test. Typical budgets on 2 shared CPU cores: Mini
Nerdle minutes, classic Nerdle about an hour, Wordle up to two hours (``--steps wordle=...``).

Usage (from the repository root)::

    python scripts/train_results.py --games mini-nerdle
    python scripts/train_results.py --games wordle --steps wordle=1500000
    python scripts/train_results.py --eval-only          # re-evaluate finished runs
    python scripts/train_results.py --games mini-nerdle --tag uniform --set candidate_prior=0
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:  # run as a file from a checkout without installing
    sys.path.insert(0, str(_ROOT))

from guessgym.agents.evaluate import evaluate  # noqa: E402
from guessgym.agents.learned import load_agent  # noqa: E402
from guessgym.agents.report import leaderboard  # noqa: E402
from guessgym.agents.results import EvaluationResult  # noqa: E402
from guessgym.envs.atomic import atomic_write_text  # noqa: E402
from guessgym.training.config import GAME_KEYS, TrainConfig, apply_overrides, load_config  # noqa: E402
from guessgym.training.plots import plot_curve, read_csv  # noqa: E402

GAMES = ("mini-nerdle", "nerdle", "wordle")

#: The best published learned Wordle agent we compare with (A2C, about 20 million games).
PUBLISHED_WORDLE = {"win_rate": 0.995, "mean_guesses": 3.9, "answers": 2315, "games_trained": 20_000_000}


def config_for(game: str, args: argparse.Namespace) -> TrainConfig:
    config = load_config(_ROOT / "configs" / f"{game}.toml")
    overrides = [f"log_dir={args.runs_dir}", "progress_bar=" + ("false" if args.no_progress else "true")]
    if game in args.steps:
        overrides.append(f"total_steps={args.steps[game]}")
    if args.tag:
        overrides.append(f"run_name={config.run_name}-{args.tag}")
    overrides += args.overrides
    return apply_overrides(config, overrides)


def run_game(game: str, args: argparse.Namespace) -> dict[str, Any]:
    from guessgym.training.train import train

    config = config_for(game, args)
    run_dir = config.run_dir
    if not args.eval_only:
        print(f"== {game}: training {config.algorithm} for {config.total_steps:,} steps in {run_dir}", flush=True)
        started = time.perf_counter()
        train(config, resume=True)
        print(f"   training session took {time.perf_counter() - started:.0f} s", flush=True)
    final = json.loads((run_dir / "final.json").read_text())
    agent = load_agent(run_dir / "model.zip", name=f"learned-{config.algorithm}" + (f"-{args.tag}" if args.tag else ""))
    env_kwargs = {k: v for k, v in config.env_kwargs.items() if k in GAME_KEYS}
    print(f"   evaluating on every answer through guessgym.agents.evaluate ({config.env_id})", flush=True)
    result: EvaluationResult = evaluate(
        agent, config.env_id, env_kwargs=env_kwargs or None, progress=not args.no_progress, n_jobs=args.jobs
    )
    result.meta.update(
        {"training_steps": final["steps"], "training_wall_s": final["wall_time_s"], "config": f"configs/{game}.toml"}
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"learned-{game}" + (f"-{args.tag}" if args.tag else "")
    result.to_json(out / f"{stem}.json")
    result.plot_histogram(out / f"{stem}.png")
    plot_curve(run_dir, f"{config.algorithm} guess policy on {final['game']}", out / f"{stem}-curve.png")
    evals = read_csv(run_dir / "eval.csv")
    untrained = next((r for r in evals if r["step"] == "0"), None)
    summary = {
        "game": final["game"],
        "env_id": config.env_id,
        "algorithm": config.algorithm,
        "steps": final["steps"],
        "training_wall_time_s": final["wall_time_s"],
        "steps_per_s": final["steps_per_s"],
        "win_rate": result.win_rate,
        "mean_guesses": result.mean_guesses,
        "max_guesses": result.max_guesses,
        "distribution": {str(k): v for k, v in result.distribution.items()},
        "n_games": result.n_games,
        "evaluation_wall_s": result.meta.get("wall_seconds"),
        "untrained_greedy": None
        if untrained is None
        else {
            "win_rate": float(untrained["win_rate"]),
            "games": int(untrained["games"]),
            "mean_guesses": float(untrained["mean_guesses"]) if untrained["mean_guesses"] else None,
        },
        "config": config.to_dict(),
    }
    print(
        f"   {game}: {100 * result.win_rate:.2f}% wins, {result.mean_guesses:.3f} guesses, "
        f"{final['steps']:,} steps in {final['wall_time_s'] / 60:.1f} min of training",
        flush=True,
    )
    return summary


def parse_steps(text: str) -> dict[str, int]:
    steps: dict[str, int] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        name, _, value = item.partition("=")
        if name not in GAMES or not value:
            raise argparse.ArgumentTypeError(f"--steps expects game=N with game in {GAMES}, got {item!r}")
        steps[name] = int(float(value))
    return steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(GAMES), help=f"comma-separated, from {GAMES}")
    parser.add_argument("--steps", type=parse_steps, default={}, help="budgets, e.g. wordle=1500000,nerdle=2e6")
    parser.add_argument("--runs-dir", default="runs/results", help="where the training runs live (resumed)")
    parser.add_argument("--out", default="results/learned")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra config override for every game",
    )
    parser.add_argument("--tag", default="", help="a variant name: runs <game>-<tag>, writes learned-<game>-<tag>.*")
    parser.add_argument("--eval-only", action="store_true", help="evaluate finished runs without training")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes for the evaluation")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    bad = [g for g in games if g not in GAMES]
    if bad:
        parser.error(f"unknown game(s) {bad}; choose from {GAMES}")

    out = Path(args.out)
    summary_path = out / "summary.json"
    summaries: dict[str, Any] = json.loads(summary_path.read_text()) if summary_path.is_file() else {}
    for game in games:
        summaries[game + (f"-{args.tag}" if args.tag else "")] = run_game(game, args)
        summaries["published_wordle_a2c"] = PUBLISHED_WORDLE
        atomic_write_text(summary_path, json.dumps(summaries, indent=2) + "\n")
    results = [EvaluationResult.from_json(p) for p in sorted(out.glob("learned-*.json"))]
    if results:
        atomic_write_text(out / "leaderboard.md", "# Learned agents\n\n" + leaderboard(results, by_game=True) + "\n")
    print(f"wrote {out}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
