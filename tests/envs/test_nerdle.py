"""Nerdle: the equation generator against the reference lists and a brute force, and validation."""

from __future__ import annotations

import itertools
import re
from fractions import Fraction
from pathlib import Path

import pytest

from guessgym.envs.equations import NERDLE_ALPHABET, explain_invalid_equation, generate_equations, is_valid_equation
from guessgym.envs.game import nerdle

DATA_DIR = Path(__file__).resolve().parents[1] / "data"

#: (length, answers, equations with lone zeros allowed); measured, and for 6 and 8 the answer
#: counts are those of the reference lists.
COUNTS = [(5, 127, 184), (6, 206, 476), (7, 6661, 11857), (8, 17723, 67346)]


def _reference(name: str) -> set[str]:
    lines = (DATA_DIR / name).read_text(encoding="ascii").splitlines()
    return {line.strip() for line in lines if line.strip()}


def test_classic_answers_are_exactly_the_reference_list() -> None:
    generated = generate_equations(8)
    reference = _reference("reference_classic_17723.txt")
    assert len(reference) == 17723
    assert set(generated) == reference
    assert len(generated) == len(set(generated))


def test_mini_answers_are_exactly_the_reference_list() -> None:
    generated = generate_equations(6)
    reference = _reference("reference_mini_206.txt")
    assert len(reference) == 206
    assert set(generated) == reference
    assert len(generated) == len(set(generated))


@pytest.mark.parametrize(("length", "answers", "with_lone_zeros"), COUNTS)
def test_counts(length: int, answers: int, with_lone_zeros: int) -> None:
    assert len(generate_equations(length)) == answers
    assert len(generate_equations(length, allow_lone_zero=True)) == with_lone_zeros


@pytest.mark.parametrize("length", [5, 6, 7, 8])
def test_generated_equations_are_sorted_valid_and_well_formed(length: int) -> None:
    answers = generate_equations(length)
    assert list(answers) == sorted(set(answers))
    for eq in answers:
        assert len(eq) == length
        assert eq.count("=") == 1
        assert explain_invalid_equation(eq, allow_lone_zero=False) is None, eq
    everything = generate_equations(length, allow_lone_zero=True)
    assert set(answers) <= set(everything)
    lone_zero = re.compile(r"(^|[+\-*/])0([+\-*/=])")
    for eq in set(everything) - set(answers):
        assert lone_zero.search(eq), eq  # the extra equations are exactly those with a lone 0 operand
        assert is_valid_equation(eq) and not is_valid_equation(eq, allow_lone_zero=False)


def _brute_force(length: int, allow_lone_zero: bool) -> set[str]:
    """Every left side over digits and operators, checked by a regular expression and evaluated by
    Python on Fractions: slow and obvious."""
    number = r"(0|[1-9][0-9]*)" if allow_lone_zero else r"([1-9][0-9]*)"
    lhs_re = re.compile(rf"{number}([+\-*/]{number})+")
    found = set()
    for lhs_len in range(3, length - 1):
        rhs_len = length - 1 - lhs_len
        for chars in itertools.product("0123456789+-*/", repeat=lhs_len):
            lhs = "".join(chars)
            if not lhs_re.fullmatch(lhs):
                continue
            try:
                value = eval(re.sub(r"[0-9]+", lambda m: f"F({m.group()})", lhs), {"F": Fraction})
            except ZeroDivisionError:
                continue
            if value.denominator == 1 and value >= 0 and len(str(value.numerator)) == rhs_len:
                found.add(f"{lhs}={value.numerator}")
    return found


@pytest.mark.parametrize("length", [5, 6, 7])
@pytest.mark.parametrize("allow_lone_zero", [False, True])
def test_generator_matches_brute_force(length: int, allow_lone_zero: bool) -> None:
    assert set(generate_equations(length, allow_lone_zero)) == _brute_force(length, allow_lone_zero)


def test_generator_rejects_lengths_outside_5_to_8() -> None:
    for bad in (4, 9):
        with pytest.raises(ValueError, match=f"5 to 8, got {bad}"):
            generate_equations(bad)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1+2=4", "the left side equals 3 but the right side says 4"),
        ("2+3*4=20", "the left side equals 14 but the right side says 20"),  # precedence
        ("8-4-2=6", "the left side equals 2 but the right side says 6"),  # left to right
        ("12+3=015", "the right side '015' must be a non-negative whole number without leading zeros"),
        ("1+2=-3", "the right side '-3'"),
        ("1+2=", "the right side ''"),
        ("1++2=3", "no two operators in a row"),
        ("+12=12", "must start and end with a number"),
        ("12+3-=15", "must start and end with a number"),
        ("12=12", "needs at least one operator"),
        ("1+2=3=3", "exactly one '=', found 2"),
        ("1+2+3", "exactly one '=', found 0"),
        ("05+3=8", "the number '05' has a leading zero"),
        ("8/0=0", "division by zero"),
        ("1+a=2", "'a' is not a Nerdle symbol"),
        ("1x2=2", "'x' is not a Nerdle symbol"),
    ],
)
def test_explain_invalid_equation_messages(text: str, message: str) -> None:
    reason = explain_invalid_equation(text)
    assert reason is not None and message in reason
    assert not is_valid_equation(text)


