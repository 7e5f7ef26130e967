"""The shared evaluation loop: drive any :class:`~guessgym.agents.base.Agent` through a real environment.

Every player, baseline or learned, is measured by :func:`evaluate`: for each chosen game (an
answer, or a seeded game number for the kinds of game that draw their own) the game's kind
(:mod:`guessgym.envs.families`) resets the env, then :func:`~guessgym.evaluation.episodes.play_game`
calls ``agent.begin(game)`` and alternates ``agent.act(obs, info)`` and ``env.step(action)`` until
the game ends. The result is an :class:`~guessgym.evaluation.results.EvaluationResult`
(statistics, Markdown, JSON; plots in :mod:`guessgym.evaluation.report`).

Examples:
    >>> from guessgym.envs import nerdle
    >>> from guessgym.agents.base import CandidateAgent
    >>> class First(CandidateAgent):
    ...     '''Plays the first remaining candidate.'''
    ...     name = "first"
    ...     def choose(self, state):
    ...         return int(state.game.answer_to_guess[state.candidates.indices[0]])
    >>> r = evaluate(First(), nerdle(5))
    >>> r.n_games, r.n_solved, r.distribution["X"]
    (127, 114, 13)
    >>> evaluate(First(), nerdle(5), max_attempts=25).win_rate
    1.0
    >>> evaluate(First(), "guessgym/MicroNerdle-v1", sample=5, seed=1).n_games
    5
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any, Literal

import gymnasium as gym
import numpy as np

from ..agents.base import Agent, UnsupportedGameError
from ..agents.text import TextAgent
from ..envs.families import GameSetup
from ..envs.game import Game
from ..infra.pool import check_not_bootstrapping
from . import backends
from .games import progress_callback, resolve_setup, select_games
from .meta import is_json, result_meta
from .results import EvaluationResult
from .tree_play import play_tree, plays_as_tree

logger = logging.getLogger(__name__)

Backend = Literal["auto", "serial", "process", "ray"]
BACKENDS = ("auto", "serial", "process", "ray")



def evaluate(
    agent: Agent | TextAgent,
    env: str | Game | gym.Env | GameSetup,
    *,
    answers: Iterable[str | int] | None = None,
    sample: int | None = None,
    seed: int = 0,
    max_attempts: int | None = None,
    record_guesses: bool = False,
    n_jobs: int = 1,
    backend: Backend = "auto",
    ray_address: str | None = None,
    progress: bool | Callable[[int, int], None] = False,
    env_kwargs: dict[str, Any] | None = None,
    chunk_size: int | None = None,
    max_invalid_actions: int = backends.MAX_INVALID_ACTIONS,
    transcripts: str | os.PathLike[str] | None = None,
) -> EvaluationResult:
    """Play ``agent`` on every chosen answer of a game and collect the results.

    Args:
        agent: any :class:`~guessgym.agents.base.Agent` (picklable for the parallel backends).
        env: a registered id (``"guessgym/Wordle-v1"``), a :class:`~guessgym.envs.game.Game`, a
            (wrapped) :class:`~guessgym.envs.env.GuessEnv`, whose game and rules are used, or a
            :class:`~guessgym.envs.families.GameSetup` already resolved
            (:func:`~guessgym.evaluation.games.resolve_setup`).
        answers: play only these answers (strings or indices into ``game.answers``).
        sample: play a seeded random sample of this many answers (of ``answers`` if given).
        seed: seed of the sample and of every game (see :func:`guessgym.evaluation.episodes.episode_seed`).
        max_attempts: override the game's attempt limit (a game not solved within it is lost).
        record_guesses: keep each game's guesses in the records.
        n_jobs: worker processes (or Ray CPUs) for the parallel backends.
        backend: ``"serial"``, ``"process"``, ``"ray"``, or ``"auto"`` (serial when
            ``n_jobs == 1``, processes otherwise). With ``"auto"`` or ``"serial"``, a deterministic
            solver's games on a plain game are played as the tree they are
            (:mod:`~guessgym.evaluation.tree_play`: each state's decision once; ``meta["backend"]``
            is then ``"tree"``).
        ray_address: address of a running Ray cluster (``None``: a local instance).
        progress: ``True`` for a tqdm bar on stderr, or a ``callback(done, total)``; the library
            prints nothing otherwise.
        env_kwargs: keyword arguments for a registered id (e.g. ``{"guesses": "all"}``).
        chunk_size: games per task for the parallel backends (default: about eight per worker).
        max_invalid_actions: rejected actions allowed in one game before it counts as lost (an
            agent stuck on a move the rules refuse would otherwise never finish).
        transcripts: text agents only: the JSON-lines file of every game's conversation, written
            as games finish and resumed from (see :mod:`guessgym.evaluation.chat`).

    A :class:`~guessgym.agents.text.TextAgent` (a language model) plays the game in conversation
    through :func:`guessgym.evaluation.chat.evaluate_chat`, ``n_jobs`` games at once in threads
    (``env`` must then be a registered id: a chat id, or a plain id played in conversation;
    ``env_kwargs`` may hold the chat options). The result has the same statistics, with each
    game's invalid replies, turns, tokens and latency.

    Returns:
        An :class:`~guessgym.evaluation.results.EvaluationResult` with one record per answer, in order of play.

    Raises:
        guessgym.agents.base.UnsupportedGameError: the agent cannot play this game (from ``begin``).
        ValueError: unknown env id or answers, bad sample size, bad backend.
        guessgym.infra.pool.WorkerDied: a worker process ended without its games (the
            message says what to do, e.g. add an ``if __name__ == "__main__":`` guard).
        ConnectionError: ``backend="ray"`` and the cluster at ``ray_address`` cannot be reached.
    """
    if isinstance(agent, TextAgent):
        from .chat import evaluate_chat

        if not isinstance(env, str):
            raise ValueError("a text agent plays a registered environment id (the chat env is built from it), "
                             f"got {type(env).__name__}")
        if backend not in ("auto", "serial"):
            raise ValueError(f"a text agent plays its games in threads; backend={backend!r} does not apply")
        return evaluate_chat(agent, env, env_kwargs=env_kwargs, answers=answers, sample=sample, seed=seed,
                             max_attempts=max_attempts, concurrency=n_jobs if n_jobs > 1 else None,
                             transcripts=transcripts, record_guesses=record_guesses, progress=progress)
    if transcripts is not None:
        raise ValueError("transcripts are written for text agents (language models) only")
    check_not_bootstrapping()
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if int(n_jobs) < 1:
        raise ValueError(f"n_jobs must be at least 1, got {n_jobs}")
    if max_invalid_actions < 1:
        raise ValueError(f"max_invalid_actions must be at least 1, got {max_invalid_actions}")
    n_jobs = int(n_jobs)
    setup = resolve_setup(env, env_kwargs, max_attempts)
    indices, chosen = select_games(setup, answers, sample, seed)
    game = setup.game
    tree = backend in ("auto", "serial")  # a backend asked for by name is the one that plays
    if backend == "auto":
        backend = "serial" if n_jobs == 1 else "process"
    agent_name = getattr(agent, "name", type(agent).__name__)

    # Fail fast, before any worker starts, if the agent cannot play this game.
    problem = setup.family.agent_problem(agent)
    if problem is not None:
        raise UnsupportedGameError(f"{agent_name} {problem} ({setup.env_id})")
    agent.begin(game)

    callback, close = progress_callback(progress, len(indices), f"{agent_name} on {game.name}")
    started = time.perf_counter()
    ran_by: str = backend
    try:
        if tree and plays_as_tree(agent, setup):  # each state's decision once, no environment stepped
            ran_by, n_jobs = "tree", 1
            records = play_tree(agent, setup, [int(i) for i in indices],  # type: ignore[arg-type]
                                record_guesses=record_guesses, max_invalid=int(max_invalid_actions),
                                progress=callback)
        else:
            job = backends.Job(token=uuid.uuid4().hex, agent=agent, setup=setup, record_guesses=record_guesses,
                               seed=int(seed), max_invalid=int(max_invalid_actions))
            items = list(enumerate(int(i) for i in indices))
            records = backends.run(job, items, backend=backend, n_jobs=n_jobs, chunk_size=chunk_size,
                                   progress=callback, address=ray_address)
    finally:
        close()
    wall = time.perf_counter() - started
    logger.info("%s on %s: %d games in %.1f s (%s backend)", agent_name, game.name, len(records), wall, ran_by)
    meta = result_meta(game, records, chosen=chosen, seed=seed, sample=sample, backend=ran_by,
                       n_jobs=n_jobs if ran_by not in ("serial", "tree") else 1,
                       env_kwargs={k: v for k, v in setup.env_kwargs.items() if is_json(v)},
                       fixed_answer=setup.family.fixed_answer, record_guesses=record_guesses,
                       extra={"wall_seconds": round(wall, 3), **setup.meta})
    describe = getattr(agent, "describe", None)
    return EvaluationResult(
        agent=agent_name,
        description=describe() if callable(describe) else "",
        env_id=setup.env_id,
        game=setup.label,
        max_attempts=_attempt_limit(setup.max_attempts, records),
        records=records,
        meta=meta,
    )


def evaluate_policy(policy: Any, game: Game, answers: np.ndarray | None = None, *, name: str = "policy",
                    record_guesses: bool = False, env_id: str | None = None,
                    env_kwargs: dict[str, Any] | None = None) -> EvaluationResult:
    """A learned guess policy's greedy play on ``answers`` (default: every answer) by the batched
    rollout (:func:`~guessgym.agents.rollout.play_batched`: the rules of the evaluation loop, many
    games per forward pass), as the one results type. What training's evaluations and the scripts
    that measure shipped policies call; ``record_guesses`` keeps each game's guesses."""
    from ..agents.learned import policy_actions
    from ..agents.rollout import play_batched, play_batched_moves

    chosen = np.arange(len(game.answers)) if answers is None else np.asarray(answers)
    moves = None
    if record_guesses:
        guesses, moves = play_batched_moves(policy_actions(policy), game, chosen)
    else:
        guesses = play_batched(policy_actions(policy), game, chosen)
    return EvaluationResult.from_rollout(name, game, chosen, guesses, moves=moves, env_id=env_id,
                                         env_kwargs=env_kwargs)


def _attempt_limit(cap: int | None, records: list[Any]) -> int:
    """The attempt limit a result is read against: the game's cap, or without one (uncapped
    Absurdle) the most guesses a won game took."""
    if cap is not None:
        return int(cap)
    return max([r.guesses for r in records if r.solved] or [1])


__all__ = ["BACKENDS", "Backend", "evaluate", "evaluate_policy"]
