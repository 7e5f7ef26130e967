"""Agents: the one protocol every player implements, the players, and the agent registry.

* :class:`Agent`, :class:`CandidateAgent`, :class:`SolverState`, :class:`UnsupportedGameError`
  (:mod:`guessgym.agents.base`): the protocol and the base of the deterministic solvers;
* :func:`make_agent`, :func:`register` (:mod:`guessgym.agents.registry`): agents by name,
  ``model:PATH`` or ``module:Class``;
* players: decision trees (:mod:`~guessgym.agents.decision_tree`), the known optima
  (:mod:`~guessgym.agents.optima`), text agents (:mod:`~guessgym.agents.text`), language models
  (:mod:`~guessgym.agents.llm`, the ``llm`` extra), learned policies (:mod:`~guessgym.agents.learned`,
  the ``train`` extra; not imported here) and their lookahead (:mod:`~guessgym.agents.lookahead`);
  batched policy rollouts (:mod:`~guessgym.agents.rollout`).

Players only: the evaluation loop that measures them is :mod:`guessgym.evaluation`.
"""

from __future__ import annotations

from .base import Agent, CandidateAgent, SolverState, UnsupportedGameError
from .registry import make_agent, register

__all__ = ["Agent", "CandidateAgent", "SolverState", "UnsupportedGameError", "make_agent", "register"]
