"""The baseline registry contract: names, docstrings, constructor defaults, errors, pickling."""

from __future__ import annotations

import inspect
import pickle

import pytest

from guessgym.agents.base import Agent, CandidateAgent
from guessgym.baselines import BASELINES, make_baseline
from guessgym.baselines.sources import SOURCES
from guessgym.envs.env import GuessEnv
from guessgym.envs.game import nerdle, wordle

SOURCES_CITED = tuple(source.short for source in SOURCES.values())

EXPECTED_NAMES = {
    "least-worst",
    "expected-size",
    "most-buckets",
    "min-average",
    "pattern-entropy",
    "position-entropy",
    "unique-chars",
    "clique",
    "random-consistent",
    "optimal",
}


def test_registry_has_the_agreed_names() -> None:
    assert set(BASELINES) == EXPECTED_NAMES
    for name, cls in BASELINES.items():
        assert cls.name == name
        assert issubclass(cls, CandidateAgent)


@pytest.mark.parametrize("name", sorted(EXPECTED_NAMES))
def test_docstring_first_line_names_the_method_and_its_seed(name: str) -> None:
    cls = BASELINES[name]
    first = (cls.__doc__ or "").strip().splitlines()[0]
    assert len(first) > 20
    if name in ("random-consistent", "optimal", "most-buckets"):
        assert "no seed" in first
    else:
        assert any(source in first for source in SOURCES_CITED), first
    agent = make_baseline(name)
    assert agent.describe() == first


@pytest.mark.parametrize("name", sorted(EXPECTED_NAMES))
def test_constructor_arguments_are_keyword_only_with_defaults(name: str) -> None:
    params = list(inspect.signature(BASELINES[name].__init__).parameters.values())[1:]
    for p in params:
        assert p.kind is inspect.Parameter.KEYWORD_ONLY, p
        assert p.default is not inspect.Parameter.empty, p
    assert isinstance(make_baseline(name), Agent)


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ValueError) as err:
        make_baseline("minimax-deluxe")
    for name in EXPECTED_NAMES:
        assert name in str(err.value)


def test_bad_keyword_arguments_are_rejected() -> None:
    with pytest.raises(TypeError):
        make_baseline("least-worst", depth=2)
    with pytest.raises(ValueError, match="pool"):
        make_baseline("least-worst", pool="everything")
    with pytest.raises(ValueError, match="depth"):
        make_baseline("min-average", depth=3)


def _play(agent: Agent, game, answer: int) -> list[str]:
    env = GuessEnv(game=game)
    obs, info = env.reset(options={"answer": answer})
    agent.begin(game)
    guesses, done = [], False
    while not done:
        obs, _, done, _, info = env.step(agent.act(obs, info))
        guesses.append(info["guess"])
    return guesses


@pytest.mark.parametrize("name", sorted(EXPECTED_NAMES - {"clique", "unique-chars"}))
def test_agents_pickle_before_and_after_playing_and_play_the_same(name: str) -> None:
    game = nerdle(6)
    agent = make_baseline(name)
    fresh = pickle.loads(pickle.dumps(agent))
    first = [_play(agent, game, a) for a in (0, 50, 100)]
    used = pickle.loads(pickle.dumps(agent))  # memo, matrix and caches are not shipped
    assert "matrix" not in used.__dict__ and used._memo == {}
    assert [_play(fresh, game, a) for a in (0, 50, 100)] == first
    assert [_play(used, game, a) for a in (0, 50, 100)] == first


def test_clique_and_unique_chars_pickle() -> None:
    game = wordle(answers=["abcde", "fghij", "klmno", "pqrst"], guesses=["abcde", "fghij", "klmno", "pqrst", "uvwxy"])
    for agent in (make_baseline("clique"), make_baseline("unique-chars", openers=("uvwxy",))):
        before = _play(agent, game, 2)
        clone = pickle.loads(pickle.dumps(agent))
        assert clone._cache == {}
        assert _play(clone, game, 2) == before
