"""The training entry point: :func:`train` (``guessgym train`` calls it).

A run lives in ``<log_dir>/<run_name>/``:

* ``config.json``: the configuration it was started with;
* ``tb/``: TensorBoard logs (``tensorboard --logdir runs``): SB3's losses and rollout statistics,
  ``rollout/success_rate``, ``eval/win_rate``, ``eval/mean_guesses``, ``curriculum/answers``;
* ``curve.csv``: one row per rollout (games finished, win rate, mean return and length);
* ``eval.csv``: the greedy policy's win rate and mean guesses every ``eval_every`` steps, with
  the training wall time;
* ``checkpoints/step-<N>/``: resumable checkpoints (see :class:`~guessgym.training.callbacks.CheckpointCallback`);
* ``best_model.zip`` and ``best.json``: the best model evaluated so far and its step and scores
  on the evaluation answers (training may end worse than it was at some evaluation; the final
  model is ranked too);
* ``model.zip`` and ``final.json`` once the run completes (model, steps, wall time, final
  evaluation on every answer, the best model's step and scores).

Resuming (``train(config, resume=True)``) loads the latest checkpoint, restores the games, the
random generators and the callbacks' progress, truncates the CSV files and TensorBoard logs to
the checkpoint's step (TensorBoard's ``purge_step``), and continues: the result is identical to
an uninterrupted run with the same seed (``tests/training/test_training.py`` checks the parameters).

The same seed and config give the same model on another machine too, with the same library
versions: ``numerics = "portable"`` (the default) pins torch's CPU code paths before the run's
first operation (:mod:`guessgym.training.numerics`), and ``final.json`` records what was in effect.
"""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.logger import Logger, TensorBoardOutputFormat

from ..agents.model_files import algorithm_class, algorithm_name, read_model, save_model
from ..agents.policies import GuessActorCriticPolicy, MaskableGuessPolicy, default_candidate_prior
from ..envs.game import Game, make_game, split_env_options
from ..envs.vector import BatchedGuessEnv
from ..infra.atomic import atomic_path, atomic_write_bytes
from .callbacks import CheckpointCallback, CurveCallback, EvalCallback, ProgressBarCallback, TrainingClock, eval_summary
from .checkpoints import (
    MODEL_EXTRA,
    CheckpointError,
    latest_checkpoint,
    legacy_checkpoints,
    load_checkpoint_state,
    set_rng_state,
)
from .cloning import clone, cloning_started
from .config import TrainConfig
from .curriculum import CurriculumCallback, CurriculumSchedule
from .eval_report import EvalReport, reference_means
from .numerics import pin_numerics
from .sb3_vec import BatchedVecEnv

logger = logging.getLogger(__name__)

#: Config fields that may differ between a checkpoint and the run resuming it (they do not
#: change the training trajectory).
RESUMABLE_CHANGES = frozenset(
    {
        "total_steps",
        "progress_bar",
        "references",
        "target_win_rate",
        "target_mean_guesses",
        "checkpoint_every",
        "keep_checkpoints",
        "eval_every",
        "eval_answers",
        "log_dir",
        "torch_threads",
        "device",
    }
)


class _PurgingTensorBoardFormat(TensorBoardOutputFormat):
    """SB3's TensorBoard writer, opened with ``purge_step`` so that a resumed run hides the
    events a crashed session wrote after the checkpoint instead of duplicating them."""

    def __init__(self, folder: str, purge_step: int | None) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(log_dir=folder, purge_step=purge_step)
        self._is_closed = False


def resolve_game(config: TrainConfig) -> tuple[Game, dict[str, Any]]:
    """The game of ``config.env_id`` + ``config.env_kwargs``, and the other environment options."""
    game_kwargs, env_kwargs = split_env_options(config.env_kwargs)
    return make_game(config.env_id, **game_kwargs), env_kwargs


def build_env(config: TrainConfig, game: Game, env_kwargs: dict[str, Any]) -> BatchedVecEnv:
    """The batched training environment (candidate sets are tracked only if rewards need them)."""
    shaped = env_kwargs.get("reward_mode", "sparse") == "shaped"
    venv = BatchedGuessEnv(config.num_envs, game=game, track_candidates=shaped, **env_kwargs)
    return BatchedVecEnv(venv)


def policy_kwargs(config: TrainConfig, game: Game) -> dict[str, Any]:
    prior = default_candidate_prior(game) if config.candidate_prior is None else float(config.candidate_prior)
    if not config.candidate_features:
        prior = 0.0
    return {
        "game": game,
        "candidate_features": config.candidate_features,
        "candidate_prior": prior,
        "split_features": config.split_features,
        "split_prior": dict(config.split_prior),
        "net_arch": {k: list(v) for k, v in config.net_arch.items()},
    }


