"""The solved states shipped for the main job's move analysis (``envs/data/state_values``, rebuilt by
``python scripts/state_values.py``): there for each of the main job's games, equal to fresh solves of
the states they hold, and holding every state a sample of the main job's games reaches, so that the
analysis of those games searches nothing and never makes the search's transposed matrix (for classic
Nerdle with every equation as a guess, 2.4 GB)."""

from __future__ import annotations

import numpy as np
import pytest

import guessgym  # noqa: F401
from guessgym.agents.registry import make_agent
from guessgym.baselines import search_kernels as K
from guessgym.baselines.memo_store import MemoStore, shipped_folder
from guessgym.baselines.move_values import StateValues
from guessgym.baselines.optimal import solve
from guessgym.envs.game import Game, make_game
from guessgym.envs.matrix import PatternMatrix
from guessgym.evaluation import evaluate
from guessgym.evaluation.analysis import analyze, record_moves
from guessgym.main_job import MAIN_JOB

#: (env id, env options, agent) of the main job whose sampled games are checked: the agent whose
#: Wordle states ran past the analysis's budget on a first run, the Nerdle agent that plays every
#: equation as a guess, and a searching agent on classic Nerdle.
CHECKED = [("guessgym/Wordle-v1", {}, "least-worst"), ("guessgym/Nerdle-v1", {"guesses": "all"}, "unique-chars"),
           ("guessgym/Nerdle-v1", {}, "most-buckets")]


def main_job_games() -> dict[str, Game]:
    games = {}
    for entry in MAIN_JOB:
        game = make_game(entry.env_id, **dict(entry.env_kwargs))
        games[game.name] = game
    return games


@pytest.mark.parametrize("name", sorted(main_job_games()))
def test_each_main_job_game_has_its_states(name: str) -> None:
    game = main_job_games()[name]
    store = MemoStore(shipped_folder(), game, 0)
    assert store.path.is_file(), f"{store.path} is missing: python scripts/state_values.py rebuilds it"
    values = StateValues(game)
    assert values.shipped > 1000
    assert not values.kernel.has_matrix  # reading them makes no matrix


def sampled_states(game: Game, agent: str, env_id: str, options: dict[str, object],
                   values: StateValues) -> list[tuple[np.ndarray, int]]:
    """The states (answers, attempts left) before each move of the agent's games on a sample."""
    result = evaluate(make_agent(agent), env_id, env_kwargs=options, sample=8, seed=3, record_guesses=True)
    states: dict[bytes, tuple[np.ndarray, int]] = {}
    for record in result.records:
        assert record.played is not None
        answers, left = values.everyone, game.max_attempts
        for move in record_moves(game, record.answer, record.played):
            assert move is not None
            guess, pattern = move
            answers = answers[values.patterns(answers, guess) == pattern]
            left -= 1
            if answers.size > 2 and left >= 2:
                states[answers.tobytes() + bytes([left])] = (answers, left)
    return list(states.values())


@pytest.mark.parametrize(("env_id", "options", "agent"), CHECKED)
def test_shipped_values_equal_fresh_solves(env_id: str, options: dict[str, object], agent: str) -> None:
    """Each state a sample of the agent's games reaches after a move is in the shipped values, with
    the value a solve of that state alone (its answers as a game of their own, every guess, the
    attempts left) finds with nothing shipped or cached."""
    game = make_game(env_id, **options)
    values = StateValues(game)
    states = sampled_states(game, agent, env_id, options, values)
    assert states
    checked = 0
    for answers, left in sorted(states, key=lambda s: s[0].size)[:12]:
        shipped = values.kernel.known(answers, left, values.all_guesses)[0]
        assert shipped >= 0, f"a state of {answers.size} answers is not in the shipped values"
        sub = game.replace(name=f"{game.name}-state", answers=tuple(game.answers[int(a)] for a in answers))
        patterns = PatternMatrix.for_game(game, build=False).submatrix(None, answers)
        fresh = solve(sub, max_attempts=left, patterns=patterns)
        assert fresh.proven and fresh.total == shipped, (answers.size, left)
        checked += 1
    assert checked >= 3
    assert not values.kernel.has_matrix


@pytest.mark.parametrize(("env_id", "options", "agent"), CHECKED)
def test_sampled_main_job_games_search_nothing(env_id: str, options: dict[str, object], agent: str) -> None:
    """The analysis of a sample of the main job's games is answered by the shipped values alone:
    no state searched, no transposed matrix made (a rebuild is due when this fails: an agent or a
    list changed)."""
    game = make_game(env_id, **options)
    result = evaluate(make_agent(agent), env_id, env_kwargs=options, sample=12, seed=5, record_guesses=True)
    values = StateValues(game)
    analysis = analyze(result, values=values)
    assert len(analysis.games) == 12 and not values.spent
    assert int(values.kernel.stats[K.NODES]) == 0
    assert not values.kernel.has_matrix
