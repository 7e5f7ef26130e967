"""guessgym's own tuning study: every algorithm searched with the same Optuna budget, on the regret.

rl-zoo3's ``-optimize`` is not the protocol's tuning: its objective is the mean episode reward (the
win rate here, which saturates at 1 once a policy wins every game), a trial's cost is not bounded by
``--n-timesteps``, and its samplers ignore the file's ``gamma``. :func:`tune` is the protocol's
study of one algorithm on one tier:

* **the same budget for every algorithm**: ``trials`` trials of ``trial_steps`` environment steps each,
  and no trial past ``max_trial_seconds`` of wall-clock time (a trial over it stops at its next
  rollout and counts as failed, so no setting wins by being slow);
* **the objective is the regret** of the trial's greedy policy on **validation answers**: a seeded
  part of the tier's *training* answers that the trial never draws as answers. The scored answers
  are never played while tuning; the validation regret's anchors are the tier's own kind (the whole
  list's optimal tree and random-consistent play, on the validation answers);
* **seeded**: Optuna's TPE sampler with the study's seed, each trial's model with seed
  ``seed + trial number``; median pruning at the trial's evaluations after five complete trials;
* **resumable**: the study is an Optuna journal file (``study.log``, JSON lines, no code) in its
  folder, so the same call continues it with the trials still to run; the best settings are written
  as ``best.yml``, an rl-zoo3 hyperparameter file with the tier's id and budget, which ``guessgym
  benchmark run --hyperparams best.yml`` runs.

Each algorithm's search space (:data:`SEARCH_SPACES`) is small and stated; what is not searched is the
shipped file's value.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from ...envs.game import Game, held_out_answers, with_answers
from ...infra.atomic import atomic_write_bytes
from .anchors import optimal_tree, random_consistent, scored_indices, tree_total
from .hyperparams import POLICIES, Hyperparams, check_run_settings, load_hyperparams
from .protocol import ANCHOR_SEEDS, Tier

#: Each algorithm family's searched settings: a name and its choices (categorical) or (low, high, "log").
ON_POLICY: dict[str, Any] = {
    "learning_rate": (1e-5, 3e-3, "log"), "ent_coef": (1e-4, 5e-2, "log"), "gamma": [0.9, 0.95, 0.99],
    "n_envs": [16, 32, 64],
}
SEARCH_SPACES: dict[str, dict[str, Any]] = {
    "ppo": {**ON_POLICY, "n_steps": [16, 32, 64, 128], "n_epochs": [1, 2, 4], "batch_size": [64, 128, 256],
            "clip_range": [0.1, 0.2, 0.3]},
    "maskable_ppo": {**ON_POLICY, "n_steps": [16, 32, 64, 128], "n_epochs": [1, 2, 4], "batch_size": [64, 128, 256],
                     "clip_range": [0.1, 0.2, 0.3]},
    "a2c": {**ON_POLICY, "n_steps": [5, 8, 16, 32]},
    "dqn": {"learning_rate": (1e-5, 3e-3, "log"), "gamma": [0.9, 0.95, 0.99], "batch_size": [32, 64, 128],
            "train_freq": [1, 2, 4], "target_update_interval": [500, 1000, 5000],
            "exploration_fraction": [0.1, 0.3, 0.5], "n_envs": [4, 8, 16]},
    "qrdqn": {"learning_rate": (1e-5, 3e-3, "log"), "gamma": [0.9, 0.95, 0.99], "batch_size": [32, 64, 128],
              "train_freq": [1, 2, 4], "target_update_interval": [500, 1000, 5000],
              "exploration_fraction": [0.1, 0.3, 0.5], "n_envs": [4, 8, 16]},
}

#: The share of the training answers a study validates on (at most :data:`MAX_VALIDATION` of them).
VALIDATION_SHARE = 0.2
MAX_VALIDATION = 300
#: Complete trials before the median pruner prunes.
STARTUP_TRIALS = 5


@dataclass(frozen=True)
class StudySpec:
    """One study: ``algo`` on ``tier``, ``trials`` trials of ``trial_steps`` steps, seeded.

    Attributes:
        algo: a shipped algorithm's name (its search space is :data:`SEARCH_SPACES`'s).
        tier: the tier (its training game is split into the trials' training and validation answers).
        trials: trials in all (a resumed study runs those still missing).
        trial_steps: environment steps per trial (the same for every algorithm of a comparison).
        max_trial_seconds: the most wall-clock seconds a trial may take; one over it fails.
        evaluations: evaluations per trial (the pruner's points; the last is the objective).
        seed: the sampler's seed and the first trial's model seed.
        folder: where ``study.log``, ``trials.json`` and ``best.yml`` go.
    """

    algo: str
    tier: Tier
    trials: int
    trial_steps: int
    max_trial_seconds: float
    folder: Path
    evaluations: int = 2
    seed: int = 0

    @property
    def name(self) -> str:
        return f"{self.tier.version}-{self.tier.name}-{self.algo}-seed{self.seed}"


def split_validation(game: Game, seed: int) -> tuple[Game, Game]:
    """The training game without its validation answers, and the game of those answers (a seeded
    :data:`VALIDATION_SHARE` of the training answers, at most :data:`MAX_VALIDATION`)."""
    n = min(MAX_VALIDATION, max(1, round(VALIDATION_SHARE * len(game.answers))))
    chosen = set(np.random.default_rng(seed).permutation(len(game.answers))[:n].tolist())
    fit = with_answers(game, [a for i, a in enumerate(game.answers) if i not in chosen], "fit")
    return fit, held_out_answers(game, fit)


@dataclass(frozen=True)
class ValidationAnchors:
    """The regret's anchors on the validation answers: the tier's whole list's optimal tree there, and the
    random-consistent baseline among the whole list's candidates (mean over :data:`ANCHOR_SEEDS`)."""

    optimum_mean: float
    random_mean: float

    def regret(self, mean_score: float) -> float:
        return (mean_score - self.optimum_mean) / (self.random_mean - self.optimum_mean)


def validation_anchors(tier: Tier, validation: Game) -> ValidationAnchors:
    """Compute :class:`ValidationAnchors` as the protocol's anchors are computed (the same functions)."""
    full = tier.full_game()
    chosen = scored_indices(full, validation.answers)
    tree, _, _ = optimal_tree(full)
    optimum = tree_total(tree, validation.answers) / len(validation.answers)
    return ValidationAnchors(optimum, random_consistent(full, chosen, ANCHOR_SEEDS).mean)


def sample_settings(trial: Any, algo: str) -> dict[str, Any]:
    """The trial's values of ``algo``'s searched settings."""
    values = {}
    for name, space in SEARCH_SPACES[algo].items():
        if isinstance(space, list):
            values[name] = trial.suggest_categorical(name, space)
        else:
            low, high, _ = space
            values[name] = trial.suggest_float(name, low, high, log=True)
    return values


def trial_hyperparams(base: Hyperparams, settings: dict[str, Any], trial_steps: int) -> Hyperparams:
    """The shipped entry with a trial's settings (a PPO minibatch no larger than its rollout)."""
    kwargs = dict(base.algorithm_kwargs)
    n_envs = int(settings.get("n_envs", base.n_envs))
    for name, value in settings.items():
        if name != "n_envs":
            kwargs[name] = value
    if "n_epochs" in kwargs and "batch_size" in kwargs:
        kwargs["batch_size"] = min(int(kwargs["batch_size"]), int(kwargs["n_steps"]) * n_envs)
    if "buffer_size" in kwargs:
        kwargs["buffer_size"] = min(int(kwargs["buffer_size"]), trial_steps)
        kwargs["learning_starts"] = min(int(kwargs.get("learning_starts", 0)), trial_steps // 10)
        kwargs["target_update_interval"] = min(int(kwargs["target_update_interval"]), trial_steps)
    return replace(base, n_envs=n_envs, n_timesteps=trial_steps, algorithm_kwargs=kwargs)


class TrialClock(BaseCallback):
    """Stops a trial past its wall-clock ``deadline`` (``time.monotonic``), and calls ``at_point`` at the
    first rollout boundary past each of ``points`` (steps); a ``False`` from it prunes the trial."""

    def __init__(self, deadline: float, points: list[int], at_point: Callable[[Any, int], bool]) -> None:
        super().__init__()
        self.deadline, self.points, self.at_point = deadline, points, at_point
        self.stopped = ""

    def _on_rollout_start(self) -> None:
        while self.points and self.model.num_timesteps >= self.points[0]:
            self.points.pop(0)
            if not self.at_point(self.model, self.model.num_timesteps):
                self.stopped = "pruned"

    def _on_step(self) -> bool:
        if time.monotonic() > self.deadline:
            self.stopped = "over time"
        return not self.stopped


def tune(spec: StudySpec, *, say: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run (or continue) the study ``spec`` describes; return its summary (also ``trials.json``).

    Raises:
        ValueError: an algorithm without a search space, a bound that is not positive.
    """
    import optuna
    import torch as th
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    from ..numerics import pin_numerics, pin_threads
    from .runner import RunSpec, build, evaluate_model

    if spec.algo not in SEARCH_SPACES:
        raise ValueError(f"no search space for {spec.algo!r}; tuned algorithms: {', '.join(SEARCH_SPACES)}")
    if spec.trials < 1 or spec.trial_steps < 1 or not spec.max_trial_seconds > 0 or spec.evaluations < 1:
        raise ValueError("trials, trial_steps, max_trial_seconds and evaluations must be positive")
    pin_numerics("portable")
    pin_threads(1)
    base = load_hyperparams(spec.algo, spec.tier.env_id)
    fit, validation = split_validation(spec.tier.training_game(), spec.seed)
    anchors = validation_anchors(spec.tier, validation)
    spec.folder.mkdir(parents=True, exist_ok=True)
    storage = JournalStorage(JournalFileBackend(str(spec.folder / "study.log")))
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(study_name=spec.name, storage=storage, direction="minimize", load_if_exists=True,
                                sampler=optuna.samplers.TPESampler(seed=spec.seed),
                                pruner=optuna.pruners.MedianPruner(n_startup_trials=STARTUP_TRIALS))
    step = spec.trial_steps // spec.evaluations

    def objective(trial: Any) -> float:
        settings = sample_settings(trial, spec.algo)
        hp = trial_hyperparams(base, settings, spec.trial_steps)
        try:
            check_run_settings(hp, spec.trial_steps, spec.trial_steps)
        except ValueError as exc:  # a rollout longer than the trial: no run to score
            raise optuna.TrialPruned(f"settings that do not fit the trial ({str(exc).split(': ', 1)[-1]})") from None
        model, _ = build(RunSpec(spec.algo, spec.tier, spec.seed + trial.number, spec.folder), hp, fit)
        last = {"regret": math.inf}

        def at_point(model: Any, steps: int) -> bool:
            scores = evaluate_model(model, validation)
            last["regret"] = anchors.regret(float(np.where(scores > 0, scores, validation.max_attempts + 1).mean()))
            trial.report(last["regret"], steps)
            return not trial.should_prune()

        clock = TrialClock(time.monotonic() + spec.max_trial_seconds,
                            [step * k for k in range(1, spec.evaluations)], at_point)
        started = time.perf_counter()
        model.learn(total_timesteps=spec.trial_steps, callback=clock)
        trial.set_user_attr("seconds", round(time.perf_counter() - started, 1))
        if clock.stopped == "over time":
            raise optuna.TrialPruned(f"over {spec.max_trial_seconds:g} s")
        if clock.stopped == "pruned":
            raise optuna.TrialPruned("below the median")
        at_point(model, spec.trial_steps)
        return last["regret"]

    remaining = spec.trials - len([t for t in study.trials if t.state.is_finished()])
    previous = th.get_num_threads()
    try:
        if remaining > 0:
            study.optimize(objective, n_trials=remaining, catch=(ValueError,),
                           callbacks=[lambda s, t: say and say(_trial_line(t))])
    finally:
        th.set_num_threads(previous)
    return write_results(spec, study, base, anchors, len(fit.answers), len(validation.answers))


def _trial_line(trial: Any) -> str:
    value = "-" if trial.value is None else f"{trial.value:.4f}"
    return f"trial {trial.number}: {trial.state.name.lower()} regret {value} ({trial.user_attrs.get('seconds', '-')} s)"


def write_results(spec: StudySpec, study: Any, base: Hyperparams, anchors: ValidationAnchors, fit: int,
                  validation: int) -> dict[str, Any]:
    """``trials.json`` (every trial) and ``best.yml`` (the best complete trial's settings at the tier's budget)."""
    trials = [{"number": t.number, "state": t.state.name.lower(), "regret": t.value, "params": t.params,
               "seconds": t.user_attrs.get("seconds")} for t in study.trials]
    complete = [t for t in study.trials if t.value is not None and t.state.name == "COMPLETE"]
    best = min(complete, key=lambda t: t.value) if complete else None
    summary = {"study": spec.name, "algo": spec.algo, "tier": spec.tier.name, "protocol": spec.tier.version,
               "trials": spec.trials, "trial_steps": spec.trial_steps, "max_trial_seconds": spec.max_trial_seconds,
               "seed": spec.seed, "search_space": {k: v if isinstance(v, list) else list(v)
                                                   for k, v in SEARCH_SPACES[spec.algo].items()},
               "fit_answers": fit, "validation_answers": validation,
               "validation_anchors": {"optimum_mean": anchors.optimum_mean, "random_mean": anchors.random_mean},
               "best": None if best is None else {"number": best.number, "regret": best.value, "params": best.params},
               "trials_run": trials}
    atomic_write_bytes(spec.folder / "trials.json", (json.dumps(summary, indent=1) + "\n").encode())
    if best is not None:
        atomic_write_bytes(spec.folder / "best.yml", best_file(spec, base, best.params).encode())
    return summary


def best_file(spec: StudySpec, base: Hyperparams, params: dict[str, Any]) -> str:
    """The best settings as an rl-zoo3 hyperparameter file with the tier's id and budget (YAML that
    ``yaml.safe_load`` and rl-zoo3 read alike: floats tagged ``!!float``)."""
    hp = trial_hyperparams(base, params, spec.tier.budget)
    policy = next(path for path, name in POLICIES.items() if name == hp.policy)

    def scalar(value: Any) -> str:
        if isinstance(value, tuple):
            return "[" + ", ".join(scalar(v) for v in value) + "]"
        return f"!!float {value!r}" if isinstance(value, float) else repr(value)

    lines = [f"# The best of {spec.trials} trials of {spec.trial_steps:,} steps ({spec.name}; guessgym benchmark tune)",
             f"{spec.tier.env_id}:", f"  policy: {policy}", f"  n_envs: {hp.n_envs}",
             f"  n_timesteps: {spec.tier.budget}"]
    lines += [f"  {key}: {scalar(value)}" for key, value in sorted(hp.algorithm_kwargs.items())]
    kwargs = ", ".join(f"{k}={v!r}" for k, v in hp.policy_kwargs.items())
    lines.append(f'  policy_kwargs: "dict({kwargs})"')
    if hp.env_kwargs:
        lines.append(f"  env_kwargs: {json.dumps(hp.env_kwargs)}")
    return "\n".join(lines) + "\n"


__all__ = ["MAX_VALIDATION", "SEARCH_SPACES", "STARTUP_TRIALS", "VALIDATION_SHARE", "StudySpec", "TrialClock",
           "ValidationAnchors", "best_file", "sample_settings", "split_validation", "trial_hyperparams", "tune",
           "validation_anchors", "write_results"]
