"""The learning curve of a training run (``curve.png`` in the run folder, and the results' figures).

Reads the run's ``eval.csv`` (greedy evaluations) and ``curve.csv`` (training rollouts) and hands
them to the one report module (:func:`guessgym.evaluation.report.plot_learning_curve`), which draws
them. Needs matplotlib (the ``plots`` extra).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any


def read_csv(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def plot_curve(run_dir: Path, title: str, path: Path, references: dict[str, float] | None = None) -> Path | None:
    """Learning curve of the run in ``run_dir`` (its ``eval.csv`` and ``curve.csv``, the curriculum
    stages of its ``config.json``), drawn by :func:`guessgym.evaluation.report.plot_learning_curve`.
    Written atomically; ``None`` when the run has no rows yet."""
    from ..evaluation.report import plot_learning_curve

    evals = read_csv(run_dir / "eval.csv")
    curve = read_csv(run_dir / "curve.csv")
    if not evals and not curve:
        return None
    stages: list[tuple[int, int]] = []
    config_path = run_dir / "config.json"
    if config_path.is_file():  # the curriculum stages: training games drew from fewer answers
        end = 0
        for answers, stage_steps in (_stage_pair(s) for s in json.loads(config_path.read_text()).get("curriculum", [])):
            end += stage_steps
            stages.append((end, answers))
    return plot_learning_curve(
        path, title, references=references, stage_ends=stages,
        rollouts=[(int(r["step"]), float(r["win_rate"])) for r in curve],
        evaluations=[(int(r["step"]), float(r["win_rate"]), float(r["mean_guesses"]) if r["mean_guesses"] else None,
                      float(r["wall_time_s"])) for r in evals],
    )


def _stage_pair(stage: Any) -> tuple[int, int]:
    if isinstance(stage, dict):
        return int(stage["answers"]), int(stage["steps"])
    return int(stage[0]), int(stage[1])


__all__ = ["plot_curve", "read_csv"]
