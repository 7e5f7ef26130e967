"""Model files that are read without running code from them.

A stable-baselines3 model zip keeps its settings in a JSON entry, ``data``, where everything that
is not plain JSON (the policy class, its keyword arguments, the spaces, the schedules) is a
cloudpickle: ``BaseAlgorithm.load`` unpickles them, so a crafted file runs its author's code the
moment it is opened. guessgym never does that. :func:`read_model` reads the JSON itself, accepts
only the guess policies and settings guessgym knows, rebuilds every pickled object from them, and
lets SB3 read the tensors with ``torch.load(..., weights_only=True)``. A file that needs anything
else is refused with a :class:`ModelFileError` naming the file and the reason.

The game a policy plays is not plain JSON in SB3's format either, so :func:`save_model` adds an
entry of its own, ``guessgym.json`` (:data:`MANIFEST_FORMAT`): the algorithm, the policy class, its
keyword arguments and the whole game as JSON. Zips saved by guessgym 0.3 lack it; they are read
with the game given by the caller (a pretrained model's card, a run folder's ``config.json``), and
the game must print as the file's record of it does.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.utils import ConstantSchedule, FloatSchedule

from ..envs.env import observation_space
from ..envs.game import Game, game_from_dict, game_to_dict
from ..envs.options import check_bool, check_number
from ..infra.inputs import InputFileError, read_input
from .net_arch import check_layer_sizes

#: The name of guessgym's own entry in a model zip, and the version of its content.
MANIFEST = "guessgym.json"
MANIFEST_FORMAT = 1

#: The entries a model zip may hold (SB3's, and guessgym's manifest).
ZIP_ENTRIES = frozenset({"data", "policy.pth", "policy.optimizer.pth", "pytorch_variables.pth",
                         "_stable_baselines3_version", "system_info.txt", MANIFEST})
#: The largest entry read into memory (the shipped models' largest is 2.2 MB).
MAX_ENTRY_BYTES = 256 * 2**20

#: The algorithms whose models guessgym reads and writes.
ALGORITHMS = ("maskable_ppo", "ppo", "a2c")

#: The guess policies a model may use, by algorithm.
POLICIES = {"maskable_ppo": "MaskableGuessPolicy", "ppo": "GuessActorCriticPolicy", "a2c": "GuessActorCriticPolicy"}

#: The serialised (pickled) entries of SB3's ``data`` that :func:`read_model` rebuilds; any other
#: pickled entry makes a file unreadable.
REBUILT = frozenset({"policy_class", "policy_kwargs", "observation_space", "action_space", "lr_schedule",
                     "clip_range", "clip_range_vf", "_last_obs", "_last_episode_starts", "_last_original_obs",
                     "ep_info_buffer", "ep_success_buffer", "rollout_buffer_class", "action_noise"})

_CONSTANT = re.compile(r"(?:FloatSchedule\()?ConstantSchedule\(val=(-?[0-9.]+(?:e[+-]?[0-9]+)?)\)\)?")
_OBS_KEYS = ("board", "tiles", "action_mask")


def algorithm_class(name: str) -> type[BaseAlgorithm]:
    """The SB3 class of an algorithm name in :data:`ALGORITHMS`."""
    if name == "maskable_ppo":
        from sb3_contrib import MaskablePPO

        return MaskablePPO
    if name == "ppo":
        from stable_baselines3 import PPO

        return PPO
    if name == "a2c":
        from stable_baselines3 import A2C

        return A2C
    raise ValueError(f"unknown algorithm {name!r}; choose one of {ALGORITHMS}")


def algorithm_name(model: BaseAlgorithm) -> str:
    """The :data:`ALGORITHMS` name of a model instance."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import A2C, PPO

    if isinstance(model, MaskablePPO):
        return "maskable_ppo"
    if isinstance(model, PPO):
        return "ppo"
    if isinstance(model, A2C):
        return "a2c"
    raise TypeError(f"unsupported algorithm {type(model).__name__}; expected one of MaskablePPO, PPO, A2C")


class ModelFileError(ValueError):
    """A model file that guessgym will not open: not a model zip, or one that would need code or
    settings that guessgym does not know."""


# ---- checking what the file says ---------------------------------------------------------------
def _net_arch(value: Any) -> dict[str, list[int]] | list[int]:
    if isinstance(value, dict) and set(value) <= {"pi", "vf"}:
        return {k: check_layer_sizes(v, f"net_arch.{k}") for k, v in value.items()}
    return check_layer_sizes(value, "net_arch")


