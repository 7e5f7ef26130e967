"""One benchmark run: an algorithm, a tier, a seed; resumable; evaluations in the protocol's format.

:func:`run` trains ``algo`` from scratch on the tier's id with the hyperparameter file's entry
(the shipped one unless given), for the tier's budget, on the batched environment. Every
``eval_every`` steps (at the first rollout boundary past each) it plays the deterministic policy
on every scored answer and appends the evaluation to ``evaluations.json``
(:data:`EVALUATIONS_FORMAT`, read back by :func:`read_evaluations`), then writes a checkpoint.

A run lives in ``<log_dir>/<tier>/<algo>/seed-<S>/``:

* ``evaluations.json``: the protocol's record of the run (its settings, every evaluation, the
  final one with each answer's guesses once ``complete``);
* ``checkpoint/``: ``state.json`` and ``state.npz`` (written atomically, read with
  ``allow_pickle=False``): the network and optimizer tensors, the replay buffer of the
  off-policy algorithms, every game's state, the random generators and the algorithm's counters.
  Resuming builds the model from the hyperparameters again and loads that state into it, so a
  resumed run takes exactly the steps an uninterrupted one takes (``tests/training/test_benchmark.py``
  compares them); it is removed when the run completes;
* ``model.zip``: the final model in stable-baselines3's own format, for SB3 and rl-zoo3 (guessgym
  never opens it: SB3's loader unpickles);
* ``run.lock``: held by the run while it runs, so a second run into the same folder is refused.

A run writes only there: a folder at the run's path that holds anything else is refused, not
replaced; a checkpoint is read only if it fits the run (its arrays no larger than the run's model
and buffer need, its games' states within the game, its step at most one evaluation past the
record, which it carries); a checkpoint replaced when a kill came between its two renames is put
back; and stable-baselines3's own logger (a ``SB3-<date>`` folder in the system's temporary
folder per run) is not started.

A user's own algorithm runs through the same function: ``algo`` as ``"package.module:Class"`` (a
stable-baselines3 ``BaseAlgorithm``), with a hyperparameter file that has the tier's id. That
**imports the module, which runs its code**, as ``--agent module:NAME`` does elsewhere.
"""

from __future__ import annotations

import importlib
import io
import json
import re
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.off_policy_algorithm import OffPolicyAlgorithm

from ...agents import policies as guess_policies
from ...agents.rollout import play_batched
from ...envs.game import Game
from ...envs.vector import BatchedGuessEnv
from ...infra.atomic import atomic_directory, atomic_write_bytes, held_lock, recover_replaced_folder
from ...infra.inputs import read_input, read_npz
from ..checkpoints import (
    decode_state,
    encode_state,
    load_optimizer_state,
    optimizer_state,
    rng_state,
    set_rng_state,
)
from ..numerics import pin_numerics, pin_threads
from ..sb3_vec import BatchedVecEnv
from .hyperparams import ALGORITHMS, Hyperparams, check_run_settings, load_hyperparams, shipped_path
from .protocol import Tier, aids_of, protocol

#: The version of ``evaluations.json``'s layout.
EVALUATIONS_FORMAT = 1

#: The algorithm attributes a checkpoint restores besides the tensors (those an algorithm lacks are skipped).
COUNTERS = ("num_timesteps", "_n_updates", "_episode_num", "_n_calls", "exploration_rate", "_last_obs",
            "_last_episode_starts", "_last_original_obs", "ep_info_buffer", "ep_success_buffer")

#: The replay buffer's fields a checkpoint holds.
BUFFER_FIELDS = ("observations", "next_observations", "actions", "rewards", "dones", "timeouts", "pos", "full")

MAX_STATE_BYTES = 4 << 30
#: What a run's folder may hold before its record is written (anything else is someone else's).
RUN_LOCK = "run.lock"
#: An algorithm's import path: ``package.module:Class``.
IMPORT_PATH = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")

#: A checkpoint's arrays are written uncompressed: read up to twice the file's size (and the run's need).
CHECKPOINT_RATIO = 2.0
#: The largest ``evaluations.json`` read (a complete run of the largest tier takes about 20 KB).
MAX_RECORD_BYTES = 4 << 20


