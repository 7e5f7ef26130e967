"""DQN and QR-DQN whose updates compute what their losses use.

A value-based update needs, per sampled transition, the value of the guess that was played (online
network, with its gradient) and the value of the next state's greedy guess (target network).
stable-baselines3's :class:`~stable_baselines3.DQN` and sb3-contrib's :class:`~sb3_contrib.QRDQN`
compute every guess's value and then keep one: on full Wordle the online network values 12,947
guesses per transition, forward and backward, to use one (QR-DQN: 25 quantiles of each, and the
target network the same 25 x 12,947 for a mean). With
:class:`~guessgym.agents.policies.GuessQNetwork` a value is a sum over the guess's few features, so
one guess's value costs ``2L + 1`` sums:

* the online network scores only the played guess (:meth:`GuessQNetwork.guess_values`): the same
  numbers and the same gradients as the stock update's, to the bit (so :class:`GuessDQN` trains
  exactly as stable-baselines3's DQN does with this policy, only faster);
* the target network finds the greedy guess over every guess once, through the mean of the
  quantiles computed as one output (scores are linear in the head's weights), then scores the
  quantiles of that guess alone (:meth:`GuessQNetwork.greedy_values`). For DQN that is the stock
  target's number exactly; for QR-DQN the mean equals the stock one to rounding.

With any other Q-network (a user's own policy) the stock update runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from sb3_contrib import QRDQN
from sb3_contrib.common.utils import quantile_huber_loss
from stable_baselines3 import DQN
from stable_baselines3.common.off_policy_algorithm import OffPolicyAlgorithm
from torch.nn import functional as F

from ..agents.policies import GuessQNetwork


class _PlayedGuessUpdate(OffPolicyAlgorithm):
    """The update DQN and QR-DQN share here (stable-baselines3's loop, sampling, clipping and logging),
    its values those of the played guess and of the target's greedy guess only; each algorithm names
    its networks and its loss. Listed before the algorithm's class, whose update runs for other
    Q-networks."""

    def _value_networks(self) -> tuple[Any, Any]:
        """The online and the target network."""
        raise NotImplementedError

    def _value_loss(self, current: th.Tensor, target: th.Tensor) -> th.Tensor:
        """The loss of ``current`` values against ``target`` ones, each ``(batch, values a state)``."""
        raise NotImplementedError

    def train(self, gradient_steps: int, batch_size: int = 100) -> None:
        online, target = self._value_networks()
        if not isinstance(online, GuessQNetwork) or not isinstance(target, GuessQNetwork):
            return super().train(gradient_steps, batch_size)
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        max_norm: float | None = getattr(self, "max_grad_norm", None)  # DQN's a float, QR-DQN's optional
        losses = []
        for _ in range(gradient_steps):
            replay_data = self.replay_buffer.sample(batch_size, env=self._vec_normalize_env)  # type: ignore[union-attr]
            discounts = replay_data.discounts if replay_data.discounts is not None else self.gamma
            rows = replay_data.rewards.shape[0]
            with th.no_grad():
                next_values = target.greedy_values(replay_data.next_observations).reshape(rows, -1)
                target_values = replay_data.rewards + (1 - replay_data.dones) * discounts * next_values
            current_values = online.guess_values(replay_data.observations, replay_data.actions).reshape(rows, -1)
            loss = self._value_loss(current_values, target_values)
            losses.append(loss.item())
            self.policy.optimizer.zero_grad()
            loss.backward()
            if max_norm is not None:
                th.nn.utils.clip_grad_norm_(self.policy.parameters(), max_norm)
            self.policy.optimizer.step()
        self._n_updates += gradient_steps
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/loss", np.mean(losses))


class GuessDQN(_PlayedGuessUpdate, DQN):
    """stable-baselines3's DQN, its update computing the played guess's value only (see the module)."""

    def _value_networks(self) -> tuple[Any, Any]:
        return self.q_net, self.q_net_target

    def _value_loss(self, current: th.Tensor, target: th.Tensor) -> th.Tensor:
        return F.smooth_l1_loss(current, target)


class GuessQRDQN(_PlayedGuessUpdate, QRDQN):
    """sb3-contrib's QR-DQN, its update computing the played guess's quantiles and the greedy guess's
    only (see the module)."""

    def _value_networks(self) -> tuple[Any, Any]:
        return self.quantile_net, self.quantile_net_target

    def _value_loss(self, current: th.Tensor, target: th.Tensor) -> th.Tensor:
        return quantile_huber_loss(current, target, sum_over_quantiles=True)
