"""A deterministic solver's games played as a tree (:mod:`guessgym.evaluation.tree_play`) are the
games the environment plays one by one: every record (answer, guesses, win, the guesses played,
notes, refused guesses) equal, for every baseline that plays as a tree, on easy and hard Wordle,
Nerdle with and without the commutative rule, and attempt limits that lose games."""

from __future__ import annotations

import dataclasses

import pytest

from guessgym.agents.base import CandidateAgent, SolverState
from guessgym.agents.registry import make_agent
from guessgym.baselines import BASELINES
from guessgym.evaluation import backends
from guessgym.evaluation.evaluate import evaluate
from guessgym.evaluation.games import resolve_setup, select_games
from guessgym.evaluation.tree_play import play_tree, plays_as_tree

GAMES = [
    ("guessgym/MicroNerdle-v1", {}, None),
    ("guessgym/MiniNerdle-v1", {"commutative": True}, None),
    ("guessgym/MiniNerdle-v1", {}, 3),
    ("guessgym/Wordle-v1", {}, None),
    ("guessgym/WordleHard-v1", {}, None),
    ("guessgym/MiniNerdle-v1", {"hard_mode": True}, 3),
]


def one_by_one(agent, setup, indices):  # type: ignore[no-untyped-def]
    job = backends.Job(token="t", agent=agent, setup=setup, record_guesses=True)
    return backends.run(job, list(enumerate(int(i) for i in indices)), backend="serial")


@pytest.mark.parametrize(("env_id", "kwargs", "attempts"), GAMES,
                         ids=[f"{e.split('/')[1]}-{k}-{a}" for e, k, a in GAMES])
def test_every_baseline_plays_the_same_games_as_a_tree(env_id: str, kwargs: dict, attempts: int | None) -> None:
    setup = resolve_setup(env_id, kwargs, attempts)
    indices, _ = select_games(setup, None, 60 if "Wordle" in env_id else None, 5)
    checked = 0
    for name in BASELINES:
        agent = make_agent(name)
        if not plays_as_tree(agent, setup) or setup.family.agent_problem(agent) is not None:
            continue
        try:
            agent.begin(setup.game)
        except ValueError:  # a baseline that does not play this game (it says why)
            continue
        fresh = make_agent(name)
        fresh.begin(setup.game)
        try:
            games = one_by_one(fresh, setup, indices)
        except ValueError as exc:  # a solver with no tree within the limit: the tree walk says the same
            with pytest.raises(ValueError, match=str(exc).splitlines()[0][:40].replace("(", ".").replace(")", ".")):
                play_tree(agent, setup, [int(i) for i in indices], record_guesses=True, max_invalid=50)
            continue
        tree = play_tree(agent, setup, [int(i) for i in indices], record_guesses=True, max_invalid=50)
        strip = [dataclasses.replace(r, seconds=0.0) for r in tree]
        assert strip == [dataclasses.replace(r, seconds=0.0) for r in games], (name, env_id)
        checked += 1
    assert checked >= 5


class IgnoresHints(CandidateAgent):
    """Opens with ``raise``, then plays ``fuzzy`` until it wins or is refused: hard mode refuses it
    wherever the first tiles showed a letter ``fuzzy`` lacks."""

    name = "ignores-hints"

    def choose(self, state: SolverState) -> int:
        return state.game.guess_index["raise" if state.attempt == 0 else "fuzzy"]


def test_refused_guesses_end_the_same_games() -> None:
    setup = resolve_setup("guessgym/WordleHard-v1", {}, None)
    indices, _ = select_games(setup, None, 200, 1)
    agent = IgnoresHints()
    agent.begin(setup.game)
    tree = play_tree(agent, setup, [int(i) for i in indices], record_guesses=True, max_invalid=7)
    job = backends.Job(token="t", agent=IgnoresHints(), setup=setup, record_guesses=True, max_invalid=7)
    games = backends.run(job, list(enumerate(int(i) for i in indices)), backend="serial")
    assert [dataclasses.replace(r, seconds=0.0) for r in tree] == [dataclasses.replace(r, seconds=0.0) for r in games]
    refused = [r for r in tree if r.invalid.get("hard_mode")]
    assert refused and all(r.note.startswith("lost after 7 rejected actions (last: hard mode: 'fuzzy' is not")
                           for r in refused)


def test_the_evaluation_loop_says_it_played_a_tree() -> None:
    result = evaluate(make_agent("least-worst"), "guessgym/MicroNerdle-v1", n_jobs=2)
    assert result.meta["backend"] == "tree" and result.meta["n_jobs"] == 1 and result.n_games == 127
    random_play = evaluate(make_agent("random-consistent"), "guessgym/MicroNerdle-v1")
    assert random_play.meta["backend"] in ("tree", "serial")


def test_a_state_after_a_move_leaves_the_state_before_it_as_it_was() -> None:
    """The tree walk carries each state to its children (SolverState.after), so a fork must not
    change the state the other children start from."""
    agent = make_agent("least-worst")
    game = resolve_setup("guessgym/Wordle-v1", {"hard_mode": True}).game
    agent.begin(game)
    start = agent.state
    before = (len(start.candidates), start.attempt, list(start.history), start.hard.legal_mask().copy())
    guess = agent.propose()
    first = start.after(guess, 0)
    second = start.after(guess, game.solved_pattern - 1)
    assert (len(start.candidates), start.attempt, start.history) == before[:3]
    assert (start.hard.legal_mask() == before[3]).all()
    assert first.attempt == second.attempt == 1 and first.history != second.history
    assert len(first.candidates) < len(start.candidates)
    agent.resume(first)
    assert agent.state is first
