"""Batched rollouts of a policy: many games at once through the batched vector env.

:func:`play_batched` plays a batch policy (a function from a batch of observations to actions) on
many answers at once with :class:`~guessgym.envs.vector.BatchedGuessEnv`, with the rules of every
other loop. Training evaluates learned policies with it (as stable-baselines3's ``EvalCallback``
calls ``evaluate_policy`` instead of owning a loop), and the lookahead player estimates a guess by
rolling its policy out from the position after it.

Examples:
    >>> import numpy as np
    >>> from guessgym.envs.game import nerdle
    >>> game = nerdle(5)
    >>> always_the_first = lambda obs: np.zeros(len(obs["board"]), dtype=np.int64)
    >>> result = play_batched(always_the_first, game, np.arange(3))  # wins only on the first answer
    >>> result["wins"], result["guesses"].tolist()
    (1, [1, 0, 0])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..envs.game import Game


def play_batched(
    act: Callable[[dict[str, np.ndarray]], np.ndarray],
    game: Game,
    answers: np.ndarray | None = None,
    *,
    batch_size: int = 256,
    prefix: Sequence[int] = (),
) -> dict[str, Any]:
    """Play ``act`` once on each answer, ``batch_size`` games at a time.

    ``act`` maps a batch of observations (the Gymnasium vector dict, with ``"action_mask"``) to
    one action per game; it should respect the mask. The games are stepped by
    :class:`~guessgym.envs.vector.BatchedGuessEnv` with the rules of every other loop. Uses no
    global random state. ``prefix``: guesses every game plays first, before ``act`` takes over
    (a rollout from a position: the lookahead agent's estimate of a guess); a game won by one of
    them ends there.

    Returns:
        ``{"games", "wins", "win_rate", "mean_guesses" (over wins), "guesses" (per answer; 0 for
        a loss)}``.
    """
    from ..envs.vector import BatchedGuessEnv

    answers = np.arange(len(game.answers)) if answers is None else np.asarray(answers, dtype=np.int64)
    guesses = np.zeros(len(answers), dtype=np.int64)
    envs: dict[int, BatchedGuessEnv] = {}
    for start in range(0, len(answers), batch_size):
        chunk = answers[start : start + batch_size]
        venv = envs.get(len(chunk)) or envs.setdefault(
            len(chunk), BatchedGuessEnv(len(chunk), game=game, track_candidates=False)
        )
        obs, _ = venv.reset(seed=0, options={"answer": chunk})
        active = np.ones(len(chunk), dtype=bool)
        result = np.zeros(len(chunk), dtype=np.int64)
        forced = iter(prefix)
        while active.any():
            guess = next(forced, None)
            actions = np.full(len(chunk), guess, dtype=np.int64) if guess is not None else np.asarray(act(obs))
            obs, _, terminated, _, info = venv.step(actions)
            won = terminated & active & (info["pattern"] == game.solved_pattern)
            result[won] = info["attempt"][won]
            active &= ~terminated
        guesses[start : start + len(chunk)] = result
    wins = int((guesses > 0).sum())
    return {
        "games": int(len(answers)),
        "wins": wins,
        "win_rate": wins / max(len(answers), 1),
        "mean_guesses": float(guesses[guesses > 0].mean()) if wins else float("nan"),
        "guesses": guesses,
    }


__all__ = ["play_batched"]
