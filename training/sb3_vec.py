"""stable-baselines3's ``VecEnv`` API over :class:`~guessgym.envs.vector.BatchedGuessEnv`.

stable-baselines3 does not use Gymnasium's vector API: its ``VecEnv`` resets finished
sub-environments *in the same step* (the returned observation is the new game's first one; the
final observation travels in ``info["terminal_observation"]``), returns a list of per-environment
info dicts, and reaches environment methods through ``env_method`` (sb3-contrib's MaskablePPO
calls ``env_method("action_masks")``). :class:`BatchedVecEnv` provides exactly that on top of
the batched engine, so training steps all games with one numpy call.

Two deliberate differences from ``GuessEnv``'s observation:

* the ``"action_mask"`` key is dropped by default (``include_mask=False``). The mask reaches
  MaskablePPO through :meth:`BatchedVecEnv.action_masks`; keeping it in the observation as well
  would make the rollout buffer store ``n_steps x n_envs x n_guesses`` float32 values a second
  time (425 MB for 64 Wordle games x 128 steps) and feed a vocabulary-sized vector to the network;
* the per-step ``info`` dicts carry only what stable-baselines3 reads: ``terminal_observation``,
  ``episode`` (return ``r``, length ``l``, time ``t``: what ``Monitor`` would add, so no monitor
  wrapper is needed), ``is_success`` (the game was won) and ``TimeLimit.truncated`` at the end
  of a game. Use the Gymnasium API of :class:`~guessgym.envs.vector.BatchedGuessEnv` for full infos.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from ..envs.multiboard_vector import BatchedMultiBoardEnv
from ..envs.vector import BatchedGuessEnv


class BatchedVecEnv(VecEnv):
    """A stable-baselines3 ``VecEnv`` whose sub-environments are the games of a :class:`BatchedGuessEnv`
    (or of a :class:`~guessgym.envs.multiboard_vector.BatchedMultiBoardEnv`: multi-board games).

    Args:
        venv: the batched environment (its Gymnasium autoreset is bypassed: this adapter resets
            finished games in the same step, as stable-baselines3 expects).
        include_mask: keep ``"action_mask"`` in observations (default False, see module doc).
    """

    def __init__(self, venv: BatchedGuessEnv | BatchedMultiBoardEnv, *, include_mask: bool = False) -> None:
        self.venv = venv
        self.include_mask = include_mask
        single = venv.single_observation_space
        assert isinstance(single, spaces.Dict)
        keys = [k for k in single.spaces if include_mask or k != "action_mask"]
        observation_space = spaces.Dict({k: single.spaces[k] for k in keys})
        super().__init__(venv.num_envs, observation_space, venv.single_action_space)
        self._actions: np.ndarray | None = None
        self._episode_returns = np.zeros(self.num_envs, dtype=np.float64)
        self._episode_lengths = np.zeros(self.num_envs, dtype=np.int64)
        self._t0 = time.perf_counter()

    # ---- VecEnv API --------------------------------------------------------------------------
    def reset(self) -> VecEnvObs:
        """Reset every game, using the seeds and options set by ``seed()``/``set_options()``."""
        seeds = self._seeds if any(s is not None for s in self._seeds) else None
        options: dict[str, Any] = {}
        answers = [o.get("answer") for o in self._options]
        if any(a is not None for a in answers):
            if any(a is None for a in answers):
                raise ValueError("set_options: give an 'answer' for every sub-environment or for none")
            options[self.venv.answer_option] = answers
        self.venv.reset(seed=seeds, options=options or None)
        self._reset_seeds()
        self._reset_options()
        self._episode_returns[:] = 0.0
        self._episode_lengths[:] = 0
        return self._obs()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        venv = self.venv
        actions = venv.check_actions(self._actions)
        self._actions = None
        rewards, terminated, won_now = venv.advance(actions)
        self._episode_returns += rewards
        self._episode_lengths += 1
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        dones = terminated.copy()
        if dones.any():
            idx = np.flatnonzero(dones)
            terminal = self._obs()
            won = won_now[idx]
            elapsed = round(time.perf_counter() - self._t0, 6)
            for k, i in enumerate(idx):
                infos[i] = {
                    "terminal_observation": {key: value[i] for key, value in terminal.items()},
                    "episode": {"r": float(self._episode_returns[i]), "l": int(self._episode_lengths[i]), "t": elapsed},
                    "is_success": bool(won[k]),
                    "TimeLimit.truncated": False,
                }
            self._episode_returns[idx] = 0.0
            self._episode_lengths[idx] = 0
            venv.start_games(idx)
        return self._obs(), rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n_guesses)`` bool masks (MaskablePPO reaches it through ``env_method``)."""
        return self.venv.action_masks()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """Attribute of the (shared) game engine, once per requested sub-environment."""
        target = self if attr_name == "action_masks" else self.venv
        value = getattr(target, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        if indices is not None and list(self._get_indices(indices)) != list(range(self.num_envs)):
            raise ValueError("attributes are shared by every sub-environment of a batched env; set them for all")
        setattr(self.venv, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """Call a method; ``action_masks`` returns each requested sub-environment's mask."""
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        if self.venv.render_mode != "rgb_array":
            return [None for _ in range(self.num_envs)]
        return list(self.venv.render() or ())

    # ---- curriculum and checkpoints -----------------------------------------------------------
    def set_answer_pool(self, pool: Iterable[int] | np.ndarray | None) -> None:
        """Restrict the answers of new games (see :meth:`BatchedGuessEnv.set_answer_pool`)."""
        self.venv.set_answer_pool(
            None if pool is None else np.asarray(list(pool) if not isinstance(pool, np.ndarray) else pool)
        )

    def get_state(self) -> dict[str, Any]:
        """The engine state plus this adapter's episode counters."""
        return {
            "venv": self.venv.get_state(),
            "episode_returns": self._episode_returns.copy(),
            "episode_lengths": self._episode_lengths.copy(),
        }

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore :meth:`get_state`; pending ``seed()``/``set_options()`` values are dropped."""
        self.venv.set_state(state["venv"])
        self._episode_returns[:] = state["episode_returns"]
        self._episode_lengths[:] = state["episode_lengths"]
        self._reset_seeds()
        self._reset_options()

    def _obs(self) -> dict[str, np.ndarray]:
        return self.venv.observations(with_mask=self.include_mask)


__all__ = ["BatchedVecEnv"]