@dataclass(frozen=True)
class RunSpec:
    """What defines a run.

    Attributes:
        algo: a name of :data:`~guessgym.training.benchmark.hyperparams.ALGORITHMS`, or
            ``"package.module:Class"`` for a user's own stable-baselines3 algorithm.
        tier: the tier (:func:`~guessgym.training.benchmark.protocol.tier`).
        seed: the run's seed (the protocol's reference seeds are
            :data:`~guessgym.training.benchmark.protocol.SEEDS`).
        log_dir: the parent folder of runs.
        hyperparams: a hyperparameter file (``None``: the shipped file of ``algo``).
        torch_threads: torch's (and numba's) threads for the run, pinned before any game is built
            (part of what makes it reproducible; the record's ``numerics`` holds the count measured
            once every game is built).
    """

    algo: str
    tier: Tier
    seed: int
    log_dir: Path
    hyperparams: Path | None = None
    torch_threads: int = 1

    @property
    def run_dir(self) -> Path:
        return Path(self.log_dir) / self.tier.name / self.algo.replace(":", "-") / f"seed-{self.seed}"


def algorithm_class(algo: str) -> type[BaseAlgorithm]:
    """The class of ``algo``: a shipped name, or ``"package.module:Class"`` (imported, which runs the
    module's code: the user named it).

    Raises:
        ValueError: not a shipped name nor an import path, or nothing importable there.
    """
    target = ALGORITHMS.get(algo, algo)
    module_name, _, class_name = target.partition(":")
    if not IMPORT_PATH.fullmatch(target):
        raise ValueError(f"unknown algorithm {algo[:80]!r}; choose one of {', '.join(ALGORITHMS)} or give your own "
                         "stable-baselines3 algorithm as package.module:Class")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError, TypeError, ValueError) as exc:
        raise ValueError(f"algorithm {algo!r}: cannot import {target} ({exc})") from None
    if not (isinstance(cls, type) and issubclass(cls, BaseAlgorithm)):
        raise ValueError(f"algorithm {algo!r}: {target} is not a stable-baselines3 BaseAlgorithm subclass")
    return cls


