"""Callbacks of a training run: learning curve, evaluation, checkpoints (the curriculum's is in
:mod:`guessgym.training.curriculum`; the checkpoint format in :mod:`guessgym.training.checkpoints`).

All of them act at *rollout boundaries* (``_on_rollout_start``): at that moment the previous
update is complete, the rollout buffer is empty and the only state in flight is the model, the
environments' games and the random generators, which is what a checkpoint saves. A run resumed
from a checkpoint therefore replays exactly the steps an uninterrupted run would have taken.

Each callback exposes ``state_dict()``/``load_state_dict()`` so that its own progress (next
evaluation step, rows written to its CSV file...) is saved in checkpoints too. Their order in
the :class:`~stable_baselines3.common.callbacks.CallbackList` matters and is fixed by
:func:`guessgym.training.train.train`: curriculum, curve, evaluation, then checkpoint (which
records what the others have written). Evaluations play through
:func:`guessgym.agents.rollout.play_batched`, the shared batched episode loop.
"""

from __future__ import annotations

import csv
import json
import logging
import math
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from ..agents.model_files import save_model
from ..envs.game import Game
from ..evaluation.evaluate import evaluate_policy
from ..evaluation.results import EvaluationResult
from ..infra.atomic import atomic_open, atomic_path, atomic_write_bytes
from .checkpoints import MODEL_EXTRA, CheckpointError, rng_state, save_checkpoint
from .config import TrainConfig
from .curriculum import CurriculumCallback

logger = logging.getLogger(__name__)

CHECKPOINT_FORMAT = 1


# ---- CSV files that survive resumes -------------------------------------------------------------
def eval_summary(result: EvaluationResult) -> dict[str, Any]:
    """What a training run keeps of an evaluation (``final.json``, the evaluation table, the
    target check): games, wins, win rate and mean guesses over wins."""
    return {"games": result.n_games, "wins": result.n_solved, "win_rate": result.win_rate,
            "mean_guesses": result.mean_guesses}


class _CsvLog:
    """An append-only CSV (a header row, then rows) whose row count is checkpointed; on resume it is
    cut back to that count, so a resumed run writes the same file as an uninterrupted one.

    It shares the resumable log's rules (:mod:`guessgym.infra.resumable_log`) where they apply:
    rows are flushed and synced as written, and a file whose header is not this log's is refused,
    never changed. It is not that log: its files are CSV for plotting tools, and its resume point is
    the checkpoint's row count, not the end of the file (rows written after the last checkpoint
    belong to training the resumed run does again).
    """

    def __init__(self, path: Path, header: list[str]) -> None:
        self.path = path
        self.header = header
        self.rows = 0

    def append(self, rows: list[list[Any]]) -> None:
        new = not self.path.exists() or self.path.stat().st_size == 0
        with open(self.path, "a", newline="") as f:
            writer = csv.writer(f)
            if new:
                writer.writerow(self.header)
            writer.writerows(rows)
            f.flush()
            os.fsync(f.fileno())
        self.rows += len(rows)

    def truncate(self, rows: int) -> None:
        """Keep the header and the first ``rows`` rows (drops what a crashed session wrote after).

        Raises:
            CheckpointError: the file is not this log (another header), or holds fewer rows.
        """
        self.rows = rows
        if not self.path.exists():
            return
        with open(self.path, newline="") as f:
            lines = list(csv.reader(f))
        if not lines and rows == 0:
            return
        if lines[:1] != [self.header]:
            raise CheckpointError(f"{self.path}: not this run's log (its first row is not {','.join(self.header)}); "
                                  "it was left as it is")
        if len(lines) - 1 < rows:
            raise CheckpointError(f"{self.path}: {len(lines) - 1} rows, the checkpoint counts {rows}")
        with atomic_open(self.path, "w", newline="") as f:
            csv.writer(f).writerows(lines[: rows + 1])


class CurveCallback(BaseCallback):
    """Writes one row per rollout to ``curve.csv``: games finished, win rate, mean return and length.

    Unlike a per-episode monitor file this stays small on long runs (one row per
    ``n_steps * num_envs`` steps) and is deterministic (no wall time), so a resumed run writes
    the same file as an uninterrupted one.
    """

    HEADER = ["step", "games", "win_rate", "mean_return", "mean_length"]

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.log = _CsvLog(path, self.HEADER)
        self._returns: list[float] = []
        self._lengths: list[int] = []
        self._wins = 0

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", ()):
            episode = info.get("episode")
            if episode is not None:
                self._returns.append(float(episode["r"]))
                self._lengths.append(int(episode["l"]))
                self._wins += bool(info.get("is_success", False))
        return True

    def flush(self) -> None:
        if not self._returns or self.model.num_timesteps == 0:
            return
        n = len(self._returns)
        self.log.append(
            [
                [
                    self.model.num_timesteps,
                    n,
                    round(self._wins / n, 6),
                    round(float(np.mean(self._returns)), 6),
                    round(float(np.mean(self._lengths)), 6),
                ]
            ]
        )
        self._returns.clear()
        self._lengths.clear()
        self._wins = 0

    def _on_rollout_start(self) -> None:
        self.flush()

    def state_dict(self) -> dict[str, Any]:
        return {"rows": self.log.rows}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.log.truncate(int(state["rows"]))


