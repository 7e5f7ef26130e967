"""Nerdle with commutative answers: which rearrangements count, the scoring rule in every path
(matrix, rows, single patterns, the environment), a slow reference for candidate play, and bad
combinations."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import guessgym  # noqa: F401
from guessgym.agents.base import CandidateAgent
from guessgym.envs.equations import commutative_form, generate_equations
from guessgym.envs.game import make_game, nerdle
from guessgym.envs.matrix import PatternMatrix
from guessgym.envs.scoring import score
from guessgym.evaluation.evaluate import evaluate


@pytest.mark.parametrize(("a", "b", "same"), [
    ("10+20=30", "20+10=30", True), ("3*4-2=10", "4*3-2=10", True), ("9-2+3=10", "3+9-2=10", True),
    ("2*3*4=24", "4*2*3=24", True), ("12+3*4=24", "4*3+12=24", True),
    ("8/4*2=4", "2*8/4=4", False),  # a term with a division keeps its order
    ("9-2=7", "2-9=7", False), ("10+20=30", "10+20=30", True), ("1+2=3", "2+1=3", True), ("6/2=3", "2/6=3", False),
])
def test_which_rearrangements_count(a: str, b: str, same: bool) -> None:
    assert (commutative_form(a) == commutative_form(b)) is same


ANSWERS = generate_equations(6)


@settings(max_examples=300, deadline=None)
@given(guess=st.sampled_from(ANSWERS), answer=st.sampled_from(ANSWERS))
def test_every_scoring_path_follows_the_rule(guess: str, answer: str) -> None:
    game = nerdle(6, commutative=True)
    g, a = game.guess_index[guess], game.answer_index[answer]
    rearranged = guess != answer and commutative_form(guess) == commutative_form(answer)
    expected = game.solved_pattern if rearranged else score(guess, answer)
    matrix = PatternMatrix.for_game(game)
    assert game.score(guess, answer) == expected == matrix.dense[g, a] == matrix.pattern(g, a)
    assert matrix.submatrix([g], [a])[0, 0] == expected
    assert nerdle(6).score(guess, answer) == score(guess, answer)  # off: the plain rule


def test_on_demand_rows_follow_the_rule() -> None:
    game = nerdle(6, commutative=True)
    on_demand = PatternMatrix(game, None)  # rows computed when asked, as for matrices too large to hold
    dense = PatternMatrix.for_game(game).dense
    assert all((on_demand.row(g) == dense[g]).all() for g in range(len(game.guesses)))


def test_a_rearranged_guess_wins_in_the_environment() -> None:
    env = gym.make("guessgym/MiniNerdle-v1", commutative=True)
    env.reset(options={"answer": "2+8=10"})
    _, reward, terminated, _, info = env.step(env.unwrapped.game.guess_index["8+2=10"])
    assert terminated and reward == 1.0 and info["tiles"] == "GGGGGG" and info["answer"] == "2+8=10"
    plain = gym.make("guessgym/MiniNerdle-v1")
    plain.reset(options={"answer": "2+8=10"})
    assert not plain.step(plain.unwrapped.game.guess_index["8+2=10"])[2]


class FirstCandidate(CandidateAgent):
    name = "first-candidate"

    def choose(self, state):  # type: ignore[no-untyped-def]
        return int(state.game.answer_to_guess[state.candidates.indices[0]])


def reference_mean(game, commutative: bool) -> float:  # type: ignore[no-untyped-def]
    """First-candidate play with the rule spelled out on strings (no matrix, no engine)."""
    def pattern(x: str, y: str) -> int:
        if commutative and x != y and commutative_form(x) == commutative_form(y):
            return game.solved_pattern
        return score(x, y)

    total = 0
    for answer in game.answers:
        candidates = list(game.answers)
        for turn in range(1, 100):
            p = pattern(candidates[0], answer)
            if p == game.solved_pattern:
                total += turn
                break
            candidates = [c for c in candidates if pattern(candidates[0], c) == p]
    return total / len(game.answers)


@pytest.mark.parametrize("commutative", [False, True])
def test_candidate_play_matches_a_slow_reference(commutative: bool) -> None:
    game = nerdle(6, commutative=commutative)
    result = evaluate(FirstCandidate(), game, max_attempts=99)
    assert result.mean_guesses == pytest.approx(reference_mean(game, commutative))


def test_names_fingerprints_and_bad_combinations() -> None:
    game = make_game("guessgym/MiniNerdle-v1", commutative=True)
    assert game.name == "mini-nerdle-commutative" and game.fingerprint != nerdle(6).fingerprint
    assert len(game.commutative_wins) > 0 and nerdle(6).commutative_wins == {}
    with pytest.raises(ValueError, match="commutative answers are a Nerdle rule"):
        make_game("guessgym/Wordle-v1", commutative=True)
    with pytest.raises(TypeError, match="commutative must be a bool"):
        nerdle(6, commutative="yes")  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(candidates=st.lists(st.integers(0, 205), min_size=1, max_size=206, unique=True))
def test_bucket_statistics_count_a_winning_bucket_as_that_many_wins(candidates: list[int]) -> None:
    """Against a slow reference: buckets by pattern, except that every answer a guess wins against
    (itself or a rearrangement) is a bucket of its own."""
    from guessgym.envs.buckets import STAT_CLOGC, STAT_COUNT, STAT_MAX, STAT_SUMSQ, bucket_profile, bucket_stat
    from guessgym.envs.buckets import _clogc_table as clogc

    game = nerdle(6, commutative=True)
    matrix = PatternMatrix.for_game(game)
    cands = sorted(candidates)
    profile = bucket_profile(matrix, range(len(game.guesses)), cands)
    for guess in range(0, len(game.guesses), 7):
        sizes: dict[object, int] = {}
        for a in cands:
            p = game.score(game.guesses[guess], game.answers[a])
            key = ("won", a) if p == game.solved_pattern else p
            sizes[key] = sizes.get(key, 0) + 1
        b = list(sizes.values())
        expected = [len(b), max(b), sum(x * x for x in b), int(sum(clogc(len(cands))[x] for x in b))]
        assert profile[guess].tolist() == expected
    for stat, column in ((STAT_COUNT, 0), (STAT_MAX, 1), (STAT_SUMSQ, 2), (STAT_CLOGC, 3)):
        assert (bucket_stat(matrix, range(len(game.guesses)), cands, stat) == profile[:, column]).all()


def test_the_solve_command_writes_commutative_trees_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from guessgym.cli import main

    args = ["solve", "--env", "guessgym/MicroNerdle-v1", "--env-kwargs", "commutative=True", "--no-memo"]
    assert main([*args, "--out", str(tmp_path / "micro.txt")]) == 2
    assert "give a .json" in capsys.readouterr().err and not (tmp_path / "micro.txt").exists()
    assert main([*args, "--openers", "all", "--out", str(tmp_path / "micro.json")]) == 0
    assert "total 367" in capsys.readouterr().out  # 2.8898; 374 without the rule
    assert main(["tree", "verify", str(tmp_path / "micro.json"), "--env", "guessgym/MicroNerdle-v1",
                 "--env-kwargs", "commutative=True"]) == 0
