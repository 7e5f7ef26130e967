"""Scoring: the seeds' worked examples, and property tests against slow obvious references.

The two references are literal ports of the research documents:

* :func:`mark_attempt_reference`: the C# ``MarkAttempt`` of wordle_minimax_solver.txt (strike out
  greens in the target with ``.``, then for each attempt letter left to right look for an unused
  copy in the target). Its marker symbols collide with Nerdle's ``*`` and ``+``, so it is only used
  on letter strings.
* :func:`nerdle_eval_reference`: ``NERDLE_EVAL`` (Algorithm 5) of nerdle_min_average_report.txt,
  which works on any symbols.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guessgym.envs.equations import NERDLE_ALPHABET
from guessgym.envs.game import nerdle, wordle
from guessgym.envs.matrix import PatternMatrix
from guessgym.envs.scoring import (
    all_green,
    encode,
    list_to_pattern,
    marks_to_pattern,
    num_patterns,
    pattern_dtype,
    pattern_matrix,
    pattern_to_list,
    pattern_to_marks,
    pattern_to_tiles,
    score,
    tiles_to_pattern,
)

# ---- the references, ported literally -----------------------------------------------------------


def _set_char(word: str, n: int, new_char: str) -> str:
    return word[:n] + new_char + word[n + 1 :]


def mark_attempt_reference(attempt: str, target: str) -> str:
    """wordle_minimax_solver.txt ``MarkAttempt`` (C#), generalised from 5 to ``len(attempt)``."""

    def is_green(a: str, t: str, n: int) -> bool:
        return t[n] == a[n]

    def set_attempt_if_green(a: str, t: str, n: int) -> str:
        return _set_char(a, n, "*") if is_green(a, t, n) else a

    def set_target_if_green(a: str, t: str, n: int) -> str:
        return _set_char(t, n, ".") if is_green(a, t, n) else t

    def evaluate_greens(a: str, t: str) -> tuple[str, str]:
        for n in range(len(a)):  # Range(0, 5).Aggregate((attempt, target), ...)
            a, t = set_attempt_if_green(a, t, n), set_target_if_green(a, t, n)
        return a, t

    def is_yellow(a: str, t: str, n: int) -> bool:
        return a[n] in t

    def is_already_marked_green(a: str, n: int) -> bool:
        return a[n] == "*"

    def set_attempt_if_yellow(a: str, t: str, n: int) -> str:
        if is_already_marked_green(a, n):
            return a
        return _set_char(a, n, "+") if is_yellow(a, t, n) else _set_char(a, n, "_")

    def set_target_if_yellow(a: str, t: str, n: int) -> str:
        if is_already_marked_green(a, n):
            return t
        return _set_char(t, t.index(a[n]), ".") if is_yellow(a, t, n) else t

    def evaluate_yellows(a: str, t: str) -> tuple[str, str]:
        for n in range(len(a)):
            a, t = set_attempt_if_yellow(a, t, n), set_target_if_yellow(a, t, n)
        return a, t

    return evaluate_yellows(evaluate_greens(attempt, target)[0], evaluate_greens(attempt, target)[1])[0]


EM, WP, WC = "EM", "WP", "WC"


def nerdle_eval_reference(ans: str, guess_eq: str) -> list[tuple[str, str]]:
    """nerdle_min_average_report.txt Algorithm 5, ``NERDLE_EVAL(ans, guess_eq)``."""
    upd_guess: list[tuple[str, str]] = []
    ans_count: dict[str, int] = defaultdict(int)
    for c in ans:
        ans_count[c] += 1
    for i in range(len(guess_eq)):
        if guess_eq[i] == ans[i]:
            ans_count[guess_eq[i]] -= 1
    for i in range(len(guess_eq)):
        if guess_eq[i] == ans[i]:
            upd_guess.append((guess_eq[i], EM))
        elif ans_count[guess_eq[i]] == 0:
            upd_guess.append((guess_eq[i], WC))
        else:
            upd_guess.append((guess_eq[i], WP))
            ans_count[guess_eq[i]] -= 1
    return upd_guess


def hints_to_marks(hints: list[tuple[str, str]]) -> str:
    return "".join({EM: "*", WP: "+", WC: "_"}[h] for _, h in hints)


# ---- the worked examples of the seeds -----------------------------------------------------------


def test_nerdle_repeated_symbol_example_of_report_section_2_4() -> None:
    # Guess 11+11=22 against 32-21=11: the 1 in the right place is green; of the other three 1s
    # only two may be purple (the answer has three 1s, one already green), the two left-most.
    tiles = pattern_to_tiles(score("11+11=22", "32-21=11"), 8)
    ones = [i for i, c in enumerate("11+11=22") if c == "1"]
    assert [tiles[i] for i in ones] == ["Y", "Y", "B", "G"]
    assert tiles == "YYBBGGYY"


@pytest.mark.parametrize(
    ("guess", "answer", "tiles"),
    [
        # nerdle_min_average_report.txt section 2.5 walkthrough: '=' and '1' green, '4', '-', '6'
        # purple, '8', '2', '3' black; then 6*4-9=15 reveals 6 _ _ 9 = 1 _.
        ("48-36=12", "6-1+9=14", "YBYBYGGB"),
        ("6*4-9=15", "6-1+9=14", "GBYYGGGB"),
        ("6-1+9=14", "6-1+9=14", "GGGGGGGG"),
    ],
)
def test_nerdle_walkthrough_of_report_section_2_5(guess: str, answer: str, tiles: str) -> None:
    assert pattern_to_tiles(score(guess, answer), 8) == tiles
    assert hints_to_marks(nerdle_eval_reference(answer, guess)) == pattern_to_marks(score(guess, answer), 8)


# TestMarkAttempt of wordle_minimax_solver.txt (the first row reads "____" in the document, one
# underscore lost in extraction: five letters give five marks), plus the FLOOD/FOLLY narrative.
MARK_ATTEMPT_TABLE = [
    ("ABCDE", "XXXXX", "_____"),
    ("ABCDE", "BCDEA", "+++++"),
    ("ABCDE", "ABCDE", "*****"),
    ("SAINT", "LADLE", "_*___"),
    ("IDEAL", "LADLE", "_++++"),
    ("CABAL", "RECAP", "+__*_"),
    ("COLON", "GLORY", "_++__"),
    ("FLOOD", "FOLLY", "*++__"),
]


@pytest.mark.parametrize(("attempt", "target", "marks"), MARK_ATTEMPT_TABLE)
def test_mark_attempt_table(attempt: str, target: str, marks: str) -> None:
    pattern = score(attempt.lower(), target.lower())
    assert pattern_to_marks(pattern, 5) == marks
    assert marks_to_pattern(marks) == pattern
    # the references agree with the document too
    assert mark_attempt_reference(attempt, target) == marks
    assert hints_to_marks(nerdle_eval_reference(target, attempt)) == marks


def test_mark_attempt_table_through_the_real_word_list_matrix() -> None:
    game = wordle()
    matrix = PatternMatrix.for_game(game)
    for attempt, target, marks in MARK_ATTEMPT_TABLE:
        a, t = attempt.lower(), target.lower()
        if a in game.guess_index and t in game.answer_index:
            assert pattern_to_marks(matrix.pattern(game.guess_index[a], game.answer_index[t]), 5) == marks


def test_score_simple_cases() -> None:
    assert score("crane", "crane") == all_green(5)
    assert score("abcde", "fghij") == 0
    assert pattern_to_tiles(score("speed", "abide"), 5) == "BBYBY"  # the second e has no copy left
    assert pattern_to_tiles(score("eerie", "steer"), 5) == "YYYBB"


def test_score_rejects_different_lengths() -> None:
    with pytest.raises(ValueError, match="length 5.*length 4"):
        score("crane", "cran")


# ---- property tests against the references ------------------------------------------------------

LETTER_ALPHABETS = ["ab", "abc", "abcd", "abcdef", "abcdefghijklmnopqrstuvwxyz"]
NERDLE_ALPHABETS = ["1+", "12=", "01+*", "0123+-*/=", NERDLE_ALPHABET]


@st.composite
def same_length_pair(draw: st.DrawFn, alphabets: list[str]) -> tuple[str, str, str]:
    alphabet = draw(st.sampled_from(alphabets))
    length = draw(st.integers(3, 9))
    word = st.text(alphabet=alphabet, min_size=length, max_size=length)
    return alphabet, draw(word), draw(word)


@st.composite
def word_lists(draw: st.DrawFn, alphabets: list[str]) -> tuple[str, list[str], list[str]]:
    alphabet = draw(st.sampled_from(alphabets))
    length = draw(st.integers(3, 9))
    word = st.text(alphabet=alphabet, min_size=length, max_size=length)
    guesses = draw(st.lists(word, min_size=1, max_size=15))
    answers = draw(st.lists(word, min_size=1, max_size=15))
    return alphabet, guesses, answers


@given(same_length_pair(LETTER_ALPHABETS))
def test_score_matches_mark_attempt_reference(case: tuple[str, str, str]) -> None:
    _, guess, answer = case
    assert pattern_to_marks(score(guess, answer), len(guess)) == mark_attempt_reference(guess, answer)


@given(same_length_pair(LETTER_ALPHABETS + NERDLE_ALPHABETS))
def test_score_matches_nerdle_eval_reference(case: tuple[str, str, str]) -> None:
    _, guess, answer = case
    assert pattern_to_marks(score(guess, answer), len(guess)) == hints_to_marks(nerdle_eval_reference(answer, guess))


@given(same_length_pair(LETTER_ALPHABETS + NERDLE_ALPHABETS))
def test_feedback_counts_never_exceed_the_answer(case: tuple[str, str, str]) -> None:
    _, guess, answer = case
    tiles = pattern_to_list(score(guess, answer), len(guess))
    for symbol in set(guess):
        coloured = sum(1 for g, t in zip(guess, tiles) if g == symbol and t > 0)
        assert coloured == min(guess.count(symbol), answer.count(symbol))
    assert all((t == 2) == (g == a) for g, a, t in zip(guess, answer, tiles))


@settings(max_examples=100)
@given(word_lists(LETTER_ALPHABETS))
def test_pattern_matrix_matches_mark_attempt_reference(case: tuple[str, list[str], list[str]]) -> None:
    alphabet, guesses, answers = case
    matrix = pattern_matrix(encode(guesses, alphabet), encode(answers, alphabet), len(alphabet))
    length = len(guesses[0])
    assert matrix.shape == (len(guesses), len(answers))
    assert matrix.dtype == pattern_dtype(length)
    for i, g in enumerate(guesses):
        for j, a in enumerate(answers):
            assert marks_to_pattern(mark_attempt_reference(g, a)) == matrix[i, j]
    transposed = pattern_matrix(encode(guesses, alphabet), encode(answers, alphabet), len(alphabet), transposed=True)
    np.testing.assert_array_equal(transposed, matrix.T)


@settings(max_examples=100)
@given(word_lists(NERDLE_ALPHABETS))
def test_pattern_matrix_matches_nerdle_eval_reference(case: tuple[str, list[str], list[str]]) -> None:
    alphabet, guesses, answers = case
    matrix = pattern_matrix(encode(guesses, alphabet), encode(answers, alphabet), len(alphabet))
    for i, g in enumerate(guesses):
        for j, a in enumerate(answers):
            assert marks_to_pattern(hints_to_marks(nerdle_eval_reference(a, g))) == matrix[i, j]
    transposed = pattern_matrix(encode(guesses, alphabet), encode(answers, alphabet), len(alphabet), transposed=True)
    np.testing.assert_array_equal(transposed, matrix.T)


@pytest.mark.parametrize(
    "game_factory", [wordle, lambda: nerdle(7), lambda: nerdle(8)], ids=["wordle", "midi", "classic"]
)
def test_pattern_matrix_matches_score_on_real_lists(game_factory) -> None:
    game = game_factory()
    rng = np.random.default_rng(7)
    gi = rng.choice(len(game.guesses), size=40, replace=False)
    ai = rng.choice(len(game.answers), size=60, replace=False)
    matrix = pattern_matrix(game.guess_codes[gi], game.answer_codes[ai], game.n_symbols)
    expected = [[score(game.guesses[g], game.answers[a]) for a in ai] for g in gi]
    np.testing.assert_array_equal(matrix, np.array(expected))
    transposed = pattern_matrix(game.guess_codes[gi], game.answer_codes[ai], game.n_symbols, transposed=True)
    np.testing.assert_array_equal(transposed, np.array(expected).T)


def test_pattern_matrix_with_empty_sides_and_an_out_array() -> None:
    codes = encode(["abc", "bca"], "abc")
    assert pattern_matrix(codes[:0], codes, 3).shape == (0, 2)
    assert pattern_matrix(codes, codes[:0], 3).shape == (2, 0)
    out = np.full((2, 2), 99, dtype=np.uint8)
    result = pattern_matrix(codes, codes, 3, out=out)
    assert result is out
    assert out[0, 0] == all_green(3) and out[0, 1] == score("abc", "bca")


def test_pattern_matrix_rejects_bad_shapes() -> None:
    with pytest.raises(ValueError, match="length 3 but answers have length 4"):
        pattern_matrix(encode(["abc"], "abc"), encode(["abca"], "abc"), 3)
    with pytest.raises(ValueError, match="2-D"):
        pattern_matrix(np.zeros(3, dtype=np.uint8), np.zeros((1, 3), dtype=np.uint8), 3)


def test_encode_names_the_word_with_a_foreign_symbol() -> None:
    with pytest.raises(ValueError, match="'abz'"):
        encode(["abc", "abz"], "abc")
    np.testing.assert_array_equal(encode(["cab"], "abc"), [[2, 0, 1]])


# ---- pattern conversions ------------------------------------------------------------------------


@pytest.mark.parametrize("length", range(1, 7))
def test_every_pattern_round_trips_exhaustively(length: int) -> None:
    seen_tiles = set()
    for pattern in range(num_patterns(length)):
        tiles = pattern_to_tiles(pattern, length)
        marks = pattern_to_marks(pattern, length)
        as_list = pattern_to_list(pattern, length)
        digits = "".join(str(t) for t in as_list)
        assert len(tiles) == len(marks) == len(as_list) == length
        assert tiles_to_pattern(tiles) == pattern
        assert tiles_to_pattern(tiles.lower(), length) == pattern
        assert tiles_to_pattern(marks, length) == pattern
        assert tiles_to_pattern(digits, length) == pattern
        assert marks_to_pattern(marks) == pattern
        assert list_to_pattern(as_list) == pattern
        assert list_to_pattern(tuple(as_list)) == pattern
        assert pattern == sum(t * 3**i for i, t in enumerate(as_list))  # position i weighs 3**i
        seen_tiles.add(tiles)
    assert len(seen_tiles) == num_patterns(length)


@given(st.integers(1, 9).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, 3**n - 1))))
def test_patterns_round_trip(case: tuple[int, int]) -> None:
    length, pattern = case
    assert tiles_to_pattern(pattern_to_tiles(pattern, length), length) == pattern
    assert marks_to_pattern(pattern_to_marks(pattern, length)) == pattern
    assert list_to_pattern(pattern_to_list(pattern, length)) == pattern
    assert pattern_dtype(length).type(pattern) == pattern  # the dtype holds every pattern


