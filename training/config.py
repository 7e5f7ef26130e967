"""The one documented configuration of a training run.

A :class:`TrainConfig` is a plain dataclass (CleanRL style): every field has a default and a
line of documentation below. Config files are JSON or TOML with the same keys
(``configs/*.toml``); ``--set key=value`` overrides any field from the command line, with dotted
keys reaching into dictionaries (``env_kwargs.reward_mode=shaped``, ``net_arch.pi=[128,128]``).

Examples:
    >>> cfg = TrainConfig.from_dict({"env_id": "guessgym/MicroNerdle-v1", "total_steps": 5000})
    >>> cfg = apply_overrides(cfg, ["seed=3", "curriculum=[[20, 1000]]"])
    >>> cfg.seed, cfg.curriculum[0].answers
    (3, 20)
"""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ..envs.engine import REWARD_KEYS
from ..envs.game import GAME_KEYS
from ..infra.inputs import read_input

#: The algorithms a run may use (the same names as :data:`guessgym.agents.learned.ALGORITHMS`; kept here so
#: that reading a config does not import torch).
ALGORITHMS = ("maskable_ppo", "ppo", "a2c")

#: Environment keyword arguments that are not the game's: the reward options and the cache switch.
ENV_KEYS = (*REWARD_KEYS, "matrix_cache")


@dataclass
class CurriculumStage:
    """One stage of the vocabulary curriculum.

    Attributes:
        answers: how many answers new games draw from in this stage (the first ``answers`` of a
            fixed seeded shuffle of the answer list, so each stage's pool contains the previous
            one's); candidate features and rewards count only those answers.
        steps: environment steps spent in the stage.
    """

    answers: int
    steps: int