def build_model(config: TrainConfig, venv: BatchedVecEnv, game: Game) -> BaseAlgorithm:
    """A new MaskablePPO / PPO / A2C model with the guess policy (seeds every generator)."""
    cls = algorithm_class(config.algorithm)
    common: dict[str, Any] = {
        "learning_rate": config.learning_rate,
        "n_steps": config.n_steps,
        "gamma": config.gamma,
        "gae_lambda": config.gae_lambda,
        "ent_coef": config.ent_coef,
        "vf_coef": config.vf_coef,
        "max_grad_norm": config.max_grad_norm,
        "seed": config.seed,
        "device": config.device,
        "policy_kwargs": policy_kwargs(config, game),
        "verbose": 0,
    }
    if config.algorithm in ("maskable_ppo", "ppo"):
        common.update(batch_size=config.batch_size, n_epochs=config.n_epochs, clip_range=config.clip_range)
    policy = MaskableGuessPolicy if config.algorithm == "maskable_ppo" else GuessActorCriticPolicy
    return cls(policy, venv, **common)


def _incompatible(saved: dict[str, Any], config: TrainConfig) -> list[str]:
    current = config.to_dict()
    saved = {"numerics": "native", **saved}  # runs saved before the field existed ran on native paths
    return sorted(k for k in current if k not in RESUMABLE_CHANGES and saved.get(k) != current[k])


def _already_complete(run_dir: Path, steps: int, remaining: int, evaluation: EvalCallback) -> bool:
    """A finished run resumed: its model and summary are at this step, and it either spent its
    budget or stopped at a target that its last evaluation still meets."""
    final_json = run_dir / "final.json"
    if not (final_json.is_file() and (run_dir / "model.zip").is_file()):
        return False
    summary = json.loads(final_json.read_text())
    if summary.get("steps") != steps:
        return False
    return remaining <= 0 or (summary.get("target") is not None and evaluation.last is not None
                              and evaluation.met(evaluation.last))


@contextlib.contextmanager
def _checkpoint_errors(checkpoint: Path | None) -> Iterator[None]:
    """Turn a checkpoint state that does not fit the run (a damaged or edited file) into one
    :class:`CheckpointError` naming the checkpoint."""
    try:
        yield
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, RuntimeError) as exc:
        if isinstance(exc, CheckpointError):
            raise
        raise CheckpointError(f"{checkpoint}: its state does not fit this run ({type(exc).__name__}: "
                              f"{str(exc)[:200]})") from None


def _atomic_save_model(model: BaseAlgorithm, path: Path) -> None:
    with atomic_path(path, suffix=".tmp.zip") as tmp:  # SB3 appends ".zip" to other names
        save_model(model, tmp)


def train(
    config: TrainConfig,
    resume: bool = False,
    *,
    callbacks: list[BaseCallback] | None = None,
    stop_event: threading.Event | None = None,
    print_evaluations: bool = False,
) -> Path:
    """Train a guess policy as ``config`` says; return the path of the trained model.

    Args:
        config: the run's configuration (:class:`~guessgym.training.config.TrainConfig`).
        resume: continue from the run's latest checkpoint (if it has none, start afresh). The
            config may change only in :data:`RESUMABLE_CHANGES` (e.g. a larger ``total_steps``).
        callbacks: extra SB3 callbacks, run after the run's own.
        print_evaluations: print a table row per evaluation (``guessgym train`` does).
        stop_event: when set (e.g. by a signal handler), the run saves a checkpoint at the next
            rollout boundary and returns.

    Returns:
        ``<run_dir>/model.zip`` when the run completed; the latest checkpoint's ``model.zip`` if
        it was stopped through ``stop_event``.

    Raises:
        FileExistsError: if the run directory already has checkpoints or a model and ``resume``
            is False.
        ValueError: for an invalid config or one that cannot resume the saved run.
    """
    config.validate()
    run_dir = config.run_dir
    checkpoint = latest_checkpoint(run_dir) if resume else None
    if resume and checkpoint is None and not cloning_started(run_dir):
        legacy = legacy_checkpoints(run_dir)
        if legacy:
            raise CheckpointError(
                f"{legacy[-1]} was written by guessgym 0.3 as a pickle (state.pkl), which can run code when read; "
                "this version does not read it: finish the run with guessgym 0.3, or start it again without --resume")
        raise FileNotFoundError(
            f"nothing to resume: {run_dir} has no checkpoint (checkpoints/step-*/ with model.zip, state.json and "
            "state.npz); start the run without --resume")
    if not resume and (latest_checkpoint(run_dir) is not None or (run_dir / "model.zip").exists()
                       or cloning_started(run_dir)):
        raise FileExistsError(f"{run_dir} already holds a run; resume it (--resume) or choose another run_name/log_dir")
    try:
        game, env_kwargs = resolve_game(config)  # errors in the game settings leave no run folder behind
    except (TypeError, ValueError) as exc:
        raise ValueError(f"config key 'env_kwargs' (or 'env_id'): {exc}") from None
    if game.hard_mode and config.algorithm != "maskable_ppo":
        raise ValueError(
            "hard mode forbids guesses that ignore hints; without masks the policy would keep playing "
            "rejected guesses (they use no attempt): train it with algorithm = 'maskable_ppo'"
        )
    numerics = pin_numerics(config.numerics)  # before the run's first torch operation
    created = not run_dir.exists()
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"config key 'log_dir' {config.log_dir!r}: cannot create the run folder {run_dir} "
                         f"({exc.strerror or exc})") from None
    previous_threads = th.get_num_threads()
    th.set_num_threads(config.torch_threads)
    try:
        return _train(config, game, env_kwargs, run_dir, checkpoint, callbacks or [], stop_event,
                      {**numerics, "torch_threads": config.torch_threads}, print_evaluations)
    except BaseException:
        if created and {p.name for p in run_dir.iterdir()} <= {"config.json"}:
            shutil.rmtree(run_dir, ignore_errors=True)  # a run that failed to start leaves nothing behind
        raise
    finally:
        th.set_num_threads(previous_threads)


