"""The games a general policy trains on, and the states it reaches in them with the solver's labels.

A policy meant to play any word list is taught on many lists at once (:mod:`guessgym.training.general`).
:func:`draw_game` draws one: an answer list of a size drawn log-uniformly from the training words'
answers, guesses that are its answers alone or its answers plus other training words, normal or
hard mode, every word a training word of the transfer split (:mod:`guessgym.training.transfer`),
checked. :func:`visit_game` plays every answer of such a game, by the policy (its greedy move, or a
move drawn from its distribution) or by the solver, and returns each distinct state the games passed
through with the exact solver's best move there (:meth:`~guessgym.baselines.move_values.StateValues.best_guess`,
the same move for the same state every time) and how many games passed through it: the data DAgger
aggregates. The pattern matrices of these games stay in memory (never in the disk cache, which would
fill with matrices no one asks for again).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

import numpy as np
import torch as th

from ..agents.policies import GuessPolicyMixin
from ..baselines.move_values import StateValues
from ..envs.game import Game, wordle
from ..envs.matrix import PatternMatrix
from .transfer import TransferSplit

#: How the games of a game's rows are played: the solver's move, the policy's best, or one drawn from it.
MODES = ("expert", "greedy", "sampled")


@dataclass(frozen=True)
class GameDraw:
    """One training game: answers and guesses as indices into the split's training words, the mode,
    and whether its start is labelled (a large game's is not: solving it whole would take minutes)."""

    answers: np.ndarray
    guesses: np.ndarray
    hard: bool
    large: bool = False

    def game(self, split: TransferSplit) -> Game:
        """The game itself (refused by the split if it held an unseen word)."""
        words = split.training_words
        game = wordle(answers=[words[i] for i in self.answers], guesses=[words[i] for i in self.guesses],
                      hard_mode=self.hard)
        split.check_training_game(game)
        PatternMatrix.for_game(game, cache=False)  # memoised in memory; later lookups never touch the disk cache
        return game


@dataclass(frozen=True)
class GameShape:
    """The range of the drawn games (see :func:`draw_game`)."""

    min_answers: int
    max_answers: int
    max_guesses: int
    answers_only_share: float
    hard_share: float
    large_share: float = 0.0
    large_max_answers: int = 0
    large_max_guesses: int = 0


def _log_uniform(rng: np.random.Generator, low: int, high: int) -> int:
    return min(max(int(round(math.exp(rng.uniform(math.log(low), math.log(max(high, low)))))), low), max(high, low))


def draw_game(rng: np.random.Generator, split: TransferSplit, shape: GameShape) -> GameDraw:
    """A training game: ``n`` answers, ``n`` drawn log-uniformly in ``[min_answers, max_answers]``
    from the training answers; with probability ``answers_only_share`` those are the only guesses,
    else a log-uniform number of guesses in ``[1.5 n, max_guesses]`` (the answers and other training
    words); hard mode with probability ``hard_share``. With probability ``large_share`` the game is
    *large* instead: ``n`` in ``[max_answers, large_max_answers]``, guesses up to ``large_max_guesses``,
    and its start is left unlabelled (:func:`visit_game`'s ``label_start``)."""
    index = {w: i for i, w in enumerate(split.training_words)}
    pool = np.array([index[a] for a in split.training_answers], dtype=np.int64)
    large = bool(shape.large_share and rng.random() < shape.large_share)
    low, high, most = ((shape.max_answers, shape.large_max_answers, shape.large_max_guesses) if large else
                       (shape.min_answers, shape.max_answers, shape.max_guesses))
    n = min(_log_uniform(rng, low, high), pool.size)
    answers = np.sort(rng.choice(pool, size=n, replace=False))
    if rng.random() < shape.answers_only_share or most <= n:
        guesses = answers
    else:
        total = _log_uniform(rng, min(math.ceil(1.5 * n), most), most)
        others = np.setdiff1d(np.arange(len(split.training_words)), answers)
        extra = rng.choice(others, size=min(max(total - n, 0), others.size), replace=False)
        guesses = np.sort(np.concatenate([answers, extra]))
    return GameDraw(answers, guesses, bool(rng.random() < shape.hard_share), large)


@dataclass
class Visits:
    """The distinct states a game's rollouts reached: the observation the policy saw there (board,
    tiles, and in hard mode the allowed guesses), the solver's best move, and the weight (the games
    that passed through it, per answer: 1 for the start)."""

    board: np.ndarray
    tiles: np.ndarray
    masks: np.ndarray | None
    labels: np.ndarray
    weights: np.ndarray

    def __len__(self) -> int:
        return int(self.labels.size)

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        """The arrays under ``prefix`` (for one ``.npz``; masks bit-packed)."""
        out = {f"{prefix}board": self.board, f"{prefix}tiles": self.tiles, f"{prefix}labels": self.labels,
               f"{prefix}weights": self.weights}
        if self.masks is not None:
            out[f"{prefix}masks"] = np.packbits(self.masks, axis=1)
            out[f"{prefix}mask_bits"] = np.array([self.masks.shape[1]], dtype=np.int64)
        return out

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], prefix: str) -> Visits:
        masks = None
        if f"{prefix}masks" in arrays:
            bits = int(arrays[f"{prefix}mask_bits"][0])
            masks = np.unpackbits(arrays[f"{prefix}masks"], axis=1, count=bits).astype(bool)
        return cls(arrays[f"{prefix}board"], arrays[f"{prefix}tiles"], masks, arrays[f"{prefix}labels"],
                   arrays[f"{prefix}weights"])


