"""Least-worst (greedy minimax) and expected-size: the report's unit tests, tie rules, openers."""

from __future__ import annotations

import numpy as np
import pytest

from guessgym.agents.base import SolverState
from guessgym.baselines import make_baseline
from guessgym.baselines.common import guess_order
from guessgym.envs.buckets import betterof_fold, bucket_sizes, sum_of_squares, worst_bucket
from guessgym.envs.candidates import Candidates, HardModeRule
from guessgym.envs.env import GuessEnv
from guessgym.envs.game import wordle
from guessgym.envs.matrix import PatternMatrix
from guessgym.envs.scoring import marks_to_pattern, score

ATTEMPTS = ["aaaaa", "bbbbb", "ccccc", "ddddd", "eeeee", "edcba", "deabc"]


# ---- BetterOf (TestBetterOf of wordle_minimax_solver.txt) ---------------------------------------
@pytest.mark.parametrize(
    ("counts", "candidates", "expected"),
    [
        # Test(("A", 3), ("B", 2), [], "B"): strictly smaller count wins
        ([3, 2], [False, False], 1),
        # Test(("B", 2), ("A", 3), [], "B")
        ([2, 3], [False, False], 0),
        # Test(("B", 2), ("A", 2), [], "B"): equal, challenger not a candidate -> keep the first
        ([2, 2], [False, False], 0),
        # possAnswers = {B}: Test(("A", 2), ("B", 2)) -> "B" (equal and a candidate)
        ([2, 2], [False, True], 1),
        # possAnswers = {B, A}: Test(("A", 2), ("B", 2)) -> "B"; Test(("B", 2), ("A", 2)) -> "A"
        ([2, 2], [True, True], 1),
        # longer folds: the last candidate with the minimum, else the first minimum
        ([5, 1, 3, 1, 1], [True, False, True, True, False], 3),
        ([5, 1, 3, 1, 1], [True, False, True, False, False], 1),
    ],
)
def test_betterof_fold(counts: list[int], candidates: list[bool], expected: int) -> None:
    assert betterof_fold(np.array(counts), np.array(candidates)) == expected


def _fold_reference(counts: list[int], is_candidate: list[bool]) -> int:
    """The report's Aggregate(BetterOf) fold, literally."""
    best = 0
    for i in range(1, len(counts)):
        if counts[i] < counts[best] or (counts[i] == counts[best] and is_candidate[i]):
            best = i
    return best


def test_betterof_fold_matches_the_literal_fold_on_random_lists() -> None:
    rng = np.random.default_rng(7)
    for _ in range(500):
        n = int(rng.integers(1, 12))
        counts = rng.integers(1, 4, n)
        cands = rng.random(n) < 0.4
        assert betterof_fold(counts, cands) == _fold_reference(list(counts), list(cands))


# ---- TestBestAttempt of the report ---------------------------------------------------------------
def _report_case(answers: list[str]) -> tuple[str, list[int]]:
    """BestAttempt(possAnswers=answers, possAttempts=ATTEMPTS) with our engine.

    Our games need every answer to be a guess, so the game's guess list is ATTEMPTS plus the
    answers missing from it; the pool is exactly the report's attempt list, in its order.
    """
    guesses = ATTEMPTS + [a for a in answers if a not in ATTEMPTS]
    game = wordle(answers=answers, guesses=guesses)
    matrix = PatternMatrix.for_game(game, cache=False)
    pool = np.array([game.guess_index[w] for w in ATTEMPTS])
    cands = np.arange(len(answers))
    counts = worst_bucket(matrix, pool, cands)
    is_cand = np.array([w in answers for w in ATTEMPTS])
    return ATTEMPTS[betterof_fold(counts, is_cand)], list(counts)


def test_report_best_attempt_case_1() -> None:
    # answers ABCDE, ABBBB, EDCBA. Worst buckets by hand:
    #   AAAAA: G____ (ABCDE, ABBBB), ____G (EDCBA) -> 2
    #   BBBBB: _G___, _GGGG, ___G_ -> 1      CCCCC: __G__ twice, _____ -> 2
    #   DDDDD: ___G_, _____, _G___ -> 1      EEEEE: ____G, _____, G____ -> 1
    #   EDCBA: YYGYY, ___GY, GGGGG -> 1      DEABC: YYYYY, __YG_, YYYGY -> 1
    # The fold: BBBBB beats AAAAA (1 < 2); DDDDD and EEEEE tie but are not answers; EDCBA ties
    # and is an answer, so it replaces BBBBB; DEABC ties but is not an answer -> EDCBA.
    choice, counts = _report_case(["abcde", "abbbb", "edcba"])
    assert counts == [2, 1, 2, 1, 1, 1, 1]
    assert choice == "edcba"


