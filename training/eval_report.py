"""What each in-training evaluation tells the user: a table row against references, and the curve.

:class:`EvalReport` is called by :class:`~guessgym.training.callbacks.EvalCallback` after every
evaluation of the greedy policy. It prints one row of a table (``guessgym train`` turns printing
on): the step, the games played, the win rate, the mean guesses, the distance from the best
reference baseline (in mean guesses), *vs optimum* (extra guesses over the optimal tree on the
same answers, the definition every report uses, a sample marked as one), and the training time
so far; and it redraws
``curve.png`` in the run folder with the references as horizontal lines (when matplotlib is
installed). The references are the means of the baselines named in the config's ``references``
over every answer, played once through the shared evaluation loop and kept in the run folder
(``references.json``), plus the optimal tree's mean when the game has a shipped one.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..envs.game import Game
from ..evaluation.formatting import format_gap
from ..infra.atomic import atomic_write_text

logger = logging.getLogger(__name__)


def reference_means(game: Game, names: Sequence[str], run_dir: Path) -> dict[str, float]:
    """Mean guesses over every answer of each named baseline, and of the optimal tree when known.

    Computed once per run and kept in ``run_dir/references.json`` (recomputed when the names or
    the game change)."""
    from ..agents.optima import known_optimum
    from ..agents.registry import make_agent
    from ..evaluation.evaluate import evaluate

    path = run_dir / "references.json"
    key = {"fingerprint": game.fingerprint, "hard_mode": game.hard_mode, "names": list(names)}
    if path.is_file():
        saved = json.loads(path.read_text())
        if saved.get("key") == key:
            return {k: float(v) for k, v in saved["means"].items()}
    means: dict[str, float] = {}
    for name in names:
        result = evaluate(make_agent(name), game, progress=False)
        means[name if result.win_rate == 1.0 else f"{name} ({100 * result.win_rate:.2f}% wins)"] = result.mean_guesses
    optimum = known_optimum(game)
    if optimum is not None:
        means["optimum" if optimum.proven else "best known tree"] = optimum.total / optimum.answers
    atomic_write_text(path, json.dumps({"key": key, "means": means}, indent=1) + "\n")
    return means


class EvalReport:
    """Prints a table row per evaluation and redraws the run's learning curve.

    Args:
        run_dir: the run folder (``eval.csv`` is read from it, ``curve.png`` written to it).
        title: the plot's title.
        references: label -> mean guesses (see :func:`reference_means`).
        write: where rows go (``print`` in ``guessgym train``); ``None`` logs them instead.
    """

    def __init__(self, run_dir: Path, title: str, references: dict[str, float],
                 write: Callable[[str], None] | None = None, game: Game | None = None) -> None:
        self.run_dir = run_dir
        #: The optimal tree's guesses on each answer, when the game has a shipped optimum (``game``).
        self.tree_guesses: dict[str, int] = {}
        self.tree_proven = True
        if game is not None:
            from ..agents.optima import known_optimum

            optimum = known_optimum(game)
            if optimum is not None:
                self.tree_guesses = {a: len(p) for a, p in optimum.load_tree(game).paths.items()}
                self.tree_proven = optimum.proven
        self.title = title
        self.references = references
        self.write = write
        self._header_written = False
        self._can_plot = importlib.util.find_spec("matplotlib") is not None

    def header(self) -> str:
        best = self._best_baseline()
        cells = ["step", "games", "win %", "mean"]
        if best is not None:
            cells.append(f"vs {best[0]}")
        if self.tree_guesses:
            cells.append("vs optimum")
        cells.append("train time")
        return self._line(cells)

    def row(self, result: dict[str, Any], wall: float) -> str:
        mean = float(result["mean_guesses"])
        cells = [f"{int(result['step']):,}", f"{int(result['games']):,}", f"{100 * result['win_rate']:.2f}",
                 "-" if math.isnan(mean) else f"{mean:.4f}"]
        best = self._best_baseline()
        if best is not None:
            cells.append("-" if math.isnan(mean) else f"{mean - best[1]:+.4f}")
        if self.tree_guesses:
            cells.append(self.vs_optimum(result))
        cells.append(f"{wall / 60:.1f} min")
        return self._line(cells)

    def _line(self, cells: list[str]) -> str:
        """The cells right-aligned, 12 wide; *vs optimum* (one before the time) 28 wide."""
        gap = len(cells) - 2 if self.tree_guesses else -1
        return " | ".join(f"{c:>{28 if i == gap else 12}s}" for i, c in enumerate(cells))

    def vs_optimum(self, result: dict[str, Any]) -> str:
        """Extra guesses over the optimal tree on the answers the evaluation played (a lost game
        counting ``max_attempts + 1``, as in every total), a sample marked as one; ``-`` when the
        evaluation did not say what it played."""
        played = result.get("played")
        if not played or "total_guesses" not in result:
            return "-"
        base = sum(self.tree_guesses[a] for a in played)
        return format_gap(int(result["total_guesses"]) - base, base, proven=self.tree_proven, games=len(played),
                          pool=len(self.tree_guesses))

    def __call__(self, result: dict[str, Any], wall: float) -> None:
        lines = [] if self._header_written else [self.header()]
        self._header_written = True
        lines.append(self.row(result, wall))
        for line in lines:
            if self.write is not None:
                self.write(line)
            else:
                logger.info("%s", line)
        if self._can_plot:
            from .plots import plot_curve

            plot_curve(self.run_dir, self.title, self.run_dir / "curve.png", self.references)

    def _best_baseline(self) -> tuple[str, float] | None:
        baselines = [(k, v) for k, v in self.references.items() if k not in ("optimum", "best known tree")]
        return min(baselines, key=lambda kv: kv[1]) if baselines else None


__all__ = ["EvalReport", "reference_means"]
