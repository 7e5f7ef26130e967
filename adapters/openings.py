"""The opening conversation of each game, the one piece every trainer's dataset rows are made of."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..envs.chat.env import ChatGuessEnv


def openings(env: ChatGuessEnv, indices: Iterable[int], seed: int) -> Iterator[tuple[int, str, list[dict[str, str]]]]:
    """``(answer index, answer, opening messages)`` of the game of each answer index, ``env`` reset
    with ``seed`` and that answer (the system prompt and the first user turn; never the answer)."""
    for index in indices:
        answer = env.game.answers[int(index)]
        _, info = env.reset(seed=seed, options={"answer": answer})
        yield int(index), answer, [dict(m) for m in info["messages"]]


__all__ = ["openings"]