@given(st.text(alphabet="GYBgyb*+_210Pp", min_size=1, max_size=9))
def test_tile_aliases_agree(text: str) -> None:
    canonical = text.upper().translate(str.maketrans("*+_210P", "GYBGYBY"))
    assert tiles_to_pattern(text) == tiles_to_pattern(canonical)
    assert pattern_to_tiles(tiles_to_pattern(text), len(text)) == canonical


def test_tiles_to_pattern_ignores_spaces_and_uses_first_position_as_lowest_digit() -> None:
    assert tiles_to_pattern("G B B B B") == 2
    assert tiles_to_pattern("BBBBG") == 2 * 3**4
    assert pattern_to_tiles(0, 5) == "BBBBB" and pattern_to_tiles(all_green(5), 5) == "GGGGG"


def test_tiles_to_pattern_errors_name_the_bad_character() -> None:
    with pytest.raises(ValueError, match=r"'Z' at position 3"):
        tiles_to_pattern("GGZGG")
    with pytest.raises(ValueError, match=r"'\?' at position 1"):
        tiles_to_pattern("?GGGG", 5)
    with pytest.raises(ValueError, match="has 4 tiles but the game has 5"):
        tiles_to_pattern("GGGG", 5)


def test_other_conversion_errors_name_the_bad_value() -> None:
    with pytest.raises(ValueError, match=r"'\?'"):
        marks_to_pattern("**?__")
    with pytest.raises(ValueError, match="tile 3 at position 1"):
        list_to_pattern([0, 3])
    with pytest.raises(ValueError, match="pattern 243 is outside 0..242"):
        pattern_to_list(243, 5)
    with pytest.raises(ValueError, match="pattern -1"):
        pattern_to_tiles(-1, 5)


def test_pattern_helpers() -> None:
    assert all_green(5) == list_to_pattern([2] * 5) == 242
    assert num_patterns(8) == 6561
    assert pattern_dtype(5) == np.uint8 and pattern_dtype(6) == np.uint16 and pattern_dtype(9) == np.uint16