def _optimizers() -> dict[str, type]:
    import torch as th

    return {"Adam": th.optim.Adam, "RMSprop": th.optim.RMSprop}


def _optimizer_class(value: Any) -> type:
    """An optimizer by name (the manifest) or by SB3's text of the class (a 0.3 zip)."""
    known = _optimizers()
    for name, cls in known.items():
        if value in (name, str(cls)):
            return cls
    raise ValueError(f"optimizer {str(value)[:80]!r} is not one guessgym knows ({sorted(known)})")


def _optimizer_kwargs(value: Any) -> dict[str, float]:
    if not isinstance(value, dict) or not set(value) <= {"alpha", "eps", "weight_decay", "betas", "lr"}:
        raise ValueError(f"optimizer settings {str(value)[:80]!r} are not ones guessgym knows")
    return {k: check_number(f"optimizer setting {k}", v) for k, v in value.items()}


def policy_kwargs_to_json(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A guess policy's keyword arguments other than the game, as JSON values (checked by reading
    them back with :func:`check_policy_kwargs`)."""
    out = {k: v for k, v in kwargs.items() if k != "game"}
    if "optimizer_class" in out:
        out["optimizer_class"] = next((n for n, c in _optimizers().items() if c is out["optimizer_class"]),
                                      repr(out["optimizer_class"]))
    check_policy_kwargs(out)
    return out


def check_policy_kwargs(kwargs: Any) -> dict[str, Any]:
    """The guess policy's keyword arguments other than the game, each checked, from JSON values."""
    if not isinstance(kwargs, dict):
        raise ValueError("policy_kwargs must be a JSON object")
    checks: dict[str, Callable[[Any], Any]] = {
        "optimizer_class": _optimizer_class,
        "optimizer_kwargs": _optimizer_kwargs,
        "candidate_features": lambda v: check_bool("candidate_features", v),
        "guess_bias": lambda v: check_bool("guess_bias", v),
        "split_features": lambda v: check_bool("split_features", v),
        "candidate_prior": lambda v: check_number("candidate_prior", v),
        "split_prior": _split_prior,
        "net_arch": _net_arch,
        "log_scale": _log_scale,
    }
    unknown = sorted(set(kwargs) - set(checks))
    if unknown:
        raise ValueError(f"policy settings {unknown} are not ones guessgym knows (allowed: {sorted(checks)})")
    return {k: checks[k](v) for k, v in kwargs.items()}


def _log_scale(value: Any) -> int | None:
    from .split_features import check_log_scale

    check_log_scale(value)
    return None if value is None else int(value)


def _split_prior(value: Any) -> dict[str, float] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise ValueError(f"split_prior must be an object of numbers, got {value!r}")
    return {k: check_number(f"split_prior[{k!r}]", v) for k, v in value.items()}


def _schedule(value: Any, what: str) -> float | None:
    """A constant schedule's value from the manifest (a number) or from SB3's text of it."""
    if value is None:
        return None
    if isinstance(value, dict):  # SB3's record of a pickled schedule: only its text is read
        text = value.get("value_schedule", "")
        match = _CONSTANT.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise ValueError(f"{what} is not a constant schedule ({str(text)[:60]!r}); guessgym saves only constants")
        return float(match.group(1))
    return check_number(what, value)


# ---- the description of a model ----------------------------------------------------------------
def describe(model: BaseAlgorithm) -> dict[str, Any]:
    """The manifest of a model whose policy is a guess policy (what :func:`save_model` writes)."""
    game = model.policy.game
    if not isinstance(game, Game):
        raise ModelFileError(f"{type(model.policy).__name__} is not a guessgym guess policy; save_model writes those")
    algorithm = algorithm_name(model)
    schedules: dict[str, float | None] = {}
    for key in ("lr_schedule", "clip_range", "clip_range_vf"):
        schedule = getattr(model, key, None)
        if schedule is None:
            schedules[key] = None
        elif isinstance(schedule, FloatSchedule) and isinstance(schedule.value_schedule, ConstantSchedule):
            schedules[key] = float(schedule.value_schedule.val)
        else:
            raise ModelFileError(f"{key} is not a constant ({schedule!r}); guessgym model files hold constants only")
    return {
        "format": MANIFEST_FORMAT,
        "algorithm": algorithm,
        "policy": type(model.policy).__name__,
        "policy_kwargs": policy_kwargs_to_json(dict(model.policy_kwargs)),
        "observation_keys": list(model.observation_space.spaces),  # type: ignore[attr-defined]
        "schedules": schedules,
        "fingerprint": game.fingerprint,
        "game": game_to_dict(game),
    }


