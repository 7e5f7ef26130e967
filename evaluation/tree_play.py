"""A deterministic solver's games over many answers, played as the tree they are.

A :class:`~guessgym.agents.base.CandidateAgent` decides from the tiles seen so far alone (its memo
is keyed by them), so its games over a set of answers form a tree: every answer starts at the same
state, and answers part only where a guess's tiles part them. :func:`play_tree` walks that tree,
asking the agent for each state's decision once and scoring the guess against every answer that
reached the state at once, instead of stepping an environment through each game: the same games
(the environment's rules: the attempt limit, hard mode's refusals, a commutative win), the same
records, in a fraction of the time. What it cannot measure is the time of one game: each game gets
an equal share of the walk's.

The evaluation loop (:func:`guessgym.evaluation.evaluate.evaluate`) plays a game this way when
:func:`plays_as_tree` says the agent and the game allow it; ``tests/evaluation/test_tree_play.py``
holds every baseline's records equal to the game-by-game loop's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..agents.base import Agent, CandidateAgent, SolverState
from ..envs.candidates import HardModeRule
from ..envs.env import PlainFamily
from ..envs.families import GameSetup
from ..envs.matrix import PatternMatrix
from .records import GameRecord


def plays_as_tree(agent: Agent, setup: GameSetup) -> bool:
    """Whether ``agent``'s games on ``setup`` are a tree :func:`play_tree` plays: a memoising
    :class:`~guessgym.agents.base.CandidateAgent` with no per-game randomness, on a plain game of
    one answer (Wordle, Nerdle, hard mode, the commutative rule)."""
    return (isinstance(agent, CandidateAgent) and agent.memoise and not hasattr(agent, "seed_episode")
            and isinstance(setup.family, PlainFamily))


def play_tree(agent: CandidateAgent, setup: GameSetup, indices: Sequence[int], *, record_guesses: bool = False,
              max_invalid: int, progress: Callable[[int, int], None] | None = None) -> list[GameRecord]:
    """The records of ``agent``'s games on the answers ``indices`` (in that order), as
    :func:`~guessgym.evaluation.episodes.play_game` makes them, with ``max_invalid`` refused guesses
    ending a game (hard mode; see the module docstring)."""
    game = setup.game
    matrix = PatternMatrix.for_game(game)
    solved = game.solved_pattern
    n = len(indices)
    found: dict[int, tuple[int, bool, tuple[str, ...], str, int]] = {}  # answer -> guesses, won, played, note, refused
    started = time.perf_counter()
    agent.begin(game)
    stack: list[tuple[np.ndarray, list[tuple[int, int]], SolverState]] = [
        (np.unique(np.asarray(indices, dtype=np.int64)), [], agent.state)]
    while stack:
        answers, path, state = stack.pop()
        agent.resume(state)
        guess = agent.propose()
        played = tuple(game.guesses[g] for g, _ in path)
        refusal = _refusal(game, agent.state.hard, guess)
        if refusal is not None:  # the agent asks for the same guess until the game is lost
            note = f"lost after {max_invalid} rejected actions (last: {refusal})"
            for answer in answers:
                found[int(answer)] = (len(path), False, played, note, max_invalid)
            _tell(progress, len(found), n)
            continue
        after = (*played, game.guesses[guess])
        patterns = matrix.row_over(guess, answers)[answers].astype(np.int64)  # few answers: only theirs scored
        for pattern in np.unique(patterns):
            group = answers[patterns == pattern]
            won = int(pattern) == solved
            if won or len(after) >= game.max_attempts:
                for answer in group:
                    found[int(answer)] = (len(after), won, after, "", 0)
            else:
                stack.append((group, [*path, (guess, int(pattern))], state.after(guess, int(pattern))))
        _tell(progress, len(found), n)
    agent.begin(game)
    share = (time.perf_counter() - started) / max(n, 1)
    records = []
    for index in indices:
        guesses, won, played, note, refused = found[int(index)]
        records.append(GameRecord(answer=game.answers[int(index)], guesses=guesses, solved=won and not note,
                                  played=played if record_guesses else None, seconds=share, note=note,
                                  invalid={"hard_mode": refused}))
    return records


def _refusal(game: Any, rule: HardModeRule | None, guess: int) -> str | None:
    """Why hard mode refuses ``guess``, in the environment's words (``None``: allowed). ``rule`` is
    the agent's own: the rule the environment applies, fed the same guesses and tiles."""
    if rule is None or rule.legal_mask()[guess]:
        return None
    reason = rule.violation(guess)
    return None if reason is None else f"hard mode: {game.guesses[guess]!r} is not allowed: {reason}"


def _tell(progress: Callable[[int, int], None] | None, done: int, total: int) -> None:
    if progress is not None:
        progress(done, total)


__all__ = ["play_tree", "plays_as_tree"]
