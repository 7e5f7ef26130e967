"""First-turn prompts of chat games as a dataset, with the answers kept apart.

:func:`export_prompts` writes two JSON-lines files for supervised or RL fine-tuning:

* the prompts, one game per line: ``{"id", "env_id", "env_kwargs", "game", "messages"}``, where
  ``messages`` are the system and first user messages exactly as
  :class:`~guessgym.envs.chat.env.ChatGuessEnv` starts the game (so a trainer can replay the
  game in the environment with ``reset(options={"answer": ...})``);
* the answers, ``{"id", "answer"}``, in a separate file, so that a model trained or evaluated on
  the prompts cannot read them.

Ids are random hex strings drawn from ``seed`` (they say nothing about the answer), and the games
are in a seeded random order. ``games=None`` takes every answer once; an integer takes that
many distinct answers.

Examples:
    >>> import tempfile, json, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> summary = export_prompts("guessgym/NerdleChat-v0", folder / "p.jsonl", folder / "a.jsonl",
    ...                          env_kwargs={"length": 5}, games=3, seed=1)
    >>> summary["games"], len((folder / "p.jsonl").read_text().splitlines())
    (3, 3)
    >>> [m["role"] for m in json.loads((folder / "p.jsonl").read_text().splitlines()[0])["messages"]]
    ['system', 'user']
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from ..atomic import atomic_open


def export_prompts(env_id: str, prompts_path: str | os.PathLike[str], answers_path: str | os.PathLike[str], *,
                   env_kwargs: dict[str, Any] | None = None, games: int | None = None,
                   seed: int = 0) -> dict[str, Any]:
    """Write the prompts and the answers files (atomically); return a summary.

    Raises:
        ValueError: ``env_id`` is not a chat environment, ``games`` is not between 1 and the
            number of answers, or both paths are the same file.
    """
    from ..registration import CHAT_ENV_SPECS, is_chat_id

    if not is_chat_id(env_id):
        raise ValueError(f"{env_id!r} is not a chat environment; export prompts of one of {sorted(CHAT_ENV_SPECS)}")
    if Path(prompts_path).resolve() == Path(answers_path).resolve():
        raise ValueError("the prompts and the answers must go to two different files (the answers are held apart)")
    kwargs = dict(env_kwargs or {})
    env = gym.make(env_id, **kwargs).unwrapped
    game = env.game  # type: ignore[attr-defined]
    n = len(game.answers)
    if games is not None and (isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= n):
        raise ValueError(f"games must be from 1 to {n:,} ({game.name} has {n:,} answers, each played once), "
                         f"or None for every answer; got {games!r}")
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)[: n if games is None else games]
    ids = [f"{value:016x}" for value in rng.integers(0, 2**63, size=len(order), dtype=np.int64)]
    prompts_lines, answer_lines = [], []
    for game_id, answer in zip(ids, order):
        _, info = env.reset(options={"answer": int(answer)})
        prompts_lines.append(json.dumps({"id": game_id, "env_id": env_id, "env_kwargs": kwargs, "game": game.name,
                                         "messages": info["messages"]}, ensure_ascii=False))
        answer_lines.append(json.dumps({"id": game_id, "answer": game.answers[int(answer)]}))
    with atomic_open(prompts_path, "w", encoding="utf-8") as f:
        f.write("\n".join(prompts_lines) + "\n")
    with atomic_open(answers_path, "w", encoding="utf-8") as f:
        f.write("\n".join(answer_lines) + "\n")
    return {"games": len(order), "game": game.name, "prompts": str(prompts_path), "answers": str(answers_path)}


__all__ = ["export_prompts"]
