"""Callbacks of a training run: curriculum, learning curve, evaluation, checkpoints.

All of them act at *rollout boundaries* (``_on_rollout_start``): at that moment the previous
update is complete, the rollout buffer is empty and the only state in flight is the model, the
environments' games and the random generators, which is what a checkpoint saves. A run resumed
from a checkpoint therefore replays exactly the steps an uninterrupted run would have taken.

Each callback exposes ``state_dict()``/``load_state_dict()`` so that its own progress (next
evaluation step, rows written to its CSV file...) is saved in checkpoints too. Their order in
the :class:`~stable_baselines3.common.callbacks.CallbackList` matters and is fixed by
:func:`guessgym.training.train.train`: curriculum, curve, evaluation, then checkpoint (which records what
the others have written).
"""

from __future__ import annotations

import csv
import logging
import math
import os
import pickle
import random
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from stable_baselines3.common.callbacks import BaseCallback

from ..agents.episodes import play_batched
from ..agents.learned import policy_actions
from ..envs.atomic import atomic_open
from .config import CurriculumStage, TrainConfig

logger = logging.getLogger(__name__)

CHECKPOINT_FORMAT = 1


# ---- curriculum ----------------------------------------------------------------------------------
class CurriculumSchedule:
    """Which answers new games draw from at a given step.

    Stage ``k`` uses the first ``stages[k].answers`` answers of a fixed shuffle of the answer
    list (seeded by ``seed``), from the end of stage ``k-1`` for ``stages[k].steps`` steps; after
    the last stage every answer is used.
    """

    def __init__(self, stages: list[CurriculumStage], n_answers: int, seed: int) -> None:
        self.stages = list(stages)
        self.n_answers = n_answers
        self.order = np.random.default_rng(seed).permutation(n_answers)
        self.boundaries = np.cumsum([s.steps for s in self.stages]).tolist()

    def stage_at(self, step: int) -> int:
        """Index of the stage in force at ``step`` (``len(stages)`` means the full answer list)."""
        for k, end in enumerate(self.boundaries):
            if step < end:
                return k
        return len(self.stages)

    def pool(self, stage: int) -> np.ndarray | None:
        """Answer indices of ``stage`` (sorted), or ``None`` for every answer."""
        if stage >= len(self.stages) or self.stages[stage].answers >= self.n_answers:
            return None
        return np.sort(self.order[: self.stages[stage].answers])


class CurriculumCallback(BaseCallback):
    """Applies the curriculum stage of the current step to the games and to the policy."""

    def __init__(self, schedule: CurriculumSchedule) -> None:
        super().__init__()
        self.schedule = schedule
        self.stage: int | None = None

    def _apply(self) -> None:
        stage = self.schedule.stage_at(self.model.num_timesteps)
        if stage != self.stage:
            pool = self.schedule.pool(stage)
            self.training_env.set_answer_pool(pool)  # type: ignore[attr-defined]
            self.model.policy.set_answer_pool(pool)  # type: ignore[operator]
            self.stage = stage
            logger.info(
                "curriculum stage %d at step %d: %s answers",
                stage,
                self.model.num_timesteps,
                "all" if pool is None else len(pool),
            )
        size = self.schedule.n_answers if (p := self.schedule.pool(stage)) is None else len(p)
        self.logger.record("curriculum/answers", size)

    def _on_training_start(self) -> None:
        self.stage = None  # re-apply after a resume (the policy's pool is not saved in the zip)
        self._apply()

    def _on_rollout_start(self) -> None:
        self._apply()

    def _on_step(self) -> bool:
        return True

    def current_pool(self) -> np.ndarray | None:
        return self.schedule.pool(self.schedule.stage_at(self.model.num_timesteps))

    def state_dict(self) -> dict[str, Any]:
        return {"stage": self.stage}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.stage = state.get("stage")


