"""The vocabulary curriculum: which answers new games draw from at each step of training.

Stage ``k`` uses the first ``stages[k].answers`` answers of a fixed shuffle of the answer list
(seeded), for ``stages[k].steps`` steps; after the last stage every answer is used. The callback
applies the stage in force to the training games and to the policy (whose candidate features
count only pool answers) at every rollout boundary.

Examples:
    >>> from guessgym.training.config import CurriculumStage
    >>> schedule = CurriculumSchedule([CurriculumStage(10, 100), CurriculumStage(50, 100)], 200, seed=0)
    >>> schedule.stage_at(0), schedule.stage_at(150), schedule.stage_at(250)
    (0, 1, 2)
    >>> len(schedule.pool(0)), schedule.pool(2) is None
    (10, True)
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from .config import CurriculumStage

logger = logging.getLogger(__name__)


class CurriculumSchedule:
    """Which answers new games draw from at a given step.

    Stage ``k`` uses the first ``stages[k].answers`` answers of a fixed shuffle of the answer
    list (seeded by ``seed``), from the end of stage ``k-1`` for ``stages[k].steps`` steps; after
    the last stage every answer is used.
    """

    def __init__(self, stages: list[CurriculumStage], n_answers: int, seed: int,
                 training: np.ndarray | None = None) -> None:
        self.stages = list(stages)
        self.n_answers = n_answers
        #: the answers training games may draw from at all (``None``: every one; a holdout leaves some out)
        self.training = None if training is None else np.sort(np.asarray(training, dtype=np.int64))
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
            # the games draw from the training answers; the policy still counts every answer a candidate
            self.training_env.set_answer_pool(pool if pool is not None else self.schedule.training)  # type: ignore[attr-defined]
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


__all__ = ["CurriculumCallback", "CurriculumSchedule"]