def build(spec: RunSpec, hp: Hyperparams, game: Game) -> tuple[BaseAlgorithm, BatchedVecEnv]:
    """A new model of the run (seeded) on a new batched environment of ``game``."""
    shaped = hp.env_kwargs.get("reward_mode") == "shaped"  # the shaped reward counts candidates
    venv = BatchedVecEnv(BatchedGuessEnv(hp.n_envs, game=game, track_candidates=shaped, **hp.env_kwargs))
    policy = getattr(guess_policies, hp.policy)
    try:
        model = algorithm_class(spec.algo)(policy, venv, seed=spec.seed, verbose=0, device="cpu",
                                           policy_kwargs=dict(hp.policy_kwargs), **hp.algorithm_kwargs)
    except (TypeError, ValueError, AssertionError) as exc:
        raise ValueError(f"{hp.source} [{hp.env_id}]: {spec.algo} cannot be built with these settings "
                         f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from None
    from stable_baselines3.common.logger import Logger

    model.set_logger(Logger(folder=None, output_formats=[]))  # SB3's own would make a folder in the temporary one
    return model, venv


def takes_action_masks(algorithm: type[BaseAlgorithm] | BaseAlgorithm) -> bool:
    """Whether the algorithm's ``predict`` takes ``action_masks`` (as MaskablePPO's does)."""
    return "action_masks" in algorithm.predict.__code__.co_varnames


def chooses_allowed_guesses(policy: str) -> bool:
    """Whether the shipped policy class named ``policy`` chooses its greedy guess among those hard mode
    allows by itself (the guess Q-policies do: their evaluation cannot repeat a rejected guess)."""
    return bool(getattr(getattr(guess_policies, policy, None), "chooses_allowed_guesses", False))


def greedy_actions(model: BaseAlgorithm) -> Callable[[dict[str, np.ndarray]], np.ndarray]:
    """The model's deterministic action for a batch of observations (with its masks when the
    algorithm takes them, as MaskablePPO does)."""
    keys = list(getattr(model.observation_space, "spaces", {}))
    masked = takes_action_masks(model)
    predict: Any = model.predict

    def act(obs: dict[str, np.ndarray]) -> np.ndarray:
        extra = {"action_masks": obs["action_mask"].astype(bool)} if masked else {}
        action, _ = predict({k: obs[k] for k in keys}, deterministic=True, **extra)
        return np.asarray(action, dtype=np.int64)

    return act


def evaluate_model(model: BaseAlgorithm, game: Game) -> np.ndarray:
    """Each scored answer's guesses under the deterministic policy (0: lost), the global random
    generators left as they were (so evaluating does not change the training that follows)."""
    saved = rng_state()
    try:
        return play_batched(greedy_actions(model), game)
    finally:
        set_rng_state(saved)


def score_row(step: int, guesses: np.ndarray, game: Game, regret: Callable[[float], float],
              wall_s: float) -> dict[str, Any]:
    """One evaluation in the protocol's terms (a lost game scores ``max_attempts + 1``)."""
    scores = np.where(guesses > 0, guesses, game.max_attempts + 1)
    mean = float(scores.mean())
    return {"step": int(step), "mean_score": round(mean, 6), "win_rate": round(float((guesses > 0).mean()), 6),
            "regret": round(regret(mean), 6), "wall_s": round(wall_s, 3)}


class _Evaluations(BaseCallback):
    """Evaluates, records and checkpoints at the first rollout boundary past each evaluation step."""

    def __init__(self, record: dict[str, Any], spec: RunSpec, scored: Game, clock: Callable[[], float],
                 save: Callable[[], None], stop_event: threading.Event | None) -> None:
        super().__init__()
        self.record, self.spec, self.scored, self.clock, self.save = record, spec, scored, clock, save
        self.regret = spec.tier.anchors().regret
        self.stop_event = stop_event
        self.stopped = False

    def due(self) -> bool:
        done = self.record["evaluations"]
        last = done[-1]["step"] if done else 0
        steps = [s for s in self.spec.tier.evaluation_steps if s > last]
        return bool(steps) and self.model.num_timesteps >= steps[0]

    def evaluate(self) -> dict[str, Any]:
        guesses = evaluate_model(self.model, self.scored)
        row = score_row(self.model.num_timesteps, guesses, self.scored, self.regret, self.clock())
        self.record["evaluations"].append(row)
        self.last_guesses = guesses
        return row

    def _on_rollout_start(self) -> None:
        if self.due():
            self.evaluate()
            self.save()
        if self.stop_event is not None and self.stop_event.is_set():
            self.save()
            self.stopped = True

    def _on_step(self) -> bool:
        return not self.stopped


# ---- the checkpoint -------------------------------------------------------------------------------
def _model_state(model: BaseAlgorithm, env: BatchedVecEnv) -> dict[str, Any]:
    state: dict[str, Any] = {
        "counters": {k: getattr(model, k) for k in COUNTERS if hasattr(model, k)},
        "policy": dict(model.policy.state_dict()),
        "optimizer": optimizer_state(model.policy.optimizer),
        "env": env.get_state(),
        "rng": rng_state(),
        "action_space_rng": model.action_space.np_random.bit_generator.state,  # off-policy warm-up and epsilon draws
    }
    buffer = getattr(model, "replay_buffer", None)
    if isinstance(model, OffPolicyAlgorithm) and buffer is not None:
        n = buffer.buffer_size if buffer.full else buffer.pos
        state["replay_buffer"] = {
            f: (getattr(buffer, f) if f in ("pos", "full") else _head(getattr(buffer, f), n)) for f in BUFFER_FIELDS
            if hasattr(buffer, f) and getattr(buffer, f) is not None}
    return state


def _head(value: Any, n: int) -> Any:
    return {k: v[:n] for k, v in value.items()} if isinstance(value, dict) else value[:n]


def _check_observations(model: BaseAlgorithm, env: BatchedVecEnv, key: str, value: Any) -> None:
    """Refuse a saved ``_last_obs``-like counter that is not a batch of the run's observations."""
    if value is None:
        return
    space = model.observation_space
    parts = getattr(space, "spaces", None)
    if parts is None:
        raise ValueError(f"{key} is saved for an observation space this run does not have")
    if not isinstance(value, dict) or set(value) != set(parts):
        raise ValueError(f"{key} must hold the observation's parts {', '.join(parts)}")
    for name, part in parts.items():
        array = value[name]
        expected = (env.num_envs, *part.shape)
        if not isinstance(array, np.ndarray) or array.shape != expected or array.dtype != part.dtype:
            raise ValueError(f"{key}[{name!r}] must be a {part.dtype} array of shape {expected}")
        if not all(part.contains(row) for row in array):
            raise ValueError(f"{key}[{name!r}] holds values outside the observation space")


def _load_model_state(model: BaseAlgorithm, env: BatchedVecEnv, state: dict[str, Any]) -> None:
    for key, value in state["counters"].items():
        if key not in COUNTERS:
            raise ValueError(f"unknown counter {key!r}")
        if key == "num_timesteps" and (type(value) is not int or value != state["step"]):
            raise ValueError(f"num_timesteps {value!r} is not the checkpoint's step {state['step']!r}")
        if key in ("_last_obs", "_last_original_obs"):
            _check_observations(model, env, key, value)
        elif key == "_last_episode_starts" and value is not None and (
                not isinstance(value, np.ndarray) or value.shape != (env.num_envs,)):
            raise ValueError(f"_last_episode_starts must be an array of {env.num_envs}")
        setattr(model, key, value)
    model.policy.load_state_dict(state["policy"])
    load_optimizer_state(model.policy.optimizer, state["optimizer"])
    env.set_state(state["env"])
    if "replay_buffer" in state:
        buffer = model.replay_buffer  # type: ignore[attr-defined]
        for key, value in state["replay_buffer"].items():
            if key not in BUFFER_FIELDS:
                raise ValueError(f"unknown replay buffer field {key!r}")
            if key in ("pos", "full"):
                setattr(buffer, key, value)
                continue
            target = getattr(buffer, key)
            for name, part in (value.items() if isinstance(value, dict) else [(None, value)]):
                into = target[name] if name is not None else target
                into[: len(part)] = part
    model.action_space.np_random.bit_generator.state = state["action_space_rng"]
    set_rng_state(state["rng"])


def restore(run_dir: Path, model: BaseAlgorithm, env: BatchedVecEnv, state: dict[str, Any]) -> None:
    """Load a checkpoint's ``state`` into a freshly built model of the run, or a ``ValueError`` naming
    the checkpoint when it does not fit (damaged, edited, or of other settings)."""
    try:
        _load_model_state(model, env, state)
    except (KeyError, TypeError, ValueError, RuntimeError, IndexError, AttributeError, OverflowError) as exc:
        raise ValueError(f"{run_dir / 'checkpoint'}: its state does not fit this run ({type(exc).__name__}: "
                         f"{(str(exc).splitlines() or [''])[0][:200]}); remove the folder to start the run again"
                         ) from None


def save_checkpoint(run_dir: Path, model: BaseAlgorithm, env: BatchedVecEnv, record: dict[str, Any]) -> None:
    """Write ``evaluations.json`` and the checkpoint of the current state, each atomically."""
    arrays: dict[str, np.ndarray] = {}
    document = json.dumps(encode_state({"format": EVALUATIONS_FORMAT, "step": int(model.num_timesteps),
                                        "evaluations": record["evaluations"], **_model_state(model, env)},
                                       arrays)).encode()
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, **arrays)
    with atomic_directory(run_dir / "checkpoint") as tmp:
        (tmp / "state.npz").write_bytes(buffer.getvalue())
        (tmp / "state.json").write_bytes(document)
    write_evaluations(run_dir, record)


