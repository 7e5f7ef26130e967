"""Checkpoints of a training run: their file format, the random generators' state, and resuming.

A checkpoint is a folder ``checkpoints/step-<N>/`` holding ``model.zip`` (stable-baselines3:
parameters, optimizer state, ``num_timesteps``...; written and read by
:mod:`guessgym.agents.model_files`, never unpickled) and the rest of the run's state in this
module's format :data:`CHECKPOINT_FORMAT`: ``state.json`` (the global random generators, every
game's state and generator, the callbacks' progress, the wall time, the config) with its arrays
in ``state.npz`` (read with ``allow_pickle=False``). Neither file can run code when read: tuples,
arrays and tensors are tagged JSON objects (:func:`encode_state`). Checkpoints of guessgym 0.3
(``state.pkl``, a pickle) are refused rather than read. It is written into a temporary folder that is
renamed into place (:func:`guessgym.infra.atomic.atomic_directory`), and ``checkpoints/latest`` is
replaced atomically afterwards, so an interruption at any moment leaves the previous checkpoint
intact. :func:`latest_checkpoint` finds the newest complete one; :func:`load_checkpoint_state`
reads it back.
"""

from __future__ import annotations

import io
import json
import random
import shutil
import zipfile
import zlib
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from stable_baselines3.common.base_class import BaseAlgorithm

from ..infra.atomic import atomic_directory, atomic_write_bytes, remove_stale_temporaries
from ..infra.inputs import read_input, read_npz

CHECKPOINT_FORMAT = 2
#: The attributes of the SB3 model that a checkpoint's state holds (the rest is in ``model.zip``).
MODEL_EXTRA = ("_last_obs", "_last_episode_starts", "_episode_num", "_n_updates", "ep_info_buffer", "ep_success_buffer")
#: The files of a checkpoint besides ``model.zip``.
STATE_FILES = ("state.json", "state.npz")


class CheckpointError(ValueError):
    """A checkpoint that cannot be resumed (damaged, foreign, or of an older format)."""


def checkpoint_dir_name(step: int) -> str:
    return f"step-{step:012d}"


def latest_checkpoint(run_dir: Path, folder: str = "checkpoints", prefix: str = "step-") -> Path | None:
    """The newest complete checkpoint directory of a run, or ``None``.

    ``checkpoints/latest`` names it; if that pointer is missing or stale, the newest
    ``step-*`` directory holding ``model.zip`` and its state files is used (temporary
    directories of an interrupted save are never considered). ``folder`` and ``prefix`` name
    another series of the same format (the cloning stage's ``cloning/epoch-*``).
    """
    root = Path(run_dir) / folder
    if not root.is_dir():
        return None
    pointer = root / "latest"
    if pointer.is_file():
        target = root / pointer.read_text(errors="replace").strip()
        if _complete(target):
            return target
    complete = sorted(d for d in root.iterdir() if d.name.startswith(prefix) and _complete(d))
    return complete[-1] if complete else None


def _complete(folder: Path) -> bool:
    return folder.is_dir() and all((folder / name).is_file() for name in ("model.zip", *STATE_FILES))


def legacy_checkpoints(run_dir: Path) -> list[Path]:
    """Checkpoints of guessgym 0.3 (``state.pkl``), which this version refuses to read."""
    root = Path(run_dir) / "checkpoints"
    return sorted(d for d in root.iterdir() if (d / "state.pkl").is_file()) if root.is_dir() else []


def rng_state() -> dict[str, Any]:
    """The global generators that training draws from: torch (action sampling), numpy (minibatch
    shuffles), Python's ``random``."""
    return {"torch": th.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()}  # noqa: NPY002


def set_rng_state(state: dict[str, Any]) -> None:
    th.set_rng_state(state["torch"])
    np.random.set_state(state["numpy"])  # noqa: NPY002  (SB3 shuffles minibatches with it)
    random.setstate(state["python"])


