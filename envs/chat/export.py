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

from ...infra.atomic import atomic_open


def export_prompts(env_id: str, prompts_path: str | os.PathLike[str], answers_path: str | os.PathLike[str], *,
                   env_kwargs: dict[str, Any] | None = None, games: int | None = None,
                   seed: int = 0) -> dict[str, Any]:
    """Write the prompts and the answers files (atomically); return a summary.

    Raises:
        ValueError: ``env_id`` is not a chat environment, ``games`` is not between 1 and the
            number of answers, or both paths are the same file.
    """
    from .tools import first_turns, make_chat_env

    if Path(prompts_path).resolve() == Path(answers_path).resolve():
        raise ValueError("the prompts and the answers must go to two different files (the answers are held apart)")
    kwargs = dict(env_kwargs or {})
    game = make_chat_env(env_id, kwargs).game
    prompts_lines, answer_lines = [], []
    for game_id, answer, messages in first_turns(env_id, kwargs, games=games, seed=seed):
        prompts_lines.append(json.dumps({"id": game_id, "env_id": env_id, "env_kwargs": kwargs, "game": game.name,
                                         "messages": messages}, ensure_ascii=False))
        answer_lines.append(json.dumps({"id": game_id, "answer": game.answers[answer]}))
    with atomic_open(prompts_path, "w", encoding="utf-8") as f:
        f.write("\n".join(prompts_lines) + "\n")
    with atomic_open(answers_path, "w", encoding="utf-8") as f:
        f.write("\n".join(answer_lines) + "\n")
    return {"games": len(prompts_lines), "game": game.name, "prompts": str(prompts_path), "answers": str(answers_path)}


__all__ = ["export_prompts"]
