"""With two candidates left the greedy solvers choose without scanning every guess's buckets
(:func:`guessgym.envs.buckets.pair_splitters`): the same guess as the scan, for every option."""

from __future__ import annotations

import numpy as np
import pytest

from guessgym.agents.registry import make_agent
from guessgym.baselines import entropy, minimax
from guessgym.envs.game import make_game
from guessgym.envs.matrix import PatternMatrix

AGENTS = [("least-worst", {}), ("least-worst", {"tie_break": "first"}), ("least-worst", {"order": "game"}),
          ("expected-size", {}), ("expected-size", {"tie_break": "first", "order": "game"}), ("most-buckets", {}),
          ("most-buckets", {"tie_break": "first"}), ("pattern-entropy", {})]


def pair_states(game_id: str, count: int) -> list:  # type: ignore[type-arg]
    """States with two candidates: after an opener, a bucket of two, then a second guess's buckets."""
    game = make_game(game_id)
    agent = make_agent("most-buckets")
    agent.begin(game)
    start = agent.state
    matrix = PatternMatrix.for_game(game)
    rng = np.random.default_rng(7)
    found = []
    for opener in rng.choice(len(game.guesses), size=40, replace=False):
        row = matrix.row(int(opener)).astype(np.int64)
        patterns, sizes = np.unique(row, return_counts=True)
        for pattern in patterns[sizes == 2]:
            found.append(start.after(int(opener), int(pattern)))
            if len(found) == count:
                return found
    return found


@pytest.mark.parametrize("game_id", ["guessgym/Wordle-v1", "guessgym/Nerdle-v1"])
@pytest.mark.parametrize(("name", "options"), AGENTS)
def test_two_candidates_choose_as_the_scan_does(game_id: str, name: str, options: dict[str, str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    states = pair_states(game_id, 25)
    assert len(states) == 25 and all(len(s.candidates) == 2 for s in states)
    agent = make_agent(name, **options)
    agent.begin(states[0].game)
    quick = [agent.choose(s) for s in states]
    with monkeypatch.context() as m:  # the scan of every guess, as before the shortcut
        m.setattr(minimax, "pair_splitters", lambda *args: None)
        m.setattr(entropy, "pair_splitters", lambda *args: None)
        scanned = [agent.choose(s) for s in states]
    assert quick == scanned