def test_report_best_attempt_case_2() -> None:
    # answers ABCDE, ABBBB, BCDEA: AAAAA 2 (G____ twice); BBBBB, CCCCC, DDDDD, EEEEE, EDCBA 1;
    # DEABC gives YYYYY against both ABCDE and BCDEA -> 2. No attempt is an answer, so the first
    # word with count 1 stays: BBBBB.
    choice, counts = _report_case(["abcde", "abbbb", "bcdea"])
    assert counts == [2, 1, 1, 1, 1, 1, 2]
    assert choice == "bbbbb"


def test_report_case_1_through_the_agent() -> None:
    # With the whole guess list the pool is answers first: ABCDE, ABBBB, EDCBA, then the others.
    # ABCDE splits the three answers (GGGGG, GG___, YYGYY) -> 1; ABBBB (GG___, GGGGG, Y__G_) -> 1
    # and EDCBA -> 1 are answers too, so each replaces the previous: EDCBA, the last of them.
    answers = ["abcde", "abbbb", "edcba"]
    game = wordle(answers=answers, guesses=ATTEMPTS + ["abcde", "abbbb"])
    agent = make_baseline("least-worst")
    agent.begin(game)
    assert game.guesses[agent.propose()] == "edcba"
    # The generalised paper's rule: first minimum over the candidates in vocabulary order. Here
    # the vocabulary lists edcba (index 5) before abcde and abbbb, and all three score 1 -> EDCBA.
    paper = make_baseline("least-worst", pool="candidates", tie_break="first", order="game")
    paper.begin(game)
    assert game.guesses[paper.propose()] == "edcba"
    assert list(guess_order(game, "answers-first")[:3]) == [game.guess_index[w] for w in answers]


def test_report_mark_attempt_cases_agree_with_our_scoring() -> None:
    # TestMarkAttempt of the report (marks: * green, + yellow, _ grey).
    cases = [
        ("abcde", "xxxxx", "_____"),
        ("abcde", "bcdea", "+++++"),
        ("abcde", "abcde", "*****"),
        ("saint", "ladle", "_*___"),
        ("ideal", "ladle", "_++++"),
        ("cabal", "recap", "+__*_"),
        ("colon", "glory", "_++__"),
        ("flood", "folly", "*++__"),
    ]
    for attempt, target, marks in cases:
        assert score(attempt, target) == marks_to_pattern(marks), (attempt, target)


def test_expected_size_scores_the_sum_of_squares() -> None:
    # TestWordCountRemainingAfterAttempt of the report: prior ABCDE BCDEA CDEAB DEABC EABCD.
    prior = ["abcde", "bcdea", "cdeab", "deabc", "eabcd"]
    game = wordle(answers=prior, guesses=prior + ["aaaaa", "axxxx", "xxxxx"])
    m = PatternMatrix.for_game(game, cache=False)
    pool = np.array([game.guess_index[w] for w in ("aaaaa", "axxxx", "xxxxx")])
    cands = np.arange(5)
    assert list(worst_bucket(m, pool, cands)) == [1, 4, 5]  # the report's expected counts
    # AAAAA: five different greens -> 1+1+1+1+1; AXXXX: *____ once, +____ four times -> 1+16;
    # XXXXX: all grey -> 25
    assert list(sum_of_squares(m, pool, cands)) == [5, 17, 25]
    assert bucket_sizes(m, pool[1], cands) == {marks_to_pattern("*____"): 1, marks_to_pattern("+____"): 4}


def test_least_worst_opens_with_raise_on_nyt_wordle() -> None:
    game = wordle()
    agent = make_baseline("least-worst")
    agent.begin(game)
    assert game.guesses[agent.propose()] == "raise"
    # five words tie at 167; the fold keeps RAISE (the report: "leaves only 167")
    pool, counts = agent.scores(agent.state)
    best = np.flatnonzero(counts == counts.min())
    assert counts.min() == 167
    assert sorted(game.guesses[pool[i]] for i in best) == ["aesir", "arise", "raise", "reais", "serai"]
    # after RAISE all grey the report's solver plays BLUDY, whose worst case leaves 13
    agent.observe(game.guess_index["raise"], marks_to_pattern("_____"))
    choice = agent.propose()
    assert game.guesses[choice] == "bludy"
    assert worst_bucket(agent.matrix, np.array([choice]), agent.state.candidates.indices)[0] == 13