def state_bytes(model: BaseAlgorithm, env: BatchedVecEnv) -> int:
    """The most a checkpoint of this run can hold (bytes): its network four times over (weights,
    the optimizer's two moments and room), its replay buffer as allocated, and 16 MiB for the games'
    states, counters and generators. A checkpoint's arrays are read up to this, never more."""
    tensors = sum(t.numel() * t.element_size() for t in model.policy.state_dict().values())
    buffer = getattr(model, "replay_buffer", None)
    held = 0
    if buffer is not None:
        for name in BUFFER_FIELDS:
            value = getattr(buffer, name, None)
            for array in (value.values() if isinstance(value, dict) else [value]):
                held += array.nbytes if isinstance(array, np.ndarray) else 0
    return 4 * tensors + held + (16 << 20)


def load_checkpoint(run_dir: Path, max_bytes: int = MAX_STATE_BYTES) -> dict[str, Any] | None:
    """The checkpoint's state (``None`` without one), its arrays read up to ``max_bytes``
    (:func:`state_bytes` of the run); a ``ValueError`` naming it if damaged. A checkpoint whose
    replacement a kill interrupted is put back first (:func:`~guessgym.infra.atomic.recover_replaced_folder`)."""
    folder = run_dir / "checkpoint"
    recover_replaced_folder(folder)
    if not (folder / "state.json").is_file() or not (folder / "state.npz").is_file():
        return None
    try:
        arrays = read_npz(folder / "state.npz", "benchmark checkpoint", max_bytes=max_bytes, max_ratio=CHECKPOINT_RATIO)
        state = decode_state(json.loads(read_input(folder / "state.json", "benchmark checkpoint",
                                                   max_bytes=max_bytes)), arrays)
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{folder}: not a checkpoint this guessgym reads ({str(exc)[:300]})") from None
    except RecursionError:
        raise ValueError(f"{folder}: not a checkpoint this guessgym reads (its JSON is nested too deep)") from None
    if not isinstance(state, dict) or state.get("format") != EVALUATIONS_FORMAT:
        raise ValueError(f"{folder}: not a checkpoint of format {EVALUATIONS_FORMAT}")
    return state


