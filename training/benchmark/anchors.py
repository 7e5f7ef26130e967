"""The benchmark's anchors, computed: the optimum, random-consistent play and uniformly random guesses
on a set of scored answers.

One computation serves the protocols' anchor files (``scripts/benchmark_anchors.py``) and the
tuning study's validation anchors (:func:`guessgym.training.benchmark.tuning.validation_anchors`), so a
trial's regret and a reference's regret are anchored the same way.

The anchors play ``game`` (what they know: the scored game under protocol 1, the tier's whole list
under protocol 2) and are scored on ``scored`` answers, a subset of ``game``'s:

* the optimum: the total of the best tree of ``game`` (the shipped proven tree, the exact solver's
  proof over every opener, or the best of the N most promising openers' trees, an upper bound) over
  the scored answers;
* random-consistent play (:class:`~guessgym.baselines.random_consistent.RandomConsistentAgent`): its
  mean score (a loss counting ``max_attempts + 1``) through the shared evaluation loop, one run per
  anchor seed;
* uniformly random guesses: each turn a uniformly random allowed guess (what an untrained policy
  plays), from a generator seeded by each anchor seed.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...agents.decision_tree import DecisionTree
from ...envs.game import Game


@dataclass(frozen=True)
class SeededMeans:
    """One baseline's mean score and win rate on the scored answers, one of each per anchor seed."""

    means: tuple[float, ...]
    win_rates: tuple[float, ...]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.means)

    @property
    def stderr(self) -> float:
        return statistics.stdev(self.means) / len(self.means) ** 0.5

    @property
    def win_rate(self) -> float:
        return statistics.fmean(self.win_rates)


def optimal_tree(game: Game, openers: int | None = None) -> tuple[DecisionTree, bool, str]:
    """The best tree of ``game``, whether it is proven optimal, and its scope in words: the shipped
    proven tree, the exact solver's proof over every opener, or (``openers``) the best of that many
    most promising openers' trees."""
    from ...agents.optima import known_optimum
    from ...baselines.opener_search import prove
    from ...baselines.optimal import solve

    known = known_optimum(game)
    if known is not None and known.proven:
        return known.load_tree(game), True, f"every opener (shipped tree {known.tree})"
    if openers is None:
        result = prove(game)
        return result.tree, result.proven, "every opener"
    return solve(game, openers=openers).tree, False, f"the best of the {openers} most promising openers"


def scored_indices(game: Game, scored: Sequence[str]) -> np.ndarray:
    """The indices in ``game.answers`` of the ``scored`` answers (each must be one of them)."""
    index = {a: i for i, a in enumerate(game.answers)}
    missing = [a for a in scored if a not in index]
    if missing:
        raise ValueError(f"scored answers {missing[:3]} are not answers of the game the anchors play; "
                         f"the scored answers must be a subset of its {len(index):,}")
    return np.array([index[a] for a in scored], dtype=np.int64)


def tree_total(tree: DecisionTree, scored: Sequence[str]) -> int:
    """The guesses ``tree`` takes over the ``scored`` answers, all together."""
    return sum(len(tree.paths[a]) for a in scored)


def random_consistent(game: Game, chosen: np.ndarray, seeds: Sequence[int]) -> SeededMeans:
    """Random-consistent play of ``game`` on the answers at ``chosen``, one evaluation per seed."""
    from ...baselines.random_consistent import RandomConsistentAgent
    from ...evaluation.evaluate import evaluate

    results = [evaluate(RandomConsistentAgent(seed=s), game, answers=chosen.tolist(), seed=s) for s in seeds]
    return SeededMeans(tuple(r.mean_guesses_with_failures for r in results), tuple(r.win_rate for r in results))


def uniform_scores(game: Game, chosen: np.ndarray, seed: int) -> np.ndarray:
    """Each answer's score at ``chosen`` under a uniformly random allowed guess each turn (a loss:
    ``max_attempts + 1``)."""
    from ...agents.rollout import play_batched

    rng = np.random.default_rng(seed)

    def act(obs: dict[str, np.ndarray]) -> np.ndarray:
        allowed = [np.flatnonzero(row) for row in obs["action_mask"].astype(bool)]
        return np.array([rng.choice(a) if a.size else 0 for a in allowed], dtype=np.int64)  # empty: a game over

    guesses = play_batched(act, game, chosen)
    return np.where(guesses > 0, guesses, game.max_attempts + 1)


def uniform_random(game: Game, chosen: np.ndarray, seeds: Sequence[int]) -> SeededMeans:
    """Uniformly random guesses on the answers at ``chosen``, one play per seed."""
    scores = [uniform_scores(game, chosen, s) for s in seeds]
    return SeededMeans(tuple(float(u.mean()) for u in scores),
                       tuple(float((u <= game.max_attempts).mean()) for u in scores))
