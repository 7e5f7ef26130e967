"""Ship a finished training run as a pretrained model: the slimmed model zip and its model card.

:func:`ship` turns a run directory (``model.zip`` + ``final.json`` + ``config.json``) and the
evaluation of its model over every answer into the two files of
:mod:`guessgym.agents.pretrained`: ``NAME.zip`` (the model without the optimizer's state) and
``NAME.json`` (the card). Both are written atomically; the zip's SHA-256 and size go into the
card, so a truncated or altered file is refused when loaded.
"""

from __future__ import annotations

import hashlib
import io
import json
import platform
from pathlib import Path
from typing import Any

from ..agents.learned import algorithm_name, load_model
from ..agents.model_files import save_model
from ..agents.policies import count_parameters
from ..envs.game import GAME_KEYS, Game
from ..evaluation.results import EvaluationResult
from ..infra.atomic import atomic_write_bytes, atomic_write_text


def slim_model_bytes(run_model: Path) -> tuple[bytes, Any]:
    """The model zip without the optimizer's moments (a fresh optimizer of the same kind and
    learning rate is saved instead: about a third of the size), and the loaded model."""
    model = load_model(run_model)
    policy = model.policy
    lr = policy.optimizer.param_groups[0]["lr"]
    optimizer_class: Any = policy.optimizer_class  # Adam by default: takes lr
    policy.optimizer = optimizer_class(policy.parameters(), lr=lr, **policy.optimizer_kwargs)
    buffer = io.BytesIO()
    save_model(model, buffer)
    return buffer.getvalue(), model


def answer_string(result: EvaluationResult, game: Game) -> str:
    """Every answer's number of guesses, in the game's answer order, as one character each
    (``1``-``9``, ``X`` for a lost game): the card's record that a sample can be checked against."""
    by_answer = {r.answer: r for r in result.records}
    missing = [a for a in game.answers if a not in by_answer]
    if missing:
        raise ValueError(f"the evaluation did not play every answer ({len(missing)} missing, e.g. {missing[0]!r})")
    chars = []
    for answer in game.answers:
        record = by_answer[answer]
        if record.solved and record.guesses > 9:
            raise ValueError("answer strings hold at most 9 guesses per game")
        chars.append(str(record.guesses) if record.solved else "X")
    return "".join(chars)


def held_out_answers(config: dict[str, Any], game: Game) -> list[str]:
    """The answers a run with ``config`` (its config.json) never trained on (none without ``holdout``)."""
    from .config import TrainConfig
    from .train import training_answers

    _, held = training_answers(TrainConfig.from_dict(config), game)
    return [game.answers[int(a)] for a in held]


def ship(run_dir: str | Path, name: str, result: EvaluationResult, dest: str | Path, *, reproduce: str,
         summary: str = "", limits: str = "", references: list[dict[str, Any]] | None = None,
         changes: str = "") -> dict[str, Any]:
    """Write ``dest/NAME.zip`` and ``dest/NAME.json`` for the finished run ``run_dir``.

    Args:
        run_dir: a completed run (``final.json`` and ``model.zip``).
        name: the shipped name (``pretrained:NAME``).
        result: the model's evaluation over every answer of its game (the shared loop).
        dest: the folder of shipped models (``agents/pretrained``).
        reproduce: the command that reproduces the model and this evaluation.
        summary, limits: a sentence on what the model is, and what it cannot promise.
        references: ``{"agent", "mean_guesses"}`` rows to compare with on the card.
        changes: what this model changes against the one it supersedes (empty for a first model).

    A run with a cloning stage (``clone_epochs``) adds the stage to the card's training (epochs,
    states, answers, wall time, which the training wall time includes), and a run that held answers
    out (``holdout``) adds the evaluation on those answers alone (``evaluation["held_out"]``).

    Returns:
        The card.
    """
    run_dir, dest = Path(run_dir), Path(dest)
    final = json.loads((run_dir / "final.json").read_text())
    config = json.loads((run_dir / "config.json").read_text())
    data, model = slim_model_bytes(run_dir / "model.zip")
    game: Game = model.policy.game
    if result.n_games != len(game.answers):
        raise ValueError(f"the card needs the evaluation over every answer ({len(game.answers)}), got {result.n_games}")
    numerics = final.get("numerics") or {}
    cloning = final.get("cloned")
    wall = final["wall_time_s"] + (cloning["wall_time_s"] if cloning else 0.0)
    card: dict[str, Any] = {
        "name": name,
        "summary": summary,
        "env_id": config["env_id"],
        "env_kwargs": {k: v for k, v in config.get("env_kwargs", {}).items() if k in GAME_KEYS},
        "game": game.name,
        "fingerprint": game.fingerprint,
        "hard_mode": bool(game.hard_mode),
        "algorithm": algorithm_name(model),
        "parameters": count_parameters(model.policy),
        "model_sha256": hashlib.sha256(data).hexdigest(),
        "model_bytes": len(data),
        "evaluation": {
            "games": result.n_games,
            "win_rate": result.win_rate,
            "mean_guesses": result.mean_guesses,
            "max_guesses": result.max_guesses,
            "distribution": {str(k): v for k, v in result.distribution.items()},
            "answer_guesses": answer_string(result, game),
        },
        "references": references or [],
        "training": {
            "config": config,
            "steps": final["steps"],
            "wall_time_s": round(wall, 3),
            "steps_per_s": final["steps_per_s"],
            "cloning": None if cloning is None else {k: cloning[k] for k in ("epochs", "states", "train_answers",
                                                                           "wall_time_s")},
            "stopped": "target reached at step {:,}".format(final["target"]["reached_at_step"])
            if final.get("target") else "budget spent",
            "finished_at": final.get("finished_at"),
            "hardware": f"{numerics.get('cpu', platform.processor())}, {numerics.get('torch_threads', '?')} torch "
                        f"thread(s) ({numerics.get('machine', platform.machine())})",
            "numerics": f"{numerics.get('numerics', 'native')} (ATen {numerics.get('aten_cpu_capability', '?')}, "
                        f"MKL_CBWR {numerics.get('mkl_cbwr', '?')})",
            "versions": {"python": numerics.get("python", platform.python_version()),
                         **{k: v for k, v in (numerics.get("libraries") or {}).items() if v}},
        },
        "reproduce": reproduce,
        "limits": limits,
        "changes": changes,
    }
    held_out = held_out_answers(config, game)
    if held_out:
        part = result.subset(held_out)
        card["evaluation"]["held_out"] = {"games": part.n_games, "win_rate": part.win_rate,
                                          "mean_guesses": part.mean_guesses, "total_guesses": part.total_guesses}
    dest.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(dest / f"{name}.zip", data)
    atomic_write_text(dest / f"{name}.json", json.dumps(card, indent=1) + "\n")
    return card


