"""The cloned policies' results: every answer, held-out answers, transfer, and the ablations.

Reads the runs that ``scripts/train_results.py --tag cloned`` (and ``--tag uniform``) trained, and
writes ``results/learned/cloned/README.md``: per game, the optimum, the best greedy rule, the shipped
PPO policy, the cloned policy before PPO (its last cloning checkpoint, ``cloning/epoch-N/model.zip``)
and after PPO (the run's ``model.zip``), each on every answer and on the held-out ones, and a
policy of the same architecture from a uniform start trained for about the same time; then each
Wordle policy moved without retraining to the other lists whose optimum is known. Every figure is
played here by the batched rollout (:func:`guessgym.agents.rollout.play_batched`, the rules of every
loop) from the models on disk, so the table is the models', not copied from a log.

Usage (from the repository root, after the runs; a few minutes, classic Nerdle's rows most of it)::

    python scripts/train_results.py --games wordle --tag cloned --set clone_epochs=4 --set holdout=0.1 \\
        --set total_steps=25000 --set eval_every=12500 --set checkpoint_every=12500 --transfer \\
        --out results/learned/cloned --no-progress
    python scripts/cloning_results.py
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from guessgym.agents.learned import load_model  # noqa: E402
from guessgym.agents.registry import make_agent  # noqa: E402
from guessgym.envs.game import make_game  # noqa: E402
from guessgym.evaluation import evaluate  # noqa: E402
from guessgym.infra.atomic import atomic_write_text  # noqa: E402
from guessgym.training.checkpoints import latest_checkpoint  # noqa: E402
from guessgym.training.cloning import greedy_guesses  # noqa: E402
from guessgym.training.config import TrainConfig  # noqa: E402
from guessgym.training.train import training_answers  # noqa: E402

#: game -> (env_id, game options, the best greedy rule by its total on every answer)
GAMES = {"wordle": ("guessgym/Wordle-v1", {"word_list": "nyt"}, "most-buckets"),
         "wordle-hard": ("guessgym/Wordle-v1", {"word_list": "nyt", "hard_mode": True}, "expected-size"),
         "nerdle": ("guessgym/Nerdle-v1", {}, "most-buckets")}
TRANSFER = ("original", "nyt2023")


def totals(guesses: np.ndarray, answers: np.ndarray | None = None) -> str:
    chosen = guesses if answers is None else guesses[answers]
    lost = int((chosen == 0).sum())
    return f"{int(chosen.sum()):,}" + (f" ({lost} lost)" if lost else "")


def agent_guesses(name: str, game: Any) -> np.ndarray:
    result = evaluate(make_agent(name), game)
    index = {r.answer: r for r in result.records}
    return np.array([index[a].guesses if index[a].solved else 0 for a in game.answers])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs-dir", type=Path, default=ROOT / "runs" / "results")
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    args = parser.parse_args()
    started = time.perf_counter()
    lines = ["# Policies cloned from the optimum", "",
             "Made by `python scripts/cloning_results.py` from the runs of `scripts/train_results.py --tag cloned` "
             "(and `--tag uniform`), whose commands are below. Every figure is the total number of guesses of the "
             "greedy policy (pure policy, no lookahead) over the games it won among the answers named (lost games "
             "in brackets, not counted), played here from the model files; "
             "*held out*: the answers the run never trained on (`holdout = 0.1`, seeded).", ""]
    transfer_rows: list[str] = []
    for name in args.games:
        env_id, options, greedy = GAMES[name]
        game = make_game(env_id, **options)
        run = args.runs_dir / f"{name}-cloned"
        if not (run / "final.json").is_file():
            lines += [f"## {name}", "", f"Not run yet: `{run}` has no final.json.", ""]
            continue
        config = TrainConfig.from_dict(json.loads((run / "config.json").read_text()))
        _, held = training_answers(config, game)
        final = json.loads((run / "final.json").read_text())
        cloned_path = latest_checkpoint(run, "cloning", "epoch-")
        models = {"cloned, before PPO": cloned_path / "model.zip" if cloned_path else None,
                  f"cloned, after {final['steps']:,} PPO steps": run / "model.zip"}
        uniform = args.runs_dir / f"{name}-uniform"
        if (uniform / "final.json").is_file():
            steps = json.loads((uniform / "final.json").read_text())["steps"]
            models[f"uniform start, {steps:,} PPO steps"] = uniform / "model.zip"
        shipped = ROOT / "agents" / "pretrained" / f"{name}.zip"
        rows = [("optimal", agent_guesses("optimal", game)),
                (f"{greedy} (best greedy rule)", agent_guesses(greedy, game))]
        if shipped.is_file():
            rows.append((f"shipped pretrained:{name} (PPO from a greedy start)",
                         greedy_guesses(load_model(shipped, game=game), game, np.arange(len(game.answers)))))
        for label, path in models.items():
            if path is not None and path.is_file():
                model = load_model(path, game=game)
                rows.append((label, greedy_guesses(model, game, np.arange(len(game.answers)))))
                if name.startswith("wordle"):
                    for other in TRANSFER:
                        moved = make_game(env_id, **{**options, "word_list": other})
                        model.policy.set_game(moved)
                        guesses = greedy_guesses(model, moved, np.arange(len(moved.answers)))
                        transfer_rows.append(f"| {name} | {label} | {other} ({len(moved.answers):,} answers) | "
                                             f"{totals(guesses)} |")
                        model.policy.set_game(game)
        cloning = json.loads((run / "cloning" / "summary.json").read_text())
        lines += [f"## {name} ({len(game.answers):,} answers, {len(held):,} held out)", "",
                  f"Cloning: {cloning['epochs']} epochs over {cloning['states']:,} states of the optimal games on "
                  f"{cloning['train_answers']:,} answers, {cloning['wall_time_s']:.0f} s; PPO after it: "
                  f"{final['steps']:,} steps, {final['wall_time_s']:.0f} s (on these 2 cores, 1 torch thread).", "",
                  "| policy | every answer | held out |", "|---|---:|---:|"]
        lines += [f"| {label} | {totals(g)} | {totals(g, held)} |" for label, g in rows]
        lines += ["", f"Command: `python scripts/train_results.py --games {name} --tag cloned "
                      f"--set clone_epochs={config.clone_epochs} --set holdout={config.holdout} "
                      f"--set total_steps={config.total_steps} ... --out results/learned/cloned`", ""]
    if transfer_rows:
        lines += ["## Transfer without retraining", "",
                  "Each Wordle policy scores another list's guesses with the weights it learned on `nyt`; the optima "
                  "of these lists are 7,920 (`original`) and 11,219 (`nyt2023`, results/optimal).", "",
                  "| trained on | policy | list | guesses |", "|---|---|---|---:|", *transfer_rows, ""]
    lines.append(f"Wall time of this script here: {time.perf_counter() - started:.0f} s.")
    atomic_write_text(ROOT / "results" / "learned" / "cloned" / "README.md", "\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
