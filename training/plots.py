"""Learning-curve plots of a training run (``curve.png`` in the run folder, and the results' figures).

Read from the run's ``eval.csv`` (greedy evaluations) and ``curve.csv`` (training rollouts);
the mean-guesses panel draws reference means as horizontal lines (the baselines named in the
config's ``references``, and the optimum when the game has a shipped one), so a curve shows at a
glance how far the policy is from each. Needs matplotlib (the ``plots`` extra).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from ..infra.atomic import atomic_path

_REFERENCE_COLOURS = ["#222222", "#787c7e", "#3b73b5", "#b53b6e", "#3bb58a", "#8a3bb5"]


def read_csv(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def plot_curve(run_dir: Path, title: str, path: Path, references: dict[str, float] | None = None) -> Path | None:
    """Learning curve: greedy evaluations and training rollouts (win rate), and mean guesses with
    ``references`` (label -> mean guesses: the baselines', the optimum's) as horizontal lines.
    Written atomically; ``None`` when the run has no rows yet."""
    evals = read_csv(run_dir / "eval.csv")
    curve = read_csv(run_dir / "curve.csv")
    if not evals and not curve:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_win, ax_guess) = plt.subplots(1, 2, figsize=(11, 4))
    if curve:
        steps = [int(r["step"]) for r in curve]
        ax_win.plot(
            steps,
            [100 * float(r["win_rate"]) for r in curve],
            color="#bbbbbb",
            lw=1,
            label="training games (sampled policy)",
        )
    if evals:
        steps = [int(r["step"]) for r in evals]
        ax_win.plot(
            steps,
            [100 * float(r["win_rate"]) for r in evals],
            "o-",
            color="#6aaa64",
            label="greedy policy (evaluation)",
        )
        guesses = [(int(r["step"]), float(r["mean_guesses"])) for r in evals if r["mean_guesses"]]
        if guesses:
            ax_guess.plot(*zip(*guesses), "o-", color="#c9b458")
        wall = [float(r["wall_time_s"]) / 60 for r in evals]
        if len(wall) > 1:
            to_minutes = lambda s, w=wall, st=steps: _interp(s, st, w)  # noqa: E731
            to_steps = lambda m, w=wall, st=steps: _interp(m, w, st)  # noqa: E731
            top = ax_win.secondary_xaxis("top", functions=(to_minutes, to_steps))
            top.set_xlabel("training wall time (minutes)")
    config_path = run_dir / "config.json"
    if config_path.is_file():  # mark the curriculum stages: training games drew from fewer answers
        end = 0
        last = max([int(r["step"]) for r in evals + curve] or [0])
        for answers, stage_steps in (_stage_pair(s) for s in json.loads(config_path.read_text()).get("curriculum", [])):
            end += stage_steps
            if end > last:
                break
            for ax in (ax_win, ax_guess):
                ax.axvline(end, color="#888888", ls=":", lw=1)
            ax_win.annotate(
                f"end of {answers}-answer stage",
                (end, 0.35),
                xycoords=("data", "axes fraction"),
                rotation=90,
                fontsize=7,
                color="#666666",
                ha="right",
            )
    ax_win.set_xlabel("environment steps")
    ax_win.set_ylabel("win rate (%)")
    ax_win.legend(loc="lower right")
    ax_win.grid(alpha=0.3)
    for (label, mean), colour in zip(sorted((references or {}).items(), key=lambda kv: kv[1]), _REFERENCE_COLOURS):
        ax_guess.axhline(mean, color=colour, ls="--", lw=1, label=f"{label} ({mean:.4f})")
    if references:
        ax_guess.legend(loc="upper right", fontsize=8)
    ax_guess.set_xlabel("environment steps")
    ax_guess.set_ylabel("mean guesses per win (greedy)")
    ax_guess.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=110)
    plt.close(fig)
    return path


def _stage_pair(stage: Any) -> tuple[int, int]:
    if isinstance(stage, dict):
        return int(stage["answers"]), int(stage["steps"])
    return int(stage[0]), int(stage[1])


def _interp(x: Any, xp: list[float], fp: list[float]) -> Any:
    import numpy as np

    return np.interp(x, xp, fp)


__all__ = ["plot_curve", "read_csv"]
