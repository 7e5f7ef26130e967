"""The min-average solver of nerdle_min_average_report.txt, ported from its pseudo-code to Python.

Sections 5, 7.3 and 8: ``NERDLE_EVAL`` (Algorithm 5), the ``OptimizedGameStateManager``
(Algorithm 8), ``BUILD_TREE`` (Algorithm 9) and ``EXPECTIMIN`` (Algorithm 10), kept as close to
the listings as Python allows, so that benchmarks/bench_solvers.py can time the report's method
against :mod:`guessgym.baselines.min_average`. Readings that the pseudo-code forces:

* Algorithm 8 calls ``EvaluateGuess(guess_equations[-1], hidden_equation)`` (guess first);
  Algorithm 5 is ``NERDLE_EVAL(ans, guess_eq)`` (answer first). ``evaluate_guess`` adapts.
* ``clusters[tuple(feedback)].append(...)`` on an empty dict needs a default list.
* ``GET_POSSIBLE_FEEDBACKS`` reads ``equation_clusters_list`` and ``REVERT_EQUATION`` writes
  ``equations_clusters_versions``: typos for ``equation_clusters_versions``.
* Algorithm 10 line 22 assigns ``exp_value[1] <- self.expectimin(n[1])``; read as
  ``exp_value <- ...``.
* ``node.is_terminal()`` is not defined; a node is terminal when it has no children.

``build_tree`` takes one addition, ``roots``, which restricts the *top* user node to a subset of
equations so that a sample can be timed and the full search extrapolated; with ``roots=None`` it is
the report's procedure.

This module is a benchmark baseline, not part of the package; it is deliberately slow.
"""

from __future__ import annotations

from collections.abc import Sequence

EM, WP, WC = "EXACT_MATCH", "WRONG_POSITION", "WRONG_CHARACTER"
USER, COMPUTER = "USER", "COMPUTER"


def nerdle_eval(ans: str, guess_eq: str) -> list[tuple[str, str]]:
    """Algorithm 5: the hint of each character of ``guess_eq`` against ``ans``."""
    upd_guess = []
    ans_count: dict[str, int] = {}
    for c in ans:
        ans_count[c] = ans_count.get(c, 0) + 1
    for i in range(len(guess_eq)):
        if guess_eq[i] == ans[i]:
            ans_count[guess_eq[i]] = ans_count[guess_eq[i]] - 1
    for i in range(len(guess_eq)):
        if guess_eq[i] == ans[i]:
            upd_guess.append((guess_eq[i], EM))
        elif ans_count.get(guess_eq[i], 0) == 0:
            upd_guess.append((guess_eq[i], WC))
        else:
            upd_guess.append((guess_eq[i], WP))
            ans_count[guess_eq[i]] = ans_count[guess_eq[i]] - 1
    return upd_guess


def evaluate_guess(guess: str, hidden: str) -> list[tuple[str, str]]:
    return nerdle_eval(hidden, guess)


def get_feedback_from_guess(guess: list[tuple[str, str]]) -> list[str]:
    return [hint for _, hint in guess]


class OptimizedGameStateManager:
    """Algorithm 8."""

    def __init__(self, initial_equations: Sequence[str]) -> None:
        self.possible_equations_versions: list[list[str]] = [list(initial_equations)]
        self.guess_equations: list[str] = []
        self.feedbacks: list[list[str]] = []
        self.equation_clusters_versions: list[dict[tuple[str, ...], list[str]]] = []

    def get_possible_equations(self) -> list[str]:
        return self.possible_equations_versions[-1]

    def submit_equation(self, equation: str) -> None:
        self.guess_equations.append(equation)
        clusters: dict[tuple[str, ...], list[str]] = {}
        for hidden_equation in self.possible_equations_versions[-1]:
            guess = evaluate_guess(self.guess_equations[-1], hidden_equation)
            feedback = get_feedback_from_guess(guess)
            clusters.setdefault(tuple(feedback), []).append(hidden_equation)
        self.equation_clusters_versions.append(clusters)

    def revert_equation(self) -> None:
        self.guess_equations = self.guess_equations[:-1]
        self.equation_clusters_versions = self.equation_clusters_versions[:-1]

    def get_possible_feedbacks(self) -> list[list[str]]:
        return [list(feedback) for feedback in self.equation_clusters_versions[-1]]

    def get_reduce_equations_size(self, feedback: list[str]) -> int:
        return len(self.equation_clusters_versions[-1][tuple(feedback)])

    def submit_feedback(self, feedback: list[str]) -> None:
        self.feedbacks.append(feedback)
        self.possible_equations_versions.append(self.equation_clusters_versions[-1][tuple(feedback)])

    def revert_feedback(self) -> None:
        self.feedbacks = self.feedbacks[:-1]
        self.possible_equations_versions = self.possible_equations_versions[:-1]


class Node:
    def __init__(self, terminal_value: float | None, player_type: str) -> None:
        self.terminal_value = terminal_value
        self.player_type = player_type
        self.children: list[tuple[str | None, Node]] = []

    def is_terminal(self) -> bool:
        return not self.children


class MinAverageSolver:
    def __init__(self, game_state_manager: OptimizedGameStateManager) -> None:
        self.gameStateManager = game_state_manager

    def build_tree(self, node: Node, depth: int = 0, roots: Sequence[str] | None = None) -> None:
        """Algorithm 9 (``roots`` restricts the top user node, for sampling)."""
        if depth == 0:
            return
        elif depth % 2 == 1:
            current_possible_feedbacks = self.gameStateManager.get_possible_feedbacks()
            for f in current_possible_feedbacks:
                terminal_value = None
                if depth == 1:
                    reduced_equation_size = self.gameStateManager.get_reduce_equations_size(f)
                    terminal_value = reduced_equation_size
                child_node = Node(terminal_value, USER)
                node.children.append((None, child_node))
                if depth != 1:
                    self.gameStateManager.submit_feedback(f)
                    self.build_tree(child_node, depth - 1)
                    self.gameStateManager.revert_feedback()
        elif depth % 2 == 0:
            current_possible_equations = self.gameStateManager.get_possible_equations() if roots is None else roots
            for eq in current_possible_equations:
                child_node = Node(None, COMPUTER)
                node.children.append((eq, child_node))
                self.gameStateManager.submit_equation(eq)
                self.build_tree(child_node, depth - 1)
                self.gameStateManager.revert_equation()

    def expectimin(self, node: Node) -> tuple[str | None, float]:
        """Algorithm 10."""
        if node.is_terminal():
            return None, node.terminal_value
        elif node.player_type == USER:
            value = float("inf")
            eq = []
            for n in node.children:
                exp_value = self.expectimin(n[1])
                if exp_value[1] < value:
                    value = exp_value[1]
                    eq = n[0]
            return eq, value
        elif node.player_type == COMPUTER:
            value = 0
            num_children = len(node.children)
            if num_children != 0:
                nr = 0
                dr = 0
                for n in node.children:
                    exp_value = self.expectimin(n[1])
                    nr = nr + exp_value[1] * exp_value[1]
                    dr = dr + exp_value[1]
                value = nr / dr
            return None, value
        return None, float("nan")

    def best_guess(self, levels: int = 1, roots: Sequence[str] | None = None) -> tuple[str | None, float]:
        """Search ``levels`` user/computer levels (``BUILD_TREE(depth = 2 * levels)``)."""
        root = Node(None, USER)
        self.build_tree(root, 2 * levels, roots)
        return self.expectimin(root)
