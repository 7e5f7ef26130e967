"""The cloned policies' results: every answer, held-out answers, move analysis, transfer, ablations, curves.

Reads the runs of ``configs/<game>-cloned.toml`` (behaviour cloning from the optimum, no PPO: the
shipped ``pretrained:<game>-cloned``), of the same config with PPO after the cloning (``--tag
ppo``), and of the same architecture from a uniform start (``<game>-uniform``), and writes
``results/learned/cloned/README.md`` and one figure per game (``training-time-<game>.png``): per
game, the optimum, the best greedy rule, the PPO policy shipped before (``pretrained:<game>``), the
cloned policy, the cloned policy after PPO, and the uniform start, each on every answer and on the
answers the cloning never saw, with its move analysis (mean loss per move against the optimum,
:mod:`guessgym.evaluation.analysis`); then each Wordle policy moved without retraining to the other
lists whose optimum is known. Every figure is played here from the models on disk: the optimum and
the greedy rule through the shared loop (:func:`guessgym.evaluation.evaluate`), the policies by the
batched rollout (:func:`guessgym.evaluation.evaluate.evaluate_policy`, the same rules and games, as
tests/agents/test_lookahead.py checks), so the table is the models', not copied from a log.

Usage (from the repository root; the runs first, then this script, about 15 minutes here)::

    python scripts/train_results.py --games wordle-cloned,wordle-hard-cloned,nerdle-cloned --ship
    python scripts/cloning_results.py --commands     # prints the PPO-after-cloning and uniform-start runs
    python scripts/cloning_results.py
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from guessgym.agents.learned import load_model  # noqa: E402
from guessgym.agents.optima import known_optimum  # noqa: E402
from guessgym.agents.registry import make_agent  # noqa: E402
from guessgym.baselines.move_values import StateValues, ValuesTimedOut  # noqa: E402
from guessgym.envs.game import make_game  # noqa: E402
from guessgym.evaluation import evaluate  # noqa: E402
from guessgym.evaluation.analysis import analyze, game_of_result  # noqa: E402
from guessgym.evaluation.evaluate import evaluate_policy  # noqa: E402
from guessgym.evaluation.report import plot_training_time  # noqa: E402
from guessgym.evaluation.results import EvaluationResult  # noqa: E402
from guessgym.infra.atomic import atomic_write_text  # noqa: E402
from guessgym.infra.cache import cache_dir  # noqa: E402
from guessgym.training.config import TrainConfig  # noqa: E402
from guessgym.training.plots import read_csv  # noqa: E402
from guessgym.training.train import evaluation_answers, training_answers  # noqa: E402

#: game -> (env_id, game options, the best greedy rule by its total on every answer, config of the uniform start)
GAMES: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "wordle": ("guessgym/Wordle-v1", {"word_list": "nyt"}, "most-buckets", "wordle"),
    "wordle-hard": ("guessgym/Wordle-v1", {"word_list": "nyt", "hard_mode": True}, "expected-size", "wordle-hard"),
    "nerdle": ("guessgym/Nerdle-v1", {}, "most-buckets", "nerdle"),
}
#: A policy that loses more games than this is not judged move by move: its lost games wander
#: through states no optimal tree visits, each solved from scratch, and the loss per move of a
#: policy that cannot win says little.
MIN_ANALYSED_WINS = 0.99
#: The uniform start's PPO steps: about the wall time of cloning plus PPO after it, here.
UNIFORM_STEPS = {"wordle": 18_432, "wordle-hard": 32_768, "nerdle": 25_600}
TRANSFER = ("original", "nyt2023")
#: Seconds of exact solving allowed for one policy's move analysis (a policy far from the optimum
#: reaches states no tree visits, each solved from scratch).
ANALYSIS_BUDGET = 300.0


#: PPO's steps after cloning (the same rollout size as the PPO models: 32 games x 32 steps).
PPO_STEPS = {"wordle": 25_000, "wordle-hard": 25_000, "nerdle": 10_000}


def proven_optimum(game: Any) -> bool:
    """Whether the optimum the analysis measures against is proven over every tree (the shipped
    tree's total equals its proven lower bound)."""
    known = known_optimum(game)
    return known is not None and known.lower_bound == known.total


def ablation_commands(name: str) -> list[str]:
    """The training commands of the ablations: PPO after the shipped cloning config, and PPO from a
    uniform start (no greedy prior) for about as long as cloning and PPO together."""
    ppo, uniform = PPO_STEPS[name], UNIFORM_STEPS[name]
    return [f"guessgym train --config configs/{name}-cloned.toml --set run_name={name}-cloned-ppo "
            f"--set log_dir=runs/results --set total_steps={ppo} --set eval_every={ppo // 2} "
            f"--set checkpoint_every={ppo // 2}",
            f"guessgym train --config configs/{GAMES[name][3]}.toml --set run_name={name}-uniform "
            f"--set log_dir=runs/results --set 'split_prior={{}}' --set candidate_prior=0 --set total_steps={uniform} "
            f"--set eval_every={uniform // 2} --set checkpoint_every={uniform // 2}"]


def totals(result: EvaluationResult, answers: list[str] | None = None) -> str:
    chosen = result if answers is None else result.subset(answers)
    lost = chosen.n_failed
    return f"{chosen.total_guesses:,}" + (f" ({lost} lost)" if lost else "")


def policy_result(model: Any, env_id: str, options: dict[str, Any], label: str) -> EvaluationResult:
    """The greedy policy of ``model`` on every answer of the game ``env_id`` with ``options``, by the
    batched rollout, with its moves (the policy is pointed at that game: no parameter is a guess's)."""
    game = make_game(env_id, **options)
    model.policy.set_game(game)
    model.policy.set_answer_pool(None)
    return evaluate_policy(model.policy, game, name=label, record_guesses=True, env_id=env_id, env_kwargs=options)


def move_analysis(result: EvaluationResult, values: StateValues) -> tuple[str, str] | None:
    """(mean loss per move, share of best moves) as table cells; None when solving the states took
    longer than :data:`ANALYSIS_BUDGET` (``values`` is then spent)."""
    started = time.perf_counter()
    try:
        summary = analyze(result, values=values, time_budget=ANALYSIS_BUDGET).summary(mistakes=0)
    except ValuesTimedOut:
        return None
    print(f"   analysed {result.agent} in {time.perf_counter() - started:.0f} s", flush=True)
    return f"{summary['mean_loss_per_move']:.4f}", f"{100 * summary['best_move_share']:.2f}%"


def transfer_losses(result: EvaluationResult, values: dict[str, StateValues | None]) -> str:
    """Where a transferred policy loses against the other list's optimum: the mean loss of its
    first, second and third moves (a policy that loses games is not analysed, nor a list whose
    states took longer than :data:`ANALYSIS_BUDGET` to solve once)."""
    if result.n_failed:
        return "-"
    game = game_of_result(result)
    if game.name not in values:
        values[game.name] = StateValues(game, cache_dir=cache_dir())
    judge = values[game.name]
    if judge is None:
        return f"not analysed (over {ANALYSIS_BUDGET:.0f} s)"
    started = time.perf_counter()
    try:
        summary = analyze(result, values=judge, time_budget=ANALYSIS_BUDGET).summary(mistakes=0)
    except ValuesTimedOut:
        values[game.name] = None
        return f"not analysed (over {ANALYSIS_BUDGET:.0f} s)"
    print(f"   analysed {result.agent} on {game.name} in {time.perf_counter() - started:.0f} s", flush=True)
    judge.save()
    by_move = summary["loss_by_move"]
    return " / ".join(f"{by_move.get(n, 0.0):.4f}" for n in (1, 2, 3))


def run_gap(run: Path, game: Any, optimal: EvaluationResult) -> float:
    """The optimum's mean guesses on the run's evaluation answers (what its curve is measured against)."""
    config = TrainConfig.from_dict(json.loads((run / "config.json").read_text()))
    return optimal.subset([game.answers[int(a)] for a in evaluation_answers(config, game)]).mean_guesses


def curve_points(run: Path, game: Any, optimal: EvaluationResult,
                 offset: float = 0.0) -> list[tuple[float, float, float | None]]:
    """The run's greedy evaluations on its in-training evaluation answers (its final all-answer row,
    on another set, left out): (seconds, win rate, mean guesses above the optimum's on those answers)."""
    rows = read_csv(run / "eval.csv")
    if not rows:
        return []
    games, base = rows[0]["games"], run_gap(run, game, optimal)
    return [(offset + float(r["wall_time_s"]), float(r["win_rate"]),
             float(r["mean_guesses"]) - base if r["mean_guesses"] else None) for r in rows if r["games"] == games]


def cloning_points(run: Path, game: Any, optimal: EvaluationResult) -> list[tuple[float, float, float | None]]:
    base = run_gap(run, game, optimal)
    return [(float(r["wall_time_s"]), float(r["eval_win_rate"]), float(r["eval_mean_guesses"]) - base)
            for r in read_csv(run / "cloning.csv")]


def game_section(name: str, runs: Path, out: Path, transfer_rows: list[str],
                 transfer_values: dict[str, StateValues | None], analyse: bool) -> list[str]:
    env_id, options, greedy, _ = GAMES[name]
    game = make_game(env_id, **options)
    cloned, ppo, uniform = runs / f"{name}-cloned", runs / f"{name}-cloned-ppo", runs / f"{name}-uniform"
    if not (cloned / "final.json").is_file():
        return [f"## {name}", "", f"Not run yet: `{cloned}` has no final.json.", ""]
    config = TrainConfig.from_dict(json.loads((cloned / "config.json").read_text()))
    _, held_idx = training_answers(config, game)
    held = [game.answers[int(a)] for a in held_idx]
    clone_summary = json.loads((cloned / "cloning" / "summary.json").read_text())
    values = StateValues(game, cache_dir=cache_dir())

    print(f"== {name}: the optimum and {greedy} through the shared loop", flush=True)
    rows: list[tuple[str, str, EvaluationResult]] = [
        ("optimal", "", evaluate(make_agent("optimal"), env_id, env_kwargs=options, record_guesses=True)),
        (f"{greedy} (best greedy rule)", "", evaluate(make_agent(greedy), env_id, env_kwargs=options,
                                                      record_guesses=True))]
    models: list[tuple[str, str, Path]] = []
    shipped = ROOT / "agents" / "pretrained"
    if (shipped / f"{name}.zip").is_file():
        card = json.loads((shipped / f"{name}.json").read_text())
        models.append((f"pretrained:{name} (PPO from a greedy start)",
                       f"{card['training']['wall_time_s'] / 60:.0f} min PPO", shipped / f"{name}.zip"))
    cloned_model = shipped / f"{name}-cloned.zip"
    if not cloned_model.is_file():
        cloned_model = cloned / "model.zip"
    models.append((f"pretrained:{name}-cloned (cloned, no PPO)",
                   f"{clone_summary['wall_time_s']:.0f} s cloning", cloned_model))
    ppo_final = json.loads((ppo / "final.json").read_text()) if (ppo / "final.json").is_file() else None
    if ppo_final is not None:
        own = json.loads((ppo / "cloning" / "summary.json").read_text())["wall_time_s"]  # its own cloning stage
        models.append((f"cloned, then {ppo_final['steps']:,} PPO steps",
                       f"{own:.0f} s + {ppo_final['wall_time_s']:.0f} s", ppo / "model.zip"))
    uniform_final = json.loads((uniform / "final.json").read_text()) if (uniform / "final.json").is_file() else None
    if uniform_final is not None:
        models.append((f"uniform start, {uniform_final['steps']:,} PPO steps",
                       f"{uniform_final['wall_time_s']:.0f} s", uniform / "model.zip"))
    for label, training, path in models:
        print(f"== {name}: {label}", flush=True)
        model = load_model(path, game=game)
        rows.append((label, training, policy_result(model, env_id, options, label)))
        for other in TRANSFER if name.startswith("wordle") else ():
            result = policy_result(model, env_id, {**options, "word_list": other}, label)
            losses = f" {transfer_losses(result, transfer_values)} |" if analyse else ""
            transfer_rows.append(f"| {name} | {label} | {other} ({result.n_games:,} answers) | "
                                 f"{totals(result)} |{losses}")

    lines = [f"## {name} ({len(game.answers):,} answers, {len(held):,} held out of the cloning)", "",
             f"Cloning: {clone_summary['epochs']} epochs over {clone_summary['states']:,} states of the optimal "
             f"games on {clone_summary['train_answers']:,} answers, {clone_summary['wall_time_s']:.0f} s here "
             "(2 cores, 1 torch thread, with other runs on them; the same stage of the PPO run: its own time).", "",
             "| policy | training here | every answer | held out | loss per move | best moves |",
             "|---|---|---:|---:|---:|---:|"]
    for label, training, result in rows:
        print(f"   move analysis: {label}", flush=True)
        if result.win_rate < MIN_ANALYSED_WINS:
            lines.append(f"| {label} | {training} | {totals(result)} | {totals(result, held)} | not analysed: "
                         f"wins {100 * result.win_rate:.2f}% | |")
            continue
        cells = move_analysis(result, values)
        if cells is None:
            values = StateValues(game, cache_dir=cache_dir())  # the timed-out one is spent
            cells = (f"not analysed (solving its states took over {ANALYSIS_BUDGET:.0f} s)", "")
        loss, best = cells
        lines.append(f"| {label} | {training} | {totals(result)} | {totals(result, held)} | {loss} | {best} |")
    values.save()
    lines += ["", "*Loss per move*: the expected guesses a move costs beyond the best move in its state, averaged "
              "over every move of every game (`guessgym analyze`); *best moves*: the share of moves that lose "
              "nothing." + ("" if proven_optimum(game) else " The optimum's first move is the best known tree's, "
                            "not proven optimal, so a loss here is against that tree."), ""]
    optimal = rows[0][2]
    source = ppo if ppo_final else cloned
    series = {"cloning (each epoch)": cloning_points(source, game, optimal)}
    if ppo_final is not None:
        own = json.loads((ppo / "cloning" / "summary.json").read_text())["wall_time_s"]
        series["PPO after cloning"] = curve_points(ppo, game, optimal, offset=own)
    if uniform_final is not None:
        series["uniform start, PPO"] = curve_points(uniform, game, optimal)
    refs = {label.split(" (")[0] + " (every answer)": r.mean_guesses - optimal.mean_guesses
            for label, _, r in rows[1:3]}
    figure = out / f"training-time-{name}.png"
    plot_training_time(figure, f"{name}: cloning from the optimum, PPO after it, PPO from a uniform start", series,
                       references=refs, note="greedy policy on each run's evaluation answers (the training "
                                             "answers, or a fixed sample of them)",
                       guesses_label="guesses per win above the optimum's", min_win_rate=MIN_ANALYSED_WINS)
    lines += [f"![{name}: win rate and mean guesses against training wall time]({figure.name})", ""]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs-dir", type=Path, default=ROOT / "runs" / "results")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "learned" / "cloned")
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--commands", action="store_true", help="print the ablation runs' training commands")
    parser.add_argument("--transfer-analysis", action="store_true",
                        help="also judge the transferred policies' moves against the other lists' optima (nyt2023's "
                             "states off its optimal tree take the exact solver a long time: issue 28)")
    args = parser.parse_args()
    commands = [c for name in args.games for c in ablation_commands(name)]
    if args.commands:
        print("\n".join(commands))
        return 0
    started = time.perf_counter()
    lines = ["# Policies cloned from the optimum", "",
             "Made by `python scripts/cloning_results.py`. Every figure is the total number of guesses of the "
             "greedy policy (pure policy, no lookahead) over the answers named, a lost game counting 7 (the "
             "attempts + 1; lost games in brackets), played here from the model files; *held out*: the answers "
             "the cloning never trained on (`holdout = 0.1`, a split seeded by the config's seed). The cloned "
             "models are the shipped ones (`python scripts/train_results.py --games "
             "wordle-cloned,wordle-hard-cloned,nerdle-cloned --ship`, configs/<game>-cloned.toml); the ablations "
             "are PPO after the same cloning, and the same architecture trained by PPO from a uniform start "
             "(no greedy prior) for about the wall time of cloning and PPO together:", "", "```", *commands, "```",
             ""]
    transfer_rows: list[str] = []
    transfer_values: dict[str, StateValues | None] = {}
    for name in args.games:
        lines += game_section(name, args.runs_dir, args.out, transfer_rows, transfer_values, args.transfer_analysis)
    if transfer_rows:
        analysed = args.transfer_analysis
        lines += ["## Transfer without retraining", "",
                  "Each Wordle policy scores another list's guesses with the weights it learned on `nyt`; the optima "
                  "of these lists are 7,920 (`original`) and 11,219 (`nyt2023`, results/optimal)."
                  + (" *Loss by move*: the mean loss of the policy's first, second and third moves against that "
                     "list's optimal play (the move analysis; for policies that win every game)." if analysed else ""),
                  "", "| trained on | policy | list | guesses |"
                  + (" loss by move (1st / 2nd / 3rd) |" if analysed else ""),
                  "|---|---|---|---:|" + ("---|" if analysed else ""), *transfer_rows, ""]
    lines.append(f"Wall time of this script here: {time.perf_counter() - started:.0f} s "
                 f"(`--games {' '.join(args.games)}`).")
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / "README.md", "\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
