"""Demonstrations as Minari datasets: Farama's standard for offline reinforcement learning.

:func:`export_minari` plays the chosen answers with an agent (the optimal tree by default) through
the shared evaluation loop, then steps each game through the array environment and writes the
episodes (observations ``board``, ``tiles``, ``action_mask``; actions; rewards; terminations) as a
Minari dataset named like ``guessgym/wordle/optimal-v0``, into ``out`` (Minari's datasets root:
``MINARI_DATASETS_PATH=out python -c "import minari; minari.load_dataset('guessgym/wordle/optimal-v0')"``).

The dataset carries what Minari's tools need: the environment's spec, so
``dataset.recover_environment()`` builds the very environment the episodes were played in; the
reference scores :func:`minari.get_normalized_score` normalises by, measured on the same answers
(the optimal tree's mean return as the maximum, ``random-consistent`` play's as the minimum); and a
description. Each episode's ``options`` is ``{"answer": index}``, so it can be played again.

The rewards are the environment's. Under the default sparse reward every won game returns 1, and
the optimum and random play would score alike; so unless a reward option is given, the export
adds ``step_penalty=-1.0``: a game won in ``n`` guesses returns ``1 - n`` and a lost one
``-max_attempts``, and the normalised score measures guesses.

An export replaces only what an earlier export of guessgym wrote: each dataset folder holds
``guessgym-export.json``, the list of its files, and a folder at the dataset's path is replaced only
if it holds that list and exactly the files listed (checked before the games are played, and again
once the folder is moved aside, so a file added meanwhile is never deleted); no folder is written
through a symbolic link below the datasets root.

Only the arrays are written here (Minari's ``arrow`` format by default; ``hdf5`` too); the chat
demonstrations stay in the Hugging Face form of :mod:`guessgym.training.demos`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from ..envs.families import family_of
from ..envs.rewards import REWARD_KEYS
from ..infra import export_record as record
from ..infra.atomic import (
    atomic_write_text,
    check_not_a_link,
    owned_temporary_folder,
    remove_own_stale_temporaries,
    replace_folder,
)
from ..infra.export_record import EXPORT_MARKER
from ..infra.optional import require_extra
from .demos import replay_steps

#: The reward added when no reward option is given (see the module docstring).
DEFAULT_STEP_PENALTY = -1.0
#: Minari's storage formats.
DATA_FORMATS = ("arrow", "hdf5")
#: The agent whose mean return is the reference minimum.
FLOOR_AGENT = "random-consistent"
def mark_export(folder: Path, dataset: str) -> None:
    """Write :data:`~guessgym.infra.export_record.EXPORT_MARKER` into the dataset ``folder``: the
    dataset id and every file the export wrote."""
    record.mark_export(folder, "guessgym export-demos --format minari", dataset_id=dataset)


def check_earlier_export(folder: Path) -> None:
    """Refuse ``folder`` unless it is a dataset folder written by a guessgym export, unchanged since
    (:func:`guessgym.infra.export_record.check_earlier_export`).

    Raises:
        ValueError: naming the folder and what makes it someone else's.
    """
    record.check_earlier_export(folder)


def dataset_id(env_id: str, agent: str, env_kwargs: dict[str, Any] | None = None, version: int = 0) -> str:
    """``guessgym/<game>/<agent>-v<version>``: the game from the id (``WordleHard-v1`` ->
    ``wordle-hard``) and any options that change it, the agent's name made a slug.

    >>> dataset_id("guessgym/WordleHard-v1", "optimal")
    'guessgym/wordle-hard/optimal-v0'
    >>> dataset_id("guessgym/Wordle-v1", "least-worst", {"word_list": "original"})
    'guessgym/wordle-word_list-original/least-worst-v0'
    """
    name = env_id.split("/")[-1].rsplit("-v", 1)[0]
    game = re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()
    extras = [f"{k}-{v}" for k, v in sorted((env_kwargs or {}).items()) if k not in REWARD_KEYS]
    game = "-".join([game, *extras])
    return f"guessgym/{_slug(game)}/{_slug(agent)}-v{version}"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "-", str(text)).strip("-")[:80] or "x"


def _episodes(env: gym.Env[Any, Any], answers: Sequence[int], plays: Sequence[Sequence[str]]) -> list[Any]:
    """Each game stepped through ``env`` as a Minari episode buffer (``options`` its answer)."""
    from minari.data_collector.episode_buffer import EpisodeBuffer

    buffers = []
    for number, (answer, played) in enumerate(zip(answers, plays, strict=True)):
        steps = list(replay_steps(env, answer, played))
        observations = [steps[0][0], *(after for *_, after in steps)]
        buffers.append(EpisodeBuffer(id=number, options={"answer": int(answer)},
                                     observations={k: [o[k] for o in observations] for k in observations[0]},
                                     actions=[s[1] for s in steps], rewards=[s[2] for s in steps],
                                     terminations=[s[3] for s in steps], truncations=[s[4] for s in steps]))
    return buffers


@contextmanager
def _size_measured_once() -> Iterator[None]:
    """Minari 0.5's storage measures its whole folder (``get_size``: a walk of every file) after each
    episode it writes, which makes an export quadratic in its episodes (Wordle's 2,309 took minutes);
    for the block, that measurement is skipped, and the caller measures once at the end."""
    from minari.dataset.minari_storage import MinariStorage

    measure = MinariStorage.get_size
    MinariStorage.get_size = lambda self: 0.0
    try:
        yield
    finally:
        MinariStorage.get_size = measure


def _compress_arrow_files(dataset: Path) -> None:
    """Rewrite each Arrow IPC file of ``dataset`` with zstd-compressed buffers, which Arrow (and so
    Minari) reads as it reads any IPC file: the action mask, stored with every observation, is
    almost all ones in easy mode, and compresses to nearly nothing."""
    import pyarrow as pa

    options = pa.ipc.IpcWriteOptions(compression="zstd")
    for path in sorted(dataset.rglob("*.arrow")):
        with pa.memory_map(str(path)) as source:
            table = pa.ipc.open_file(source).read_all()
        packed = path.with_name(f".tmp-{path.name}")
        with pa.OSFile(str(packed), "wb") as sink, pa.ipc.new_file(sink, table.schema, options=options) as writer:
            writer.write_table(table)
        os.replace(packed, path)


def _returns(env: gym.Env[Any, Any], answers: Sequence[int], plays: Sequence[Sequence[str]]) -> np.ndarray:
    """Each game's return in ``env`` (its guesses stepped through it)."""
    return np.asarray([sum(step[2] for step in replay_steps(env, answer, played))
                       for answer, played in zip(answers, plays, strict=True)], dtype=np.float64)


def export_minari(env_id: str, out: str | os.PathLike[str], *, env_kwargs: dict[str, Any] | None = None,
                  agent: str = "optimal", agent_kwargs: dict[str, Any] | None = None, games: int | None = None,
                  seed: int = 0, data_format: str = "arrow", command: str = "",
                  progress: Any = False) -> dict[str, Any]:
    """Write ``agent``'s games on ``env_id`` as a Minari dataset in the datasets root ``out``
    (see the module docstring); return what was written (also printed by the command).

    Args:
        env_id: a guessgym array id of one board (``guessgym/Wordle-v1``, ``guessgym/Nerdle-v1``...).
        env_kwargs: the environment's options; unless one is a reward option, ``step_penalty=-1.0``
            is added.
        agent, agent_kwargs: the agent that plays (a registry name).
        games: a seeded sample of that many answers, or every answer (``None``).
        seed: of the sample and of the floor agent's play.
        data_format: ``"arrow"`` or ``"hdf5"`` (Minari's storage formats).
        command: the command line, for the description.
        progress: as in :func:`guessgym.evaluation.evaluate.evaluate`.

    An earlier dataset of the same id in ``out`` is replaced once the new one is complete.

    Raises:
        ValueError: an id that is not a single-board array game, a bad option, or an agent that
            does not finish every game.
        DependencyNotInstalled: Minari is missing (``pip install "guessgym[minari]"``).
    """
    require_extra("minari", "--format minari")
    import minari

    from ..agents.registry import make_agent
    from ..evaluation.evaluate import evaluate
    from ..evaluation.games import select_answers

    family = family_of(env_id) if isinstance(env_id, str) else None
    if family is None or not family.plays_arrays_on_one_answer:
        raise ValueError(f"a Minari dataset is made of an array game of one board (guessgym/Wordle-v1, "
                         f"guessgym/Nerdle-v1, ...), not {env_id!r}")
    if data_format not in DATA_FORMATS:
        raise ValueError(f"data_format must be one of {', '.join(DATA_FORMATS)}; got {data_format!r}")
    options = dict(env_kwargs or {})
    if not any(k in options for k in REWARD_KEYS):
        options["step_penalty"] = DEFAULT_STEP_PENALTY
    env = gym.make(env_id, disable_env_checker=True, **options)
    game = env.unwrapped.game  # type: ignore[attr-defined]
    chosen = [int(i) for i in select_answers(game, None, games, seed)]
    plays: dict[str, list[list[str]]] = {}
    for who, kwargs in ((agent, agent_kwargs or {}), ("optimal", {}), (FLOOR_AGENT, {})):
        if who in plays:
            continue
        result = evaluate(make_agent(who, **kwargs), game, answers=chosen, seed=seed, record_guesses=True,
                          progress=progress if who == agent else False)
        plays[who] = [list(r.played or ()) for r in result.records]
    episodes = _episodes(env, chosen, plays[agent])
    returns = {who: (np.asarray([sum(e.rewards) for e in episodes], dtype=np.float64) if who == agent
                     else _returns(env, chosen, played)) for who, played in plays.items()}
    name = dataset_id(env_id, agent, env_kwargs)
    description = (
        f"{agent}'s games of {env_id} ({game.name}: {len(game.answers):,} answers, {len(game.guesses):,} guesses, "
        f"{game.max_attempts} attempts{', hard mode' if game.hard_mode else ''}) on {len(chosen):,} answers"
        f"{' (every answer)' if games is None else f' (a sample, seed {seed})'}, one episode per answer, its "
        f"options {{'answer': index}}. Environment options {options}. Reference scores, on the same answers: "
        f"maximum the optimal tree's mean return ({returns['optimal'].mean():.6f}), minimum {FLOOR_AGENT}'s "
        f"({returns[FLOOR_AGENT].mean():.6f}). Made by guessgym" + (f": {command}" if command else "") + "."
    )
    root = Path(out).resolve()  # Minari joins relative roots onto paths of its own
    target = root / name
    check_not_a_link(target, root)
    if target.exists():
        check_earlier_export(target)
    root.mkdir(parents=True, exist_ok=True)
    remove_own_stale_temporaries(root, "minari")  # the staging folders of exports killed part-way
    staging = owned_temporary_folder(root, "minari")
    previous = os.environ.get("MINARI_DATASETS_PATH")
    try:
        os.environ["MINARI_DATASETS_PATH"] = str(staging)
        with warnings.catch_warnings(), _size_measured_once():  # Minari asks for an e-mail and a URL
            warnings.filterwarnings("ignore", message=r".*(author_email|code_permalink|eval_env).*")
            dataset = minari.create_dataset_from_buffers(
                name, episodes, env=env, algorithm_name=agent,
                author="guessgym", ref_min_score=float(returns[FLOOR_AGENT].mean()),
                ref_max_score=float(returns["optimal"].mean()), description=description,
                requirements=["guessgym"], data_format=data_format)
        if data_format == "arrow":
            _compress_arrow_files(staging / name)
        dataset.storage.update_metadata({"dataset_size": dataset.storage.get_size()})
        total_steps = int(dataset.total_steps)
        mark_export(staging / name, name)
        _move_into(staging, root, name)
    finally:
        if previous is None:
            os.environ.pop("MINARI_DATASETS_PATH", None)
        else:
            os.environ["MINARI_DATASETS_PATH"] = previous
        shutil.rmtree(staging, ignore_errors=True)
    return {"dataset_id": name, "path": str(root / name), "episodes": len(chosen), "steps": total_steps,
            "mean_return": float(returns[agent].mean()), "ref_max_score": float(returns["optimal"].mean()),
            "ref_min_score": float(returns[FLOOR_AGENT].mean()), "env_kwargs": options}


def _move_into(staging: Path, root: Path, name: str) -> None:
    """Move the dataset ``name`` made under ``staging`` into ``root``, replacing an earlier export's
    (:func:`check_earlier_export`, checked again here), with the namespace metadata Minari keeps
    beside it where ``root`` has none yet; never through a symbolic link below ``root``."""
    target = root / name
    check_not_a_link(target, root)
    parts = name.split("/")
    for depth in range(1, len(parts)):
        meta = Path(*parts[:depth]) / "namespace_metadata.json"
        if (staging / meta).is_file() and not (root / meta).exists() and not (root / meta).is_symlink():
            (root / meta).parent.mkdir(parents=True, exist_ok=True)
            check_not_a_link(root / meta.parent, root)
            atomic_write_text(root / meta, (staging / meta).read_text(encoding="utf-8"))
            json.loads((root / meta).read_text(encoding="utf-8"))  # what Minari wrote reads back
    target.parent.mkdir(parents=True, exist_ok=True)
    check_not_a_link(target, root)
    replace_folder(staging / name, target, check_earlier_export)


__all__ = ["DATA_FORMATS", "DEFAULT_STEP_PENALTY", "EXPORT_MARKER", "FLOOR_AGENT", "check_earlier_export", "dataset_id",
           "export_minari", "mark_export"]