def _train(
    config: TrainConfig,
    game: Game,
    env_kwargs: dict[str, Any],
    run_dir: Path,
    checkpoint: Path | None,
    extra: list[BaseCallback],
    stop_event: threading.Event | None,
    numerics: dict[str, Any],
    print_evaluations: bool,
) -> Path:
    venv = build_env(config, game, env_kwargs)
    state: dict[str, Any] | None = None
    if checkpoint is not None:
        state = load_checkpoint_state(checkpoint)
        with _checkpoint_errors(checkpoint):
            bad = _incompatible(state["config"], config)
            clock_start = float(state["wall_time_s"])
        if bad:
            raise ValueError(
                f"cannot resume {run_dir} with a different {', '.join(bad)} "
                f"(only {sorted(RESUMABLE_CHANGES)} may change)"
            )
        model = read_model(checkpoint / "model.zip", game=game, env=venv, device=config.device, force_reset=False)
        if algorithm_name(model) != config.algorithm:
            raise CheckpointError(f"{checkpoint / 'model.zip'} holds a {algorithm_name(model)} model, "
                                  f"the config trains {config.algorithm}")
        logger.info("resuming %s from %s (step %d)", run_dir, checkpoint.name, model.num_timesteps)
    else:
        atomic_write_bytes(run_dir / "config.json", json.dumps(config.to_dict(), indent=2).encode())
        model = build_model(config, venv, game)

    training, held_out = training_answers(config, game)
    eval_answers = evaluation_answers(config, game)
    if state is None and config.clone_epochs:
        say = print if print_evaluations else None
        if not clone(model, config, game, run_dir, training, eval_answers, held_out, report=say,
                     stop_event=stop_event):
            return latest_checkpoint(run_dir, "cloning", "epoch-") / "model.zip"  # type: ignore[operator]
        model.set_random_seed(config.seed)  # PPO starts from the generators' state of a run without cloning

    clock = TrainingClock(0.0 if state is None else clock_start)
    schedule = CurriculumSchedule(config.curriculum, len(game.answers), config.seed,
                                  training if len(held_out) else None)
    curriculum = CurriculumCallback(schedule)
    curve = CurveCallback(run_dir / "curve.csv")
    references = reference_means(game, config.references, run_dir)
    report = EvalReport(run_dir, f"{config.algorithm} guess policy on {game.name}", references,
                        print if print_evaluations else None, game=game)
    evaluation = EvalCallback(run_dir / "eval.csv", config.eval_every,
                              None if len(eval_answers) == len(game.answers) else eval_answers, clock, curriculum,
                              (config.target_win_rate, config.target_mean_guesses), report, best_dir=run_dir)
    others = {"curriculum": curriculum, "curve": curve, "eval": evaluation}
    checkpointer = CheckpointCallback(
        run_dir, config.checkpoint_every, config.keep_checkpoints, config, clock, others, stop_event
    )

    if state is not None:
        with _checkpoint_errors(checkpoint):
            venv.set_state(state["env"])
            for key in MODEL_EXTRA:
                setattr(model, key, state["model_extra"][key])
            stateful: list[tuple[str, Any]] = [*others.items(), ("checkpoint", checkpointer)]
            for name, cb in stateful:
                if name in state["callbacks"]:
                    cb.load_state_dict(state["callbacks"][name])
    else:
        for path in (run_dir / "curve.csv", run_dir / "eval.csv", run_dir / "best_model.zip", run_dir / "best.json"):
            path.unlink(missing_ok=True)

    purge = None if state is None else int(model.num_timesteps)
    model.set_logger(
        Logger(folder=str(run_dir / "tb"), output_formats=[_PurgingTensorBoardFormat(str(run_dir / "tb"), purge)])
    )

    remaining = config.total_steps - int(model.num_timesteps)
    if _already_complete(run_dir, int(model.num_timesteps), remaining, evaluation):
        return run_dir / "model.zip"
    if state is not None:
        with _checkpoint_errors(checkpoint):
            set_rng_state(state["rng"])  # last: nothing may draw from the generators before learn()
    if remaining > 0:
        rollout = config.n_steps * config.num_envs
        model.learn(
            total_timesteps=remaining,
            callback=CallbackList([
                curriculum, curve, evaluation, checkpointer, *extra,
                *([ProgressBarCallback(config.total_steps)] if config.progress_bar else []),
            ]),
            log_interval=max(1, 2048 // rollout),
            reset_num_timesteps=state is None,
        )
        if checkpointer._stop:
            saved = latest_checkpoint(run_dir)
            return (saved / "model.zip") if saved is not None else run_dir / "model.zip"

    # ---- completion: last curve row, full evaluation, final checkpoint and model ----------------
    for cb in (curriculum, curve, evaluation, checkpointer):
        if getattr(cb, "model", None) is None:
            cb.init_callback(model)
    curve.flush()
    wall = clock.elapsed()  # training time (periodic evaluations included, the final one not)
    final_eval = evaluation.run(answers=np.arange(len(game.answers)))
    model.logger.dump(model.num_timesteps)
    if checkpointer.last_saved != model.num_timesteps:
        checkpointer.save()
    model_path = run_dir / "model.zip"
    _atomic_save_model(model, model_path)
    summary = {
        "run_name": config.run_name,
        "env_id": config.env_id,
        "game": game.name,
        "algorithm": config.algorithm,
        "steps": int(model.num_timesteps),
        "wall_time_s": round(wall, 3),
        "steps_per_s": round(model.num_timesteps / wall, 1) if wall > 0 else None,
        "final_eval": eval_summary(final_eval),
        "numerics": numerics,
        "target": None if evaluation.reached_at is None else {
            "win_rate": config.target_win_rate, "mean_guesses": config.target_mean_guesses,
            "reached_at_step": evaluation.reached_at},
        "references": references,
        "best": evaluation.best,
        **_stage_summaries(run_dir, game, final_eval, held_out),
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    atomic_write_bytes(run_dir / "final.json", json.dumps(summary, indent=2).encode())
    model.logger.close()
    return model_path


def training_answers(config: TrainConfig, game: Game) -> tuple[np.ndarray, np.ndarray]:
    """The answers the run trains on and those it holds out (``config.holdout``, a split seeded by
    ``config.seed``: the same as ``guessgym export-demos --split``'s), each sorted."""
    everyone = np.arange(len(game.answers))
    if not config.holdout:
        return everyone, everyone[:0]
    from .demos import split_answers

    train, held = split_answers(everyone.tolist(), 1.0 - config.holdout, config.seed)
    return np.asarray(train, dtype=np.int64), np.asarray(held, dtype=np.int64)


def evaluation_answers(config: TrainConfig, game: Game) -> np.ndarray:
    """The answers of the run's in-training evaluations (and of each cloning epoch's): the training
    answers, or a sample of ``config.eval_answers`` of them seeded by ``config.seed + 1``; sorted."""
    training, _ = training_answers(config, game)
    if config.eval_answers is None or config.eval_answers >= len(training):
        return training
    return np.sort(np.random.default_rng(config.seed + 1).choice(training, config.eval_answers, replace=False))


def _stage_summaries(run_dir: Path, game: Game, final_eval: Any, held_out: np.ndarray) -> dict[str, Any]:
    """``final.json``'s entries for the cloning stage and the held-out answers (none without them)."""
    out: dict[str, Any] = {}
    cloned = run_dir / "cloning" / "summary.json"
    if cloned.is_file():
        out["cloned"] = json.loads(cloned.read_text())
    if len(held_out):
        out["held_out_eval"] = eval_summary(final_eval.subset([game.answers[int(a)] for a in held_out]))
    return out


__all__ = ["RESUMABLE_CHANGES", "build_env", "build_model", "evaluation_answers", "policy_kwargs", "resolve_game",
           "train", "training_answers"]
