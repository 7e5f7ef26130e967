"""Evaluation: the one shared loop that measures any player, and what it reports.

* :func:`evaluate` (:mod:`guessgym.evaluation.evaluate`): drive any agent through a real environment
  over every answer (or a sample), serially, in worker processes or on Ray
  (:mod:`~guessgym.evaluation.backends`); text agents play in conversation
  (:mod:`~guessgym.evaluation.chat`);
* :mod:`guessgym.evaluation.episodes`: the episode loops;
* :class:`EvaluationResult`, :class:`GameRecord` (:mod:`guessgym.evaluation.results`,
  :mod:`~guessgym.evaluation.records`): the data, statistics and JSON of evaluations;
  :func:`result_markdown`, :func:`gap_text`, :func:`leaderboard` and the plots
  (:mod:`guessgym.evaluation.report`) render them;
* :func:`~guessgym.evaluation.tree_checks.record_tree`, :func:`~guessgym.evaluation.tree_checks.verify_tree`: the
  tree an agent plays, and a tree checked against the environment.

Examples:
    >>> from guessgym.agents import make_agent
    >>> result = evaluate(make_agent("least-worst"), "guessgym/MicroNerdle-v1")
    >>> result.n_games, result.win_rate
    (127, 1.0)
"""

from __future__ import annotations

from .analysis import analyze
from .evaluate import evaluate
from .report import gap_text, leaderboard, plot_histogram, plot_leaderboard, plot_win_rate_curves, result_markdown
from .results import EvaluationResult, GameRecord

__all__ = ["EvaluationResult", "GameRecord", "analyze", "evaluate", "gap_text", "leaderboard", "plot_histogram",
           "plot_leaderboard", "plot_win_rate_curves", "result_markdown"]
