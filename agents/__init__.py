"""Agents: the one protocol every player implements, and the shared evaluation loop.

* :class:`Agent`, :class:`CandidateAgent`, :class:`SolverState`, :class:`UnsupportedGameError`
  (:mod:`guessgym.agents.base`): the protocol and the base of the deterministic solvers;
* :func:`evaluate` (:mod:`guessgym.agents.evaluate`): drive any agent through a real environment over
  every answer (or a sample), serially, in worker processes or on Ray;
* :class:`EvaluationResult`, :class:`GameRecord`, :func:`leaderboard`, plots
  (:mod:`guessgym.agents.results`): statistics and renderings of evaluations.

Learned agents live in :mod:`guessgym.agents.learned` (imports torch; not imported here).
"""

from __future__ import annotations

from .base import Agent, CandidateAgent, SolverState, UnsupportedGameError
from .evaluate import evaluate
from .results import (
    EvaluationResult,
    GameRecord,
    leaderboard,
    plot_leaderboard,
    plot_win_rate_curves,
)

__all__ = [
    "Agent",
    "CandidateAgent",
    "EvaluationResult",
    "GameRecord",
    "SolverState",
    "UnsupportedGameError",
    "evaluate",
    "leaderboard",
    "plot_leaderboard",
    "plot_win_rate_curves",
]
