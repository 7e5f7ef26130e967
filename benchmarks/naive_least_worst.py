"""The C# Wordle solver of wordle_minimax_solver.txt, ported function by function to Python.

Each function is the report's single-expression C# function of the same name (snake_case),
including its inefficiencies: ``MarkAttempt`` calls ``EvaluateGreens`` twice, words are rebuilt
with ``SetChar`` for every mark, ``BetterOf`` scans the list of possible answers with ``Contains``.
Only ``AsParallel()`` is left out (it would not make a fold order-deterministic anyway); the
timings in benchmarks/bench_solvers.py are single-threaded and say so.

Where the report's listings disagree (the commentary's ``MarkAttempt`` returns ``.target``), the
complete code listing is followed (``.attempt``). ``Range(0, 5)`` becomes ``range(len(attempt))``
so that the port also runs on other word lengths; for 5 letters it is the same.

This module is a benchmark baseline, not part of the package; it is deliberately slow.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import reduce


def is_green(attempt: str, target: str, n: int) -> bool:
    return target[n] == attempt[n]


def set_char(word: str, n: int, new_char: str) -> str:
    return word[:n] + new_char + word[n + 1 :]


def set_attempt_if_green(attempt: str, target: str, n: int) -> str:
    return set_char(attempt, n, "*") if is_green(attempt, target, n) else attempt


def set_target_if_green(attempt: str, target: str, n: int) -> str:
    return set_char(target, n, ".") if is_green(attempt, target, n) else target


def evaluate_greens(attempt: str, target: str) -> tuple[str, str]:
    return reduce(
        lambda a, n: (set_attempt_if_green(a[0], a[1], n), set_target_if_green(a[0], a[1], n)),
        range(len(attempt)),
        (attempt, target),
    )


def is_yellow(attempt: str, target: str, n: int) -> bool:
    return attempt[n] in target


def is_already_marked_green(attempt: str, n: int) -> bool:
    return attempt[n] == "*"


def set_attempt_if_yellow(attempt: str, target: str, n: int) -> str:
    if is_already_marked_green(attempt, n):
        return attempt
    return set_char(attempt, n, "+") if is_yellow(attempt, target, n) else set_char(attempt, n, "_")


def set_target_if_yellow(attempt: str, target: str, n: int) -> str:
    if is_already_marked_green(attempt, n):
        return target
    return set_char(target, target.index(attempt[n]), ".") if is_yellow(attempt, target, n) else target


def evaluate_yellows(attempt: str, target: str) -> tuple[str, str]:
    return reduce(
        lambda a, n: (set_attempt_if_yellow(a[0], a[1], n), set_target_if_yellow(a[0], a[1], n)),
        range(len(attempt)),
        (attempt, target),
    )


def mark_attempt(attempt: str, target: str) -> str:
    """The marks ``*`` (green), ``+`` (yellow), ``_`` (grey) of ``attempt`` against ``target``."""
    return evaluate_yellows(evaluate_greens(attempt, target)[0], evaluate_greens(attempt, target)[1])[0]


def possible_answers_after_attempt(prior: Iterable[str], attempt: str, mark: str) -> list[str]:
    return [w for w in prior if mark_attempt(attempt, w) == mark]


def _group_counts(possible_answers: Iterable[str], attempt: str) -> list[int]:
    """``possibleAnswers.GroupBy(w => MarkAttempt(attempt, w))`` as the list of group sizes."""
    groups: dict[str, int] = {}
    for w in possible_answers:
        mark = mark_attempt(attempt, w)
        groups[mark] = groups.get(mark, 0) + 1
    return list(groups.values())


def word_count_remaining_after_attempt(possible_answers: Iterable[str], attempt: str) -> int:
    """Variant 1 ("least worst"): the size of the largest group."""
    return max(_group_counts(possible_answers, attempt))


def word_count_expected_after_attempt(possible_answers: Iterable[str], attempt: str) -> int:
    """Variant 2 ("expected"): ``Sum(g.Count() * g.Count())``."""
    return sum(c * c for c in _group_counts(possible_answers, attempt))


def all_remaining_word_counts(
    poss_answers: list[str], poss_attempts: Iterable[str], count=word_count_remaining_after_attempt
) -> list[tuple[str, int]]:
    return [(w, count(poss_answers, w)) for w in poss_attempts]


def better_of(word1: tuple[str, int], word2: tuple[str, int], poss_answers: list[str]) -> tuple[str, int]:
    return word2 if (word2[1] < word1[1]) or (word2[1] == word1[1] and word2[0] in poss_answers) else word1


def best_attempt(
    poss_answers: list[str], poss_attempts: Iterable[str], count=word_count_remaining_after_attempt
) -> str:
    return reduce(
        lambda best_so_far, nxt: better_of(best_so_far, nxt, poss_answers),
        all_remaining_word_counts(poss_answers, poss_attempts, count),
    )[0]


def simulate(all_possible_answers: list[str], valid_words: list[str], target: str, first: str = "raise") -> int:
    """The report's exhaustive-test loop for one target (first attempt hard-coded): attempts used."""
    possible = all_possible_answers
    outcome = ""
    attempt = first
    count = 0
    solved = "*" * len(target)
    while outcome != solved:
        count += 1
        outcome = mark_attempt(attempt, target)
        possible = possible_answers_after_attempt(possible, attempt, outcome)
        attempt = best_attempt(possible, valid_words)
    return count