@dataclass
class Outcome:
    """What the rollouts of one game gave: the states with labels, and each mode's guesses per answer
    (0: lost), in answer order."""

    visits: Visits
    guesses: dict[str, np.ndarray]
    policy_agreed: int = 0
    policy_asked: int = 0


@dataclass
class _State:
    answers: np.ndarray
    allowed: np.ndarray
    label: int = -1
    visits: int = 0
    row: int = -1


def policy_logits(policy: GuessPolicyMixin, obs: dict[str, np.ndarray]) -> np.ndarray:
    """The policy's masked scores of every guess (disallowed guesses at ``-inf``)."""
    with th.no_grad():
        logits = policy.action_logits({k: th.as_tensor(obs[k]) for k in ("board", "tiles")}).cpu().numpy()
    return np.where(obs["action_mask"].astype(bool), logits.astype(np.float64), -np.inf)


def visit_game(policy: GuessPolicyMixin | None, game: Game, values: StateValues, modes: tuple[str, ...],
               rng: np.random.Generator, temperature: float, *, label_start: bool = True) -> Outcome:
    """Play every answer of ``game`` once per mode of ``modes`` (see :data:`MODES`; ``policy`` may be
    ``None`` when every mode is ``"expert"``), label every state reached, and return them.

    ``label_start=False`` leaves the start unlabelled (on a game too large to solve whole): every
    row opens with the policy's best guess, and only the states after it are labelled and kept."""
    from ..envs.vector import BatchedGuessEnv

    unknown = sorted(set(modes) - set(MODES))
    if unknown or not modes or len(set(modes)) != len(modes):
        raise ValueError(f"modes must be some of {MODES}, each once, got {modes!r}")
    if policy is None and set(modes) != {"expert"}:
        raise ValueError("a policy is needed unless every mode is 'expert'")
    if not label_start and (policy is None or "expert" in modes):
        raise ValueError("a game whose start is not labelled is opened by the policy: no 'expert' mode")
    if policy is not None:
        policy.set_game(game)
    n = len(game.answers)
    row_answers = np.tile(np.arange(n, dtype=np.int64), len(modes))
    row_modes = np.repeat(np.arange(len(modes)), n)
    sampled = np.array([modes[m] == "sampled" for m in row_modes])
    expert = np.array([modes[m] == "expert" for m in row_modes])
    venv = BatchedGuessEnv(row_answers.size, game=game, track_candidates=False)
    obs, _ = venv.reset(seed=0, options={"answer": row_answers})
    states: dict[bytes, _State] = {b"": _State(values.everyone.copy(), values.all_guesses.copy())}
    keys = [b""] * row_answers.size
    active = np.ones(row_answers.size, dtype=bool)
    guesses = np.zeros(row_answers.size, dtype=np.int64)
    order: list[bytes] = []
    boards, tiles, masks = [], [], []
    agreed = asked = 0
    for turn in range(game.max_attempts):
        rows = np.flatnonzero(active)
        if rows.size == 0:
            break
        by_key: dict[bytes, list[int]] = {}
        for r in rows:
            by_key.setdefault(keys[r], []).append(int(r))
        left = game.max_attempts - turn
        for key, members in by_key.items():
            state = states[key]
            if turn == 0 and not label_start:
                continue
            if state.label < 0:
                state.label = int(values.best_guess(state.answers, left, state.allowed))
                state.row = len(order)
                order.append(key)
                first = members[0]
                boards.append(obs["board"][first].copy())
                tiles.append(obs["tiles"][first].copy())
                masks.append(obs["action_mask"][first].copy())
            state.visits += len(members)
        actions = np.zeros(row_answers.size, dtype=np.int64)
        for r in rows:
            actions[r] = states[keys[r]].label
        played_by_policy = rows[~expert[rows]]
        if played_by_policy.size:
            assert policy is not None
            representatives = np.array([by_key[k][0] for k in by_key])
            scores = policy_logits(policy, {k: v[representatives] for k, v in obs.items()})
            best = dict(zip(by_key, scores.argmax(axis=1).tolist()))
            labelled = [key for key in by_key if states[key].label >= 0]
            asked += len(labelled)
            agreed += sum(int(best[key] == states[key].label) for key in labelled)
            at = {k: i for i, k in enumerate(by_key)}
            for r in played_by_policy:
                if sampled[r] and (turn > 0 or label_start):
                    row_scores = scores[at[keys[r]]] / temperature
                    actions[r] = int(np.argmax(row_scores + rng.gumbel(size=row_scores.size)))
                else:
                    actions[r] = best[keys[r]]
        obs, _, terminated, _, info = venv.step(actions)
        for r in rows:
            pattern = int(info["pattern"][r])
            if terminated[r] and pattern == game.solved_pattern:
                guesses[r] = turn + 1
            if terminated[r]:
                continue
            key = keys[r] + struct.pack("<iH", int(actions[r]), pattern)
            if key not in states:
                parent = states[keys[r]]
                shown = values.patterns(parent.answers, int(actions[r])) == pattern
                states[key] = _State(parent.answers[shown], values.allowed_after(int(actions[r]), pattern,
                                                                                parent.allowed))
            keys[r] = key
        active &= ~terminated
    weights = np.array([states[k].visits for k in order], dtype=np.float32) / len(modes)
    visits = Visits(np.array(boards), np.array(tiles), np.array(masks).astype(bool) if game.hard_mode else None,
                    np.array([states[k].label for k in order], dtype=np.int32), weights)
    return Outcome(visits, {mode: guesses[row_modes == m] for m, mode in enumerate(modes)}, agreed, asked)


__all__ = ["GameDraw", "GameShape", "MODES", "Outcome", "Visits", "draw_game", "policy_logits", "visit_game"]