# ---- evaluation ------------------------------------------------------------------------------------
class EvalCallback(BaseCallback):
    """Plays the greedy policy on a fixed set of answers every ``every`` steps.

    Records ``eval/win_rate`` and ``eval/mean_guesses`` to TensorBoard and a row to ``eval.csv``
    (step, games, win rate, mean guesses, training wall time so far). Uses no global random state,
    so it does not change the training trajectory. The curriculum's answer pool is lifted during
    the evaluation: it always plays the full game.

    With ``best_dir``, the best model evaluated so far (most wins, then fewest guesses per win;
    the earlier one on a tie) is kept as ``best_dir/best_model.zip`` with ``best.json`` (its step
    and scores), both written atomically. Every model is ranked on the same answers: the final
    evaluation plays every answer, and is ranked by its games on the evaluation set. Training
    does not always improve on its start (step 0 is evaluated too), so the best model may be the
    untrained one: best.json then says so.
    """

    HEADER = ["step", "games", "win_rate", "mean_guesses", "wall_time_s"]

    def __init__(
        self,
        path: Path,
        every: int,
        answers: np.ndarray | None,
        clock: TrainingClock,
        curriculum: CurriculumCallback | None = None,
        target: tuple[float | None, float | None] = (None, None),
        report: Callable[[dict[str, Any], float], None] | None = None,
        best_dir: Path | None = None,
    ) -> None:
        super().__init__()
        self.log = _CsvLog(path, self.HEADER)
        self.best_dir = best_dir
        self.best: dict[str, Any] | None = None
        self.every = every
        self.answers = answers
        self.clock = clock
        self.curriculum = curriculum
        self.target = target
        self.report = report
        self.next_step = 0
        self.last: dict[str, Any] | None = None
        self.reached_at: int | None = None

    def met(self, result: dict[str, Any]) -> bool:
        """Whether ``result`` reaches the target (``False`` when there is none)."""
        win_rate, mean = self.target
        if win_rate is None and mean is None:
            return False
        guesses = float(result["mean_guesses"])
        return (win_rate is None or result["win_rate"] >= win_rate) and \
            (mean is None or (not math.isnan(guesses) and guesses <= mean))

    def evaluate(self, answers: np.ndarray | None = None) -> EvaluationResult:
        """The greedy policy played once on each answer (the evaluation set by default), as the one
        results type."""
        policy = self.model.policy
        game: Game = policy.game  # type: ignore[assignment]
        chosen = self.answers if answers is None else answers
        if chosen is None:
            chosen = np.arange(len(game.answers))
        policy.set_answer_pool(None)  # type: ignore[operator]
        try:
            return evaluate_policy(policy, game, chosen)
        finally:
            if self.curriculum is not None:
                policy.set_answer_pool(self.curriculum.current_pool())  # type: ignore[operator]

    def run(self, answers: np.ndarray | None = None) -> EvaluationResult:
        wall = self.clock.elapsed()  # training time so far, not counting this evaluation
        result = self.evaluate(answers)
        step = self.model.num_timesteps
        mean = result.mean_guesses
        self.log.append([[step, result.n_games, round(result.win_rate, 6), "" if math.isnan(mean) else round(mean, 6),
                          round(wall, 3)]])
        self.logger.record("eval/win_rate", result.win_rate)
        if not math.isnan(mean):
            self.logger.record("eval/mean_guesses", mean)
        self.last = eval_summary(result) | {"step": step}
        logger.info("eval at step %d: %.4f wins, %.3f guesses", step, result.win_rate, mean)
        if self.report is not None:  # and what vs optimum needs: the answers played and their guesses
            played = {"played": [r.answer for r in result.records], "total_guesses": result.total_guesses}
            self.report(self.last | played, wall)
        self._keep_if_best(result, answers, step)
        if self.reached_at is None and self.met(self.last):
            self.reached_at = step
            logger.info("target reached at step %d: the run stops here", step)
        return result

    def _keep_if_best(self, result: EvaluationResult, answers: np.ndarray | None, step: int) -> None:
        if self.best_dir is None:
            return
        if answers is not None and self.answers is not None:  # every answer played: rank on the set
            game: Game = self.model.policy.game  # type: ignore[assignment]
            result = result.subset([game.answers[int(a)] for a in self.answers])
        mean = None if math.isnan(result.mean_guesses) else float(result.mean_guesses)
        if self.best is not None and _rank(result.win_rate, mean) <= _rank(self.best["win_rate"],
                                                                          self.best["mean_guesses"]):
            return
        self.best = {"step": int(step), "games": int(result.n_games), "win_rate": float(result.win_rate),
                     "mean_guesses": mean}
        with atomic_path(self.best_dir / "best_model.zip", suffix=".tmp.zip") as tmp:  # SB3 appends ".zip"
            save_model(self.model, tmp)
        atomic_write_bytes(self.best_dir / "best.json", json.dumps(self.best, indent=2).encode())
        logger.info("best model so far at step %d", step)

    def _on_rollout_start(self) -> None:
        if self.every > 0 and self.model.num_timesteps >= self.next_step:
            self.run()
            self.next_step = (self.model.num_timesteps // self.every + 1) * self.every

    def _on_step(self) -> bool:
        return self.reached_at is None  # False ends model.learn() once the target is reached

    def state_dict(self) -> dict[str, Any]:
        return {"rows": self.log.rows, "next_step": self.next_step, "last": self.last, "best": self.best}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        # A best model saved after the checkpoint by a crashed session stays on disk until the
        # replay, which is identical, reaches its step again and saves the same model.
        self.log.truncate(int(state["rows"]))
        self.next_step = int(state["next_step"])
        self.last = state.get("last")
        self.best = state.get("best")


def _rank(win_rate: float, mean_guesses: float | None) -> tuple[float, float]:
    """Larger is better: more wins, then fewer guesses per win (none: no win to count)."""
    return float(win_rate), -math.inf if mean_guesses is None else -float(mean_guesses)


# ---- wall time across sessions ---------------------------------------------------------------------
class TrainingClock:
    """Wall time spent training, summed over the sessions of a resumed run (up to the checkpoint)."""

    def __init__(self, before: float = 0.0) -> None:
        self.before = before
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        return self.before + time.perf_counter() - self.start


# ---- checkpoints -----------------------------------------------------------------------------------
class CheckpointCallback(BaseCallback):
    """Saves a resumable checkpoint every ``every`` steps, at a rollout boundary, atomically
    (:func:`guessgym.training.checkpoints.save_checkpoint`). Only the ``keep`` newest are kept.

    Setting ``stop_event`` makes the run save a checkpoint at the next rollout boundary and stop.
    """

    def __init__(
        self,
        run_dir: Path,
        every: int,
        keep: int,
        config: TrainConfig,
        clock: TrainingClock,
        others: dict[str, Any],
        stop_event: threading.Event | None = None,
    ) -> None:
        super().__init__()
        self.root = Path(run_dir) / "checkpoints"
        self.every = every
        self.keep = keep
        self.config = config
        self.clock = clock
        self.others = others
        self.stop_event = stop_event
        self.next_step = every if every > 0 else -1
        self.last_saved = -1
        self._stop = False

    def save(self) -> Path:
        """Write a checkpoint of the current state (call only at a rollout boundary)."""
        step = int(self.model.num_timesteps)
        self.last_saved = step
        state = {
            "num_timesteps": step,
            "rng": rng_state(),
            "env": self.training_env.get_state(),  # type: ignore[attr-defined]
            "model_extra": {key: getattr(self.model, key, 0) for key in MODEL_EXTRA},  # _n_updates: A2C may lack it
            "callbacks": {name: cb.state_dict() for name, cb in self.others.items()}
            | {"checkpoint": self.state_dict()},
            "wall_time_s": self.clock.elapsed(),
            "config": self.config.to_dict(),
        }
        final = save_checkpoint(self.root, self.model, state, self.keep)
        logger.info("checkpoint saved at step %d: %s", step, final)
        return final

    def _on_rollout_start(self) -> None:
        step = self.model.num_timesteps
        stop = self.stop_event is not None and self.stop_event.is_set()
        due = self.every > 0 and step >= self.next_step
        if due:
            self.next_step = (step // self.every + 1) * self.every
        if (due or stop) and step > 0 and step != self.last_saved:
            self.save()
        if stop:
            self._stop = True

    def _on_step(self) -> bool:
        return not self._stop

    def state_dict(self) -> dict[str, Any]:
        return {"next_step": self.next_step, "last_saved": self.last_saved}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.next_step = int(state["next_step"])
        self.last_saved = int(state["last_saved"])


__all__ = ["CheckpointCallback", "CurveCallback", "EvalCallback", "TrainingClock"]


class ProgressBarCallback(BaseCallback):
    """A progress bar over the whole run: a resumed run starts where it stopped, and the bar never
    passes ``total_steps`` (SB3's own bar counts only this call's steps from 0, and overshoots by
    the rollout that crosses the budget)."""

    def __init__(self, total_steps: int) -> None:
        super().__init__()
        self.total_steps = int(total_steps)
        self._bar: Any = None

    def _on_training_start(self) -> None:
        from tqdm.auto import tqdm

        start = min(int(self.model.num_timesteps), self.total_steps)
        self._bar = tqdm(total=self.total_steps, initial=start, unit="step", dynamic_ncols=True)

    def _on_step(self) -> bool:
        if self._bar is not None:
            self._bar.update(max(0, min(int(self.model.num_timesteps), self.total_steps) - self._bar.n))
        return True

    def _on_training_end(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