@pytest.mark.parametrize("text", ["10-2*3=4", "5/2*4=10", "3-5+4=2", "8-4-2=2", "9/3/3=1", "6/4*2=3", "2*3=6", "1+2=3"])
def test_true_equations_are_valid(text: str) -> None:
    assert explain_invalid_equation(text) is None
    assert is_valid_equation(text, allow_lone_zero=False)


def test_lone_zero_opener_is_a_valid_guess_but_not_an_answer() -> None:
    assert is_valid_equation("0+12/3=4")
    reason = explain_invalid_equation("0+12/3=4", allow_lone_zero=False)
    assert reason is not None and "lone 0" in reason
    assert "0+12/3=4" not in generate_equations(8)
    assert "0+12/3=4" in generate_equations(8, allow_lone_zero=True)
    assert "1*0+3=3" in generate_equations(7, allow_lone_zero=True)
    assert "12-12=0" in generate_equations(7)  # a lone 0 on the right side is an answer


# ---- the Nerdle game factory ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("length", "name"), [(5, "micro-nerdle"), (6, "mini-nerdle"), (7, "midi-nerdle"), (8, "nerdle")]
)
def test_nerdle_games(length: int, name: str) -> None:
    game = nerdle(length)
    assert game.kind == "nerdle" and game.name == name and game.length == length
    assert game.alphabet == NERDLE_ALPHABET
    assert game.answers == generate_equations(length)
    assert game.guesses == game.answers  # default guess vocabulary: the answers
    assert game.max_attempts == 6 and not game.hard_mode


def test_nerdle_all_guesses_vocabulary() -> None:
    game = nerdle(8, guesses="all")
    assert len(game.guesses) == 67346 and len(game.answers) == 17723
    assert game.guess_is_answer.sum() == 17723
    assert game.explain_invalid_guess("0+12/3=4") is None
    assert nerdle(8).explain_invalid_guess("0+12/3=4") is not None
    assert "guess vocabulary" in nerdle(8).explain_invalid_guess("0+12/3=4")


def test_nerdle_custom_answers_and_guesses() -> None:
    game = nerdle(6, answers=["12/4=3", " 3 * 4 = 12 "])  # spaces are ignored
    assert game.answers == ("12/4=3", "3*4=12") and game.guesses == game.answers
    assert game.guess_vocabulary == "answers"
    game = nerdle(6, answers=["12/4=3"], guesses=["12/4=3", "0*12=0"])  # guesses may use lone zeros
    assert game.guesses == ("12/4=3", "0*12=0") and game.guess_vocabulary == "custom"
    game = nerdle(6, answers=["12/4=3"], guesses="all")
    assert len(game.guesses) == 476 and game.answers == ("12/4=3",)


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        (["12/4=3", "1+2=3"], r"answer entry 1 '1\+2=3' has length 5, expected 6"),
        (["12/4=3", "12/4=4"], r"answer entry 1 '12/4=4' is not a valid answer equation: the left side equals 3"),
        (["0*12=0"], r"answer entry 0 '0\*12=0' is not a valid answer equation: a lone 0"),
        (["12/4=3", "12/4=3"], r"answer entry 1 '12/4=3' is a duplicate"),
        (["12/4=a"], r"answer entry 0 '12/4=a' contains 'a'"),
    ],
)
def test_nerdle_custom_answers_are_validated(answers: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        nerdle(6, answers=answers)


def test_nerdle_custom_guesses_are_validated() -> None:
    with pytest.raises(ValueError, match=r"guess entry 1 '12/4=4' is not a valid equation"):
        nerdle(6, answers=["12/4=3"], guesses=["12/4=3", "12/4=4"])
    with pytest.raises(ValueError, match=r"answer entry 0 '12/4=3' is not in the guess list"):
        nerdle(6, answers=["12/4=3"], guesses=["18/3=6"])


def test_nerdle_factory_rejects_bad_lengths() -> None:
    with pytest.raises(ValueError, match="5 to 8, got 9"):
        nerdle(9)