# ---- CSV files that survive resumes -------------------------------------------------------------
class _CsvLog:
    """An append-only CSV whose row count is checkpointed; on resume it is cut back to that count."""

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
        """Keep the header and the first ``rows`` rows (drops what a crashed session wrote after)."""
        self.rows = rows
        if not self.path.exists():
            return
        with open(self.path, newline="") as f:
            kept = list(csv.reader(f))[: rows + 1]
        with atomic_open(self.path, "w", newline="") as f:
            csv.writer(f).writerows(kept)


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
    """

    HEADER = ["step", "games", "win_rate", "mean_guesses", "wall_time_s"]

    def __init__(
        self,
        path: Path,
        every: int,
        answers: np.ndarray | None,
        clock: TrainingClock,
        curriculum: CurriculumCallback | None = None,
    ) -> None:
        super().__init__()
        self.log = _CsvLog(path, self.HEADER)
        self.every = every
        self.answers = answers
        self.clock = clock
        self.curriculum = curriculum
        self.next_step = 0
        self.last: dict[str, Any] | None = None

    def evaluate(self, answers: np.ndarray | None = None) -> dict[str, Any]:
        policy = self.model.policy
        game = policy.game  # type: ignore[attr-defined]
        policy.set_answer_pool(None)  # type: ignore[operator]
        try:
            result = play_batched(policy_actions(policy), game, self.answers if answers is None else answers)  # type: ignore[arg-type]
        finally:
            if self.curriculum is not None:
                policy.set_answer_pool(self.curriculum.current_pool())  # type: ignore[operator]
        return result

    def run(self, answers: np.ndarray | None = None) -> dict[str, Any]:
        wall = self.clock.elapsed()  # training time so far, not counting this evaluation
        result = self.evaluate(answers)
        step = self.model.num_timesteps
        mean = result["mean_guesses"]
        self.log.append(
            [
                [
                    step,
                    result["games"],
                    round(result["win_rate"], 6),
                    "" if math.isnan(mean) else round(mean, 6),
                    round(wall, 3),
                ]
            ]
        )
        self.logger.record("eval/win_rate", result["win_rate"])
        if not math.isnan(mean):
            self.logger.record("eval/mean_guesses", mean)
        self.last = {k: v for k, v in result.items() if k != "guesses"} | {"step": step}
        logger.info("eval at step %d: %.4f wins, %.3f guesses", step, result["win_rate"], mean)
        return result

    def _on_rollout_start(self) -> None:
        if self.every > 0 and self.model.num_timesteps >= self.next_step:
            self.run()
            self.next_step = (self.model.num_timesteps // self.every + 1) * self.every

    def _on_step(self) -> bool:
        return True

    def state_dict(self) -> dict[str, Any]:
        return {"rows": self.log.rows, "next_step": self.next_step, "last": self.last}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.log.truncate(int(state["rows"]))
        self.next_step = int(state["next_step"])
        self.last = state.get("last")


# ---- wall time across sessions ---------------------------------------------------------------------
class TrainingClock:
    """Wall time spent training, summed over the sessions of a resumed run (up to the checkpoint)."""

    def __init__(self, before: float = 0.0) -> None:
        self.before = before
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        return self.before + time.perf_counter() - self.start


# ---- checkpoints -----------------------------------------------------------------------------------
def checkpoint_dir_name(step: int) -> str:
    return f"step-{step:012d}"


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The newest complete checkpoint directory of a run, or ``None``.

    ``checkpoints/latest`` names it; if that pointer is missing or stale, the newest
    ``step-*`` directory holding both ``model.zip`` and ``state.pkl`` is used (temporary
    directories of an interrupted save are never considered).
    """
    root = Path(run_dir) / "checkpoints"
    if not root.is_dir():
        return None
    pointer = root / "latest"
    if pointer.is_file():
        target = root / pointer.read_text().strip()
        if (target / "model.zip").is_file() and (target / "state.pkl").is_file():
            return target
    complete = sorted(
        d
        for d in root.iterdir()
        if d.is_dir() and d.name.startswith("step-") and (d / "model.zip").is_file() and (d / "state.pkl").is_file()
    )
    return complete[-1] if complete else None


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and ``os.replace``."""
    with atomic_open(path, "wb") as f:
        f.write(data)


def rng_state() -> dict[str, Any]:
    """The global generators that training draws from: torch (action sampling), numpy (minibatch
    shuffles), Python's ``random``."""
    return {"torch": th.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()}  # noqa: NPY002


