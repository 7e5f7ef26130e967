"""Training learned agents: one entry point, a documented config, resumable checkpoints.

The entry point is :func:`guessgym.training.train.train`::

    from guessgym.training.config import TrainConfig, load_config
    from guessgym.training.train import train

    model_path = train(load_config("configs/mini-nerdle.toml"))
    model_path = train(config, resume=True)  # after an interruption

``import guessgym.training`` stays light (no torch, no stable-baselines3): the command line
registers ``guessgym train`` through :mod:`guessgym.cli.train` without loading them. Training
needs the ``train`` extra (``pip install "guessgym[train]"``); without it ``guessgym train`` says
so in one line. The modules: :mod:`~guessgym.training.config` (the documented config),
:mod:`~guessgym.training.curriculum`, :mod:`~guessgym.training.checkpoints` (format, random
generators, resume), :mod:`~guessgym.training.callbacks`, :mod:`~guessgym.training.sb3_vec` (the
stable-baselines3 ``VecEnv`` over the batched engine) and :mod:`~guessgym.training.train`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import CurriculumStage, TrainConfig, apply_overrides, load_config

__all__ = ["CurriculumStage", "TrainConfig", "apply_overrides", "load_config"]


def __getattr__(name: str) -> Any:
    # The config's names load with the config, when first asked for: importing a subpackage
    # (guessgym.training.benchmark, whose protocol the command line reads) does not load it.
    if name in __all__:
        from . import config

        return getattr(config, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