def ship_general(run_dir: str | Path, name: str, result: EvaluationResult, dest: str | Path, *, reproduce: str,
                 summary: str = "", limits: str = "", references: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """:func:`ship` for a general run (:mod:`guessgym.training.general`: ``summary.json``, ``config.json``,
    ``model.zip``): the card's game is the run's reference list, its training the DAgger iterations."""
    from .numerics import describe_numerics, pin_numerics

    run_dir, dest = Path(run_dir), Path(dest)
    done = json.loads((run_dir / "summary.json").read_text())
    config = json.loads((run_dir / "config.json").read_text())
    if "numerics" not in done:  # a run's own record; else the same pinned paths described here
        pin_numerics(config["numerics"])
    numerics = done.get("numerics") or describe_numerics(config["numerics"])
    data, model = slim_model_bytes(run_dir / "model.zip")
    game: Game = model.policy.game
    if result.n_games != len(game.answers):
        raise ValueError(f"the card needs the evaluation over every answer ({len(game.answers)}), got {result.n_games}")
    card: dict[str, Any] = {
        "name": name, "summary": summary, "env_id": "guessgym/Wordle-v1",
        "env_kwargs": {"word_list": config["reference_list"]}, "game": game.name, "fingerprint": game.fingerprint,
        "hard_mode": False, "algorithm": algorithm_name(model), "parameters": count_parameters(model.policy),
        "model_sha256": hashlib.sha256(data).hexdigest(), "model_bytes": len(data),
        "evaluation": {"games": result.n_games, "win_rate": result.win_rate, "mean_guesses": result.mean_guesses,
                       "max_guesses": result.max_guesses,
                       "distribution": {str(k): v for k, v in result.distribution.items()},
                       "answer_guesses": answer_string(result, game)},
        "references": references or [],
        "training": {
            "config": config, "steps": 0, "wall_time_s": done["wall_time_s"], "steps_per_s": 0.0, "cloning": None,
            "general": {k: done[k] for k in ("iterations", "games", "states")},
            "stopped": "every iteration done",
            "hardware": f"{numerics.get('cpu', platform.processor())}, "
                        f"{numerics.get('torch_threads', config['torch_threads'])} torch thread(s) "
                        f"({numerics.get('machine', platform.machine())})",
            "numerics": f"{config['numerics']} (ATen {numerics.get('aten_cpu_capability', '?')}, "
                        f"MKL_CBWR {numerics.get('mkl_cbwr', '?')})",
            "versions": {"python": platform.python_version(),
                         **{k: v for k, v in (numerics.get("libraries") or {}).items() if v}},
        },
        "reproduce": reproduce, "limits": limits, "changes": "",
    }
    dest.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(dest / f"{name}.zip", data)
    atomic_write_text(dest / f"{name}.json", json.dumps(card, indent=1) + "\n")
    return card


__all__ = ["answer_string", "held_out_answers", "ship", "ship_general", "slim_model_bytes"]
