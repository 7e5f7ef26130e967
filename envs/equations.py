"""Nerdle equations: generating every answer from the rules, and validating a typed guess.

The rules (checked against the reference lists in shared/data/nerdle, which they reproduce
exactly):

* one ``=``; the right side is a non-negative integer without leading zeros (``0`` itself allowed);
* the left side is two or more non-negative integers without leading zeros joined by ``+ - * /``
  with no two operators adjacent; in an *answer* no operand is a lone ``0``;
* usual precedence (``*`` and ``/`` before ``+`` and ``-``, left to right within a level), exact
  rational arithmetic, so ``5/2*4=10`` is true; division by zero is never true.

Generation is vectorised: for every split of the left side into numbers and every operator
sequence, all operand values are enumerated at once as numpy arrays and evaluated exactly as
integer fractions, so the 17,723 classic answers come out in a few tens of milliseconds instead of
the 13.5 s of Jain et al. 2024 section 9.1.

Examples:
    >>> len(generate_equations(6))
    206
    >>> is_valid_equation("0+12/3=4"), is_valid_equation("0+12/3=4", allow_lone_zero=False)
    (True, False)
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import lru_cache

import numpy as np

NERDLE_ALPHABET = "0123456789+-*/="
OPERATORS = "+-*/"
MIN_LENGTH, MAX_LENGTH = 5, 8


def _compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    """All ways to write ``total`` as an ordered sum of ``parts`` positive integers."""
    if parts == 1:
        return [(total,)]
    out: list[tuple[int, ...]] = []
    for first in range(1, total - parts + 2):
        out.extend((first, *rest) for rest in _compositions(total - first, parts - 1))
    return out


def _operand_values(digits: int, allow_lone_zero: bool) -> np.ndarray:
    low = 0 if (digits == 1 and allow_lone_zero) else (1 if digits == 1 else 10 ** (digits - 1))
    return np.arange(low, 10**digits, dtype=np.int64)


def _evaluate(values: list[np.ndarray], ops: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Exact value of ``v0 op0 v1 op1 ...`` as (numerator, denominator) arrays; denominator 0 marks
    a division by zero."""
    sum_num = np.zeros_like(values[0])
    sum_den = np.ones_like(values[0])
    term_num, term_den = values[0].copy(), np.ones_like(values[0])
    sign = 1
    for op, v in zip(ops, values[1:]):
        if op == "*":
            term_num = term_num * v
        elif op == "/":
            term_den = term_den * v
        else:
            sum_num = sum_num * term_den + sign * term_num * sum_den
            sum_den = sum_den * term_den
            sign = 1 if op == "+" else -1
            term_num, term_den = v.copy(), np.ones_like(v)
    sum_num = sum_num * term_den + sign * term_num * sum_den
    sum_den = sum_den * term_den
    return sum_num, sum_den