def set_rng_state(state: dict[str, Any]) -> None:
    th.set_rng_state(state["torch"])
    np.random.set_state(state["numpy"])  # noqa: NPY002  (SB3 shuffles minibatches with it)
    random.setstate(state["python"])


class CheckpointCallback(BaseCallback):
    """Saves a resumable checkpoint every ``every`` steps, at a rollout boundary, atomically.

    A checkpoint is a directory ``checkpoints/step-<N>/`` with ``model.zip`` (SB3: parameters,
    optimizer state, ``num_timesteps``, last observation...) and ``state.pkl`` (global random
    generators, every game's state and generator, the other callbacks' progress, the wall time).
    Both are written into a temporary directory that is then renamed into place, and
    ``checkpoints/latest`` is replaced atomically afterwards, so an interruption at any moment
    leaves the previous checkpoint intact. Only the ``keep`` newest checkpoints are kept.

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
        final = self.root / checkpoint_dir_name(step)
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=self.root, prefix=f".tmp-{final.name}-"))
        try:
            self.model.save(tmp / "model.zip")
            state = {
                "format": CHECKPOINT_FORMAT,
                "num_timesteps": step,
                "rng": rng_state(),
                "env": self.training_env.get_state(),  # type: ignore[attr-defined]
                "model_extra": {
                    "_last_obs": self.model._last_obs,
                    "_last_episode_starts": self.model._last_episode_starts,
                    "_episode_num": self.model._episode_num,
                    "_n_updates": getattr(self.model, "_n_updates", 0),
                },
                "callbacks": {name: cb.state_dict() for name, cb in self.others.items()}
                | {"checkpoint": self.state_dict()},
                "wall_time_s": self.clock.elapsed(),
                "config": self.config.to_dict(),
            }
            with open(tmp / "state.pkl", "wb") as f:
                pickle.dump(state, f, protocol=pickle.HIGHEST_PROTOCOL)
                f.flush()
                os.fsync(f.fileno())
            with open(tmp / "model.zip", "rb+") as f:
                os.fsync(f.fileno())
            _fsync_dir(tmp)
            if final.exists():
                shutil.rmtree(final)
            os.replace(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        _fsync_dir(self.root)
        atomic_write_bytes(self.root / "latest", (final.name + "\n").encode())
        self._prune()
        logger.info("checkpoint saved at step %d: %s", step, final)
        return final

    def _prune(self) -> None:
        if self.keep <= 0:
            return
        dirs = sorted(d for d in self.root.iterdir() if d.is_dir() and d.name.startswith("step-"))
        for old in dirs[: -self.keep]:
            shutil.rmtree(old, ignore_errors=True)

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


def load_checkpoint_state(checkpoint: Path) -> dict[str, Any]:
    """Read a checkpoint's ``state.pkl`` (checking its format)."""
    with open(Path(checkpoint) / "state.pkl", "rb") as f:
        state = pickle.load(f)
    if state.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{checkpoint} has checkpoint format {state.get('format')}, expected {CHECKPOINT_FORMAT}")
    return state


__all__ = [
    "CheckpointCallback",
    "CurriculumCallback",
    "CurriculumSchedule",
    "CurveCallback",
    "EvalCallback",
    "TrainingClock",
    "atomic_write_bytes",
    "latest_checkpoint",
    "load_checkpoint_state",
    "rng_state",
    "set_rng_state",
]
