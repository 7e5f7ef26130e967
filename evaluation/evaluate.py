"""The shared evaluation loop: drive any :class:`~guessgym.agents.base.Agent` through a real environment.

Every player, baseline or learned, is measured by :func:`evaluate`: for each chosen answer it
resets a :class:`~guessgym.envs.env.GuessEnv` on that answer (``reset(options={"answer": ...})``), calls
``agent.begin(game)``, then alternates ``agent.act(obs, info)`` and ``env.step(action)`` until the
game ends. The result is an :class:`~guessgym.evaluation.results.EvaluationResult` (statistics, Markdown,
JSON, plots).

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
import sys
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any, Literal

import gymnasium as gym
import numpy as np

from ..agents.base import Agent, UnsupportedGameError
from ..agents.optima import known_optimum
from ..agents.text import TextAgent
from ..envs.engine import REWARD_KEYS, RewardConfig
from ..envs.env import GuessEnv
from ..envs.game import GAME_KEYS, Game, make_game, split_env_options
from ..envs.options import check_bool
from ..envs.registration import is_absurdle_id, is_multiboard_id
from . import backends
from .results import EvaluationResult

logger = logging.getLogger(__name__)

Backend = Literal["auto", "serial", "process", "ray"]
BACKENDS = ("auto", "serial", "process", "ray")



def resolve_game(
    env: str | Game | gym.Env, env_kwargs: dict[str, Any] | None = None, max_attempts: int | None = None
) -> tuple[Game, str | None, dict[str, Any]]:
    """The game to play, the registered id (if any) and the extra GuessEnv options.

    Args:
        env: a registered id such as ``"guessgym/Wordle-v1"``, a :class:`~guessgym.envs.game.Game`, or a
            (possibly wrapped) :class:`~guessgym.envs.env.GuessEnv` whose game and rules are used (its
            reward settings play no part in an evaluation).
        env_kwargs: keyword arguments for the registered id (e.g. ``{"guesses": "all"}``); reward
            options are accepted and play no part in an evaluation; only ``matrix_cache`` (and
            reward options) are accepted with a Game or an env.
        max_attempts: overrides the game's attempt limit.

    Raises:
        ValueError: unknown id, bad keyword arguments, or an env that is not a GuessEnv.
    """
    env_kwargs = dict(env_kwargs or {})
    options: dict[str, Any] = {}
    if "matrix_cache" in env_kwargs:
        options["matrix_cache"] = check_bool("matrix_cache", env_kwargs["matrix_cache"])
    # reward options play no part in an evaluation, but a wrong one is still an error
    RewardConfig(**{k: v for k, v in env_kwargs.items() if k in REWARD_KEYS})
    if isinstance(env, str):
        game_kwargs, rest = split_env_options(env_kwargs)
        extra = sorted(set(rest) - {"matrix_cache", "render_mode", *REWARD_KEYS})
        if extra:
            raise ValueError(f"bad keyword arguments for {env}: unknown {extra}; allowed: {', '.join(GAME_KEYS)}, "
                             f"{', '.join(REWARD_KEYS)}, matrix_cache")
        try:
            game = make_game(env, **game_kwargs)
        except TypeError as exc:
            raise ValueError(f"bad keyword arguments for {env}: {exc}") from exc
        env_id = env
    elif isinstance(env, Game):
        _only_cache(env_kwargs, "a Game")
        game, env_id = env, None
    elif isinstance(env, gym.Env):
        _only_cache(env_kwargs, "an environment object")
        unwrapped = env.unwrapped
        if not isinstance(unwrapped, GuessEnv):
            raise ValueError(f"evaluate() needs a guessgym GuessEnv, got {type(unwrapped).__name__}")
        game = unwrapped.game
        env_id = env.spec.id if env.spec is not None else None
        options.setdefault("matrix_cache", unwrapped.matrix_cache)
    else:
        raise TypeError(f"env must be a registered id, a Game or a GuessEnv, got {type(env).__name__}")
    if max_attempts is not None and max_attempts != game.max_attempts:
        if int(max_attempts) < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        game = game.replace(max_attempts=int(max_attempts))
    return game, env_id, options


def _cache_option_of_game(env: str, kwargs: dict[str, Any], allowed: str) -> dict[str, Any]:
    """Take ``matrix_cache`` out of ``kwargs`` (returned as the env option) and check that only game
    arguments remain; the error names ``env`` and the ``allowed`` arguments (matrix_cache added)."""
    options: dict[str, Any] = {}
    if "matrix_cache" in kwargs:
        options["matrix_cache"] = check_bool("matrix_cache", kwargs.pop("matrix_cache"))
    unknown = sorted(set(kwargs) - set(GAME_KEYS))
    if unknown:
        raise ValueError(f"bad keyword arguments for {env}: unknown {unknown}; allowed: {allowed}, matrix_cache")
    return options


def resolve_multiboard(env: str, env_kwargs: dict[str, Any] | None = None,
                       max_attempts: int | None = None) -> tuple[Game, int, dict[str, Any]]:
    """The game (with the multi-board attempt limit), the number of boards and the extra
    :class:`~guessgym.envs.multiboard.MultiBoardEnv` options of a registered multi-board id.

    Raises:
        ValueError: bad keyword arguments (named), or a game the boards do not fit.
    """
    from ..envs.multiboard import MultiBoardEnv

    kwargs = {**gym.registry[env].kwargs, **(env_kwargs or {})}
    boards = kwargs.pop("boards")
    reward_keys = ("board_reward", "win_reward", "loss_reward", "step_penalty")
    rewards = {k: kwargs.pop(k) for k in reward_keys if k in kwargs}
    options = _cache_option_of_game(env, kwargs, f"boards, {', '.join(GAME_KEYS)}, {', '.join(reward_keys)}")
    if max_attempts is not None:
        kwargs["max_attempts"] = max_attempts
    try:
        probe = MultiBoardEnv(None, boards=boards, **rewards, **options, **kwargs)
    except TypeError as exc:
        raise ValueError(f"bad keyword arguments for {env}: {exc}") from exc
    return probe.game, probe.boards, options


def resolve_absurdle(env: str, env_kwargs: dict[str, Any] | None = None,
                     max_attempts: int | None = None) -> tuple[Game, dict[str, Any], dict[str, Any]]:
    """The game, the Absurdle options (``max_attempts``: ``None`` for no cap) and the extra env
    options of a registered Absurdle id.

    Raises:
        ValueError: bad keyword arguments (named).
    """
    kwargs = {**gym.registry[env].kwargs, **(env_kwargs or {})}
    cap = kwargs.pop("max_attempts", None) if max_attempts is None else max_attempts
    for key in ("win_reward", "loss_reward", "step_penalty", "rows"):  # no part in an evaluation
        kwargs.pop(key, None)
    options = _cache_option_of_game(env, kwargs, f"{', '.join(GAME_KEYS)}, win_reward, loss_reward, step_penalty, rows")
    from ..envs.absurdle import AbsurdleEnv

    probe = AbsurdleEnv(max_attempts=cap, **options, **kwargs)
    return probe.game, {"max_attempts": probe.max_attempts}, options


def _only_cache(env_kwargs: dict[str, Any], what: str) -> None:
    extra = sorted(set(env_kwargs) - {"matrix_cache"} - set(REWARD_KEYS))
    if extra:
        raise ValueError(f"env_kwargs {extra} cannot be applied to {what}; build the game with them instead")


def select_answers(
    game: Game,
    answers: Iterable[str | int] | None = None,
    sample: int | None = None,
    seed: int = 0,
) -> np.ndarray:
    """Indices (into ``game.answers``) of the answers to play, in order of play.

    * ``answers=None``: every answer, in list order;
    * ``answers=[...]``: those answers (strings or indices), in the given order, duplicates
      dropped;
    * ``sample=k``: ``k`` of them drawn without replacement with
      ``numpy.random.default_rng(seed)``, played in list order.

    Raises:
        ValueError: naming the answers that are not in the game's list, or a bad sample size.
    """
    n = len(game.answers)
    if answers is None:
        pool = np.arange(n, dtype=np.int64)
    else:
        if isinstance(answers, str):
            raise TypeError("answers must be a list of answers, not a single string (wrap it in a list)")
        chosen: list[int] = []
        unknown: list[str] = []
        for item in answers:
            if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
                if 0 <= int(item) < n:
                    chosen.append(int(item))
                else:
                    unknown.append(f"index {int(item)}")
            elif isinstance(item, str):
                key = game.normalize_guess(item)
                if key in game.answer_index:
                    chosen.append(game.answer_index[key])
                else:
                    unknown.append(repr(item))
            else:
                raise TypeError(f"answers must be strings or indices, got {item!r} ({type(item).__name__})")
        if unknown:
            shown = ", ".join(unknown[:10]) + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else "")
            raise ValueError(f"{len(unknown)} answer(s) not in the answer list of {game.name} ({n} answers): {shown}")
        pool = np.array(list(dict.fromkeys(chosen)), dtype=np.int64)
        if pool.size == 0:
            raise ValueError("the answer list to evaluate is empty")
    if sample is not None:
        k = int(sample)
        if not 1 <= k <= pool.size:
            raise ValueError(f"sample must be between 1 and {pool.size} (the answers available), got {sample}")
        picked = np.random.default_rng(seed).choice(pool.size, size=k, replace=False)
        pool = np.sort(pool[picked])
    return pool


def _progress_callback(
    progress: bool | Callable[[int, int], None], total: int, desc: str
) -> tuple[Callable[[int, int], None] | None, Callable[[], None]]:
    """(callback, closer): a tqdm bar on stderr for ``True``, the caller's function, or nothing."""
    if callable(progress):
        return progress, lambda: None
    if not progress:
        return None, lambda: None
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True)

    def update(done: int, _total: int) -> None:
        bar.update(done - bar.n)

    return update, bar.close