@lru_cache(maxsize=16)
def generate_equations(length: int = 8, allow_lone_zero: bool = False) -> tuple[str, ...]:
    """Every true equation of ``length`` characters, sorted.

    With ``allow_lone_zero=False`` (the default) these are the game's possible answers: 17,723
    for classic (8), 206 for Mini (6). With ``allow_lone_zero=True`` operands may be a lone ``0``
    (as in the opener ``0+12/3=4``): the larger vocabulary of equations the game accepts as guesses.

    Raises:
        ValueError: if ``length`` is outside 5..8.
    """
    if not MIN_LENGTH <= length <= MAX_LENGTH:
        raise ValueError(f"Nerdle length must be {MIN_LENGTH} to {MAX_LENGTH}, got {length}")
    found: list[str] = []
    for rhs_digits in range(1, length - 4 + 1):
        lhs_len = length - 1 - rhs_digits
        rhs_low = 0 if rhs_digits == 1 else 10 ** (rhs_digits - 1)
        rhs_high = 10**rhs_digits - 1
        for n_numbers in range(2, (lhs_len + 1) // 2 + 1):
            digit_total = lhs_len - (n_numbers - 1)
            for split in _compositions(digit_total, n_numbers):
                axes = [_operand_values(d, allow_lone_zero) for d in split]
                grids = np.meshgrid(*axes, indexing="ij")
                values = [g.ravel() for g in grids]
                for ops in itertools.product(OPERATORS, repeat=n_numbers - 1):
                    num, den = _evaluate(values, ops)
                    ok = den != 0
                    safe_den = np.where(ok, den, 1)
                    ok &= num % safe_den == 0
                    result = num // safe_den
                    ok &= (result >= rhs_low) & (result <= rhs_high)
                    for idx in np.flatnonzero(ok):
                        parts = [str(int(v[idx])) for v in values]
                        lhs = parts[0] + "".join(o + p for o, p in zip(ops, parts[1:]))
                        found.append(f"{lhs}={int(result[idx])}")
    return tuple(sorted(found))


def _parse_number(token: str, allow_lone_zero: bool) -> int | None:
    if not token.isdigit():
        return None
    if len(token) > 1 and token[0] == "0":
        return None
    if token == "0" and not allow_lone_zero:
        return None
    return int(token)


def explain_invalid_equation(text: str, allow_lone_zero: bool = True) -> str | None:
    """Why ``text`` is not a valid true equation, or ``None`` if it is one.

    The checks follow the game: allowed symbols, exactly one ``=``, a plain non-negative integer
    on the right, numbers without leading zeros joined by single operators on the left, and the
    two sides equal under exact arithmetic with the usual precedence.
    """
    bad = [c for c in text if c not in NERDLE_ALPHABET]
    if bad:
        return f"{bad[0]!r} is not a Nerdle symbol (allowed: {NERDLE_ALPHABET})"
    if text.count("=") != 1:
        return f"an equation needs exactly one '=', found {text.count('=')}"
    lhs, rhs = text.split("=")
    rhs_value = _parse_number(rhs, allow_lone_zero=True)
    if rhs_value is None:
        return f"the right side {rhs!r} must be a non-negative whole number without leading zeros"
    tokens: list[str] = []
    current = ""
    for ch in lhs:
        if ch in OPERATORS:
            tokens.extend([current, ch])
            current = ""
        else:
            current += ch
    tokens.append(current)
    numbers = tokens[0::2]
    ops = tokens[1::2]
    if not ops:
        return "the left side needs at least one operator (+ - * /)"
    for number in numbers:
        if number == "":
            return "the left side must start and end with a number and have no two operators in a row"
        if _parse_number(number, allow_lone_zero) is None:
            if number == "0":
                return "a lone 0 is not allowed on the left side of an answer"
            return f"the number {number!r} has a leading zero"
    value = Fraction(int(numbers[0]))
    total = Fraction(0)
    sign = 1
    for op, number in zip(ops, numbers[1:]):
        n = int(number)
        if op == "*":
            value *= n
        elif op == "/":
            if n == 0:
                return "division by zero"
            value /= n
        else:
            total += sign * value
            sign = 1 if op == "+" else -1
            value = Fraction(n)
    total += sign * value
    if total != rhs_value:
        return f"the left side equals {total} but the right side says {rhs_value}"
    return None


def commutative_form(equation: str) -> str:
    """A canonical spelling under the commutative-answers rule: two equations are rearrangements
    of each other exactly when their forms are equal.

    The rule: the left side is a sum of signed terms (split at ``+`` and ``-``, the first term
    positive), and the terms may be put in any order, each keeping its sign; within a term whose
    only operator is ``*``, the factors may be put in any order. A term with a ``/`` is kept as
    written (division does not commute), and the right side is kept. So ``10+20=30`` and
    ``20+10=30``, ``3*4-2=10`` and ``4*3-2=10``, ``9-2+3=10`` and ``3+9-2=10`` are rearrangements;
    ``8/4*2=4`` and ``2*8/4=4`` are not (a term with a division), nor ``9-2=7`` and ``2-9=7``.

    Examples:
        >>> commutative_form("20+10=30") == commutative_form("10+20=30")
        True
        >>> commutative_form("3*4-2=10") == commutative_form("4*3-2=10") != commutative_form("2-4*3=10")
        True
    """
    lhs, _, rhs = equation.partition("=")
    terms: list[str] = []
    sign, current = "+", ""
    for ch in lhs:
        if ch in "+-":
            terms.append(sign + current)
            sign, current = ch, ""
        else:
            current += ch
    terms.append(sign + current)
    canonical = [t if "/" in t else t[0] + "*".join(sorted(t[1:].split("*"))) for t in terms]
    return "".join(sorted(canonical)) + "=" + rhs


def is_valid_equation(text: str, allow_lone_zero: bool = True) -> bool:
    """Whether ``text`` is a syntactically valid, arithmetically true equation."""
    return explain_invalid_equation(text, allow_lone_zero) is None