def save_model(model: BaseAlgorithm, target: str | Path | io.BytesIO) -> None:
    """``model.save(target)`` plus guessgym's manifest, so that :func:`read_model` can rebuild the
    model from JSON alone. ``target`` is a path (written in place: wrap it in an atomic write) or
    a buffer. The same model gives the same bytes, in any process: every entry's timestamp is fixed
    and SB3's descriptions lose their memory addresses (a model shipped twice kept its parameters
    but changed its SHA-256)."""
    buffer = io.BytesIO()
    model.save(buffer)
    buffer.seek(0)
    with zipfile.ZipFile(buffer, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(MANIFEST, json.dumps(describe(model)).encode())
    data = _fixed_timestamps(buffer.getvalue())
    if isinstance(target, io.BytesIO):
        target.seek(0)
        target.truncate()
        target.write(data)
        target.seek(0)
    else:
        Path(target).write_bytes(data)


#: The timestamp of every entry of a saved model zip (the zip format's earliest).
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


#: Memory addresses in the descriptions SB3 writes into its ``data`` entry (``"<function f at 0x7f...>"``).
_ADDRESS = re.compile(rb" at 0x[0-9a-f]+")


def _fixed_timestamps(raw: bytes) -> bytes:
    """The zip ``raw`` with every entry's timestamp set to :data:`ZIP_EPOCH`, and the memory
    addresses in SB3's descriptions of classes (text no reader uses) left out; order and
    compression unchanged."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as source, zipfile.ZipFile(out, "w") as copy:
        for info in source.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=ZIP_EPOCH)
            fixed.compress_type, fixed.external_attr = info.compress_type, info.external_attr
            data = source.read(info)
            copy.writestr(fixed, _ADDRESS.sub(b"", data) if info.filename == "data" else data)
    return out.getvalue()


# ---- reading --------------------------------------------------------------------------------------
def _read_entries(path: Path) -> dict[str, bytes]:
    """The entries of the model zip at ``path`` (see :func:`_zip_entries`)."""
    try:
        raw = read_input(path, "model file")
    except InputFileError as exc:
        raise ModelFileError(str(exc)) from None
    return _zip_entries(raw, str(path))


def _zip_entries(raw: bytes, path: str) -> dict[str, bytes]:
    """Every entry of a model zip by name, and the whole zip under ``""`` (handed to SB3, so the
    file is read once); ``path`` names it in errors."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            infos = archive.infolist()
            names = [i.filename for i in infos]
            unknown = sorted(set(names) - ZIP_ENTRIES)
            if unknown:
                raise ModelFileError(f"{path}: not a guessgym model zip (unexpected entries {unknown[:5]})")
            if len(set(names)) != len(names):
                raise ModelFileError(f"{path}: not a guessgym model zip (an entry appears twice)")
            big = [i.filename for i in infos if i.file_size > MAX_ENTRY_BYTES]
            if big:
                raise ModelFileError(f"{path}: entry {big[0]} is over {MAX_ENTRY_BYTES // 2**20} MiB")
            entries = {name: archive.read(name) for name in names}
            entries[""] = raw
    except ModelFileError:
        raise
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, RuntimeError,
            NotImplementedError, zlib.error) as exc:
        raise ModelFileError(f"{path}: not a readable model zip ({type(exc).__name__}: {exc})") from None
    for required in ("data", "policy.pth"):
        if required not in entries:
            raise ModelFileError(f"{path}: not a stable-baselines3 model zip (no {required!r} entry)")
    return entries


