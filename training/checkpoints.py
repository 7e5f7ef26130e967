"""Checkpoints of a training run: their file format, the random generators' state, and resuming.

A checkpoint is a folder ``checkpoints/step-<N>/`` holding ``model.zip`` (stable-baselines3:
parameters, optimizer state, ``num_timesteps``...) and ``state.pkl`` (this module's format
:data:`CHECKPOINT_FORMAT`: the global random generators, every game's state and generator, the
callbacks' progress, the wall time, the config). It is written into a temporary folder that is
renamed into place (:func:`guessgym.envs.atomic.atomic_directory`), and ``checkpoints/latest`` is
replaced atomically afterwards, so an interruption at any moment leaves the previous checkpoint
intact. :func:`latest_checkpoint` finds the newest complete one; :func:`load_checkpoint_state`
reads it back.
"""

from __future__ import annotations

import pickle
import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from stable_baselines3.common.base_class import BaseAlgorithm

from ..envs.atomic import atomic_directory, atomic_write_bytes, remove_stale_temporaries

CHECKPOINT_FORMAT = 1


def checkpoint_dir_name(step: int) -> str:
    return f"step-{step:012d}"


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The newest complete checkpoint directory of a run, or ``None``.

    ``checkpoints/latest`` names it; if that pointer is missing or stale, the newest
    ``step-*`` directory holding both ``model.zip`` and ``state.pkl`` is used (temporary
    directories of an interrupted save are never considered).
    """
    root = Path(run_dir) / "checkpoints"
    if not root.is_dir():
        return None
    pointer = root / "latest"
    if pointer.is_file():
        target = root / pointer.read_text().strip()
        if (target / "model.zip").is_file() and (target / "state.pkl").is_file():
            return target
    complete = sorted(
        d
        for d in root.iterdir()
        if d.is_dir() and d.name.startswith("step-") and (d / "model.zip").is_file() and (d / "state.pkl").is_file()
    )
    return complete[-1] if complete else None


def rng_state() -> dict[str, Any]:
    """The global generators that training draws from: torch (action sampling), numpy (minibatch
    shuffles), Python's ``random``."""
    return {"torch": th.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()}  # noqa: NPY002


def set_rng_state(state: dict[str, Any]) -> None:
    th.set_rng_state(state["torch"])
    np.random.set_state(state["numpy"])  # noqa: NPY002  (SB3 shuffles minibatches with it)
    random.setstate(state["python"])


def save_checkpoint(root: Path, model: BaseAlgorithm, state: dict[str, Any], keep: int) -> Path:
    """Write ``model`` and ``state`` (without ``format``, which is added) as the checkpoint of
    ``model.num_timesteps`` under ``root``, point ``root/latest`` at it, and keep only the ``keep``
    newest checkpoints (0: keep all)."""
    step = int(model.num_timesteps)
    final = Path(root) / checkpoint_dir_name(step)
    with atomic_directory(final) as tmp:
        model.save(tmp / "model.zip")
        with open(tmp / "state.pkl", "wb") as f:
            pickle.dump({"format": CHECKPOINT_FORMAT, **state}, f, protocol=pickle.HIGHEST_PROTOCOL)
    atomic_write_bytes(Path(root) / "latest", (final.name + "\n").encode())
    if keep > 0:
        dirs = sorted(d for d in Path(root).iterdir() if d.is_dir() and d.name.startswith("step-"))
        for old in dirs[:-keep]:
            shutil.rmtree(old, ignore_errors=True)
    remove_stale_temporaries(root)  # folders of saves that were killed half-way
    return final


def load_checkpoint_state(checkpoint: Path) -> dict[str, Any]:
    """Read a checkpoint's ``state.pkl`` (checking its format)."""
    with open(Path(checkpoint) / "state.pkl", "rb") as f:
        state = pickle.load(f)
    if state.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{checkpoint} has checkpoint format {state.get('format')}, expected {CHECKPOINT_FORMAT}")
    return state


__all__ = [
    "CHECKPOINT_FORMAT",
    "checkpoint_dir_name",
    "latest_checkpoint",
    "load_checkpoint_state",
    "rng_state",
    "save_checkpoint",
    "set_rng_state",
]