# ---- the evaluations file ---------------------------------------------------------------------------
def write_evaluations(run_dir: Path, record: dict[str, Any]) -> None:
    atomic_write_bytes(run_dir / "evaluations.json", (json.dumps(record, indent=1) + "\n").encode())


def read_evaluations(path: str | Path, *, protocol_tiers: bool = True) -> dict[str, Any]:
    """A run's ``evaluations.json``, checked (read as JSON; a ``ValueError`` names what is wrong;
    ``protocol_tiers``: see :func:`~guessgym.training.benchmark.records.check_record`)."""
    from .records import check_record

    path = Path(path)
    try:
        data = json.loads(read_input(path, "evaluations file", max_bytes=MAX_RECORD_BYTES))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from None
    except RecursionError:
        raise ValueError(f"{path}: not a run's record (its JSON is nested too deep)") from None
    return check_record(data, str(path), protocol_tiers=protocol_tiers)


# ---- the run -------------------------------------------------------------------------------------------
def _new_record(spec: RunSpec, hp: Hyperparams, scored: Game, numerics: dict[str, Any]) -> dict[str, Any]:
    """A run's record before its first evaluation. Version 2's also declare the run's learning-signal
    aids (read from its settings)."""
    version = spec.tier.version
    aids = {"aids": aids_of(hp.policy_kwargs, hp.env_kwargs)} if protocol(version).aids else {}
    source = hp.source  # a shipped file by the command that prints its path: the same on every machine
    if spec.algo in ALGORITHMS and Path(source) == shipped_path(spec.algo):
        source = f"guessgym benchmark hyperparams {spec.algo}"
    return {"protocol": version, "format": EVALUATIONS_FORMAT, "tier": spec.tier.name,
            "budget": spec.tier.budget, "eval_every": spec.tier.eval_every, "env_id": spec.tier.env_id,
            "algo": spec.algo, "seed": spec.seed, "scored_answers": len(scored.answers),
            "hyperparams_file": source, "hyperparams": hp.as_dict(), **aids, "torch_threads": spec.torch_threads,
            "numerics": numerics, "guessgym": metadata.version("guessgym"), "resumed_at": [], "evaluations": [],
            "complete": False, "final": None}


