"""The episode loop, once: one game through a :class:`~guessgym.envs.env.GuessEnv`, or many games at
once through the batched vector env.

* :func:`play_game` drives any :class:`~guessgym.agents.base.Agent` through one game and returns
  its :class:`~guessgym.agents.results.GameRecord`. The evaluation loop (every backend) plays each
  game with it.
* :func:`play_batched` plays a batch policy (a function from a batch of observations to actions)
  on many answers at once with :class:`~guessgym.envs.vector.BatchedGuessEnv`, with the same
  rules; training evaluates learned policies with it, as stable-baselines3's ``EvalCallback``
  calls ``evaluate_policy`` instead of owning a loop.

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

import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..envs.absurdle import AbsurdleEnv
from ..envs.env import GuessEnv
from ..envs.game import Game
from ..envs.multiboard import MultiBoardEnv
from .base import Agent
from .results import GameRecord

#: Default cap on rejected actions in one game before it is declared lost.
MAX_INVALID_ACTIONS = 50


def episode_seed(seed: int, answer_index: int) -> int:
    """The seed of the game whose answer is ``answer_index``: independent of chunking and order."""
    return int(np.random.SeedSequence([int(seed), int(answer_index)]).generate_state(1)[0])


def play_game(
    env: GuessEnv,
    agent: Agent,
    answer_index: int,
    *,
    seed: int = 0,
    record_guesses: bool = False,
    max_invalid: int = MAX_INVALID_ACTIONS,
) -> GameRecord:
    """Play one game to the end through ``env`` and return its record.

    If the agent has a ``seed_episode(seed: int)`` method it is called first with a seed that
    depends only on ``seed`` and the answer index, so a randomised agent plays each game
    identically whatever the backend or chunking. A game in which the agent's actions are
    rejected ``max_invalid`` times is lost, with a note saying why.
    """
    game = env.game
    answer = game.answers[answer_index]
    game_seed = episode_seed(seed, answer_index)
    start = time.perf_counter()
    seed_episode = getattr(agent, "seed_episode", None)
    if callable(seed_episode):
        seed_episode(game_seed)
    obs, info = env.reset(seed=game_seed, options={"answer": int(answer_index)})
    played: list[str] = []
    invalid = 0
    note = ""
    solved = False
    try:
        agent.begin(game)
        while True:
            action = agent.act(obs, info)
            obs, _, terminated, _, info = env.step(action)
            if info["invalid_action"]:
                invalid += 1
                if invalid >= max_invalid:
                    note = f"lost after {invalid} rejected actions (last: {info['invalid_reason']})"
                    break
                continue
            played.append(info["guess"])
            if terminated:
                solved = int(info["pattern"]) == game.solved_pattern
                break
    except Exception as exc:
        if sys.version_info >= (3, 11):  # add_note is new in 3.11
            exc.add_note(f"while agent {getattr(agent, 'name', type(agent).__name__)!r} played answer {answer!r} "
                         f"of {game.name} (after guesses {played})")
        raise
    seconds = time.perf_counter() - start
    return GameRecord(
        answer=answer,
        guesses=len(played),
        solved=solved,
        played=tuple(played) if record_guesses else None,
        seconds=seconds,
        note=note,
        invalid={"hard_mode": invalid},  # the only action GuessEnv rejects is a hard-mode violation
    )


def board_answers(n_answers: int, boards: int, seed: int, game_index: int) -> np.ndarray:
    """The answers of game ``game_index`` of a multi-board evaluation: ``boards`` distinct answer
    indices drawn from the game's own seed (so every backend and chunking plays the same games)."""
    rng = np.random.default_rng(episode_seed(seed, game_index))
    return rng.choice(n_answers, size=boards, replace=False).astype(np.int64)


def play_multiboard_game(env: MultiBoardEnv, agent: Agent, game_index: int, *, seed: int = 0,
                         record_guesses: bool = False) -> GameRecord:
    """Play game ``game_index`` of a multi-board evaluation (answers from :func:`board_answers`).

    The record's ``answer`` is the boards' answers joined by ``+``; ``guesses`` is the attempts
    used; ``solved`` means every board was solved.
    """
    game = env.game
    answers = board_answers(len(game.answers), env.boards, seed, game_index)
    start = time.perf_counter()
    seed_episode = getattr(agent, "seed_episode", None)
    if callable(seed_episode):
        seed_episode(episode_seed(seed, game_index))
    obs, info = env.reset(seed=episode_seed(seed, game_index), options={"answers": answers})
    played: list[str] = []
    agent.begin(game)
    terminated = False
    while not terminated:
        obs, _, terminated, _, info = env.step(agent.act(obs, info))
        played.append(info["guess"])
    return GameRecord(
        answer="+".join(game.answers[int(a)] for a in answers),
        guesses=int(info["attempt"]),
        solved=bool(info["solved"].all()),
        played=tuple(played) if record_guesses else None,
        seconds=time.perf_counter() - start,
    )


#: Guesses after which an uncapped Absurdle game is counted as lost (an agent may never win).
MAX_ABSURDLE_GUESSES = 100


def play_absurdle_game(env: AbsurdleEnv, agent: Agent, game_index: int, *, seed: int = 0,
                       record_guesses: bool = False) -> GameRecord:
    """Play game ``game_index`` of an Absurdle evaluation (the host is deterministic, so only a
    randomised agent plays the games differently). The record's ``answer`` is the answer the host
    conceded (``""`` if it never did); a game with no cap that reaches
    :data:`MAX_ABSURDLE_GUESSES` guesses is counted as lost, with a note."""
    game = env.game
    start = time.perf_counter()
    seed_episode = getattr(agent, "seed_episode", None)
    if callable(seed_episode):
        seed_episode(episode_seed(seed, game_index))
    obs, info = env.reset(seed=episode_seed(seed, game_index))
    agent.begin(game)
    played: list[str] = []
    terminated, note = False, ""
    while not terminated:
        if len(played) >= MAX_ABSURDLE_GUESSES:
            note = f"no win in {MAX_ABSURDLE_GUESSES} guesses"
            break
        obs, _, terminated, _, info = env.step(agent.act(obs, info))
        played.append(info["guess"])
    won = terminated and bool(info.get("answer"))
    return GameRecord(
        answer=info.get("answer", "") or "",
        guesses=len(played),
        solved=won,
        played=tuple(played) if record_guesses else None,
        seconds=time.perf_counter() - start,
        note=note,
    )


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


__all__ = [
    "MAX_ABSURDLE_GUESSES", "MAX_INVALID_ACTIONS", "board_answers", "episode_seed", "play_absurdle_game",
    "play_batched", "play_game", "play_multiboard_game",
]
