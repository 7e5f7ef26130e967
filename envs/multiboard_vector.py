"""A batched vector environment of multi-board games: ``num_envs`` games of K boards in numpy.

:class:`BatchedMultiBoardEnv` is a :class:`gymnasium.vector.VectorEnv` with the rules, rewards,
observations and ``info`` keys of :class:`~guessgym.envs.multiboard.MultiBoardEnv`, but every
board of every sub-game is one slot of a single :class:`~guessgym.envs.engine.GameEngine`
(``num_envs * boards`` slots): a step plays each sub-game's guess on all its unsolved boards in
one compiled pass, where ``gymnasium.make_vec(id, n, vectorization_mode="sync")`` calls
``MultiBoardEnv.step`` once per sub-game and merges their infos key by key
(``benchmarks/bench_multiboard_vector.py`` measures both).

Equivalence is exact, randomness included: sub-game ``i`` draws its boards' answers from the
stream of seed ``seed + i`` as the ``i``-th environment of ``SyncVectorEnv`` does, so for the
same seeds and actions the observations, rewards, terminations and infos equal those of
``gymnasium.make_vec(id, num_envs, vectorization_mode="sync")`` (``tests/envs/test_multiboard_vector.py``).

Examples:
    >>> import numpy as np
    >>> venv = BatchedMultiBoardEnv(3, boards=2, kind="nerdle", length=6)
    >>> obs, info = venv.reset(seed=0)
    >>> obs["board"].shape, obs["solved"].shape
    ((3, 84), (3, 2))
    >>> obs, reward, terminated, truncated, info = venv.step(np.array([0, 1, 2]))
    >>> info["attempt"].tolist(), info["patterns"].shape
    ([1, 1, 1], (3, 2))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .answer_stream import AnswerStream
from .engine import ANSWER, COUNT, GameEngine
from .mask_pool import MaskPool
from .multiboard import MultiBoardEnv, draw_distinct_answers
from .options import check_reset_options


class BatchedMultiBoardEnv(VectorEnv):
    """``num_envs`` multi-board games advanced together with numpy.

    ## Description
    The vectorised counterpart of :class:`~guessgym.envs.multiboard.MultiBoardEnv` (read its
    docstring for the rules): every sub-game has the same game and number of boards, and its own
    hidden answers, boards and random generator.

    ## Action Space
    ``single_action_space`` is ``Discrete(len(guesses))``; ``action_space`` is
    ``MultiDiscrete([len(guesses)] * num_envs)``. An action outside the space raises
    ``ValueError``.

    ## Observation Space
    ``MultiBoardEnv``'s ``Dict(board, tiles, solved, action_mask)`` with a leading ``num_envs``
    axis. ``action_mask`` is read-only (all ones for a running game, zeros for one that just
    ended) and is the same array as ``info["action_mask"]``; its memory is recycled once nobody
    holds it (:class:`~guessgym.envs.mask_pool.MaskPool`). :meth:`action_masks` returns a fresh
    writeable bool array.

    ## Rewards, Episode End
    As ``MultiBoardEnv``. Sub-games autoreset with Gymnasium's *next-step* semantics
    (``metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP``): the step that ends a game returns
    its final observation with ``terminated=True``; the next :meth:`step` ignores that sub-game's
    action, starts a new game and returns its first observation with reward 0.

    ## Information
    The keys of ``MultiBoardEnv`` merged as ``SyncVectorEnv`` merges them: ``attempt`` (int),
    ``guess`` (str) and ``tiles`` (a list of ``boards`` strings) as ``(num_envs,)`` arrays,
    ``patterns``, ``candidates`` and ``solved`` as ``(num_envs, boards)`` arrays, ``action_mask``;
    each with a boolean ``"_key"`` array; ``answers`` (lists of strings) and ``_answers`` for the
    games that ended.

    ## Arguments
    ``num_envs``, ``render_mode`` (``None`` or ``"ansi"``: :meth:`render` returns one text per
    sub-game) and every argument of ``MultiBoardEnv`` (``boards``, ``max_attempts``, the game's,
    the rewards', ``matrix_cache``), checked by it.

    ## Version History
    * v0: initial release (matches ``MultiBoardEnv`` v0).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1, "autoreset_mode": AutoresetMode.NEXT_STEP}

    #: The reset option that fixes the answers (one list of boards' answers per sub-game).
    answer_option = "answers"

    def __init__(self, num_envs: int = 1, render_mode: str | None = None, **options: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.template = MultiBoardEnv(render_mode, **options)  # checks every option, holds the spaces
        self.render_mode = render_mode
        self.num_envs = int(num_envs)
        self.boards = self.template.boards
        self.game = self.template.game
        self.rewards = dict(self.template.rewards)
        self.max_attempts = self.game.max_attempts
        self.engine = GameEngine.from_options(self.num_envs * self.boards, **self.template.engine.options())
        self.single_action_space = self.template.action_space
        self.single_observation_space = self.template.observation_space
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self._n_guesses = len(self.game.guesses)
        self._tile_strings = np.array(self.engine.tile_strings, dtype=object)
        self._guess_strings = np.array(self.game.guesses, dtype=object)
        self._solved = np.zeros((self.num_envs, self.boards), dtype=bool)
        self._attempt = np.zeros(self.num_envs, dtype=np.int64)
        self._done = np.ones(self.num_envs, dtype=bool)
        self._autoreset = np.zeros(self.num_envs, dtype=bool)
        self._streams: list[AnswerStream | None] = [None] * self.num_envs
        self._mask_pool = MaskPool((self.num_envs, self._n_guesses))

    # ---- gymnasium vector API ------------------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start new games in every sub-game.

        Args:
            seed: ``None`` (keep each sub-game's generator), an int (sub-game ``i`` is seeded with
                ``seed + i``, like ``SyncVectorEnv``) or a list of ``num_envs`` ints/None.
            options: ``{"answers": [...]}``: the boards' answers, one list of ``boards`` distinct
                answers for every sub-game, or a list of such lists (one per sub-game).
        """
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"a list of seeds must have num_envs={self.num_envs} entries, got {len(seeds)}")
        super().reset(seed=seeds[0])
        options = check_reset_options(options, ("answers",))
        for i, s in enumerate(seeds):
            if s is not None or self._streams[i] is None:
                self._streams[i] = AnswerStream.from_seed(s)
        fixed = self._answers_option(options.get("answers"))
        everyone = np.arange(self.num_envs)
        self._start(everyone, fixed)
        self._autoreset[:] = False
        obs = self._observations()
        return obs, self._infos(everyone, None, obs["action_mask"])

    def step(self, actions: np.ndarray | Sequence[int]
             ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one guess in every sub-game (sub-games that ended last step start anew instead)."""
        actions = self.check_actions(actions)
        resetting = self._autoreset.copy()
        if resetting.any():
            self._start(np.flatnonzero(resetting), None)
        rewards, terminated, patterns = self._play(actions, ~resetting)
        self._autoreset = terminated.copy()
        obs = self._observations()
        info = self._infos(np.flatnonzero(resetting), patterns, obs["action_mask"], actions)
        if terminated.any():
            answers = np.full(self.num_envs, None, dtype=object)
            table = np.array(self.game.answers, dtype=object)
            for i in np.flatnonzero(terminated).tolist():
                answers[i] = list(table[self.engine.status[self._slots(i), ANSWER]])
            info["answers"], info["_answers"] = answers, terminated.copy()
        return obs, rewards, terminated, np.zeros(self.num_envs, dtype=bool), info

    def advance(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play ``actions`` (already checked) in every sub-game, without autoreset: the rewards, the
        games that ended and those that were won (what a stable-baselines3 adapter needs)."""
        rewards, terminated, _ = self._play(actions, np.ones(self.num_envs, dtype=bool))
        return rewards, terminated, terminated & self._solved.all(axis=1)

    def start_games(self, idx: np.ndarray) -> None:
        """Start new games in sub-games ``idx``, drawing their answers from their streams."""
        self._start(np.asarray(idx, dtype=np.int64), None)

    def observations(self, with_mask: bool = True) -> dict[str, np.ndarray]:
        """The observation of every sub-game (``with_mask=False`` leaves out ``action_mask``)."""
        obs = self._observations()
        if not with_mask:
            del obs["action_mask"]
        return obs

    def set_answer_pool(self, pool: Sequence[int] | np.ndarray | None) -> None:
        """Make new games draw their boards' answers from ``pool`` (indices into the answers;
        ``None``: all). It must hold at least ``boards`` answers."""
        if pool is not None and len(set(np.asarray(pool).tolist())) < self.boards:
            raise ValueError(f"an answer pool for {self.boards} boards needs at least {self.boards} distinct answers")
        self.engine.set_answer_pool(None if pool is None else np.asarray(pool))

    def get_state(self) -> dict[str, Any]:
        """Everything needed to continue exactly from here (for training checkpoints)."""
        return {"engine": self.engine.get_state(), "solved": self._solved.copy(), "attempt": self._attempt.copy(),
                "done": self._done.copy(), "autoreset": self._autoreset.copy(),
                "answer_streams": [None if s is None else s.get_state() for s in self._streams]}

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore a state returned by :meth:`get_state` (same game, boards and ``num_envs``)."""
        self.engine.set_state(state["engine"])
        self._solved[:] = state["solved"]
        self._attempt[:] = state["attempt"]
        self._done[:] = state["done"]
        self._autoreset[:] = state["autoreset"]
        self._streams = [None if s is None else AnswerStream.restored(s) for s in state["answer_streams"]]

    def _play(self, actions: np.ndarray, playing: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play ``actions[i]`` on the unsolved boards of every sub-game ``i`` where ``playing``.

        Returns the rewards and terminations per sub-game and the ``(num_envs, boards)`` patterns
        (-1 where no guess was played); no autoreset.
        """
        boards = self.boards
        slots = np.flatnonzero((~self._solved & playing[:, None]).reshape(-1))
        played = self.engine.play(np.repeat(actions, boards), slots)
        patterns = played.patterns.reshape(self.num_envs, boards)
        newly = patterns == self.game.solved_pattern
        self._solved |= newly
        self._attempt[playing] += 1
        won = playing & self._solved.all(axis=1)
        lost = playing & ~won & (self._attempt >= self.max_attempts)
        r = self.rewards
        rewards = np.where(playing, r["board_reward"] * newly.sum(axis=1) + r["step_penalty"], 0.0)
        rewards += np.where(won, r["win_reward"], 0.0) + np.where(lost, r["loss_reward"], 0.0)
        terminated = won | lost
        self._done |= terminated
        return rewards, terminated, patterns

    def render(self) -> tuple[str, ...] | None:
        """One ANSI text per sub-game (``MultiBoardEnv``'s layout)."""
        if self.render_mode is None:
            gym.logger.warn("render() was called without a render_mode; pass render_mode='ansi'")
            return None
        texts = []
        for i in range(self.num_envs):
            blocks = []
            for b, slot in enumerate(self._slots(i)):
                lines = [f"board {b + 1}" + (" (solved)" if self._solved[i, b] else "")]
                lines += [f"  {guess}  {tiles}" for guess, tiles in self.engine.board_rows(int(slot))]
                blocks.append("\n".join(lines))
            texts.append("\n".join(blocks))
        return tuple(texts)

    # ---- views ------------------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """``(num_envs, n_guesses)`` bool mask of allowed actions: every guess while a game runs."""
        return np.repeat(~self._done[:, None], self._n_guesses, axis=1)

    def current_answers(self) -> np.ndarray:
        """``(num_envs, boards)`` hidden answer indices (a copy)."""
        return self.engine.status[:, ANSWER].reshape(self.num_envs, self.boards).copy()

    def candidates_of(self, index: int) -> list[np.ndarray]:
        """The answers still consistent with each board of sub-game ``index``."""
        return [self.engine.candidates_of(int(s)) for s in self._slots(index)]

    # ---- helpers ---------------------------------------------------------------------------------
    def _slots(self, index: int) -> np.ndarray:
        return np.arange(index * self.boards, (index + 1) * self.boards)

    def _start(self, envs: np.ndarray, fixed: np.ndarray | None) -> None:
        answers = np.empty((len(envs), self.boards), dtype=np.int64)
        for k, i in enumerate(envs):
            if fixed is not None:
                answers[k] = fixed[i]
            else:
                stream = self._streams[i]
                if stream is None:
                    stream = self._streams[i] = AnswerStream.from_seed(None)
                answers[k] = draw_distinct_answers(self.engine, stream, self.boards)
        slots = (envs[:, None] * self.boards + np.arange(self.boards)).reshape(-1)
        self.engine.start(slots, answers.reshape(-1))
        self._solved[envs] = False
        self._attempt[envs] = 0
        self._done[envs] = False

    def _answers_option(self, answers: Any) -> np.ndarray | None:
        if answers is None:
            return None
        values = list(answers)
        per_env = values and all(not isinstance(v, (str, int, np.integer)) for v in values)
        lists = values if per_env else [values] * self.num_envs
        if len(lists) != self.num_envs:
            raise ValueError(f"options['answers'] must be one list of {self.boards} answers or {self.num_envs} such "
                             f"lists (one per sub-game), got {len(lists)} lists")
        return np.stack([self.template._check_answers(v) for v in lists])

    def check_actions(self, actions: np.ndarray | Sequence[int]) -> np.ndarray:
        """``actions`` as an int64 array of one valid index per sub-game, or a ``ValueError``."""
        arr = np.asarray(actions).reshape(-1) if np.size(actions) == self.num_envs else np.asarray(actions)
        if arr.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions (one per sub-game), got shape {np.shape(actions)}")
        if arr.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers indexing the guesses, got dtype {arr.dtype}")
        arr = arr.astype(np.int64, copy=False)
        bad = (arr < 0) | (arr >= self._n_guesses)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"action {int(arr[i])} of sub-game {i} is outside the action space "
                             f"Discrete({self._n_guesses}): expected integers 0..{self._n_guesses - 1}")
        return arr

    def _observations(self) -> dict[str, np.ndarray]:
        n = self.num_envs
        masks = self._mask_pool.for_done(self._done)
        # one copy each (the engine's arrays are views of its state; reshaping them would copy first)
        return {"board": np.array(self.engine.board).reshape(n, -1),
                "tiles": np.array(self.engine.tiles).reshape(n, -1),
                "solved": self._solved.astype(np.int8), "action_mask": masks}

    def _infos(self, starting: np.ndarray, patterns: np.ndarray | None, masks: np.ndarray,
               actions: np.ndarray | None = None) -> dict[str, Any]:
        """Infos of every sub-game: a new game's for ``starting`` (and all when ``patterns`` is None),
        else the step's."""
        n, boards = self.num_envs, self.boards
        if patterns is None:
            patterns = np.full((n, boards), -1, dtype=np.int64)
        else:
            patterns = patterns.copy()
            patterns[starting] = -1
        guess = np.full(n, "", dtype=object)
        if actions is not None:
            played = np.ones(n, dtype=bool)
            played[starting] = False
            guess[played] = self._guess_strings[actions[played]]
        tiles = np.empty(n, dtype=object)
        for i, row in enumerate(self._tile_strings[patterns].tolist()):  # the table ends with "": -1 reads ""
            tiles[i] = row
        info: dict[str, Any] = {
            "attempt": self._attempt.copy(),
            "guess": guess,
            "tiles": tiles,
            "patterns": patterns,
            "candidates": self.engine.status[:, COUNT].astype(np.int64).reshape(n, boards),
            "solved": self._solved.copy(),
            "action_mask": masks,
        }
        out: dict[str, Any] = {}
        for key, value in info.items():
            out[key] = value
            out["_" + key] = np.ones(n, dtype=bool)
        return out


def make_batched_multiboard(num_envs: int = 1, **kwargs: Any) -> BatchedMultiBoardEnv:
    """Vector entry point of the multi-board ids: ``gymnasium.make_vec(id, n,
    vectorization_mode="vector_entry_point")`` calls it with the id's keyword arguments."""
    kwargs.pop("max_episode_steps", None)
    return BatchedMultiBoardEnv(num_envs, **kwargs)


__all__ = ["BatchedMultiBoardEnv", "make_batched_multiboard"]