def _evaluations_at(run_dir: Path, record: dict[str, Any], state: dict[str, Any], step: int,
                    tier: Tier) -> list[dict[str, Any]]:
    """The evaluations of the run up to the checkpoint at ``step``: those the checkpoint carries
    (written with it, so a kill between the checkpoint and the record loses none), else the record's
    up to ``step``. A checkpoint is saved at an evaluation or at a stop before the next one is due,
    so its step is at least its last evaluation's and below the next evaluation step: a step past
    that (edited to the budget, which would end the run at once) is refused."""
    from .records import check_record

    where = run_dir / "checkpoint"
    carried = state.get("evaluations")
    if carried is None:  # a checkpoint written before checkpoints carried them
        carried = [e for e in record["evaluations"] if e["step"] <= step]
    try:
        check_record({**record, "evaluations": carried, "complete": False}, str(where), protocol_tiers=False)
    except ValueError as exc:
        raise ValueError(f"{where}: its evaluations do not fit the run ({str(exc)[:200]})") from None
    last = carried[-1]["step"] if carried else 0
    following = [s for s in tier.evaluation_steps if s > last]
    if step < last or (following and step >= following[0]):
        raise ValueError(f"{where}: its step {step:,} does not follow its evaluations (the last at {last:,}, the next "
                         f"due at {following[0] if following else tier.budget:,}); remove the folder to start the run "
                         "again")
    return list(carried)


def run(spec: RunSpec, *, progress_bar: bool = False, stop_event: threading.Event | None = None,
        say: Callable[[str], None] | None = None) -> Path:
    """Run (or resume, or find complete) the run ``spec`` describes; return its ``evaluations.json``.

    Raises:
        ValueError: an unknown algorithm, a hyperparameter entry that does not fit the tier
            (its ``n_timesteps`` differs from the budget), a run folder holding another run.
    """
    tier = spec.tier
    cls = algorithm_class(spec.algo)  # an unknown algorithm fails before anything is read or written
    if spec.hyperparams is None and spec.algo not in ALGORITHMS:
        raise ValueError(f"algorithm {spec.algo!r} has no shipped hyperparameters: give a file (--hyperparams)")
    hp = load_hyperparams(spec.algo, tier.env_id, spec.hyperparams)
    game = tier.training_game()
    if game.hard_mode and not (takes_action_masks(cls) or chooses_allowed_guesses(hp.policy)):
        raise ValueError(f"tier {tier.name} is hard mode, whose rejected guesses use no attempt: an algorithm without "
                         "action masks would repeat them without end; run one that takes masks (maskable_ppo) or a "
                         "policy whose greedy choice is an allowed guess (dqn, qrdqn)")
    budget = protocol(tier.version).tier(tier.name).budget
    if hp.n_timesteps is not None and hp.n_timesteps != budget:
        raise ValueError(f"{hp.source} [{tier.env_id}]: n_timesteps {hp.n_timesteps:,} is not tier {tier.name}'s "
                         f"budget {budget:,} (the protocol fixes the budget)")
    check_run_settings(hp, budget, tier.eval_every)
    known = (tier.env_id, tier.unseen_of) if tier.scored == "unseen" else (tier.env_id,)
    if hp.policy_kwargs["game"] not in known:
        raise ValueError(f"{hp.source} [{tier.env_id}]: policy_kwargs game {hp.policy_kwargs['game']!r} is not what a "
                         f"policy of tier {tier.name} may know: {' or '.join(k for k in known if k)} (the training "
                         "answers, or the whole list the scored answers are held out of)")
    run_dir = spec.run_dir
    _check_own_folder(run_dir)
    with held_lock(run_dir / RUN_LOCK, f"run folder {run_dir}"):
        path = run_dir / "evaluations.json"
        record = read_evaluations(path, protocol_tiers=False) if path.is_file() else None
        if record is not None:
            same = {k: record[k] for k in ("protocol", "tier", "algo", "seed", "budget", "hyperparams")}
            wanted = {"protocol": tier.version, "tier": tier.name, "algo": spec.algo, "seed": spec.seed,
                      "budget": tier.budget, "hyperparams": hp.as_dict()}
            if same != json.loads(json.dumps(wanted)):
                raise ValueError(f"{run_dir} holds another run ({same['algo']} on {same['tier']} of protocol "
                                 f"{same['protocol']}, seed {same['seed']}, other hyperparameters or budget); choose "
                                 "another --log-dir or remove it")
            if record["complete"]:
                _remove_checkpoint(run_dir)  # left by a kill after the record was complete
                if say:
                    say(f"{run_dir}: complete (regret {record['final']['regret']:.4f}); nothing to do")
                return path
        numerics = pin_numerics("portable")
        previous = th.get_num_threads()
        pin_threads(spec.torch_threads)  # numba's pool first: building a pattern matrix would raise torch's threads
        try:
            return _run(spec, hp, game, record, progress_bar, stop_event, say, numerics)
        finally:
            th.set_num_threads(previous)


