"""Candidate filtering and the hard-mode rule, against the seeds' rules and obvious references."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guessgym.envs.candidates import Candidates, HardModeRule
from guessgym.envs.game import Game, nerdle, wordle
from guessgym.envs.matrix import PatternMatrix
from guessgym.envs.scoring import GREEN, YELLOW, marks_to_pattern, pattern_to_list, score

GAMES = {"wordle": wordle, "micro": lambda: nerdle(5), "mini": lambda: nerdle(6), "classic": lambda: nerdle(8)}
_game_cache: dict[str, Game] = {}


def get_game(name: str) -> Game:
    if name not in _game_cache:
        _game_cache[name] = GAMES[name]()
    return _game_cache[name]


# ---- references ---------------------------------------------------------------------------------

EM, WP, WC = 2, 1, 0


def algorithm6_filter(equations: list[str], guess: str, hints: list[int], symbols: str) -> list[str]:
    """nerdle_min_average_report.txt Algorithm 6 ("Computing Valid Equations"): remove every
    equation that breaks a positional constraint (EM here, not-EM not here) or a count constraint
    (no WC: at least as many copies as in the guess; some WC: exactly the EM+WP copies).

    The per-symbol counts of the guess are computed once instead of once per equation; the rules
    are those of the report, line for line."""
    g = list(zip(guess, hints))
    in_guess = {c: sum(1 for ci, _ in g if ci == c) for c in symbols}
    has_wc = {c: any(ci == c and hi == WC for ci, hi in g) for c in symbols}
    em_wp = {c: sum(1 for ci, hi in g if ci == c and hi in (EM, WP)) for c in symbols}
    to_remove = set()
    for equation in equations:
        for i, char in enumerate(equation):
            c_i, h_i = g[i]
            if h_i != EM and c_i == char:
                to_remove.add(equation)
                break
            elif h_i == EM and c_i != char:
                to_remove.add(equation)
                break
        counts = Counter(equation)
        for c in symbols:
            if not has_wc[c]:
                if counts[c] < in_guess[c]:
                    to_remove.add(equation)
                    break
            elif counts[c] != em_wp[c]:
                to_remove.add(equation)
                break
    return [q for q in equations if q not in to_remove]


def hard_mode_reference(game: Game, history: list[tuple[str, int]], guess: str) -> bool:
    """The real game's hard mode, written plainly: greens stay in place, and each earlier guess's
    revealed symbols (greens plus yellows) are used at least as often."""
    for played, pattern in history:
        tiles = pattern_to_list(pattern, game.length)
        if any(t == GREEN and guess[i] != played[i] for i, t in enumerate(tiles)):
            return False
        revealed = Counter(played[i] for i, t in enumerate(tiles) if t in (GREEN, YELLOW))
        if any(guess.count(symbol) < n for symbol, n in revealed.items()):
            return False
    return True


@st.composite
def histories(draw: st.DrawFn, game: Game, max_guesses: int = 4) -> tuple[int, list[int]]:
    answer = draw(st.integers(0, len(game.answers) - 1))
    guesses = draw(st.lists(st.integers(0, len(game.guesses) - 1), min_size=1, max_size=max_guesses))
    return answer, guesses


# ---- Candidates -------------------------------------------------------------------------------------


def _check_history(game: Game, answer: int, guesses: list[int]) -> None:
    candidates = Candidates.initial(game)
    by_score = list(game.answers)
    by_rules = list(game.answers)
    truth = game.answers[answer]
    for g in guesses:
        guess = game.guesses[g]
        pattern = score(guess, truth)
        before = candidates
        candidates = candidates.update(g, pattern)
        assert len(before) >= len(candidates)  # a new object; the old one is unchanged
        by_score = [w for w in by_score if score(guess, w) == pattern]
        by_rules = algorithm6_filter(by_rules, guess, pattern_to_list(pattern, game.length), game.alphabet)
        assert candidates.words() == by_score == by_rules
        assert answer in candidates.indices
    assert list(candidates.indices) == sorted(candidates.indices)


@pytest.mark.parametrize("name", ["wordle", "micro", "mini"])
@settings(max_examples=60)
@given(data=st.data())
def test_filtering_matches_report_rules_and_scoring(name: str, data: st.DataObject) -> None:
    game = get_game(name)
    answer, guesses = data.draw(histories(game))
    _check_history(game, answer, guesses)


@settings(max_examples=15)
@given(data=st.data())
def test_filtering_matches_report_rules_on_classic_nerdle(data: st.DataObject) -> None:
    game = get_game("classic")
    answer, guesses = data.draw(histories(game, max_guesses=3))
    _check_history(game, answer, guesses)


@pytest.mark.parametrize("name", ["wordle", "classic"])
def test_the_answer_always_stays_a_candidate_until_found(name: str) -> None:
    game = get_game(name)
    rng = np.random.default_rng(11)
    matrix = PatternMatrix.for_game(game)
    for _ in range(30):
        answer = int(rng.integers(len(game.answers)))
        candidates = Candidates.initial(game)
        for _ in range(6):
            # play a remaining candidate (the way a sensible agent plays) or any guess
            if rng.random() < 0.5:
                g = int(game.answer_to_guess[rng.choice(candidates.indices)])
            else:
                g = int(rng.integers(len(game.guesses)))
            pattern = matrix.pattern(g, answer)
            assert pattern in candidates.possible_patterns(g)
            candidates = candidates.update(g, pattern)
            assert answer in candidates.indices
            if pattern == game.solved_pattern:
                assert candidates.words() == [game.answers[answer]]
                break


def test_possible_answers_after_attempt_examples_of_wordle_minimax_solver(isolated_cache: Path) -> None:
    # TestPossibleAnswersAfterAttempt and TestWordCountRemainingAfterAttempt of the document (its
    # third mark lost two characters in extraction: AXXBX against these words scores "+__+_").
    prior = ["abcde", "bcdea", "cdeab", "deabc", "eabcd"]
    game = wordle(answers=prior, guesses=prior + ["aaaaa", "axxxx", "axxbx", "xxxxx"])
    start = Candidates.initial(game)
    gi = game.guess_index
    assert start.update(gi["aaaaa"], marks_to_pattern("*____")).words() == ["abcde"]
    assert start.update(gi["axxxx"], marks_to_pattern("+____")).words() == ["bcdea", "cdeab", "deabc", "eabcd"]
    assert start.update(gi["axxbx"], marks_to_pattern("+__+_")).words() == ["bcdea", "cdeab", "eabcd"]

    def worst_case(word: str) -> int:
        row = PatternMatrix.for_game(game).row(gi[word])
        return max(np.bincount(row[start.indices]))

    assert (worst_case("aaaaa"), worst_case("axxxx"), worst_case("xxxxx")) == (1, 4, 5)


def test_candidates_helpers() -> None:
    game = get_game("mini")
    start = Candidates.initial(game)
    assert len(start) == 206 and start.indices.dtype == np.int64
    g = game.guess_index["12/4=3"]
    after = start.update(g, score("12/4=3", "3*4=12"))
    assert "3*4=12" in after.words() and len(after) < 206
    assert start.key() != after.key() and after.key() == start.update(g, score("12/4=3", "3*4=12")).key()
    patterns = start.possible_patterns(g)
    assert len(set(patterns)) == len(patterns)
    assert sum(len(start.update(g, int(p))) for p in patterns) == 206  # the patterns partition the set
    # each set holds only its own indices, not a view of its parent's (a tree walk keeps thousands alive)
    assert after.indices.base is None or after.indices.base.size == len(after)


# ---- HardModeRule ---------------------------------------------------------------------------------


def _random_history(game: Game, rng: np.random.Generator, steps: int) -> tuple[int, list[tuple[int, int]]]:
    answer = int(rng.integers(len(game.answers)))
    rule = HardModeRule(game)
    history = []
    for _ in range(steps):
        legal = np.flatnonzero(rule.legal_mask())
        g = int(rng.choice(legal))
        pattern = score(game.guesses[g], game.answers[answer])
        if pattern == game.solved_pattern:
            break
        rule.add(g, pattern)
        history.append((g, pattern))
    return answer, history


@pytest.mark.parametrize("name", ["wordle", "mini", "classic"])
def test_hard_mode_mask_and_violation_follow_the_real_rule(name: str) -> None:
    game = get_game(name).replace(hard_mode=True)
    rng = np.random.default_rng(5)
    for steps in (1, 2, 3):
        answer, history = _random_history(game, rng, steps)
        rule = HardModeRule(game)
        for g, p in history:
            rule.add(g, p)
        mask = rule.legal_mask()
        violations = [rule.violation(i) for i in range(len(game.guesses))]
        assert [v is None for v in violations] == mask.tolist()
        played = [(game.guesses[g], p) for g, p in history]
        expected = [hard_mode_reference(game, played, w) for w in game.guesses]
        assert mask.tolist() == expected
        assert mask[game.answer_to_guess[answer]]  # the answer itself is always legal
        # every answer still consistent with the tiles is legal too
        candidates = Candidates.initial(game)
        for g, p in history:
            candidates = candidates.update(g, p)
        assert mask[game.answer_to_guess[candidates.indices]].all()


def test_hard_mode_messages_and_grey_letters() -> None:
    game = wordle(hard_mode=True)
    rule = HardModeRule(game)
    assert not rule.active and rule.legal_mask().all()
    gi = game.guess_index
    rule.add(gi["raise"], score("raise", "shire"))  # r, s yellow; i, e green; a grey
    assert rule.active
    assert rule.violation(gi["shire"]) is None
    assert rule.violation(gi["moult"]) == "position 3 must be 'i' (green earlier)"
    assert rule.violation(gi["shine"]) == "the guess must contain 'r' at least once (revealed earlier)"
    assert rule.violation(gi["arise"]) is None  # greys impose nothing, yellows may stay in place
    copy = rule.copy()
    rule.add(gi["shire"], score("shire", "shire"))
    assert copy.violation(gi["arise"]) is None and rule.violation(gi["arise"]) is not None


def test_hard_mode_counts_repeated_symbols() -> None:
    game = wordle(answers=["llama", "label"], guesses=["llama", "label", "lolly", "lower", "allow"], hard_mode=True)
    rule = HardModeRule(game)
    gi = game.guess_index
    rule.add(gi["lolly"], score("lolly", "label"))  # l green, second l yellow: two l's revealed
    assert rule.violation(gi["lower"]) == "the guess must contain 'l' at least 2 times (revealed earlier)"
    assert rule.violation(gi["llama"]) is None and rule.violation(gi["label"]) is None


def test_all_grey_feedback_keeps_everything_legal() -> None:
    game = wordle(hard_mode=True)
    rule = HardModeRule(game)
    rule.add(game.guess_index["fuzzy"], score("fuzzy", "crane"))
    assert not rule.active and rule.legal_mask().all()