@dataclass
class TrainConfig:
    """Everything that defines a training run.

    Attributes:
        run_name: the run's directory under ``log_dir`` (checkpoints, logs, final model).
        env_id: a registered guessgym id (``guessgym/MiniNerdle-v1``, ``guessgym/Wordle-v1``...).
        env_kwargs: keyword arguments on top of the id's (game: ``answers``, ``guesses``,
            ``word_list``, ``hard_mode``...; rewards: ``reward_mode``, ``step_penalty``...).
        algorithm: ``maskable_ppo`` (sb3-contrib, uses ``action_masks()``), ``ppo`` or ``a2c``.
        total_steps: environment steps (summed over parallel games) to train for; 0 with
            ``clone_epochs``: the cloned policy is the run's model.
        num_envs: games played in parallel by the batched vector environment.
        seed: seeds torch, numpy, Python's ``random``, the games and the curriculum order.
        learning_rate: optimizer step size (constant).
        n_steps: steps per game per rollout (a rollout is ``n_steps * num_envs`` samples).
        batch_size: minibatch size of the PPO update (ignored by A2C).
        n_epochs: passes over each rollout in the PPO update (ignored by A2C).
        gamma: discount factor; below 1 it rewards winning in fewer guesses.
        gae_lambda: GAE parameter.
        ent_coef: entropy bonus coefficient.
        vf_coef: value loss coefficient.
        clip_range: PPO clipping parameter (ignored by A2C).
        max_grad_norm: gradient clipping norm.
        net_arch: hidden layers of the actor (``pi``) and critic (``vf``) MLPs.
        candidate_features: give the network the candidate-set features and the "is a
            candidate" guess score (see :mod:`guessgym.agents.policies`).
        split_features: score each guess also by how it splits the candidates (buckets,
            largest, expected and entropy of the split, memoised per candidate set; see
            :mod:`guessgym.agents.split_features`), with weights the network sets per state.
        split_prior: initial weights of the split features by name (``{"log expected left": -300}``
            starts from the expected-size baseline's choices; see :mod:`guessgym.agents.policies`);
            empty: the split score starts near zero.
        candidate_prior: initial weight of the "is a candidate" score; ``None`` means
            ``ln(n_guesses) + 1`` (the untrained policy mostly plays candidates); 0 starts uniform.
        curriculum: stages of ``[answers, steps]`` (or ``{"answers":..., "steps":...}``) played
            before the full answer list; empty for none.
        clone_epochs: epochs of behaviour cloning from the optimum before reinforcement learning
            (:mod:`guessgym.training.cloning`): the policy learns the optimal tree's move in
            every state of its games on the training answers; 0: none.
        clone_learning_rate: the cloning stage's optimizer step size (Adam).
        clone_batch_size: states per minibatch of the cloning stage.
        holdout: the share of answers held out of training (a seeded split): neither cloning nor
            the training games see them, the best model is chosen on the others, and the final
            evaluation reports them apart; 0: train on every answer.
        checkpoint_every: environment steps between checkpoints (taken at rollout boundaries).
        keep_checkpoints: how many recent checkpoints to keep (older ones are deleted).
        eval_every: environment steps between evaluations of the greedy policy (0: only at the end).
        eval_answers: how many answers each in-training evaluation plays (a fixed seeded
            sample); ``None`` plays every answer. The final evaluation always plays every answer.
        log_dir: the parent directory of runs.
        references: baselines (agent names) whose mean guesses over every answer each evaluation
            is compared with, in the printed table and as lines on ``curve.png`` (the optimum is
            added when the game has a shipped one).
        target_win_rate, target_mean_guesses: stop early, and finish the run (final evaluation,
            model), at the first evaluation whose win rate is at least the one and whose mean
            guesses is at most the other (those given); ``None``: train for ``total_steps``.
        progress_bar: show SB3's progress bar (tqdm/rich); the command line turns it on.
        torch_threads: ``torch.set_num_threads`` for the run (the machine is shared). Part of
            what makes a run reproducible: another thread count gives another model.
        numerics: ``"portable"`` pins torch's CPU code paths so the same seed gives the same
            model on any x86-64 machine with AVX2; ``"native"`` leaves them to the machine (see
            :mod:`guessgym.training.numerics`).
        device: torch device.
    """

    run_name: str = "mini-nerdle"
    env_id: str = "guessgym/MiniNerdle-v1"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    algorithm: str = "maskable_ppo"
    total_steps: int = 200_000
    num_envs: int = 32
    seed: int = 0
    learning_rate: float = 3e-4
    n_steps: int = 32
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.95
    gae_lambda: float = 0.95
    ent_coef: float = 0.001
    vf_coef: float = 0.5
    clip_range: float = 0.2
    max_grad_norm: float = 0.5
    net_arch: dict[str, list[int]] = field(default_factory=lambda: {"pi": [256, 256], "vf": [256, 256]})
    candidate_features: bool = True
    split_features: bool = False
    split_prior: dict[str, float] = field(default_factory=dict)
    candidate_prior: float | None = None
    curriculum: list[CurriculumStage] = field(default_factory=list)
    clone_epochs: int = 0
    clone_learning_rate: float = 1e-3
    clone_batch_size: int = 256
    holdout: float = 0.0
    checkpoint_every: int = 50_000
    keep_checkpoints: int = 3
    eval_every: int = 50_000
    eval_answers: int | None = None
    log_dir: str = "runs"
    references: list[str] = field(default_factory=list)
    target_win_rate: float | None = None
    target_mean_guesses: float | None = None
    progress_bar: bool = False
    torch_threads: int = 1
    numerics: str = "portable"
    device: str = "cpu"

    def __post_init__(self) -> None:
        self.curriculum = [_stage(s) for s in (self.curriculum or [])]

    # ---- conversions ---------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        """Build from a dict with the field names as keys; unknown keys raise ``ValueError``."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"unknown config key(s) {unknown}; valid keys: {sorted(names)}")
        values = dict(data)
        if "curriculum" in values:
            values["curriculum"] = [_stage(s) for s in values["curriculum"] or []]
        config = cls(**values)
        config.validate()
        return config

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict that :meth:`from_dict` reads back."""
        return dataclasses.asdict(self)

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first invalid field (its type first, then its value)."""
        self._check_types()
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {ALGORITHMS}, got {self.algorithm!r}")
        for name in ("total_steps", "num_envs", "n_steps", "batch_size", "n_epochs", "torch_threads"):
            value = getattr(self, name)
            if name == "total_steps" and value == 0 and self.clone_epochs:
                continue  # the cloned policy is the run's model: no reinforcement learning after it
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer (total_steps: 0 with clone_epochs, cloning "
                                 f"only), got {value!r}")
        for name in ("checkpoint_every", "eval_every", "keep_checkpoints", "clone_epochs"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        if not 0.0 < self.gamma <= 1.0:
            raise ValueError(f"gamma must be in (0, 1], got {self.gamma}")
        for name in ("learning_rate", "clone_learning_rate"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.clone_batch_size < 1:
            raise ValueError(f"clone_batch_size must be a positive integer, got {self.clone_batch_size!r}")
        if not 0.0 <= self.holdout < 1.0:
            raise ValueError(f"holdout must be a share of the answers in [0, 1), got {self.holdout}")
        if self.holdout and self.curriculum:
            raise ValueError("holdout and curriculum cannot be combined (the curriculum's pools would draw held-out "
                             "answers); use one of them")
        if not isinstance(self.env_kwargs, dict):
            raise ValueError("env_kwargs must be a table/dict")
        bad = sorted(set(self.env_kwargs) - set(GAME_KEYS) - set(ENV_KEYS))
        if bad:
            raise ValueError(f"unknown env_kwargs {bad}; valid: {list(GAME_KEYS + ENV_KEYS)}")
        check_net_arch(self.net_arch, required=False)
        check_torch_threads(self.torch_threads)
        for i, stage in enumerate(self.curriculum):
            if stage.answers < 1 or stage.steps < 1:
                raise ValueError(f"curriculum stage {i} needs answers >= 1 and steps >= 1, got {stage}")
        if self.split_prior:
            from ..agents.split_features import FEATURES, check_split_prior  # numpy only: no torch import

            try:
                check_split_prior(self.split_prior, self.split_features)
            except ValueError as exc:
                raise ValueError(f"split_prior must be a table of split feature weights (features: {list(FEATURES)}) "
                                 f"and needs split_features = true; got {self.split_prior!r}: {exc}") from None
        if self.eval_answers is not None and self.eval_answers < 1:
            raise ValueError("eval_answers must be a positive integer or null (every answer)")
        if not isinstance(self.references, list) or not all(isinstance(r, str) for r in self.references):
            raise ValueError(f"references must be a list of agent names, got {self.references!r}")
        if self.target_win_rate is not None and not 0.0 < self.target_win_rate <= 1.0:
            raise ValueError(f"target_win_rate must be in (0, 1], got {self.target_win_rate}")
        if self.target_mean_guesses is not None and not self.target_mean_guesses >= 1.0:
            raise ValueError(f"target_mean_guesses must be at least 1, got {self.target_mean_guesses}")
        if self.numerics not in ("portable", "native"):
            raise ValueError(f"numerics must be 'portable' or 'native', got {self.numerics!r}")
        if not self.run_name or "/" in self.run_name or self.run_name in (".", ".."):
            raise ValueError(f"run_name must be a plain directory name, got {self.run_name!r}")

    def _check_types(self) -> None:
        """Every key holds a value of its type (a config file or ``--set`` can hold anything)."""
        def is_int(v: Any) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        def is_number(v: Any) -> bool:
            return (isinstance(v, (int, float)) and not isinstance(v, bool)) and math.isfinite(v)

        kinds: dict[str, tuple[str, Callable[[Any], bool]]] = {
            "str": ("a string", lambda v: isinstance(v, str)),
            "int": ("a whole number", is_int),
            "float": ("a finite number", is_number),
            "bool": ("true or false", lambda v: isinstance(v, bool)),
            "float | None": ("a finite number or null", lambda v: v is None or is_number(v)),
            "int | None": ("a whole number or null", lambda v: v is None or is_int(v)),
            "dict[str, Any]": ("a table", lambda v: isinstance(v, dict) and all(isinstance(k, str) for k in v)),
            "dict[str, float]": ("a table of numbers",
                                 lambda v: isinstance(v, dict) and all(is_number(x) for x in v.values())),
            "dict[str, list[int]]": ("a table of lists of layer sizes (whole numbers >= 1)",
                                     lambda v: isinstance(v, dict) and all(
                                         isinstance(x, list) and all(is_int(n) and n >= 1 for n in x)
                                         for x in v.values())),
            "list[str]": ("a list of strings", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v)),
            "list[CurriculumStage]": ("a list of stages", lambda v: isinstance(v, list)),
        }
        for f in dataclasses.fields(self):
            what, ok = kinds[str(f.type)]
            value = getattr(self, f.name)
            if not ok(value):
                raise ValueError(f"config key {f.name!r} must be {what}, got {value!r} ({type(value).__name__})")
        check_train_seed(self.seed)

    @property
    def run_dir(self) -> Path:
        """``log_dir / run_name``."""
        return Path(self.log_dir) / self.run_name


def _stage(value: Any) -> CurriculumStage:
    if isinstance(value, CurriculumStage):
        return value
    if isinstance(value, dict):
        return CurriculumStage(int(value["answers"]), int(value["steps"]))
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return CurriculumStage(int(value[0]), int(value[1]))
    raise ValueError(f"a curriculum stage is [answers, steps] or {{answers=..., steps=...}}, got {value!r}")


def load_config(path: str | Path) -> TrainConfig:
    """Read a ``.json`` or ``.toml`` config file."""
    path = Path(path)
    data = read_config_table(path)
    try:
        return TrainConfig.from_dict(data)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from exc


def read_config_table(path: Path) -> dict[str, Any]:
    """The table of a ``.json`` or ``.toml`` config file (any kind of run's), unchecked."""
    text = read_input(path, "config file").decode("utf-8")
    try:
        if path.suffix == ".toml":
            if sys.version_info >= (3, 11):
                import tomllib

                data = tomllib.loads(text)
            else:
                raise ValueError(f"{path.name}: TOML configs need Python 3.11 or later; use a .json config")
        elif path.suffix == ".json":
            data = json.loads(text)
        else:
            raise ValueError(f"config files are .toml or .json, got {path.name}")
    except RecursionError:
        raise ValueError(f"{path}: nested too deep to be a config") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a config file holds a table of keys, not {type(data).__name__}")
    return data


def parse_value(text: str) -> Any:
    """A command-line value: JSON if it parses (numbers, true/false, null, lists), else the string.

    Raises:
        ValueError: JSON nested too deep to read.
    """
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"the value {text[:20]}... is nested too deep") from None
    except json.JSONDecodeError:
        return text


