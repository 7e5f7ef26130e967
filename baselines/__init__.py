"""Deterministic baseline solvers from the research documents, each an :class:`guessgym.agents.base.Agent`.

:data:`BASELINES` maps a name to a :class:`~guessgym.agents.base.CandidateAgent` subclass, and
importing this package registers each one with the agent registry
(:func:`guessgym.agents.registry.make_agent` resolves the names). Every class has a
``name`` (its key), a docstring whose first line says what it does and which seed it comes from,
and keyword-only constructor arguments with defaults.

============================ =================================================================
name                          method (seed)
============================ =================================================================
``"least-worst"``             smallest worst-case bucket (Pawson 2023; the
                              generalised paper's greedy with ``pool="candidates",
                              tie_break="first", order="game"``)
``"expected-size"``           smallest sum of squared buckets (Pawson 2023 var. 2)
``"most-buckets"``            most buckets (not from a seed: the rule the learned policies
                              start from, see :mod:`guessgym.baselines.minimax`)
``"min-average"``             expectimin depth 1 or 2 (Jain et al. 2024)
``"pattern-entropy"``         largest feedback-pattern entropy (the Nerdle entropy blog post)
``"position-entropy"``        largest per-position character entropy (the Nerdle entropy blog post)
``"unique-chars"``            two fixed openers, then most distinct characters
                              (Luque, Jo and Warner 2022)
``"clique"``                  cliques of letter-disjoint words, then candidates
                              (Lahiri et al. 2023; Wordle easy mode only)
``"random-consistent"``       a random remaining candidate (the floor)
``"optimal"``                 the optimal decision tree: exact search, shipped for the
                              registered games (:mod:`guessgym.baselines.optimal`; the ceiling)
============================ =================================================================

Examples:
    >>> agent = make_baseline("min-average", depth=1)
    >>> agent.name
    'min-average'
    >>> sorted(BASELINES)[:3]
    ['clique', 'expected-size', 'least-worst']
"""

from __future__ import annotations

from typing import Any

from ..agents.base import Agent, CandidateAgent
from ..agents.registry import register
from .clique import CliqueAgent
from .entropy import PatternEntropyAgent, PositionEntropyAgent
from .min_average import MinAverageAgent
from .minimax import ExpectedSizeAgent, LeastWorstAgent, MostBucketsAgent
from .multiboard import MultiBoardExpectedSize
from .optimal_agent import OptimalAgent
from .random_consistent import RandomConsistentAgent
from .unique_chars import UniqueCharsAgent

BASELINES: dict[str, type[CandidateAgent]] = {
    cls.name: cls
    for cls in (
        LeastWorstAgent,
        ExpectedSizeAgent,
        MostBucketsAgent,
        MinAverageAgent,
        PatternEntropyAgent,
        PositionEntropyAgent,
        UniqueCharsAgent,
        CliqueAgent,
        RandomConsistentAgent,
        OptimalAgent,
    )
}


for _name, _cls in BASELINES.items():
    register(_name, _cls)
register(MultiBoardExpectedSize.name, MultiBoardExpectedSize)


def make_baseline(name: str, **kwargs: Any) -> Agent:
    """Build the baseline registered under ``name`` with its keyword arguments.

    Raises:
        ValueError: for an unknown name (the message lists the known ones).
        TypeError: for a keyword argument the baseline does not accept.
    """
    try:
        cls = BASELINES[name]
    except KeyError:
        raise ValueError(f"unknown baseline {name!r}; known baselines: {', '.join(sorted(BASELINES))}") from None
    return cls(**kwargs)


__all__ = [
    "BASELINES",
    "CliqueAgent",
    "ExpectedSizeAgent",
    "LeastWorstAgent",
    "MinAverageAgent",
    "MostBucketsAgent",
    "OptimalAgent",
    "PatternEntropyAgent",
    "PositionEntropyAgent",
    "RandomConsistentAgent",
    "UniqueCharsAgent",
    "make_baseline",
]
