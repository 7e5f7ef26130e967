"""Reproduce the learned-agent results: train, evaluate on every answer, ship, search, transfer.

For each game (Mini Nerdle, classic Nerdle, Wordle nyt easy and hard by default) this script

1. trains with ``configs/<game>.toml`` (``--steps`` overrides the budget) through
   :func:`guessgym.training.train.train`; runs live in ``--runs-dir`` and are *resumed* when the script is
   run again, so an interrupted reproduction continues where it stopped and a finished one is
   not retrained;
2. evaluates the trained model on every answer through the shared evaluation loop
   (:func:`guessgym.evaluation.evaluate.evaluate`, the same code that ranks the baselines);
3. writes into ``--out`` (default ``results/learned/``): ``learned-<game>.json`` (the
   :class:`~guessgym.evaluation.results.EvaluationResult`, loadable by the leaderboard), ``learned-<game>.png``
   (guess histogram), ``learned-<game>-curve.png`` (learning curve from the run's ``eval.csv`` and
   ``curve.csv``, with the baselines and the optimum as lines), ``summary.json`` (steps, training
   wall time, steps/s, untrained and final figures, config) and ``leaderboard.md``;
4. with ``--ship``: writes the model and its card into ``agents/pretrained/`` (``pretrained:<game>``)
   and the card as Markdown into ``<out>/cards/<game>.md``;
5. with ``--lookahead K``: evaluates the policy plus rollouts over its K best guesses
   (:class:`~guessgym.agents.lookahead.LookaheadAgent`) on every answer: ``learned-<game>-lookahead.json``;
6. with ``--transfer``: plays the Wordle policy, without retraining, on the other Wordle lists of the
   same length (``original``, ``nyt2023``): ``transfer-<game>[-<tag>]-<list>.json``, and a section of
   ``leaderboard.md`` (expected-size on each list is in ``summary.json``).

This is the long-run reproduction, not a test. Typical budgets on 2 shared CPU cores: Mini
Nerdle minutes, classic Nerdle and Wordle up to two hours each.

Usage (from the repository root)::

    python scripts/train_results.py --games mini-nerdle --ship
    python scripts/train_results.py --games wordle --ship --lookahead 5 --transfer
    python scripts/train_results.py --eval-only --games wordle    # re-evaluate a finished run
    python scripts/train_results.py --eval-only --reuse-evaluation --games nerdle --ship   # ship it, no replay
    python scripts/train_results.py --games mini-nerdle --tag uniform --set candidate_prior=0
    python scripts/train_results.py --report       # only rebuild leaderboard.md from the saved results
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:  # run as a file from a checkout without installing
    sys.path.insert(0, str(_ROOT))

from guessgym.agents.learned import load_agent  # noqa: E402
from guessgym.cli.common import add_override_option  # noqa: E402
from guessgym.evaluation.evaluate import evaluate  # noqa: E402
from guessgym.evaluation.report import leaderboard, plot_histogram  # noqa: E402
from guessgym.evaluation.results import EvaluationResult  # noqa: E402
from guessgym.infra.atomic import atomic_write_text, file_lock  # noqa: E402
from guessgym.infra.inputs import read_json, script_main  # noqa: E402
from guessgym.training.config import GAME_KEYS, TrainConfig, apply_overrides, load_config  # noqa: E402
from guessgym.training.plots import plot_curve, read_csv  # noqa: E402

GAMES = ("mini-nerdle", "nerdle", "wordle", "wordle-hard", "wordle-cloned", "wordle-hard-cloned", "nerdle-cloned")

#: The models a shipped model supersedes (both stay shipped: the old one's results reproduce by its command).
SUPERSEDES = {"wordle-cloned": "wordle", "wordle-hard-cloned": "wordle-hard", "nerdle-cloned": "nerdle"}

#: The Wordle lists a Wordle policy is transferred to (same length and alphabet, other words).
TRANSFER_LISTS = ("original", "nyt2023")

#: What a model card says of reproducibility (measured by scripts/reproducibility.py).
LIMITS = ("The same config and seed give the same model, bit for bit, on any x86-64 CPU with AVX2 with the "
          "library versions above, torch_threads = 1 and numerics = 'portable' (results/learned/reproducibility.md). "
          "Another torch, numpy, numba or stable-baselines3 version, another thread count, or numerics = 'native' "
          "on a CPU with other kernels (AVX-512) may give another model. The evaluation itself is deterministic.")

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
    from guessgym.training.checkpoints import latest_checkpoint
    from guessgym.training.cloning import cloning_started
    from guessgym.training.train import train

    config = config_for(game, args)
    run_dir = config.run_dir
    if not args.eval_only:
        print(f"== {game}: training {config.algorithm} for {config.total_steps:,} steps in {run_dir}", flush=True)
        started = time.perf_counter()
        train(config, resume=latest_checkpoint(run_dir) is not None or cloning_started(run_dir))  # resumed when rerun
        print(f"   training session took {time.perf_counter() - started:.0f} s", flush=True)
    final = read_json(run_dir / "final.json", "run summary")
    env_kwargs = {k: v for k, v in config.env_kwargs.items() if k in GAME_KEYS}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"learned-{game}" + (f"-{args.tag}" if args.tag else "")
    # The first models were named by their algorithm; a variant of them (configs/<game>-cloned.toml) by its config.
    name = (f"learned-{config.algorithm}" if game in SUPERSEDES.values() or game == "mini-nerdle"
            else f"learned-{game}") + (f"-{args.tag}" if args.tag else "")
    result = saved_evaluation(out / f"{stem}.json", final) if args.reuse_evaluation else None
    if result is not None:
        result = dataclasses.replace(result, agent=name)
    if result is None:
        agent = load_agent(run_dir / "model.zip", name=name)
        print(f"   evaluating on every answer through guessgym.evaluation.evaluate ({config.env_id})", flush=True)
        result = evaluate(
            agent, config.env_id, env_kwargs=env_kwargs or None, progress=not args.no_progress, n_jobs=args.jobs,
            record_guesses=True,  # the move analysis (guessgym analyze) needs them
        )
        result.meta.update({"training_steps": final["steps"], "training_wall_s": final["wall_time_s"],
                            "config": f"configs/{game}.toml"})
    else:
        print(f"   reusing {out / f'{stem}.json'}: the evaluation of this run's final model", flush=True)
    result.to_json(out / f"{stem}.json")
    plot_histogram(result, out / f"{stem}.png")
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
        f"{final['steps']:,} steps in {final['wall_time_s'] / 60:.1f} min of training"
        + (f" after {final['cloned']['wall_time_s'] / 60:.1f} min of cloning" if final.get("cloned") else ""),
        flush=True,
    )
    references = reference_rows(run_dir)
    summary["references"] = references
    if args.ship:
        summary["shipped"] = ship_game(game, run_dir, result, references, out)
    if args.lookahead:
        summary["lookahead"] = run_lookahead(game, run_dir, config, env_kwargs, args, out, stem)
    if args.transfer and game.startswith("wordle"):
        summary["transfer"] = run_transfer(game, run_dir, env_kwargs, args, out)
    return summary


def saved_evaluation(path: Path, final: dict[str, Any]) -> EvaluationResult | None:
    """The saved evaluation at ``path`` if it is of the run that ``final`` (its final.json) describes.

    A finished run is identified by its steps and training wall time (a resumed or extended run
    changes both); the evaluation is deterministic, so replaying every answer again would give
    the same result.
    """
    if not path.is_file():
        return None
    saved = EvaluationResult.from_json(path)
    run = (saved.meta.get("training_steps"), saved.meta.get("training_wall_s"))
    return saved if run == (final["steps"], final["wall_time_s"]) else None


def reference_rows(run_dir: Path) -> list[dict[str, Any]]:
    """The baselines' and the optimum's means the run was measured against (its references.json)."""
    path = run_dir / "references.json"
    means = read_json(path, "reference means")["means"] if path.is_file() else {}
    return [{"agent": name, "mean_guesses": mean} for name, mean in means.items()]


def ship_game(game: str, run_dir: Path, result: EvaluationResult, references: list[dict[str, Any]],
              out: Path) -> dict[str, Any]:
    """Write ``agents/pretrained/<game>.{zip,json}`` and ``<out>/cards/<game>.md``."""
    from guessgym.agents.pretrained import card_markdown
    from guessgym.training.model_card import ship

    summary = (f"The guess policy trained by configs/{game}.toml: it scores every guess by its symbols and by how "
               "it splits the remaining candidates, with no parameter that belongs to a guess.")
    changes = ""
    old = SUPERSEDES.get(game)
    if old is not None:
        config = json.loads((run_dir / "config.json").read_text())
        summary = (f"The guess policy of configs/{old}.toml (the same architecture and split features, no parameter "
                   f"that belongs to a guess), trained by behaviour cloning from the optimal tree's moves on "
                   f"{100 * (1 - config['holdout']):.0f}% of the answers (configs/{game}.toml), with no "
                   "reinforcement learning after it.")
        old_card = read_json(_ROOT / "agents" / "pretrained" / f"{old}.json", "model card")
        old_wins = old_card["evaluation"]["win_rate"]
        references = [*references, {"agent": f"pretrained:{old} (PPO from a greedy start"
                                             + (f", {100 * old_wins:.2f}% wins)" if old_wins < 1 else ")"),
                                    "mean_guesses": old_card["evaluation"]["mean_guesses"]}]
        changes = (f"Supersedes `pretrained:{old}`, which stays shipped and unchanged: same architecture, features "
                   "and size, but its weights come from imitating the exact optimum's moves (behaviour cloning) "
                   f"instead of PPO from a greedy rule. "
                   "PPO after cloning made every game worse here (results/learned/cloned), so this model has none. "
                   "The answers held out of the cloning are reported apart above.")
    card = ship(run_dir, game, result, _ROOT / "agents" / "pretrained",
                reproduce=f"python scripts/train_results.py --games {game} --ship   # trains configs/{game}.toml",
                summary=summary, limits=LIMITS, references=references, changes=changes)
    (out / "cards").mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "cards" / f"{game}.md", card_markdown(card) + "\n")
    print(f"   shipped pretrained:{game} ({card['model_bytes'] / 1e6:.2f} MB)", flush=True)
    return {"name": f"pretrained:{game}", "bytes": card["model_bytes"], "sha256": card["model_sha256"]}


def run_lookahead(game: str, run_dir: Path, config: TrainConfig, env_kwargs: dict[str, Any],
                  args: argparse.Namespace, out: Path, stem: str) -> dict[str, Any]:
    """The policy plus rollouts over its ``--lookahead`` best guesses, on every answer."""
    from guessgym.agents.lookahead import LookaheadAgent

    agent = LookaheadAgent(load_agent(run_dir / "model.zip", name=f"learned-{game}"), top_k=args.lookahead)
    print(f"   evaluating {agent.name} on every answer", flush=True)
    started = time.perf_counter()
    result = evaluate(agent, config.env_id, env_kwargs=env_kwargs or None, progress=not args.no_progress,
                      record_guesses=True)
    result.meta.update({"policy": f"{run_dir}/model.zip", "top_k": args.lookahead, "rollout_games": agent.rollouts})
    result.to_json(out / f"{stem}-lookahead.json")
    plot_histogram(result, out / f"{stem}-lookahead.png")
    seconds = time.perf_counter() - started
    print(f"   {agent.name}: {100 * result.win_rate:.2f}% wins, {result.mean_guesses:.4f} guesses "
          f"({seconds:.0f} s, {agent.rollouts:,} rollout games)", flush=True)
    return {"agent": agent.name, "top_k": args.lookahead, "win_rate": result.win_rate,
            "mean_guesses": result.mean_guesses, "max_guesses": result.max_guesses,
            "distribution": {str(k): v for k, v in result.distribution.items()},
            "wall_s": round(seconds, 1), "rollout_games": agent.rollouts}


def run_transfer(game: str, run_dir: Path, env_kwargs: dict[str, Any], args: argparse.Namespace,
                 out: Path) -> dict[str, Any]:
    """The Wordle policy, not retrained, on the other Wordle lists, beside expected-size on each."""
    from guessgym.agents.registry import make_agent

    rows: dict[str, Any] = {}
    for word_list in TRANSFER_LISTS:
        kwargs = {**env_kwargs, "word_list": word_list}
        stem = game + (f"-{args.tag}" if args.tag else "")
        agent = load_agent(run_dir / "model.zip", name=f"learned-{stem} (trained on {env_kwargs.get('word_list')})")
        result = evaluate(agent, "guessgym/Wordle-v1", env_kwargs=kwargs, progress=not args.no_progress,
                          record_guesses=True)
        result.to_json(out / f"transfer-{stem}-{word_list}.json")
        baseline = evaluate(make_agent("expected-size"), "guessgym/Wordle-v1", env_kwargs=kwargs, progress=False)
        rows[word_list] = {"game": result.game, "answers": result.n_games, "win_rate": result.win_rate,
                           "mean_guesses": result.mean_guesses, "expected_size_win_rate": baseline.win_rate,
                           "expected_size_mean": baseline.mean_guesses}
        print(f"   transfer to {word_list}: {100 * result.win_rate:.2f}% wins, {result.mean_guesses:.4f} guesses "
              f"(expected-size {baseline.mean_guesses:.4f})", flush=True)
    return rows


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
    add_override_option(parser, "extra config override for every game (repeatable)")
    parser.add_argument("--tag", default="", help="a variant name: runs <game>-<tag>, writes learned-<game>-<tag>.*")
    parser.add_argument("--eval-only", action="store_true", help="evaluate finished runs without training")
    parser.add_argument("--reuse-evaluation", action="store_true",
                        help="with --eval-only: reuse the saved evaluation of the same finished run (e.g. to --ship "
                             "or add --lookahead without replaying every answer)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes for the evaluation")
    parser.add_argument("--ship", action="store_true", help="write the model and its card into agents/pretrained/")
    parser.add_argument("--lookahead", type=int, default=0, metavar="K",
                        help="also evaluate the policy plus rollouts over its K best guesses")
    parser.add_argument("--transfer", action="store_true",
                        help=f"also play Wordle policies on the lists {TRANSFER_LISTS} without retraining")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--report", action="store_true",
                        help="only rebuild leaderboard.md from the saved results (no training, no evaluation)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    bad = [g for g in games if g not in GAMES]
    if bad:
        parser.error(f"unknown game(s) {bad}; choose from {GAMES}")

    out = Path(args.out)
    summary_path = out / "summary.json"
    for game in [] if args.report else games:
        summary = run_game(game, args)
        # Runs of other games (other processes) may write it too: read, merge and write under a lock.
        with file_lock(out / ".summary.lock"):
            summaries: dict[str, Any] = read_json(summary_path, "summary") if summary_path.is_file() else {}
            summaries[game + (f"-{args.tag}" if args.tag else "")] = summary
            summaries["published_wordle_a2c"] = PUBLISHED_WORDLE
            atomic_write_text(summary_path, json.dumps(summaries, indent=2) + "\n")
    results = [EvaluationResult.from_json(p) for p in sorted(out.glob("learned-*.json"))]
    if results:
        text = "# Learned agents\n\n" + leaderboard(results, by_game=True) + "\n"
        transfers = [EvaluationResult.from_json(p) for p in sorted(out.glob("transfer-*.json"))]
        if transfers:
            text += ("\n## Transfer: Wordle policies on other word lists, not retrained\n\n"
                     + leaderboard(transfers, by_game=True) + "\n")
        atomic_write_text(out / "leaderboard.md", text)
    print(f"wrote {out}/")
    return 0


if __name__ == "__main__":
    script_main(main)
