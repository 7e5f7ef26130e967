"""Decision trees checked against the environment: record the tree an agent plays, and verify a tree.

:func:`record_tree` plays every answer once through the shared evaluation loop and keeps the paths
as a :class:`~guessgym.agents.decision_tree.DecisionTree`; :func:`verify_tree` replays every path of a tree
through a real env and reports each disagreement with the rules (:class:`TreeCheck`).

Examples:
    >>> import gymnasium as gym
    >>> from guessgym.agents.registry import make_agent
    >>> from guessgym.envs.game import nerdle
    >>> tree = record_tree(make_agent("least-worst"), nerdle(5))
    >>> check = verify_tree(tree, gym.make("guessgym/MicroNerdle-v1"))
    >>> check.ok, check.solved == check.answers == 127
    (True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..agents.base import Agent
from ..agents.decision_tree import DecisionTree, TreeNode
from ..envs.game import Game
from ..envs.scoring import pattern_to_tiles


def record_tree(agent: Agent, game: Game) -> DecisionTree:
    """The tree ``agent`` plays on ``game``: every answer played once through the evaluation loop.

    Raises:
        ValueError: the agent lost a game (a tree must reach every answer) or is not a tree (its
            choices depend on more than the tiles, e.g. a randomised agent).
    """
    from ..evaluation.evaluate import evaluate

    result = evaluate(agent, game, record_guesses=True, progress=False)
    lost = [r.answer for r in result.records if not r.solved]
    if lost:
        raise ValueError(f"{agent.name} does not solve {len(lost)} answers (e.g. {lost[0]!r}): no tree to record")
    return DecisionTree.from_paths(game, {r.answer: r.played or () for r in result.records})


@dataclass
class TreeCheck:
    """What :func:`verify_tree` found."""

    game: str
    answers: int
    solved: int
    total: int
    max_depth: int
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def mean(self) -> float:
        return self.total / self.solved if self.solved else float("nan")

    def report(self, limit: int = 20) -> str:
        head = (f"{self.game}: {self.solved} of {self.answers} answers solved, total {self.total}, "
                f"mean {self.mean:.4f}, max {self.max_depth}")
        if self.ok:
            return head + ": the tree is correct for this game"
        shown = self.problems[:limit]
        more = len(self.problems) - len(shown)
        return "\n".join([head, *(f"  {p}" for p in shown), *([f"  ... and {more} more"] if more else [])])


def verify_tree(tree: DecisionTree, env: Any) -> TreeCheck:
    """Replay every answer's path through ``env`` (a GuessEnv, possibly wrapped) and check it.

    Reports answers the tree does not reach, words that are not answers, guesses the environment
    rejects (hard mode), tiles that differ from the tree's, paths longer than the attempt limit,
    and disagreements with the tree (a path the tree would not play).
    """
    base = env.unwrapped
    game: Game = base.game
    problems: list[str] = []
    for answer in game.answers:
        if answer not in tree.paths:
            problems.append(f"{answer}: missing (no path of the tree ends with it)")
    for word in tree.paths:
        if word not in game.answer_index:
            problems.append(f"{word}: not an answer of {game.name}")
    total = solved = depth = 0
    for answer, path in tree.paths.items():
        if answer not in game.answer_index:
            continue
        env.reset(options={"answer": answer})
        node: TreeNode | None = tree.root
        for k, guess in enumerate(path):
            if node is None or node.guess != guess:
                problems.append(f"{answer}: guess {k + 1} {guess!r} is not what the tree plays there")
                break
            if guess not in game.guess_index:
                problems.append(f"{answer}: guess {k + 1} {guess!r} is not an allowed guess")
                break
            _, _, terminated, _, info = env.step(game.guess_index[guess])
            if info["invalid_action"]:
                problems.append(f"{answer}: guess {k + 1} {guess!r} is rejected: {info['invalid_reason']}")
                break
            expected = pattern_to_tiles(game.score(guess, answer), game.length)
            if info["tiles"] != expected:  # pragma: no cover - the environment and score() agree
                problems.append(f"{answer}: guess {k + 1} {guess!r} gave {info['tiles']}, the tree says {expected}")
                break
            if terminated:
                if info["tiles"] == "G" * game.length:
                    solved += 1
                    total += k + 1
                    depth = max(depth, k + 1)
                elif k + 1 < len(path):
                    problems.append(f"{answer}: the game ended after {k + 1} guesses (max_attempts "
                                    f"{game.max_attempts}); the tree needs {len(path)}")
                break
            node = node.children.get(info["tiles"])
    return TreeCheck(game.name, len(game.answers), solved, total, depth, problems)


__all__ = ["TreeCheck", "record_tree", "verify_tree"]