class _Config(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


ConfigT = TypeVar("ConfigT", bound=_Config)


#: The most torch threads a run may ask for.
MAX_TORCH_THREADS = 256


def check_net_arch(net_arch: Any, required: bool = True) -> None:
    """Refuse a ``net_arch`` that is not ``{pi: [sizes], vf: [sizes]}`` (both keys when ``required``)
    of layer sizes :func:`guessgym.agents.net_arch.check_layer_sizes` takes (widths, depth and the
    weights between hidden layers bounded)."""
    from ..agents.net_arch import check_layer_sizes

    if not isinstance(net_arch, dict) or (set(net_arch) != {"pi", "vf"} if required else set(net_arch) - {"pi", "vf"}):
        raise ValueError(f"net_arch must be {{pi = [sizes], vf = [sizes]}}, got {str(net_arch)[:80]}")
    for key, sizes in net_arch.items():
        check_layer_sizes(sizes, f"net_arch.{key}")


#: The largest seed a run takes: stable-baselines3 seeds numpy's legacy generator with it, which takes
#: 0 to 2**32 - 1 (a larger one failed after the game and the model were built, naming no key).
MAX_TRAIN_SEED = 2**32 - 1


def check_train_seed(seed: Any, key: str = "seed") -> None:
    """Refuse a run's ``seed`` that is not a whole number from 0 to :data:`MAX_TRAIN_SEED`, naming
    the config ``key``."""
    if type(seed) is not int or not 0 <= seed <= MAX_TRAIN_SEED:
        raise ValueError(f"config key {key!r} must be a whole number from 0 to 2**32 - 1 (what stable-baselines3 "
                         f"seeds numpy with), got {str(seed)[:40]}")


def check_torch_threads(threads: Any) -> None:
    if type(threads) is not int or not 1 <= threads <= MAX_TORCH_THREADS:
        raise ValueError(f"torch_threads must be a whole number from 1 to {MAX_TORCH_THREADS}, got {str(threads)[:40]}")


def apply_overrides(config: ConfigT, assignments: list[str]) -> ConfigT:
    """A copy of ``config`` (a :class:`TrainConfig`, or any config with ``to_dict`` and ``from_dict``,
    such as a general run's) with ``key=value`` assignments applied (dotted keys for nested dicts)."""
    data = config.to_dict()
    for item in assignments:
        if "=" not in item:
            raise ValueError(f"--set expects key=value, got {item!r}")
        key, _, raw = item.partition("=")
        path = key.strip().split(".")
        target = data
        for part in path[:-1]:
            if part not in target or not isinstance(target[part], dict):
                if part in ("env_kwargs", "net_arch") or isinstance(target.get(part), dict):
                    target = target.setdefault(part, {})
                    continue
                raise ValueError(f"--set {key}: {part!r} is not a dictionary field")
            target = target[part]
        target[path[-1]] = parse_value(raw)
    return type(config).from_dict(data)  # type: ignore[attr-defined]


__all__ = ["CurriculumStage", "ENV_KEYS", "GAME_KEYS", "MAX_TORCH_THREADS", "MAX_TRAIN_SEED", "TrainConfig",
           "apply_overrides", "check_net_arch", "check_torch_threads", "check_train_seed", "load_config", "parse_value",
           "read_config_table"]
