"""What a step earns: one reward configuration for every environment built on the game engine."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal

from .options import check_choice, check_number, check_penalty

RewardMode = Literal["sparse", "shaped"]
REWARD_MODES = ("sparse", "shaped")


@dataclass(frozen=True)
class RewardConfig:
    """What a step earns. One object for the single and the batched environment.

    Attributes:
        reward_mode: ``"sparse"`` (default): ``win_reward`` for the winning guess, ``loss_reward``
            for the last guess of a lost game, 0 otherwise. ``"shaped"``: in addition, every valid
            guess earns the fraction of information it revealed,
            ``(ln|C_before| - ln|C_after|) / ln|answers|`` where ``C`` is the set of answers still
            consistent with the tiles; over a won game these add up to 1.
        win_reward: reward of the winning guess (1.0).
        loss_reward: reward of the last guess of a lost game (0.0).
        step_penalty: added to the reward of every valid guess, in both modes: 0 (default) or
            negative, like every penalty (:func:`~guessgym.envs.options.check_penalty`).
        invalid_action_penalty: the whole reward of a rejected (hard-mode) guess: 0 or negative (-0.1).

    Examples:
        >>> RewardConfig(reward_mode="shaped").reward_mode
        'shaped'
        >>> RewardConfig(reward_mode="dense")
        Traceback (most recent call last):
        ...
        ValueError: reward_mode must be one of 'sparse', 'shaped'; got 'dense'
    """

    reward_mode: RewardMode = "sparse"
    win_reward: float = 1.0
    loss_reward: float = 0.0
    step_penalty: float = 0.0
    invalid_action_penalty: float = -0.1

    def __post_init__(self) -> None:
        check_choice("reward_mode", self.reward_mode, REWARD_MODES)
        for name in ("win_reward", "loss_reward"):
            object.__setattr__(self, name, check_number(name, getattr(self, name)))
        for name in ("step_penalty", "invalid_action_penalty"):
            object.__setattr__(self, name, check_penalty(name, getattr(self, name)))

    @property
    def shaped(self) -> bool:
        return self.reward_mode == "shaped"


#: The keyword arguments that build a :class:`RewardConfig`.
REWARD_KEYS: tuple[str, ...] = tuple(f.name for f in fields(RewardConfig))


__all__ = ["REWARD_KEYS", "REWARD_MODES", "RewardConfig", "RewardMode"]