# ---- a state as JSON and arrays -------------------------------------------------------------------
def encode_state(value: Any, arrays: dict[str, np.ndarray], where: str = "state") -> Any:
    """``value`` as JSON values, its arrays and tensors moved into ``arrays`` (tagged by key).

    Dicts (string keys not starting with ``$``), lists, strings, numbers, booleans and ``None``
    are kept; tuples, deques, numpy arrays and scalars and torch tensors become tagged objects.
    Anything else is a ``TypeError`` naming where it was found.
    """
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            raise TypeError(f"{where} is an object array, which a checkpoint cannot hold")
        key = f"a{len(arrays)}"
        arrays[key] = value
        return {"$array": key}
    if isinstance(value, th.Tensor):
        key = f"a{len(arrays)}"
        arrays[key] = value.detach().cpu().numpy()
        return {"$tensor": key}
    if isinstance(value, tuple):
        return {"$tuple": [encode_state(v, arrays, f"{where}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, deque):
        return {"$deque": [encode_state(v, arrays, f"{where}[{i}]") for i, v in enumerate(value)],
                "maxlen": value.maxlen}
    if isinstance(value, list):
        return [encode_state(v, arrays, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        if not all(isinstance(k, str) and not k.startswith("$") for k in value):
            raise TypeError(f"{where} has a key that is not a string or starts with '$'")
        return {k: encode_state(v, arrays, f"{where}[{k!r}]") for k, v in value.items()}
    raise TypeError(f"{where} is a {type(value).__name__}, which a checkpoint cannot hold")


def decode_state(value: Any, arrays: dict[str, np.ndarray]) -> Any:
    """The inverse of :func:`encode_state`; a ``ValueError`` for a malformed tag or a missing array."""
    if isinstance(value, list):
        return [decode_state(v, arrays) for v in value]
    if not isinstance(value, dict):
        return value
    tags = [k for k in value if k.startswith("$")]
    if not tags:
        return {k: decode_state(v, arrays) for k, v in value.items()}
    tag = tags[0]
    if tag in ("$array", "$tensor") and len(value) == 1:
        key = value[tag]
        if not isinstance(key, str) or key not in arrays:
            raise ValueError(f"a reference to array {key!r}, which state.npz lacks")
        return arrays[key] if tag == "$array" else th.from_numpy(arrays[key].copy())
    if tag == "$tuple" and len(value) == 1 and isinstance(value[tag], list):
        return tuple(decode_state(v, arrays) for v in value[tag])
    if tag == "$deque" and set(value) == {"$deque", "maxlen"} and isinstance(value[tag], list):
        maxlen = value["maxlen"]
        if maxlen is not None and (type(maxlen) is not int or maxlen < 0):
            raise ValueError(f"a deque with maxlen {maxlen!r}")
        return deque((decode_state(v, arrays) for v in value[tag]), maxlen=maxlen)
    raise ValueError(f"an object with the unknown tag(s) {tags}")


def optimizer_state(optimizer: th.optim.Optimizer) -> dict[str, Any]:
    """A torch optimizer's state for a checkpoint's ``state.json`` (keys as strings)."""
    state = optimizer.state_dict()
    return {"state": {str(k): v for k, v in state["state"].items()}, "param_groups": state["param_groups"]}


def load_optimizer_state(optimizer: th.optim.Optimizer, saved: dict[str, Any]) -> None:
    """Restore what :func:`optimizer_state` saved (JSON turned its keys into strings, its tuples into lists)."""
    groups = [{k: (tuple(v) if k == "betas" else v) for k, v in g.items()} for g in saved["param_groups"]]
    optimizer.load_state_dict({"state": {int(k): v for k, v in saved["state"].items()}, "param_groups": groups})


def save_checkpoint(root: Path, model: BaseAlgorithm, state: dict[str, Any], keep: int,
                    name: str | None = None) -> Path:
    """Write ``model`` and ``state`` (without ``format``, which is added) as the checkpoint of
    ``model.num_timesteps`` under ``root`` (or as ``name``, e.g. ``epoch-0003``), point
    ``root/latest`` at it, and keep only the ``keep`` newest checkpoints of its series (0: keep all)."""
    from ..agents.model_files import save_model

    name = name or checkpoint_dir_name(int(model.num_timesteps))
    prefix = name.split("-")[0] + "-"
    final = Path(root) / name
    arrays: dict[str, np.ndarray] = {}
    document = json.dumps(encode_state({"format": CHECKPOINT_FORMAT, **state}, arrays)).encode()
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, **arrays)
    with atomic_directory(final) as tmp:
        save_model(model, tmp / "model.zip")
        (tmp / "state.npz").write_bytes(buffer.getvalue())
        (tmp / "state.json").write_bytes(document)
    atomic_write_bytes(Path(root) / "latest", (final.name + "\n").encode())
    if keep > 0:
        dirs = sorted(d for d in Path(root).iterdir() if d.is_dir() and d.name.startswith(prefix))
        for old in dirs[:-keep]:
            shutil.rmtree(old, ignore_errors=True)
    remove_stale_temporaries(root)  # folders of saves that were killed half-way
    return final


def load_checkpoint_state(checkpoint: Path) -> dict[str, Any]:
    """Read a checkpoint's state (checking its format); nothing in it can run code.

    Raises:
        CheckpointError: a missing, damaged or foreign state, naming the file and what is wrong.
    """
    checkpoint = Path(checkpoint)
    path = checkpoint / "state.json"
    try:
        document = json.loads(read_input(path, "checkpoint state").decode("utf-8"))
        arrays = read_npz(checkpoint / "state.npz", "checkpoint arrays", max_ratio=2.0)  # written uncompressed
        state = decode_state(document, arrays)
    except (OSError, ValueError, RecursionError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as exc:
        raise CheckpointError(f"{path}: not a readable checkpoint state ({type(exc).__name__}: "
                              f"{str(exc).splitlines()[0][:200] if str(exc) else ''})") from None
    if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
        found = state.get("format") if isinstance(state, dict) else None
        raise CheckpointError(f"{path} has checkpoint format {found!r}, expected {CHECKPOINT_FORMAT}")
    return state


__all__ = [
    "CHECKPOINT_FORMAT",
    "MODEL_EXTRA",
    "CheckpointError",
    "decode_state",
    "encode_state",
    "legacy_checkpoints",
    "checkpoint_dir_name",
    "latest_checkpoint",
    "load_checkpoint_state",
    "load_optimizer_state",
    "optimizer_state",
    "rng_state",
    "save_checkpoint",
    "set_rng_state",
]