def evaluate(
    agent: Agent | TextAgent,
    env: str | Game | gym.Env,
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
        env: a registered id (``"guessgym/Wordle-v1"``), a :class:`~guessgym.envs.game.Game`, or a
            (wrapped) :class:`~guessgym.envs.env.GuessEnv`, whose game and rules are used.
        answers: play only these answers (strings or indices into ``game.answers``).
        sample: play a seeded random sample of this many answers (of ``answers`` if given).
        seed: seed of the sample and of every game (see :func:`guessgym.evaluation.episodes.episode_seed`).
        max_attempts: override the game's attempt limit (a game not solved within it is lost).
        record_guesses: keep each game's guesses in the records.
        n_jobs: worker processes (or Ray CPUs) for the parallel backends.
        backend: ``"serial"``, ``"process"``, ``"ray"``, or ``"auto"`` (serial when
            ``n_jobs == 1``, processes otherwise).
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
        guessgym.evaluation.backends.WorkerDied: a worker process ended without its games (the
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
    backends.check_not_bootstrapping()
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if int(n_jobs) < 1:
        raise ValueError(f"n_jobs must be at least 1, got {n_jobs}")
    if max_invalid_actions < 1:
        raise ValueError(f"max_invalid_actions must be at least 1, got {max_invalid_actions}")
    n_jobs = int(n_jobs)
    boards = 1
    absurdle: dict[str, Any] | None = None
    env_id: str | None
    if isinstance(env, str) and is_absurdle_id(env):
        if answers is not None:
            raise ValueError(f"{env} has no answers to choose: the host keeps every answer possible; give "
                             "sample=N (games; one is enough for a deterministic agent)")
        game, absurdle, env_options = resolve_absurdle(env, env_kwargs, max_attempts)
        env_id = env
        n_games = 1 if sample is None else int(sample)
        if n_games < 1:
            raise ValueError(f"sample must be a number of games >= 1, got {sample}")
        indices = np.arange(n_games, dtype=np.int64)
        chosen = "games"
    elif isinstance(env, str) and is_multiboard_id(env):
        if answers is not None:
            raise ValueError(f"{env} draws each game's answers from its own seed; give sample=N (the number of "
                             "games), not answers")
        game, boards, env_options = resolve_multiboard(env, env_kwargs, max_attempts)
        env_id = env
        n_games = len(game.answers) if sample is None else int(sample)
        if n_games < 1:
            raise ValueError(f"sample must be a number of games >= 1, got {sample}")
        indices = np.arange(n_games, dtype=np.int64)
        chosen = "games"
    else:
        game, env_id, env_options = resolve_game(env, env_kwargs, max_attempts)
        indices = select_answers(game, answers, sample, seed)
        chosen = "all" if answers is None and sample is None else ("sample" if sample is not None else "list")
    if backend == "auto":
        backend = "serial" if n_jobs == 1 else "process"
    agent_name = getattr(agent, "name", type(agent).__name__)

    # Fail fast, before any worker starts, if the agent cannot play this game.
    if boards > 1 and not getattr(agent, "multiboard", False):
        raise UnsupportedGameError(f"{agent_name} plays one board at a time; {env_id} needs an agent that plays "
                                   "every board (multi-expected-size, or an Agent with multiboard = True)")
    agent.begin(game)

    job = backends.Job(
        token=uuid.uuid4().hex, agent=agent, game=game, env_options=env_options,
        record_guesses=record_guesses, seed=int(seed), max_invalid=int(max_invalid_actions), boards=boards,
        absurdle=absurdle,
    )
    items = list(enumerate(int(i) for i in indices))
    size = chunk_size or backends.default_chunk_size(len(items), n_jobs)
    callback, close = _progress_callback(progress, len(items), f"{agent_name} on {game.name}")
    started = time.perf_counter()
    try:
        if backend == "serial" or len(items) == 0:
            records = backends.run_serial(job, items, callback)
        elif backend == "process":
            records = backends.run_process(job, items, n_jobs, size, callback)
        else:
            records = backends.run_ray(job, items, n_jobs, size, callback, ray_address)
    finally:
        close()
    wall = time.perf_counter() - started
    logger.info("%s on %s: %d games in %.1f s (%s backend)", agent_name, game.name, len(records), wall, backend)
    meta: dict[str, Any] = {
        "answers": chosen,
        "answer_pool": len(game.answers),
        "seed": int(seed),
        "sample": sample,
        "backend": backend,
        "n_jobs": n_jobs if backend != "serial" else 1,
        "wall_seconds": round(wall, 3),
        "env_kwargs": {k: v for k, v in (env_kwargs or {}).items() if _jsonable(v)},
        "hard_mode": game.hard_mode,
        "guess_vocabulary": game.guess_vocabulary,
    }
    if boards > 1:
        meta["boards"] = boards
    if absurdle is not None:
        meta["absurdle"] = absurdle
    optimum = known_optimum(game) if boards == 1 and absurdle is None else None
    if optimum is not None and len(records) == len(game.answers) == optimum.answers:
        meta["optimum"] = {"total": optimum.total, "lower_bound": optimum.lower_bound, "proven": optimum.proven,
                           "opener": optimum.opener, "scope": optimum.scope}
    describe = getattr(agent, "describe", None)
    return EvaluationResult(
        agent=agent_name,
        description=describe() if callable(describe) else "",
        env_id=env_id,
        game=(f"absurdle-{game.name}" if absurdle is not None else game.name if boards == 1
              else f"{game.name}-{boards}boards"),
        max_attempts=game.max_attempts if absurdle is None else _absurdle_limit(absurdle, records),
        records=records,
        meta=meta,
    )


def _absurdle_limit(absurdle: dict[str, Any], records: list[Any]) -> int:
    """The attempt limit an Absurdle result is read against: its cap, or without one the most
    guesses a game took (a game abandoned at MAX_ABSURDLE_GUESSES counts as a failure)."""
    if absurdle["max_attempts"] is not None:
        return int(absurdle["max_attempts"])
    return max([r.guesses for r in records if r.solved] or [1])


def _jsonable(value: Any) -> bool:
    import json

    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


__all__ = ["BACKENDS", "Backend", "evaluate", "resolve_absurdle", "resolve_game", "resolve_multiboard",
           "select_answers"]
