"""Behaviour cloning from the optimum: the guess policy learns the optimal tree's moves before PPO.

A policy started from a greedy rule has little left to gain that PPO can see through its noise
(the shipped policies end where their rule started). The exact optimum knows the best move of
every state its games pass through. The cloning stage (``clone_epochs`` of a
:class:`~guessgym.training.config.TrainConfig`) takes the optimal agent's game on every training
answer, replays it through the plain environment (:func:`guessgym.training.demos.policy_arrays`,
the same demonstrations ``guessgym export-demos --policy`` writes), and trains the policy on every
state of them: the cross-entropy of its masked distribution against the optimal move, plus
``vf_coef`` times the squared error of its critic against the discounted return that optimal
play earns from the state (so that PPO starts with a critic that knows the values too). The
policy has no parameter per guess, so what it learns is how to weigh the guesses' features in a
state, which also scores other lists (transfer) and answers it never saw (``holdout``).

The stage is deterministic under the run's seed (its own generator shuffles the states) and
resumable: after every epoch the run folder gets ``cloning/epoch-<N>/`` (``model.zip``, and
``state.json`` + ``state.npz`` in the checkpoint format of :mod:`guessgym.training.checkpoints`:
the optimizer, the generator, the rows so far), and ``cloning.csv`` a row (loss, accuracy on the
demonstrations, the greedy policy's guesses on the evaluation answers, wall time). A run stopped
mid-stage resumes at its last epoch with the same result as one never stopped; once the stage is
done, ``cloning/summary.json`` holds the cloned policy's evaluation on every answer (and on the
held-out ones apart), the "before PPO" row of the ablations.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from stable_baselines3.common.base_class import BaseAlgorithm

from ..agents.learned import policy_actions
from ..agents.rollout import play_batched
from ..envs.game import Game
from ..evaluation.evaluate import evaluate_policy
from ..evaluation.results import EvaluationResult
from ..infra.atomic import atomic_write_bytes, atomic_write_csv
from .checkpoints import (
    CheckpointError,
    latest_checkpoint,
    load_checkpoint_state,
    load_optimizer_state,
    optimizer_state,
    save_checkpoint,
)
from .config import TrainConfig

logger = logging.getLogger(__name__)

#: The columns of ``cloning.csv``.
CSV_COLUMNS = ("epoch", "loss", "policy_loss", "value_loss", "accuracy", "eval_games", "eval_win_rate",
               "eval_mean_guesses", "wall_time_s")
#: States scored for the accuracy column (a fixed seeded sample when there are more).
ACCURACY_SAMPLE = 4096


@dataclass
class CloneData:
    """The states of the optimal games: observations, masks (hard mode only), moves and returns."""

    obs: dict[str, th.Tensor]
    masks: np.ndarray | None
    actions: th.Tensor
    returns: th.Tensor

    def __len__(self) -> int:
        return int(self.actions.shape[0])


def expert_data(game: Game, answers: Sequence[int] | np.ndarray, gamma: float, env_kwargs: dict[str, Any] | None = None,
                *, progress: bool = False) -> CloneData:
    """The optimal agent's games on ``answers`` as cloning data; returns are discounted by ``gamma``
    over the environment's own rewards (``env_kwargs``: the run's reward options).

    Raises:
        ValueError: the optimal agent lost a game (it never does where the optimum is known).
    """
    from ..agents.registry import make_agent
    from ..evaluation.evaluate import evaluate
    from .demos import Demo, policy_arrays

    result = evaluate(make_agent("optimal"), game, answers=[int(a) for a in answers], record_guesses=True,
                      progress=progress)
    lost = [r.answer for r in result.records if not r.solved]
    if lost:
        raise ValueError(f"the optimal agent lost {len(lost):,} games of {game.name} (e.g. {lost[0]}); "
                         "cloning needs its wins")
    demos = [Demo(game.answer_index[r.answer], r.answer, tuple(r.played or ()), ("",) * r.guesses)
             for r in result.records]
    arrays = policy_arrays(game, demos, masks=game.hard_mode, env_kwargs=env_kwargs)
    returns = np.zeros(arrays["rewards"].shape, dtype=np.float32)
    later, last_game = 0.0, -1
    for i in range(len(returns) - 1, -1, -1):  # discounted sums within each game, from its end
        if arrays["games"][i] != last_game:
            later, last_game = 0.0, int(arrays["games"][i])
        later = float(arrays["rewards"][i]) + gamma * later
        returns[i] = later
    obs = {key[4:]: th.as_tensor(value) for key, value in arrays.items()
           if key.startswith("obs_") and key != "obs_action_mask"}
    masks = arrays.get("obs_action_mask")
    return CloneData(obs, None if masks is None else masks.astype(bool), th.as_tensor(arrays["actions"]),
                     th.as_tensor(returns))


def _batch(data: CloneData, index: np.ndarray) -> tuple[dict[str, th.Tensor], np.ndarray | None]:
    rows = th.as_tensor(index)
    return {k: v[rows] for k, v in data.obs.items()}, None if data.masks is None else data.masks[index]


def _step(model: BaseAlgorithm, data: CloneData, index: np.ndarray, optimizer: th.optim.Optimizer,
          vf_coef: float, max_grad_norm: float) -> tuple[float, float]:
    """One minibatch: the policy's and the critic's loss, one optimizer step."""
    policy: Any = model.policy
    obs, masks = _batch(data, index)
    kwargs = {} if masks is None else {"action_masks": masks}
    values, log_prob, _ = policy.evaluate_actions(obs, data.actions[th.as_tensor(index)], **kwargs)
    policy_loss = -log_prob.mean()
    value_loss = th.nn.functional.mse_loss(values.flatten(), data.returns[th.as_tensor(index)])
    loss = policy_loss + vf_coef * value_loss
    optimizer.zero_grad()
    loss.backward()
    th.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
    optimizer.step()
    return float(policy_loss.detach()), float(value_loss.detach())


def accuracy(model: BaseAlgorithm, data: CloneData, index: np.ndarray) -> float:
    """The share of the states of ``index`` where the greedy policy plays the optimal move."""
    policy: Any = model.policy
    hits = 0
    with th.no_grad():
        for start in range(0, len(index), 512):
            obs, masks = _batch(data, index[start : start + 512])
            kwargs = {} if masks is None else {"action_masks": masks}
            dist = policy.get_distribution(obs, **kwargs)
            chosen = dist.distribution.logits.argmax(dim=1)
            hits += int((chosen == data.actions[th.as_tensor(index[start : start + 512])]).sum())
    return hits / max(1, len(index))


def greedy_guesses(model: BaseAlgorithm, game: Game, answers: np.ndarray) -> np.ndarray:
    """The greedy policy's guesses on each of ``answers`` (0: lost), by the batched rollout."""
    model.policy.set_answer_pool(None)  # type: ignore[operator]
    return play_batched(policy_actions(model.policy), game, answers)  # type: ignore[arg-type]


