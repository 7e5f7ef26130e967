"""Decision trees as data: produce, save, load, check and play them.

A decision tree says which guess to play after every possible history of tiles. Any agent
produces one by playing every answer (:func:`guessgym.evaluation.tree_checks.record_tree`); the exact
solver produces them by search. Trees are saved as JSON or in the plain-text format of the
published optimal Wordle trees, one line per answer::

    salet BBBBB1 courd BBGBB2 nymph GGGGG3
          BBYBB1 ...

Each token pair is a guess and its tiles followed by the guess number; the last pair is the answer
with all-green tiles. A line that starts with spaces repeats the previous line up to the column of
its first character. :func:`guessgym.evaluation.tree_checks.verify_tree` replays a tree through the
environment and reports every disagreement with the rules; :class:`TreeAgent` (registered as
``tree``) plays a tree file through the shared evaluation loop.

Examples:
    >>> from guessgym.envs.game import wordle
    >>> game = wordle(answers=["crane", "crate", "slate"])
    >>> tree = DecisionTree.from_paths(game, {"crane": ["crate", "crane"], "crate": ["crate"],
    ...                                       "slate": ["crate", "slate"]})
    >>> print(tree.to_text(game), end="")
    crate GGGGG1
          BBGGG1 slate GGGGG2
          GGGBG1 crane GGGGG2
    >>> tree.total, DecisionTree.from_text(game, tree.to_text(game)).paths == tree.paths
    (5, True)
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.game import Game
from ..envs.scoring import pattern_to_tiles
from ..infra.atomic import atomic_write_bytes, atomic_write_text
from ..infra.inputs import gunzip, read_input
from .base import Agent, UnsupportedGameError
from .registry import register

#: Format number of the JSON file.
TREE_FORMAT = 1


class TreeMismatch(ValueError):
    """A tree file that reads as a tree but is wrong for the game: tiles that the rules do not give,
    words that are not its answers or guesses, paths that disagree. (A file that is not a tree at
    all raises a plain ``ValueError``.)"""

_PAIR = re.compile(r"^([A-Z]+)(\d+)$")


def _split(game: Game, guess: str, answers: Iterable[str]) -> dict[str, list[str]]:
    """The answers ``guess`` does not win grouped by the tiles it shows against them."""
    groups: dict[str, list[str]] = {}
    for answer in answers:
        pattern = game.score(guess, answer)
        if pattern != game.solved_pattern:
            groups.setdefault(pattern_to_tiles(pattern, len(answer)), []).append(answer)
    return groups


def _wins(game: Game, guess: str, answer: str) -> bool:
    """Whether ``guess`` wins against ``answer``: it is the answer or, with Nerdle's commutative
    rule, a rearrangement of it."""
    return guess == answer or game.score(guess, answer) == game.solved_pattern


@dataclass
class TreeNode:
    """The guess to play at one point of the game, and the subtree after each tile string."""

    guess: str
    children: dict[str, TreeNode] = field(default_factory=dict)

    def count(self) -> int:
        return 1 + sum(child.count() for child in self.children.values())


@dataclass
class DecisionTree:
    """A complete strategy for a game: the guesses played for each answer, consistent as a tree.

    Attributes:
        root: the first guess and what follows.
        paths: for each answer the guesses played, ending with the answer (or, with Nerdle's
            commutative rule, with a rearrangement of it that wins).
    """

    root: TreeNode
    paths: dict[str, tuple[str, ...]]

    # ---- building -------------------------------------------------------------------------------
    @classmethod
    def from_paths(cls, game: Game, paths: Mapping[str, Iterable[str]]) -> DecisionTree:
        """The tree that plays ``paths[answer]`` against each answer (tiles computed by the rules).

        Raises:
            ValueError: an empty path, a path that does not end with a guess winning its answer, or
                two paths that play different guesses after the same history (not a tree).
        """
        normalised = {game.normalize_guess(a): tuple(game.normalize_guess(g) for g in p) for a, p in paths.items()}
        root: TreeNode | None = None
        for answer, path in normalised.items():
            if not path or not _wins(game, path[-1], answer):
                raise TreeMismatch(f"the path of {answer!r} must end with the answer: {' '.join(path) or '(empty)'}")
            if root is None:
                root = TreeNode(path[0])
            node, history = root, list[str]()
            for k, guess in enumerate(path):
                if node.guess != guess:
                    raise TreeMismatch(
                        f"the paths disagree: after {' '.join(history) or 'the start'} the tree plays both "
                        f"{node.guess!r} and {guess!r}"
                    )
                tiles = pattern_to_tiles(game.score(guess, answer), game.length)
                history.append(f"{guess} {tiles}")
                if k + 1 < len(path):
                    node = node.children.setdefault(tiles, TreeNode(path[k + 1]))
        if root is None:
            raise ValueError("a tree needs at least one answer")
        return cls(root, normalised)

    # ---- walking --------------------------------------------------------------------------------
    def node_after(self, game: Game, history: Iterable[tuple[int, int]]) -> TreeNode | None:
        """The node reached after ``history`` (``(guess index, pattern)`` of each valid guess, as
        the environment and :class:`~guessgym.agents.base.SolverState` keep it), or ``None`` when
        the history leaves the tree. The one walker of a tree: every player of trees uses it."""
        node: TreeNode | None = self.root
        for guess, pattern in history:
            if node is None or game.guess_index[node.guess] != guess:
                return None
            node = node.children.get(pattern_to_tiles(int(pattern), game.length))
        return node

    # ---- statistics -----------------------------------------------------------------------------
    @property
    def total(self) -> int:
        """Guesses over all answers (the figure optimal trees minimise)."""
        return sum(len(p) for p in self.paths.values())

    @property
    def mean(self) -> float:
        return self.total / len(self.paths)

    @property
    def max_depth(self) -> int:
        return max(len(p) for p in self.paths.values())

    # ---- the text format ------------------------------------------------------------------------
    def to_text(self, game: Game) -> str:
        """One line per answer in depth-first order; shared prefixes written as spaces.

        Raises:
            ValueError: a path won by a rearrangement of its answer (Nerdle's commutative rule):
                the text format names each answer by its last guess; save such a tree as JSON.
        """
        rearranged = [a for a, p in self.paths.items() if p[-1] != a]
        if rearranged:
            raise ValueError(f"the text format names each answer by its last guess, but {rearranged[0]!r} is won by "
                             f"{self.paths[rearranged[0]][-1]!r} (commutative rule): save the tree as .json")
        lines: list[str] = []
        previous: list[str] = []
        for answer in self._dfs_answers(game):
            path = self.paths[answer]
            tokens: list[str] = []
            for k, guess in enumerate(path):
                tokens += [guess, f"{pattern_to_tiles(game.score(guess, answer), game.length)}{k + 1}"]
            same = 0
            while same < min(len(tokens), len(previous)) - 1 and tokens[same] == previous[same]:
                same += 1
            shared = len(" ".join(tokens[:same])) + 1 if same else 0
            lines.append(" " * shared + " ".join(tokens[same:]))
            previous = tokens
        return "\n".join(lines) + "\n"

    def _dfs_answers(self, game: Game) -> list[str]:
        order: list[str] = []

        def walk(node: TreeNode, answers: list[str]) -> None:
            order.extend(a for a in answers if _wins(game, node.guess, a))
            groups = _split(game, node.guess, answers)
            for tiles in sorted(groups):
                walk(node.children[tiles], groups[tiles])

        walk(self.root, list(self.paths))
        return order

    @classmethod
    def from_text(cls, game: Game, text: str, source: str = "tree") -> DecisionTree:
        """Parse the text format.

        Raises:
            ValueError: naming the line (and ``source``) of a malformed token, a word outside the
                game, tiles that disagree with the rules, or a line that does not end all green.
        """
        paths: dict[str, tuple[str, ...]] = {}
        previous = ""
        for number, raw in enumerate(text.splitlines(), start=1):
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            indent = len(raw) - len(raw.lstrip(" "))
            if indent > len(previous):
                raise ValueError(f"{source} line {number}: indented past the end of the previous line")
            line = previous[:indent] + raw[indent:]
            previous = line
            tokens = line.split()
            if len(tokens) % 2:
                raise ValueError(f"{source} line {number}: expected pairs 'guess TILESn', got {len(tokens)} tokens")
            path: list[str] = []
            for k in range(0, len(tokens), 2):
                word, mark = tokens[k], tokens[k + 1]
                match = _PAIR.match(mark.upper())
                where = f"{source} line {number}, pair {k // 2 + 1}"
                if match is None or int(match.group(2)) != k // 2 + 1:
                    raise ValueError(f"{where}: {mark!r} is not the tiles followed by the guess number {k // 2 + 1}")
                reason = game.explain_invalid_guess(word)
                if reason is not None:
                    raise TreeMismatch(f"{where}: {reason}")
                path.append(game.normalize_guess(word))
                tiles = match.group(1)
                if len(tiles) != game.length:
                    raise TreeMismatch(f"{where}: {tiles!r} has {len(tiles)} tiles, the game has {game.length}")
                path_tiles = tiles
            answer = path[-1]
            if answer not in game.answer_index:
                raise TreeMismatch(f"{source} line {number}: {answer!r} is not an answer of {game.name}")
            if path_tiles != "G" * game.length:
                raise TreeMismatch(f"{source} line {number}: the last pair must be the answer, all green")
            for k, word in enumerate(path):
                expected = pattern_to_tiles(game.score(word, answer), game.length)
                given = tokens[2 * k + 1].upper()[: game.length]
                if given != expected:
                    raise TreeMismatch(
                        f"{source} line {number}: {word} against {answer} gives {expected}, the file says {given}"
                    )
            if answer in paths:
                raise ValueError(f"{source} line {number}: {answer!r} appears twice")
            paths[answer] = tuple(path)
        return cls.from_paths(game, paths)

    # ---- JSON -------------------------------------------------------------------------------------
    def to_dict(self, game: Game) -> dict[str, Any]:
        def node(n: TreeNode) -> dict[str, Any]:
            out: dict[str, Any] = {"guess": n.guess}
            if n.children:
                out["next"] = {tiles: node(child) for tiles, child in sorted(n.children.items())}
            return out

        return {
            "format": TREE_FORMAT, "game": game.name, "fingerprint": game.fingerprint,
            "answers": len(self.paths), "total": self.total, "max": self.max_depth, "root": node(self.root),
        }

    @classmethod
    def from_dict(cls, game: Game, data: Mapping[str, Any], source: str = "tree") -> DecisionTree:
        if not isinstance(data, Mapping) or data.get("format") != TREE_FORMAT or "root" not in data:
            raise ValueError(f"{source}: not a guessgym tree (format {TREE_FORMAT} with a root)")
        paths: dict[str, tuple[str, ...]] = {}
        for answer in game.answers:
            node: Any = data["root"]
            path: list[str] = []
            while True:
                if not isinstance(node, Mapping) or len(path) > len(game.answers):
                    raise ValueError(f"{source}: the path of {answer!r} reaches a node that is not "
                                     '{"guess": ..., "next": {TILES: node}} after ' + " ".join(path or ["(root)"]))
                guess = node.get("guess")
                if not isinstance(guess, str) or game.explain_invalid_guess(guess) is not None:
                    raise TreeMismatch(f"{source}: {guess!r} on the path of {answer!r} is not a guess of {game.name}")
                path.append(game.normalize_guess(guess))
                if _wins(game, path[-1], answer):
                    break
                following = node.get("next") or {}
                if not isinstance(following, Mapping):
                    raise ValueError(f"{source}: the node of {guess!r} on the path of {answer!r} has a 'next' that is "
                                     "not an object")
                node = following.get(pattern_to_tiles(game.score(path[-1], answer), game.length))
                if node is None:
                    break  # the tree does not reach this answer: verify_tree reports it
            if _wins(game, path[-1], answer):
                paths[answer] = tuple(path)
        if not paths:
            raise TreeMismatch(f"{source}: the tree reaches none of the answers of {game.name}")
        return cls.from_paths(game, paths)

    # ---- files ------------------------------------------------------------------------------------
    def save(self, path: str | Path, game: Game) -> Path:
        """Write the tree: JSON for a ``.json`` name, the text format otherwise, gzip-compressed
        when the name ends in ``.gz`` (atomically)."""
        path = Path(path)
        plain = path.with_suffix("") if path.suffix == ".gz" else path
        text = json.dumps(self.to_dict(game), indent=1) + "\n" if plain.suffix == ".json" else self.to_text(game)
        if path.suffix == ".gz":
            atomic_write_bytes(path, gzip.compress(text.encode("utf-8"), mtime=0))
        else:
            atomic_write_text(path, text)
        return path

    @classmethod
    def load(cls, path: str | Path, game: Game) -> DecisionTree:
        """Read a tree file (JSON if it parses as a JSON object, else the text format)."""
        path = Path(path)
        data = read_input(path, "tree file")
        try:
            if data[:2] == b"\x1f\x8b":
                data = gunzip(data, str(path))
            text = data.decode("utf-8")
        except (UnicodeDecodeError, ValueError) as exc:
            raise ValueError(f"{path}: not a tree file (neither text nor gzip-compressed text: {exc})") from None
        if text.lstrip().startswith("{"):
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
            except RecursionError:
                raise ValueError(f"{path}: nested too deeply to be a tree") from None
            return cls.from_dict(game, data, source=str(path))
        return cls.from_text(game, text, source=str(path))


def show_tree(tree: DecisionTree, game: Game, depth: int = 2) -> str:
    """The first ``depth`` levels as a table: tiles, answers left, the next guess, their mean depth."""
    lines = [f"{tree.root.guess}: {len(tree.paths)} answers, total {tree.total}, mean {tree.mean:.4f}, "
             f"max {tree.max_depth}"]

    def walk(node: TreeNode, answers: list[str], level: int, indent: str) -> None:
        if level >= depth:
            return
        groups = _split(game, node.guess, answers)
        for tiles in sorted(groups, key=lambda t: (-len(groups[t]), t)):
            members = groups[tiles]
            child = node.children.get(tiles)
            mean = float(np.mean([len(tree.paths[a]) for a in members]))
            nxt = child.guess if child is not None else "?"
            lines.append(f"{indent}{tiles} {len(members):>5} left -> {nxt:<12} mean {mean:.3f}")
            if child is not None:
                walk(child, members, level + 1, indent + "    ")

    walk(tree.root, list(tree.paths), 0, "  ")
    return "\n".join(lines)


class TreeAgent(Agent):
    """Plays a decision tree file (text or JSON) through the evaluation loop.

    Args:
        path: the tree file (see :mod:`guessgym.agents.decision_tree`).
    """

    name = "tree"

    def __init__(self, path: str) -> None:
        self.path = str(path)
        self.tree: DecisionTree | None = None
        self._loaded_for: str | None = None
        self._history: list[tuple[int, int]] = []

    def begin(self, game: Game) -> None:
        super().begin(game)
        if self._loaded_for != game.fingerprint:
            try:
                self.tree = DecisionTree.load(self.path, game)
            except (OSError, ValueError) as exc:
                raise UnsupportedGameError(f"this tree cannot play {game.name}: {exc}") from None
            self._loaded_for = game.fingerprint
        self._history = []

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        assert self.tree is not None
        if info.get("attempt", 0) > len(self._history) and not info.get("invalid_action"):
            self._history.append((int(self.game.guess_index[info["guess"]]), int(info["pattern"])))
        node = self.tree.node_after(self.game, self._history)
        if node is None:
            guess, pattern = self._history[-1]
            raise RuntimeError(
                f"tree {self.path} has no branch for {self.game.guesses[guess]} "
                f"{pattern_to_tiles(pattern, self.game.length)}: it does not cover this answer"
            )
        return int(self.game.guess_index[node.guess])

    def describe(self) -> str:
        return f"plays the decision tree in {self.path}"


register("tree", TreeAgent)

__all__ = ["DecisionTree", "TREE_FORMAT", "TreeAgent", "TreeMismatch", "TreeNode", "show_tree"]
