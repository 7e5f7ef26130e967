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
    >>> play_batched(always_the_first, game, np.arange(3)).tolist()  # wins only on the first answer
    [1, 0, 0]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..envs.game import Game


def play_batched(
    act: Callable[[dict[str, np.ndarray]], np.ndarray],
    game: Game,
    answers: np.ndarray | None = None,
    *,
    batch_size: int = 256,
    prefix: Sequence[int] = (),
) -> np.ndarray:
    """Play ``act`` once on each answer, ``batch_size`` games at a time.

    ``act`` maps a batch of observations (the Gymnasium vector dict, with ``"action_mask"``) to
    one action per game; it should respect the mask. The games are stepped by
    :class:`~guessgym.envs.vector.BatchedGuessEnv` with the rules of every other loop. Uses no
    global random state. ``prefix``: guesses every game plays first, before ``act`` takes over
    (a rollout from a position: the lookahead agent's estimate of a guess); a game won by one of
    them ends there.

    Returns:
        The guesses of each answer's game (int64, in the order of ``answers``; 0 for a loss): the
        raw outcome, which :meth:`guessgym.evaluation.results.EvaluationResult.from_rollout` turns
        into the one results type (statistics, JSON, reports).
    """
    return play_batched_moves(act, game, answers, batch_size=batch_size, prefix=prefix)[0]


def play_batched_moves(
    act: Callable[[dict[str, np.ndarray]], np.ndarray],
    game: Game,
    answers: np.ndarray | None = None,
    *,
    batch_size: int = 256,
    prefix: Sequence[int] = (),
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`play_batched`, and the moves: each game's guesses as indices into ``game.guesses``,
    an int64 array of shape ``(len(answers), game.max_attempts)`` padded with -1 after its end
    (what :meth:`~guessgym.evaluation.results.EvaluationResult.from_rollout` records as ``played``,
    for the move analysis)."""
    from ..envs.vector import BatchedGuessEnv

    answers = np.arange(len(game.answers)) if answers is None else np.asarray(answers, dtype=np.int64)
    guesses = np.zeros(len(answers), dtype=np.int64)
    moves = np.full((len(answers), game.max_attempts), -1, dtype=np.int64)
    envs: dict[int, BatchedGuessEnv] = {}
    for start in range(0, len(answers), batch_size):
        chunk = answers[start : start + batch_size]
        venv = envs.get(len(chunk)) or envs.setdefault(
            len(chunk), BatchedGuessEnv(len(chunk), game=game, track_candidates=False)
        )
        obs, _ = venv.reset(seed=0, options={"answer": chunk})
        active = np.ones(len(chunk), dtype=bool)
        result = np.zeros(len(chunk), dtype=np.int64)
        played = moves[start : start + len(chunk)]
        forced = iter(prefix)
        turn = 0
        while active.any():
            guess = next(forced, None)
            actions = np.full(len(chunk), guess, dtype=np.int64) if guess is not None else np.asarray(act(obs))
            played[active, turn] = actions[active]
            obs, _, terminated, _, info = venv.step(actions)
            won = terminated & active & (info["pattern"] == game.solved_pattern)
            result[won] = info["attempt"][won]
            active &= ~terminated
            turn += 1
        guesses[start : start + len(chunk)] = result
    return guesses, moves


__all__ = ["play_batched", "play_batched_moves"]