def test_expected_size_opens_with_roate_on_nyt_wordle() -> None:
    game = wordle()
    agent = make_baseline("expected-size")
    agent.begin(game)
    assert game.guesses[agent.propose()] == "roate"


def _state(game, history: list[tuple[str, str]]) -> SolverState:
    m = PatternMatrix.for_game(game)
    cands = Candidates.initial(game, m)
    hard = HardModeRule(game) if game.hard_mode else None
    for word, marks in history:
        g = game.guess_index[word]
        cands = cands.update(g, marks_to_pattern(marks))
        if hard is not None:
            hard.add(g, marks_to_pattern(marks))
    return SolverState(
        game, cands, len(history), [(game.guess_index[w], marks_to_pattern(k)) for w, k in history], hard
    )


def test_hard_mode_pools() -> None:
    game = wordle(hard_mode=True)
    state = _state(game, [("raise", "_+__*")])
    report = make_baseline("least-worst")
    report.begin(game)
    pool = report.candidate_pool(state)
    assert set(pool) == set(game.answer_to_guess[state.candidates.indices])
    legal = make_baseline("least-worst", hard_pool="all")
    legal.begin(game)
    pool_all = legal.candidate_pool(state)
    assert set(pool) < set(pool_all)
    assert all(state.hard.violation(g) is None for g in pool_all)
    # in the report's hard variant every challenger is a candidate: ties go to the last one
    pool, counts = report.scores(state)
    best = np.flatnonzero(counts == counts.min())
    assert report.choose(state) == pool[best[-1]]


def _play(agent, game, answer: int) -> tuple[int, bool]:
    env = GuessEnv(game=game)
    obs, info = env.reset(options={"answer": answer})
    agent.begin(game)
    done, steps, reward = False, 0, 0.0
    while not done:
        obs, reward, done, _, info = env.step(agent.act(obs, info))
        assert not info["invalid_action"], info["invalid_reason"]
        steps += 1
    return steps, reward > 0


def test_least_worst_reproduces_the_report_on_every_nyt_answer() -> None:
    game = wordle()
    agent = make_baseline("least-worst")
    results = [_play(agent, game, a) for a in range(len(game.answers))]
    assert all(won for _, won in results)
    steps = np.array([s for s, _ in results])
    # the report: 1 x1, 2.9% x2, 42.3% x3, 51.0% x4, 3.7% x5, mean 3.55
    assert list(np.bincount(steps)) == [0, 1, 67, 977, 1178, 86]
    assert steps.mean() == pytest.approx(3.5548, abs=1e-4)


# ---- most-buckets (no seed: the learned policies' starting rule) ------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_most_buckets_keeps_a_guess_with_the_most_distinct_patterns(seed: int) -> None:
    # Slow obvious reference: the set of score(guess, answer) strings over the candidates.
    full = wordle()
    rng = np.random.default_rng(seed)
    answers = sorted(rng.choice(full.answers, 60, replace=False).tolist())
    guesses = sorted(set(answers) | set(rng.choice(full.guesses, 200, replace=False).tolist()))
    game = wordle(answers=answers, guesses=guesses)
    agent = make_baseline("most-buckets")
    agent.begin(game)

    def assert_most_patterns(choice: int, candidates: list[str]) -> None:
        patterns = {g: len({score(g, a) for a in candidates}) for g in game.guesses}
        best = max(patterns.values())
        assert patterns[game.guesses[choice]] == best
        tied_candidates = [g for g in candidates if patterns[g] == best]
        if tied_candidates:  # BetterOf: a tied candidate wins over a tied non-candidate
            assert game.guesses[choice] in tied_candidates

    opener = agent.propose()
    assert_most_patterns(opener, answers)
    agent.observe(opener, score(game.guesses[opener], answers[0]))
    assert_most_patterns(agent.propose(), [game.answers[i] for i in agent.state.candidates.indices])


def test_most_buckets_opens_with_the_most_patterns_on_nyt_wordle() -> None:
    game = wordle()
    agent = make_baseline("most-buckets")
    agent.begin(game)
    m = PatternMatrix.for_game(game)
    counts = [len(np.unique(m.row(g))) for g in range(len(game.guesses))]
    assert len(np.unique(m.row(agent.propose()))) == max(counts)
