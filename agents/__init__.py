"""Agents: the one protocol every player implements, and the shared evaluation loop.

* :class:`Agent`, :class:`CandidateAgent`, :class:`SolverState`, :class:`UnsupportedGameError`
  (:mod:`guessgym.agents.base`): the protocol and the base of the deterministic solvers;
* :func:`evaluate` (:mod:`guessgym.agents.evaluate`): drive any agent through a real environment over
  every answer (or a sample), serially, in worker processes or on Ray;
* :func:`make_agent`, :func:`register` (:mod:`guessgym.agents.registry`): agents by name,
  ``model:PATH`` or ``module:Class``;
* :mod:`guessgym.agents.episodes`: the episode loop (one game, or a batch of games);
* :class:`EvaluationResult`, :class:`GameRecord` (:mod:`guessgym.agents.results`): the data,
  statistics and JSON of evaluations; :func:`leaderboard` and the plots
  (:mod:`guessgym.agents.report`) render them.

Learned agents live in :mod:`guessgym.agents.learned` (imports torch; not imported here).
"""

from __future__ import annotations

from .base import Agent, CandidateAgent, SolverState, UnsupportedGameError
from .evaluate import evaluate
from .registry import make_agent, register
from .report import leaderboard, plot_leaderboard, plot_win_rate_curves
from .results import EvaluationResult, GameRecord

__all__ = [
    "Agent",
    "CandidateAgent",
    "EvaluationResult",
    "GameRecord",
    "SolverState",
    "UnsupportedGameError",
    "evaluate",
    "leaderboard",
    "make_agent",
    "plot_leaderboard",
    "plot_win_rate_curves",
    "register",
]