def _check_own_folder(run_dir: Path) -> None:
    """Refuse a folder at the run's path that holds no run's record but other things (a user's own
    ``checkpoint/`` there would be replaced, then deleted when the run completes)."""
    if (run_dir / "evaluations.json").is_file() or not run_dir.exists():
        return
    if run_dir.is_symlink() or not run_dir.is_dir():
        raise ValueError(f"{run_dir} is not a folder; choose another --log-dir")
    others = sorted(p.name for p in run_dir.iterdir() if p.name != RUN_LOCK)
    if others:
        raise ValueError(f"{run_dir} holds {others[0]!r}{f' and {len(others) - 1} more' if others[1:] else ''} and no "
                         "run's record (evaluations.json): it is not a run's folder, and a run would replace what is "
                         "there; choose another --log-dir or move them away")


def _remove_checkpoint(run_dir: Path) -> None:
    """Remove a complete run's checkpoint, and one a kill left aside."""
    recover_replaced_folder(run_dir / "checkpoint")
    shutil.rmtree(run_dir / "checkpoint", ignore_errors=True)


def _run(spec: RunSpec, hp: Hyperparams, game: Game, record: dict[str, Any] | None, progress_bar: bool,
         stop_event: threading.Event | None, say: Callable[[str], None] | None, numerics: dict[str, Any]) -> Path:
    tier, run_dir = spec.tier, spec.run_dir
    scored = tier.scored_game()
    model, venv = build(spec, hp, game)
    used = th.get_num_threads()  # what training runs on, every game built: recorded as measured, not as asked
    state = load_checkpoint(run_dir, state_bytes(model, venv)) if record is not None else None
    if record is None or state is None:
        record = _new_record(spec, hp, scored, {**numerics, "torch_threads": used})
        run_dir.mkdir(parents=True, exist_ok=True)
        write_evaluations(run_dir, record)
        wall_start = 0.0
    else:
        step = state.get("step")
        if type(step) is not int or step < 0:
            raise ValueError(f"{run_dir / 'checkpoint'}: its step {step!r} is not a step count")
        record["evaluations"] = _evaluations_at(run_dir, record, state, step, tier)
        record["resumed_at"].append(step)
        wall_start = record["evaluations"][-1]["wall_s"] if record["evaluations"] else 0.0
        restore(run_dir, model, venv, state)
        if say:
            say(f"{run_dir}: resuming at step {step:,}")
    started = time.perf_counter()

    def clock() -> float:
        return wall_start + time.perf_counter() - started

    callback = _Evaluations(record, spec, scored, clock, lambda: save_checkpoint(run_dir, model, venv, record),
                            stop_event)
    remaining = tier.budget - int(model.num_timesteps)
    if remaining > 0:
        model.learn(total_timesteps=remaining, callback=callback, reset_num_timesteps=state is None,
                    progress_bar=progress_bar)
        if callback.stopped:
            return run_dir / "evaluations.json"
    callback.init_callback(model)
    if callback.due() or not record["evaluations"]:
        callback.evaluate()
    else:
        callback.last_guesses = evaluate_model(model, scored)
    final = dict(record["evaluations"][-1])
    final["guesses"] = [int(g) for g in callback.last_guesses]
    record.update(final=final, complete=True)
    model.save(run_dir / "model.zip")
    write_evaluations(run_dir, record)
    _remove_checkpoint(run_dir)
    if say:
        say(f"{run_dir}: complete at step {final['step']:,}: mean score {final['mean_score']:.4f}, "
            f"win rate {final['win_rate']:.2%}, regret {final['regret']:.4f}")
    return run_dir / "evaluations.json"


__all__ = ["BUFFER_FIELDS", "COUNTERS", "EVALUATIONS_FORMAT", "RUN_LOCK", "RunSpec", "algorithm_class", "build",
           "evaluate_model", "greedy_actions", "load_checkpoint", "read_evaluations", "restore", "run",
           "save_checkpoint", "score_row", "state_bytes", "takes_action_masks", "write_evaluations"]