def _json(blob: bytes, what: str) -> dict[str, Any]:
    try:
        value = json.loads(blob.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"its {what} is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ValueError(f"its {what} is not a JSON object")
    return value


def _legacy_manifest(data: dict[str, Any], game: Game | None) -> dict[str, Any]:
    """What a guessgym 0.3 zip says of itself, read from the text SB3 keeps beside each pickle."""
    if game is None:
        raise ValueError(f"it has no {MANIFEST} (saved by guessgym 0.3) and no game was given; open it from its "
                         "run folder (which has config.json) or re-save it with guessgym 0.4")
    algorithm = _legacy_algorithm(data)
    kwargs = data.get("policy_kwargs")
    if not isinstance(kwargs, dict):
        raise ValueError("it has no policy settings")
    recorded = kwargs.get("game")
    if recorded != repr(game):
        raise ValueError(f"it was trained on {recorded!r}, not on the given {game!r}")
    space = data.get("observation_space", {})
    text = space.get("spaces", "") if isinstance(space, dict) else ""
    keys = [k for k in _OBS_KEYS if f"'{k}':" in str(text)]
    return {
        "format": MANIFEST_FORMAT,
        "algorithm": algorithm,
        "policy": POLICIES[algorithm],
        "policy_kwargs": {k: v for k, v in kwargs.items() if not k.startswith(":") and k != "game"},
        "observation_keys": keys,
        "schedules": {"lr_schedule": data.get("learning_rate"), "clip_range": data.get("clip_range"),
                      "clip_range_vf": data.get("clip_range_vf")},
        "fingerprint": game.fingerprint,
        "game": None,
    }


def _custom_objects(manifest: dict[str, Any], game: Game | None) -> tuple[str, Game, dict[str, Any]]:
    """The algorithm, the game and every object SB3 would otherwise unpickle, from a manifest."""
    from gymnasium import spaces

    from .policies import GuessActorCriticPolicy, MaskableGuessPolicy

    if manifest.get("format") != MANIFEST_FORMAT:
        raise ValueError(f"its {MANIFEST} has format {manifest.get('format')!r}; this guessgym reads {MANIFEST_FORMAT}")
    algorithm = manifest.get("algorithm")
    if algorithm not in POLICIES or manifest.get("policy") != POLICIES[algorithm]:
        raise ValueError(f"algorithm {algorithm!r} with policy {manifest.get('policy')!r} is not one guessgym knows "
                         f"(allowed: {POLICIES})")
    if manifest.get("game") is not None:
        described = game_from_dict(manifest["game"])
        if game is not None and game.fingerprint != described.fingerprint:
            raise ValueError(f"it plays {described!r}, not the given {game!r}")
        game = game or described
    if game is None or manifest.get("fingerprint") != game.fingerprint:
        raise ValueError("its game does not match its recorded fingerprint")
    kwargs = check_policy_kwargs(manifest.get("policy_kwargs"))
    keys = manifest.get("observation_keys")
    if (not isinstance(keys, list) or not all(isinstance(k, str) for k in keys)
            or not {"board", "tiles"} <= set(keys) <= set(_OBS_KEYS) or len(set(keys)) != len(keys)):
        raise ValueError(f"observation keys {keys!r} are not a subset of {list(_OBS_KEYS)} with board and tiles")
    full = observation_space(game)
    schedules = manifest.get("schedules")
    if not isinstance(schedules, dict):
        raise ValueError("it has no schedules")
    lr = _schedule(schedules.get("lr_schedule"), "the learning rate")
    clip = _schedule(schedules.get("clip_range"), "clip_range")
    clip_vf = _schedule(schedules.get("clip_range_vf"), "clip_range_vf")
    if lr is None:
        raise ValueError("it lacks its learning rate")
    if algorithm != "a2c" and clip is None:
        raise ValueError("it lacks its clip range")
    objects: dict[str, Any] = {
        "policy_class": MaskableGuessPolicy if algorithm == "maskable_ppo" else GuessActorCriticPolicy,
        "policy_kwargs": {"game": game, **kwargs},
        "observation_space": spaces.Dict({k: full.spaces[k] for k in keys}),
        "action_space": spaces.Discrete(len(game.guesses)),
        "lr_schedule": FloatSchedule(lr),
        "_last_obs": None, "_last_episode_starts": None, "_last_original_obs": None,
        "ep_info_buffer": None, "ep_success_buffer": None, "rollout_buffer_class": None, "action_noise": None,
    }
    if algorithm != "a2c":
        objects["clip_range"] = FloatSchedule(clip)  # type: ignore[arg-type]  # not None: checked above
        objects["clip_range_vf"] = None if clip_vf is None else FloatSchedule(clip_vf)
    return algorithm, game, objects


def read_model(
    path: str | Path, *, game: Game | None = None, env: Any = None, device: str = "cpu", force_reset: bool = True,
) -> BaseAlgorithm:
    """Open a guessgym model zip without unpickling anything from it.

    Args:
        path: the zip.
        game: the game the model plays; needed for zips saved by guessgym 0.3 (no manifest),
            checked against the manifest otherwise.
        env, device, force_reset: as for SB3's ``BaseAlgorithm.load`` (``env`` to continue training).

    Raises:
        ModelFileError: the file is not a model zip, or needs a policy, setting or pickled object
            that guessgym does not rebuild itself (the message names the file and the reason).
    """
    return _model_from_entries(_read_entries(Path(path)), str(path), game, env, device, force_reset)


def model_from_bytes(raw: bytes, *, game: Game | None = None, device: str = "cpu") -> BaseAlgorithm:
    """:func:`read_model` for the bytes of a zip (e.g. a model sent to a worker process)."""
    return _model_from_entries(_zip_entries(raw, "<model bytes>"), "<model bytes>", game, None, device, True)


def _model_from_entries(entries: dict[str, bytes], path: str, game: Game | None, env: Any, device: str,
                        force_reset: bool) -> BaseAlgorithm:
    try:
        data = _json(entries["data"], "data entry")
        manifest = (_json(entries[MANIFEST], MANIFEST) if MANIFEST in entries
                    else _legacy_manifest(data, game))
        algorithm, game, objects = _custom_objects(manifest, game)
    except ModelFileError:
        raise
    except (ValueError, TypeError, KeyError) as exc:
        raise ModelFileError(f"{path}: refused: {exc}") from None
    pickled = sorted(k for k, v in data.items() if isinstance(v, dict) and ":serialized:" in v)
    foreign = [k for k in pickled if k not in REBUILT]
    if foreign:
        raise ModelFileError(f"{path}: refused: entry {foreign[0]!r} is a pickle that guessgym does not rebuild "
                             "(opening it would run code from the file)")
    objects = {k: v for k, v in objects.items() if k in data}
    try:
        return algorithm_class(algorithm).load(io.BytesIO(entries[""]), env=env, device=device,
                                               custom_objects=objects, force_reset=force_reset)
    except Exception as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ModelFileError(f"{path}: not a model guessgym can read ({type(exc).__name__}: {message[:300]})") from None


def has_manifest(path: str | Path) -> bool:
    """Whether the zip at ``path`` carries guessgym's manifest (``False`` for anything unreadable:
    :func:`read_model` then says what is wrong)."""
    try:
        with zipfile.ZipFile(Path(path)) as archive:
            return MANIFEST in archive.namelist()
    except (OSError, zipfile.BadZipFile, ValueError, EOFError):
        return False


def manifest_algorithm(path: str | Path) -> str:
    """The algorithm of a model zip (from its manifest, or from SB3's text for a 0.3 zip)."""
    path = Path(path)
    entries = _read_entries(path)
    try:
        if MANIFEST in entries:
            manifest = _json(entries[MANIFEST], MANIFEST)
        else:
            data = _json(entries["data"], "data entry")
            manifest = {"algorithm": _legacy_algorithm(data)}
    except ValueError as exc:
        raise ModelFileError(f"{path}: refused: {exc}") from None
    algorithm = manifest.get("algorithm")
    if algorithm not in POLICIES:
        raise ModelFileError(f"{path}: refused: algorithm {algorithm!r} is not one of {sorted(POLICIES)}")
    return str(algorithm)


def _legacy_algorithm(data: dict[str, Any]) -> str:
    """The algorithm of a guessgym 0.3 zip, from the text SB3 keeps beside its pickled policy class
    (the text only picks one of guessgym's own classes: nothing is unpickled)."""
    policy = data.get("policy_class")
    if not isinstance(policy, dict) or policy.get("__module__") != "guessgym.agents.policies":
        raise ValueError("its policy is not one of guessgym's guess policies")
    init = policy.get("__init__", "")
    name = init.split(".", 1)[0].removeprefix("<function ") if isinstance(init, str) else ""
    if name == "MaskableGuessPolicy":
        return "maskable_ppo"
    if name == "GuessActorCriticPolicy":
        return "ppo" if "clip_range" in data else "a2c"
    raise ValueError(f"its policy class {name or '?'!r} is not one guessgym knows ({sorted(set(POLICIES.values()))})")


__all__ = ["ALGORITHMS", "MANIFEST", "MANIFEST_FORMAT", "ModelFileError", "algorithm_class", "algorithm_name",
           "check_policy_kwargs", "describe", "has_manifest", "manifest_algorithm", "model_from_bytes",
           "policy_kwargs_to_json", "read_model", "save_model"]