def clone(model: BaseAlgorithm, config: TrainConfig, game: Game, run_dir: Path, train_answers: np.ndarray,
          eval_answers: np.ndarray, held_out: np.ndarray, *, report: Callable[[str], None] | None = None,
          stop_event: threading.Event | None = None) -> bool:
    """Run (or resume) the cloning stage of ``config`` on ``model``'s policy (see the module docstring).

    Returns True when the stage is complete (``cloning/summary.json`` written), False when
    ``stop_event`` stopped it after an epoch's checkpoint.

    Raises:
        CheckpointError: a cloning checkpoint of another configuration, or a damaged one.
    """
    folder = run_dir / "cloning"
    summary_path = folder / "summary.json"
    saved = latest_checkpoint(run_dir, "cloning", "epoch-")
    policy = model.policy
    optimizer = th.optim.Adam(policy.parameters(), lr=config.clone_learning_rate)
    rng = np.random.default_rng(config.seed)
    rows: list[list[Any]] = []
    wall = 0.0
    start_epoch = 0
    if saved is not None:
        state = load_checkpoint_state(saved)
        if state.get("config") != config.to_dict():
            raise CheckpointError(f"{saved} was written by another configuration; start the run again")
        from ..agents.model_files import read_model

        try:
            cloned = read_model(saved / "model.zip", game=game, device=config.device)
            policy.load_state_dict(cloned.policy.state_dict())
            load_optimizer_state(optimizer, state["optimizer"])
            rng.bit_generator.state = state["rng"]
            rows, wall, start_epoch = list(state["rows"]), float(state["wall_time_s"]), int(state["epoch"])
        except (KeyError, TypeError, ValueError, RuntimeError) as exc:
            raise CheckpointError(f"{saved}: not a cloning checkpoint of this run ({exc})") from None
        if summary_path.is_file() and start_epoch >= config.clone_epochs:
            return True
    began = time.perf_counter() - wall
    data = expert_data(game, train_answers, config.gamma, _reward_options(config))
    sample = np.sort(np.random.default_rng(config.seed + 2).permutation(len(data))[:ACCURACY_SAMPLE])
    if start_epoch == 0 and not rows:
        _say(report, f"cloning the optimum: {len(data):,} states of {len(train_answers):,} games, "
                     f"{config.clone_epochs} epochs")
    for epoch in range(start_epoch + 1, config.clone_epochs + 1):
        policy.set_training_mode(True)
        order = rng.permutation(len(data))
        losses = [_step(model, data, order[i : i + config.clone_batch_size], optimizer, config.vf_coef,
                        config.max_grad_norm) for i in range(0, len(order), config.clone_batch_size)]
        policy.set_training_mode(False)
        policy_loss = float(np.mean([p for p, _ in losses]))
        value_loss = float(np.mean([v for _, v in losses]))
        hit = accuracy(model, data, sample)
        guesses = greedy_guesses(model, game, eval_answers)
        won = guesses > 0
        mean = float(guesses[won].mean()) if won.any() else float("nan")
        elapsed = time.perf_counter() - began
        rows.append([epoch, round(policy_loss + config.vf_coef * value_loss, 6), round(policy_loss, 6),
                     round(value_loss, 6), round(hit, 6), len(eval_answers), round(float(won.mean()), 6),
                     round(mean, 6), round(elapsed, 3)])
        atomic_write_csv(run_dir / "cloning.csv", CSV_COLUMNS, rows)
        save_checkpoint(folder, model, {"epoch": epoch, "optimizer": optimizer_state(optimizer),
                                        "rng": rng.bit_generator.state, "rows": rows, "wall_time_s": elapsed,
                                        "config": config.to_dict()}, keep=2, name=f"epoch-{epoch:04d}")
        _say(report, f"cloning epoch {epoch}/{config.clone_epochs}: loss {policy_loss:.4f}, optimal move in "
                     f"{100 * hit:.1f}% of states, greedy policy {int(guesses.sum()):,} guesses on "
                     f"{len(eval_answers):,} answers ({100 * won.mean():.2f}% won), {elapsed:.0f} s")
        if stop_event is not None and stop_event.is_set() and epoch < config.clone_epochs:
            return False
    everyone = np.arange(len(game.answers))
    result = evaluate_policy(model.policy, game, everyone, name="cloned")
    summary = {"epochs": config.clone_epochs, "states": len(data), "train_answers": len(train_answers),
               "wall_time_s": round(time.perf_counter() - began, 3), "last": dict(zip(CSV_COLUMNS, rows[-1])),
               "all": _brief(result)}
    if len(held_out):
        summary["held_out"] = _brief(result.subset([game.answers[int(a)] for a in held_out]))
        summary["trained"] = _brief(result.subset([game.answers[int(a)] for a in train_answers]))
    atomic_write_bytes(summary_path, json.dumps(summary, indent=2).encode())
    return True


def _brief(result: EvaluationResult) -> dict[str, Any]:
    return {"games": result.n_games, "win_rate": round(result.win_rate, 6), "total_guesses": result.total_guesses,
            "mean_guesses": None if np.isnan(result.mean_guesses) else round(result.mean_guesses, 6)}


def _reward_options(config: TrainConfig) -> dict[str, Any]:
    from ..envs.engine import REWARD_KEYS

    return {k: v for k, v in config.env_kwargs.items() if k in REWARD_KEYS}


def _say(report: Callable[[str], None] | None, text: str) -> None:
    logger.info(text)
    if report is not None:
        report(text)


def cloning_started(run_dir: Path) -> bool:
    """Whether the run folder holds a cloning checkpoint (a run to resume, not to start)."""
    return latest_checkpoint(run_dir, "cloning", "epoch-") is not None


__all__ = ["ACCURACY_SAMPLE", "CSV_COLUMNS", "CloneData", "accuracy", "clone", "cloning_started", "expert_data",
           "greedy_guesses"]
