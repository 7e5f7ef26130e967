"""A straightforward port of the classic Nerdle answer generator of nerdle_min_average_report.txt.

Section 4, Algorithms 1 to 4 (GENERATE_VALID_EQUATIONS, GENERATE_EXPRESSIONS, EVALUATE,
HAS_LEADING_ZEROES and OPERATE), ported line for line so that ``benchmarks/bench_envs.py`` can time
the package's generator against it. Two places needed a reading of the pseudo-code:

* Algorithm 2 writes the operators as ``"- + / *"``; the spaces are typesetting, the characters
  are ``-+/*``.
* HAS_LEADING_ZEROES has no final ``return``; it falls through to ``None`` (false), as in Python.

What the literal port produces (measured, see the benchmark): EVALUATE handles at most two
operators, which is enough for length 8 (a left side of at most 6 characters holds at most 2), but
OPERATE divides with ``/`` (floats), so ``str(result)`` of any expression with a division ends in
``.0`` (or is a fraction such as ``2.5``). Equations whose left side divides are then either
dropped (``5/2*4=10.0`` is too long) or kept in a malformed form (``14/7=2.0``, ``10/4=2.5``), so
the literal port does not yield the 17,723 answers. ``exact_division=True`` applies the minimal
fix (exact division, integer results only) and then does yield them.

This module is a benchmark baseline, not part of the package; it is deliberately slow.
"""

from __future__ import annotations

from fractions import Fraction

DIGITS = "0123456789"
OPERATORS = "-+/*"
STARTING_CHARACTERS = DIGITS + OPERATORS

cache: dict[int, list[str]] = {}


def generate_expressions(length: int) -> list[str]:
    """Algorithm 2: every string of ``length`` digits and operators with no two operators in a
    row and ending with a digit (memoised in the module-level ``cache``)."""
    if length == 1:
        return [digit for digit in DIGITS]
    if length in cache:
        return cache[length]
    expressions = []
    sub_expressions = generate_expressions(length - 1)
    for start_char in STARTING_CHARACTERS:
        for sub_expr in sub_expressions:
            if start_char in OPERATORS and sub_expr[0] in OPERATORS:
                continue  # Rule out consecutive operators
            else:
                expr = start_char + sub_expr  # Combine starting character and sub-expression
            expressions.append(expr)
    cache[length] = expressions  # Cache the generated expression
    return cache[length]


def operate(a: float, b: float, operator: str, exact_division: bool = False) -> float:
    """Algorithm 4, OPERATE (``exact_division`` is the fix: a Fraction instead of a float)."""
    if operator == "*":
        return a * b
    elif operator == "+":
        return a + b
    elif operator == "-":
        return a - b
    elif operator == "/":
        return Fraction(a) / Fraction(b) if exact_division else a / b
    raise ValueError(f"unknown operator {operator!r}")


def evaluate(expression: str, exact_division: bool = False) -> float:
    """Algorithm 3: parse and compute an expression of at most two operators."""
    numbers: list[float] = []
    operators: list[str] = []
    current_number = 0  # Variable to store current number
    for char in expression:
        if char.isdigit():
            current_number = current_number * 10 + int(char)  # Construct number
        else:
            if current_number:
                numbers.append(current_number)
                current_number = 0
            operators.append(char)

    if current_number:
        numbers.append(current_number)  # Add last constructed number

    if len(operators) == 0:
        return numbers[0]  # No operators, return the only number

    if len(operators) == 1:
        return operate(numbers[0], numbers[1], operators[0], exact_division)  # Only one operator

    if operators[1] in "*/" and operators[0] in "+-":
        return operate(
            numbers[0], operate(numbers[1], numbers[2], operators[1], exact_division), operators[0], exact_division
        )
    else:
        return operate(
            operate(numbers[0], numbers[1], operators[0], exact_division), numbers[2], operators[1], exact_division
        )


def has_leading_zeroes(expression: str) -> bool | None:
    """Algorithm 4, HAS_LEADING_ZEROES (a leading zero or a lone zero after an operator)."""
    for idx, char in enumerate(expression):
        if idx == 0 and char == "0":
            return True
        elif char == "0" and expression[idx - 1] in ["+", "-", "/", "*", "="]:
            return True
    return None


def generate_valid_equations(exact_division: bool = False) -> list[str]:
    """Algorithm 1: every classic (8-character) equation.

    With ``exact_division=False`` (the literal port) divisions are float divisions and results are
    formatted with ``str``; with ``True`` a division is exact and only whole results are kept.
    """
    cache.clear()  # every call starts from scratch, like a fresh run of the report's program
    valid_equations = []
    for length in [4, 5, 6]:
        for expression in generate_expressions(length):
            if not expression[0].isdigit():
                continue  # Skip expressions starting with an operator

            if has_leading_zeroes(expression):
                continue  # Skip expressions having leading zeroes

            result = evaluate(expression, exact_division)
            if result < 0:
                continue  # Skip expressions with negative RHS

            if exact_division:
                if result != int(result):
                    continue
                result = int(result)
            formatted_expression = expression + "=" + str(result)
            if len(formatted_expression) == 8:  # Length of the string must be 8
                valid_equations.append(formatted_expression)
    return valid_equations
