"""A batched vector environment: many games of one :class:`~guessgym.envs.game.Game` stepped at once in numpy.

:class:`BatchedGuessEnv` is a :class:`gymnasium.vector.VectorEnv` with the same rules, rewards,
observations, masks and ``info`` keys as :class:`~guessgym.envs.env.GuessEnv`, but it keeps the state of
every sub-game in arrays (answers, boards, tiles, attempts, candidate lists) and advances them
together: one compiled (numba) pass reads every sub-game's feedback from the cached pattern matrix,
writes the board rows and compacts the candidate lists; infos are built with vectorised lookups
(tile strings by pattern code, guess strings by action); the vocabulary-sized masks are recycled
rather than reallocated (see :class:`_MaskPool`). That makes it more than ten times faster than
``gymnasium.make_vec(..., vectorization_mode="sync")``, which calls ``GuessEnv.step`` once per
sub-game in Python and then merges per-game info dicts key by key
(``benchmarks/bench_vector_env.py`` measures both).

Equivalence with the single environment is exact, including randomness: sub-game ``i`` owns its
own ``np.random.Generator`` seeded like the ``i``-th environment of a ``SyncVectorEnv``
(``seed + i``), and draws its answers with the same call as ``GuessEnv.reset``. For identical
seeds and actions, observations, rewards, terminations and infos equal those of
``gymnasium.make_vec(id, num_envs, vectorization_mode="sync")`` (``tests/test_vector_env.py``).

Examples:
    >>> import numpy as np
    >>> from guessgym.envs.game import nerdle
    >>> venv = BatchedGuessEnv(3, game=nerdle(6))
    >>> obs, info = venv.reset(seed=0)
    >>> obs["board"].shape, obs["action_mask"].shape
    ((3, 36), (3, 206))
    >>> obs, reward, terminated, truncated, info = venv.step(np.array([0, 1, 2]))
    >>> info["attempt"].tolist()
    [1, 1, 1]
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numba import njit

from .candidates import HardModeRule
from .env import GuessEnv, RewardMode, check_reward_mode, make_game, observation_space
from .game import Game
from .matrix import PatternMatrix
from .scoring import pattern_to_tiles

#: Reset options understood by :meth:`BatchedGuessEnv.reset`.
RESET_OPTIONS = ("answer", "reset_mask")


@njit(cache=True, nogil=True)
def _advance(
    dense: np.ndarray,
    idx: np.ndarray,
    actions: np.ndarray,
    answers: np.ndarray,
    attempt: np.ndarray,
    board: np.ndarray,
    tiles: np.ndarray,
    board_codes: np.ndarray,
    pattern_tiles: np.ndarray,
    candidates: np.ndarray,
    counts: np.ndarray,
    track: bool,
    patterns: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Play ``actions[k]`` in sub-game ``idx[k]``: feedback, board and tile rows, candidates, attempt.

    Fuses what would otherwise be about a dozen small numpy operations per step; ``patterns[k]``
    receives the feedback pattern.
    """
    length = board_codes.shape[1]
    for k in range(idx.shape[0]):
        i = idx[k]
        a = actions[k]
        p = dense[a, answers[i]]
        patterns[k] = p
        start = attempt[i] * length
        for c in range(length):
            board[i, start + c] = board_codes[a, c]
            tiles[i, start + c] = pattern_tiles[p, c]
        attempt[i] += 1
        if track:
            row = dense[a]
            n = 0
            for j in range(counts[i]):  # branch-free compaction: write always, advance on a match
                answer = candidates[i, j]
                candidates[i, n] = answer
                n += row[answer] == p
            counts[i] = n


class _MaskPool:
    """Recycles the memory of observation masks that nobody holds any more.

    An observation mask is ``(num_envs, n_guesses)`` int8: 0.8 MB per step for 64 Wordle games,
    more than everything else in a step. Allocating one per step makes every step page-fault
    (the allocator hands such blocks back to the system), and refilling it is a memory-bound
    pass. So masks are handed out *read-only* and kept here: an array whose only references are
    this pool's is provably unused by the caller (a view would hold a reference through
    ``.base``), and, being read-only, still holds what was written into it. Reusing it then only
    rewrites the rows whose state changed. Up to ``capacity`` arrays are kept; beyond that plain
    allocations are made.
    """

    def __init__(self, shape: tuple[int, int], capacity: int = 8) -> None:
        self.shape = shape
        self.capacity = capacity
        self._arrays: list[np.ndarray] = []
        self._done: list[np.ndarray | None] = []  # which rows are zero (easy mode), None: unknown
        # The count of an array referenced by nothing but a pool list, measured the same way as
        # for the pooled arrays (interpreters differ in how loop variables count).
        self._free_count = self._refcounts([np.empty(0, dtype=np.int8)])[0]

    @staticmethod
    def _refcounts(arrays: list[np.ndarray]) -> list[int]:
        return [sys.getrefcount(arr) for arr in arrays]

    def get(self) -> tuple[int, np.ndarray]:
        """A free array (writeable until :meth:`publish`) and its slot (-1 if not pooled)."""
        for slot, count in enumerate(self._refcounts(self._arrays)):
            if count == self._free_count:
                arr = self._arrays[slot]
                arr.flags.writeable = True
                return slot, arr
        arr = np.empty(self.shape, dtype=np.int8)
        if len(self._arrays) < self.capacity:
            self._arrays.append(arr)
            self._done.append(None)
            return len(self._arrays) - 1, arr
        return -1, arr

    def previous(self, slot: int) -> np.ndarray | None:
        return None if slot < 0 else self._done[slot]

    def publish(self, slot: int, arr: np.ndarray, done: np.ndarray | None) -> np.ndarray:
        """Record what ``arr`` holds (the zero rows, or None if not a pure done-mask) and freeze it."""
        if slot >= 0:
            self._done[slot] = None if done is None else done.copy()
        arr.flags.writeable = False
        return arr

    def __getstate__(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "capacity": self.capacity,
            "_arrays": [],
            "_done": [],
            "_free_count": self._free_count,
        }


class BatchedGuessEnv(VectorEnv):
    """``num_envs`` games of Wordle or Nerdle advanced together with numpy.

    ## Description
    The vectorised counterpart of :class:`~guessgym.envs.env.GuessEnv` (read its docstring for the rules).
    Every sub-game has the same :class:`~guessgym.envs.game.Game`; each has its own hidden answer,
    board, candidate set and random generator.

    ## Action Space
    ``single_action_space`` is ``GuessEnv``'s ``Discrete(len(guesses))``; ``action_space`` is
    ``MultiDiscrete([len(guesses)] * num_envs)``. An action outside the space raises
    ``ValueError``; hard-mode violations are rejected exactly as in ``GuessEnv``.

    ## Observation Space
    ``single_observation_space`` is ``GuessEnv``'s ``Dict(board, tiles, action_mask)``;
    observations are that dict with a leading ``num_envs`` axis. ``board`` and ``tiles`` are
    fresh arrays. ``action_mask`` is *read-only* and is the same array as ``info["action_mask"]``
    of that step: its memory is recycled once nobody holds it any more, so only the rows of games
    that started or ended are rewritten (copy it to modify it). :meth:`action_masks` returns a
    fresh writeable bool array.

    ## Rewards, Episode End
    As ``GuessEnv``. Sub-games autoreset with Gymnasium's *next-step* semantics
    (``metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP``): the step that ends a game returns
    its final observation with ``terminated=True``; the next call to :meth:`step` ignores that
    sub-game's action, starts a new game and returns its first observation with reward 0.

    ## Information
    A dict of arrays, one entry per sub-game, with the same keys as ``GuessEnv`` (``attempt``,
    ``guess``, ``tiles``, ``pattern``, ``candidates``, ``invalid_action``, ``invalid_reason``,
    ``action_mask``, and ``answer`` for the games that ended), each paired with a boolean
    ``"_key"`` array saying which sub-games carry it, exactly as ``SyncVectorEnv`` builds them.
    Strings are numpy object arrays.

    ## Arguments
    * ``num_envs``: the number of sub-games.
    * ``render_mode``: ``None``, ``"ansi"`` or ``"rgb_array"`` (:meth:`render` returns a tuple
      with one frame per sub-game).
    * every keyword argument of ``GuessEnv`` (``game`` or ``kind``/``length``/..., reward
      options, ``matrix_cache``).
    * ``track_candidates``: keep every sub-game's candidate set (default True). Needed for
      ``info["candidates"]`` and ``reward_mode="shaped"``; training with sparse rewards may turn
      it off for speed, and ``info["candidates"]`` is then ``-1``.

    ## Curriculum
    :meth:`set_answer_pool` restricts the answers that new games draw to a subset of
    ``game.answers``: each sub-game then plays the game whose answer list is that subset (its
    candidate sets and shaped reward count only pool answers). ``set_answer_pool(None)`` restores
    the full list. Running games are not disturbed.

    ## Version History
    * v0: initial release (matches ``GuessEnv`` v0).
    """

    metadata = {
        "render_modes": ["ansi", "rgb_array"],
        "render_fps": 2,
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    def __init__(
        self,
        num_envs: int = 1,
        render_mode: str | None = None,
        *,
        game: Game | None = None,
        kind: str = "wordle",
        length: int | None = None,
        word_list: str | None = None,
        answers: Any = None,
        guesses: Any = None,
        max_attempts: int = 6,
        hard_mode: bool = False,
        reward_mode: RewardMode = "sparse",
        win_reward: float = 1.0,
        loss_reward: float = 0.0,
        step_penalty: float = 0.0,
        invalid_action_penalty: float = -0.1,
        matrix_cache: bool = True,
        track_candidates: bool = True,
    ) -> None:
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode {render_mode!r} is not supported; choose one of {self.metadata['render_modes']} or None"
            )
        check_reward_mode(reward_mode)
        if reward_mode == "shaped" and not track_candidates:
            raise ValueError("reward_mode='shaped' needs the candidate sets: keep track_candidates=True")
        self.num_envs = int(num_envs)
        self.render_mode = render_mode
        self.game = (
            game
            if game is not None
            else make_game(
                kind=kind,
                length=length,
                word_list=word_list,
                answers=answers,
                guesses=guesses,
                max_attempts=max_attempts,
                hard_mode=hard_mode,
            )
        )
        self.reward_mode: RewardMode = reward_mode
        self.win_reward = float(win_reward)
        self.loss_reward = float(loss_reward)
        self.step_penalty = float(step_penalty)
        self.invalid_action_penalty = float(invalid_action_penalty)
        self.matrix_cache = matrix_cache
        self.track_candidates = bool(track_candidates)
        self.matrix = PatternMatrix.for_game(self.game, cache=matrix_cache)

        g = self.game
        self._n_guesses = len(g.guesses)
        self._n_answers = len(g.answers)
        self._length = g.length
        self._cells = g.max_attempts * g.length
        self.single_action_space = spaces.Discrete(self._n_guesses)
        self.single_observation_space = observation_space(g)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)

        # Lookup tables: tiles (+1, as on the board) and tile strings of every pattern code.
        n_patterns = 3**self._length
        codes = np.arange(n_patterns, dtype=np.int64)
        digits = np.empty((n_patterns, self._length), dtype=np.int64)
        for i in range(self._length):
            digits[:, i] = codes // 3**i % 3
        self._pattern_tiles = digits + 1
        self._tile_strings = np.array([pattern_to_tiles(int(p), self._length) for p in codes] + [""], dtype=object)
        self._guess_strings = np.array([*g.guesses, ""], dtype=object)
        self._answer_strings = np.array(g.answers, dtype=object)
        self._board_codes = g.guess_codes.astype(np.int64) + 1
        self._all = np.arange(self.num_envs, dtype=np.int64)
        self._offsets = np.arange(self._length, dtype=np.int64)
        self._solved = g.solved_pattern

        n = self.num_envs
        self._answer = np.zeros(n, dtype=np.int64)
        self._attempt = np.zeros(n, dtype=np.int64)
        self._done = np.ones(n, dtype=bool)
        self._board = np.zeros((n, self._cells), dtype=np.int64)
        self._tiles = np.zeros((n, self._cells), dtype=np.int64)
        self._n_candidates = np.full(n, self._n_answers, dtype=np.int64)
        # candidate lists: sub-game i's candidates are self._candidates[i, :self._n_candidates[i]]
        self._candidates = (
            np.tile(np.arange(self._n_answers, dtype=np.int32), (n, 1)) if self.track_candidates else None
        )
        self._no_candidates = np.zeros((n, 1), dtype=np.int32)
        self._hard: list[HardModeRule | None] = [None] * n
        self._autoreset = np.zeros(n, dtype=bool)
        self._rngs: list[np.random.Generator | None] = [None] * n
        self._rng_seeds: list[int | None] = [None] * n
        self._pool: np.ndarray | None = None  # None: every answer
        self._pool_list = np.arange(self._n_answers, dtype=np.int32)
        self._log_pool = math.log(self._n_answers) if self._n_answers > 1 else 1.0
        self._mask_pool = _MaskPool((self.num_envs, self._n_guesses))

    # ---- read-only views ------------------------------------------------------------------------
    @property
    def guesses(self) -> tuple[str, ...]:
        """The guess vocabulary; actions index it."""
        return self.game.guesses

    @property
    def answers(self) -> tuple[str, ...]:
        """The possible answers."""
        return self.game.answers

    @property
    def answer_pool(self) -> np.ndarray:
        """Indices into :attr:`answers` that new games draw from (every answer by default)."""
        return np.arange(self._n_answers) if self._pool is None else self._pool.copy()

    @property
    def current_answers(self) -> np.ndarray:
        """The hidden answer index of every sub-game (a copy)."""
        return self._answer.copy()

    def candidate_masks(self) -> np.ndarray:
        """``(num_envs, n_answers)`` bool: answers still consistent with each sub-game's tiles."""
        if self._candidates is None:
            raise RuntimeError("candidate sets are not tracked (track_candidates=False)")
        masks = np.zeros((self.num_envs, self._n_answers), dtype=bool)
        for i in range(self.num_envs):
            masks[i, self._candidates[i, : self._n_candidates[i]]] = True
        return masks

    # ---- curriculum ----------------------------------------------------------------------------
    def set_answer_pool(self, pool: Sequence[int] | np.ndarray | None) -> None:
        """Make new games draw their answers from ``pool`` (indices into :attr:`answers`).

        ``None`` restores the full answer list. Games in progress keep their answer.
        """
        if pool is None:
            self._pool = None
            self._pool_list = np.arange(self._n_answers, dtype=np.int32)
            self._log_pool = math.log(self._n_answers) if self._n_answers > 1 else 1.0
            return
        arr = np.unique(np.asarray(pool, dtype=np.int64))
        if arr.size == 0:
            raise ValueError("the answer pool must contain at least one answer")
        if arr[0] < 0 or arr[-1] >= self._n_answers:
            raise ValueError(f"answer pool indices must be in 0..{self._n_answers - 1}")
        self._pool = None if arr.size == self._n_answers else arr
        self._pool_list = arr.astype(np.int32)
        self._log_pool = math.log(arr.size) if arr.size > 1 else 1.0

    # ---- masks ---------------------------------------------------------------------------------
    def _masks(self, dtype: type = np.int8) -> np.ndarray:
        """Fresh writeable masks (``dtype``): 1 where allowed, all 0 for ended games."""
        masks = np.ones((self.num_envs, self._n_guesses), dtype=dtype)
        self._write_rules(masks)
        masks[self._done] = 0
        return masks

    def _write_rules(self, masks: np.ndarray) -> bool:
        """Write the hard-mode rows into ``masks``; True if any rule restricts a game."""
        wrote = False
        if self.game.hard_mode:
            for i, rule in enumerate(self._hard):
                if rule is not None and rule.active:
                    masks[i] = rule.legal_mask()
                    wrote = True
        return wrote

    def _observation_masks(self) -> np.ndarray:
        """The masks of an observation: read-only int8, recycled (see :class:`_MaskPool`)."""
        slot, masks = self._mask_pool.get()
        previous = self._mask_pool.previous(slot)
        done = self._done
        restricted = self.game.hard_mode and any(r is not None and r.active for r in self._hard)
        if previous is None or restricted:
            masks.fill(1)
            self._write_rules(masks)
            masks[done] = 0
        else:  # only the rows of games that ended or started since this array was last written
            changed = previous != done
            if changed.any():
                masks[changed & done] = 0
                masks[changed & ~done] = 1
        return self._mask_pool.publish(slot, masks, None if restricted else done)

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n_guesses)`` bool mask of allowed actions (what MaskablePPO asks for)."""
        return self._masks(bool)

    # ---- gymnasium vector API ------------------------------------------------------------------
    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start new games.

        Args:
            seed: ``None`` (keep each sub-game's generator, creating it from fresh entropy the
                first time), an int (sub-game ``i`` is seeded with ``seed + i``, like
                ``SyncVectorEnv``) or a list of ``num_envs`` ints/None.
            options: ``{"answer": a}`` fixes the answer: ``a`` is a string or index used for
                every reset sub-game, or a sequence with one entry per sub-game. ``{"reset_mask":
                bool array}`` resets only the marked sub-games (the others keep playing).
        """
        if seed is not None and not isinstance(seed, (int, np.integer)):
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"a list of seeds must have num_envs={self.num_envs} entries, got {len(seeds)}")
        elif seed is None:
            seeds = [None] * self.num_envs
        else:
            seeds = [int(seed) + i for i in range(self.num_envs)]
        super().reset(seed=None if seed is None else seeds[0])
        options = dict(options or {})
        unknown = set(options) - set(RESET_OPTIONS)
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; supported: {list(RESET_OPTIONS)}")
        if options.get("reset_mask") is not None:
            mask = options["reset_mask"]
            if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
                raise TypeError(f"options['reset_mask'] must be a bool numpy array of shape ({self.num_envs},)")
            if not mask.any():
                raise ValueError("options['reset_mask'] must select at least one sub-game")
            idx = np.flatnonzero(mask)
        else:
            idx = np.arange(self.num_envs)
        for i in idx:
            if seeds[i] is not None or self._rngs[i] is None:
                self._rngs[i], self._rng_seeds[i] = seeding.np_random(seeds[i])
        answers = self._answers_option(options.get("answer"), idx)
        self._start_games(idx, answers)
        self._autoreset[idx] = False
        obs = self._observations()
        info = self._reset_infos(np.isin(np.arange(self.num_envs), idx), obs["action_mask"])
        return obs, info

    def step(
        self, actions: np.ndarray | Sequence[int]
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one guess in every sub-game (sub-games that ended last step start anew instead)."""
        actions = self._check_actions(actions)
        resetting = self._autoreset
        if resetting.any():
            idx = np.flatnonzero(resetting)
            self._start_games(idx, None)
            play = np.flatnonzero(~resetting)
        else:
            play = None
        rewards, terminated, patterns, invalid, reasons = self._play(actions, play)
        truncated = np.zeros(self.num_envs, dtype=bool)
        self._autoreset = terminated.copy()
        obs = self._observations()
        info = self._step_infos(actions, patterns, invalid, reasons, resetting, obs["action_mask"])
        return obs, rewards, terminated, truncated, info

    def render(self) -> tuple[Any, ...] | None:
        """One frame per sub-game: ANSI text or an RGB array, depending on ``render_mode``."""
        if self.render_mode is None:
            gym.logger.warn("render() was called without a render_mode; pass render_mode='ansi' or 'rgb_array'")
            return None
        from . import render as rendering

        frames = []
        for i in range(self.num_envs):
            rows = self.board_rows(i)
            if self.render_mode == "rgb_array":
                frames.append(rendering.board_image(rows, self.game.length, self.game.max_attempts, self.game.kind))
            else:
                frames.append(rendering.board_ansi(rows, self.game.length, self.game.max_attempts, self.game.kind))
        return tuple(frames)

    def board_rows(self, index: int) -> list[tuple[str, str]]:
        """The guesses played in sub-game ``index`` with their tile strings, oldest first."""
        rows = []
        alphabet = self.game.alphabet
        for r in range(int(self._attempt[index])):
            cells = slice(r * self._length, (r + 1) * self._length)
            text = "".join(alphabet[c - 1] for c in self._board[index, cells])
            tiles = "".join("BYG"[t - 1] for t in self._tiles[index, cells])
            rows.append((text, tiles))
        return rows

    # ---- engine (also used by the stable-baselines3 adapter) ---------------------------------
    def _check_actions(self, actions: np.ndarray | Sequence[int]) -> np.ndarray:
        arr = np.asarray(actions)
        if arr.shape != (self.num_envs,):
            arr = arr.reshape(-1) if arr.size == self.num_envs else arr
        if arr.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions (one per sub-game), got shape {np.shape(actions)}")
        if arr.dtype.kind not in "iu":
            if arr.dtype.kind == "f" and np.all(np.mod(arr, 1) == 0):
                arr = arr.astype(np.int64)
            else:
                raise ValueError(f"actions must be integers indexing the guesses, got dtype {arr.dtype}")
        arr = arr.astype(np.int64, copy=False)
        bad = (arr < 0) | (arr >= self._n_guesses)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"action {int(arr[i])} of sub-game {i} is outside the action space Discrete({self._n_guesses}): "
                f"expected integers 0..{self._n_guesses - 1}"
            )
        return arr

    def _answers_option(self, answer: Any, idx: np.ndarray) -> np.ndarray | None:
        if answer is None:
            return None
        if isinstance(answer, (str, int, np.integer)) and not isinstance(answer, bool):
            return np.array([self._answer_index(answer)] * len(idx), dtype=np.int64)
        values = list(answer)
        if len(values) == self.num_envs:
            values = [values[i] for i in idx]
        elif len(values) != len(idx):
            raise ValueError(
                f"options['answer'] needs one entry per sub-game ({self.num_envs}) or per reset sub-game ({len(idx)})"
            )
        return np.array([self._answer_index(a) for a in values], dtype=np.int64)

    def _answer_index(self, answer: Any) -> int:
        if isinstance(answer, (int, np.integer)) and not isinstance(answer, bool):
            if not 0 <= int(answer) < self._n_answers:
                raise ValueError(f"answer index {answer} is out of range; expected 0..{self._n_answers - 1}")
            return int(answer)
        if isinstance(answer, str):
            key = self.game.normalize_guess(answer)
            if key not in self.game.answer_index:
                raise ValueError(f"answer {answer!r} is not in this game's answer list ({self._n_answers} answers)")
            return self.game.answer_index[key]
        raise TypeError(f"answer must be a string or an int index, got {type(answer).__name__}")

    def _start_games(self, idx: np.ndarray, answers: np.ndarray | None) -> None:
        """Start new games in sub-games ``idx``, drawing answers unless given."""
        if answers is None:
            pool = self._pool
            answers = np.empty(len(idx), dtype=np.int64)
            for k, i in enumerate(idx):
                rng = self._rngs[i]
                if rng is None:
                    rng, self._rng_seeds[i] = seeding.np_random(None)
                    self._rngs[i] = rng
                answers[k] = rng.integers(self._n_answers) if pool is None else pool[rng.integers(len(pool))]
        self._answer[idx] = answers
        self._attempt[idx] = 0
        self._done[idx] = False
        self._board[idx] = 0
        self._tiles[idx] = 0
        if self._candidates is not None:
            self._candidates[idx, : len(self._pool_list)] = self._pool_list
            self._n_candidates[idx] = len(self._pool_list)
        else:
            self._n_candidates[idx] = -1
        if self.game.hard_mode:
            for i in idx:
                self._hard[int(i)] = HardModeRule(self.game)

    def _play(
        self, actions: np.ndarray, play: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """Apply ``actions`` to the sub-games ``play`` (all if None). Returns per-sub-game arrays:
        rewards, terminated, patterns (-1 where none), invalid flags, reasons (object or None)."""
        n = self.num_envs
        rewards = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=bool)
        patterns = np.full(n, -1, dtype=np.int64)
        invalid = np.zeros(n, dtype=bool)
        reasons: np.ndarray | None = None
        idx = self._all if play is None else play
        if idx.size == 0:
            return rewards, terminated, patterns, invalid, reasons
        if self._done[idx].any():
            raise RuntimeError("a sub-game was stepped after its game ended without a reset")
        a = actions[idx]
        if self.game.hard_mode:
            bad = []
            reasons = np.full(n, "", dtype=object)
            for k, i in enumerate(idx):
                rule = self._hard[int(i)]
                if rule is not None and not rule.legal_mask()[a[k]]:
                    reason = rule.violation(int(a[k]))
                    if reason is not None:
                        bad.append(k)
                        invalid[i] = True
                        reasons[i] = f"hard mode: {self.game.guesses[int(a[k])]!r} is not allowed: {reason}"
            if bad:
                rewards[idx[bad]] = self.invalid_action_penalty
                keep = np.ones(len(idx), dtype=bool)
                keep[bad] = False
                idx, a = idx[keep], a[keep]
                if idx.size == 0:
                    return rewards, terminated, patterns, invalid, reasons
        dense = self.matrix.dense
        step_reward = np.full(len(idx), -self.step_penalty, dtype=np.float64)
        tracking = self._candidates is not None
        before = self._n_candidates[idx] if tracking else None
        if dense is not None:
            p = np.empty(len(idx), dtype=np.int64)
            candidates = self._candidates if tracking else self._no_candidates
            _advance(
                dense,
                idx,
                a,
                self._answer,
                self._attempt,
                self._board,
                self._tiles,
                self._board_codes,
                self._pattern_tiles,
                candidates,
                self._n_candidates,
                tracking,
                p,
            )
        else:  # on-demand pattern matrix (too large to hold): row by row
            ans = self._answer[idx]
            p = np.array([self.matrix.pattern(int(g), int(t)) for g, t in zip(a, ans)], dtype=np.int64)
            cols = self._attempt[idx][:, None] * self._length + self._offsets
            self._board[idx[:, None], cols] = self._board_codes[a]
            self._tiles[idx[:, None], cols] = self._pattern_tiles[p]
            self._attempt[idx] += 1
            if tracking:
                for k, i in enumerate(idx):
                    current = self._candidates[i, : self._n_candidates[i]]
                    kept = current[self.matrix.row(int(a[k]))[current] == p[k]]
                    self._candidates[i, : len(kept)] = kept
                    self._n_candidates[i] = len(kept)
        patterns[idx] = p
        if tracking and self.reward_mode == "shaped":
            after = self._n_candidates[idx]
            step_reward += (np.log(before) - np.log(np.maximum(after, 1))) / self._log_pool
        if self.game.hard_mode:
            for k, i in enumerate(idx):
                self._hard[int(i)].add(int(a[k]), int(p[k]))  # type: ignore[union-attr]
        won = p == self._solved
        ended = won | (self._attempt[idx] >= self.game.max_attempts)
        step_reward += np.where(won, self.win_reward, np.where(ended, self.loss_reward, 0.0))
        rewards[idx] = step_reward
        terminated[idx] = ended
        self._done[idx] = ended
        return rewards, terminated, patterns, invalid, reasons

    def _observations(self, with_mask: bool = True) -> dict[str, np.ndarray]:
        obs = {"board": self._board.copy(), "tiles": self._tiles.copy()}
        if with_mask:
            obs["action_mask"] = self._observation_masks()
        return obs

    # ---- infos (dicts of arrays, as SyncVectorEnv builds them) --------------------------------
    def _reset_infos(self, present: np.ndarray, masks: np.ndarray) -> dict[str, Any]:
        n = self.num_envs
        info: dict[str, Any] = {
            "attempt": np.where(present, self._attempt, 0),
            "guess": np.where(present, "", None).astype(object),
            "tiles": np.where(present, "", None).astype(object),
            "pattern": np.where(present, -1, 0).astype(np.int64),
            "candidates": np.where(present, self._n_candidates, 0),
            "invalid_action": np.zeros(n, dtype=bool),
            "invalid_reason": np.where(present, "", None).astype(object),
            "action_mask": masks if present.all() else masks * present[:, None].astype(np.int8),
        }
        return self._with_presence(info, present)

    def _step_infos(
        self,
        actions: np.ndarray,
        patterns: np.ndarray,
        invalid: np.ndarray,
        reasons: np.ndarray | None,
        resetting: np.ndarray,
        masks: np.ndarray,
    ) -> dict[str, Any]:
        n = self.num_envs
        # both string tables end with "" so that index -1 (nothing played) reads as ""
        info: dict[str, Any] = {
            "attempt": self._attempt.copy(),
            "guess": self._guess_strings[np.where(patterns >= 0, actions, -1)],
            "tiles": self._tile_strings[patterns],
            "pattern": patterns,
            "candidates": self._n_candidates.copy(),
            "invalid_action": invalid,
            "invalid_reason": reasons if reasons is not None else np.full(n, "", dtype=object),
            "action_mask": masks,
        }
        info = self._with_presence(info, np.ones(n, dtype=bool))
        ended = self._done & ~resetting
        if ended.any():
            answer = np.full(n, None, dtype=object)
            answer[ended] = self._answer_strings[self._answer[ended]]
            info["answer"] = answer
            info["_answer"] = ended.copy()
        return info

    @staticmethod
    def _with_presence(info: dict[str, Any], present: np.ndarray) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in info.items():
            out[key] = value
            out["_" + key] = present.copy()
        return out

    # ---- state, for checkpoints ----------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        """Everything needed to continue exactly from here (arrays copied, generators' states)."""
        return {
            "game_fingerprint": self.game.fingerprint,
            "answer": self._answer.copy(),
            "attempt": self._attempt.copy(),
            "done": self._done.copy(),
            "board": self._board.copy(),
            "tiles": self._tiles.copy(),
            "n_candidates": self._n_candidates.copy(),
            "candidates": None
            if self._candidates is None
            else [self._candidates[i, : self._n_candidates[i]].copy() for i in range(self.num_envs)],
            "hard": [None if r is None else r.copy() for r in self._hard],
            "autoreset": self._autoreset.copy(),
            "rngs": [None if r is None else r.bit_generator.state for r in self._rngs],
            "rng_seeds": list(self._rng_seeds),
            "pool": None if self._pool is None else self._pool.copy(),
        }

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore a state returned by :meth:`get_state` (same game and ``num_envs``)."""
        if state["game_fingerprint"] != self.game.fingerprint:
            raise ValueError("the saved vector-env state belongs to a different game")
        if len(state["answer"]) != self.num_envs:
            raise ValueError(f"the saved state has {len(state['answer'])} sub-games, this env has {self.num_envs}")
        self._answer[:] = state["answer"]
        self._attempt[:] = state["attempt"]
        self._done[:] = state["done"]
        self._board[:] = state["board"]
        self._tiles[:] = state["tiles"]
        self._n_candidates[:] = state["n_candidates"]
        if self._candidates is not None:
            if state["candidates"] is None:
                raise ValueError("the saved state has no candidate sets but this env tracks them")
            for i, kept in enumerate(state["candidates"]):
                self._candidates[i, : len(kept)] = kept
        self._hard = [None if r is None else r.copy() for r in state["hard"]]
        self._autoreset[:] = state["autoreset"]
        rngs: list[np.random.Generator | None] = []
        for s in state["rngs"]:
            if s is None:
                rngs.append(None)
            else:
                rng, _ = seeding.np_random(0)
                rng.bit_generator.state = s
                rngs.append(rng)
        self._rngs = rngs
        self._rng_seeds = list(state["rng_seeds"])
        self.set_answer_pool(state["pool"])

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["matrix"] = None  # rebuilt from the disk cache on unpickling
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.matrix = PatternMatrix.for_game(self.game, cache=self.matrix_cache)


def make_batched(num_envs: int = 1, **kwargs: Any) -> BatchedGuessEnv:
    """Vector entry point for ``gymnasium.register(..., vector_entry_point="guessgym.envs.vector:make_batched")``.

    ``gymnasium.make_vec(id, num_envs, vectorization_mode="vector_entry_point")`` calls it with the
    id's keyword arguments (``kind``, ``length``, ...).
    """
    kwargs.pop("max_episode_steps", None)  # games end by their own rules
    return BatchedGuessEnv(num_envs, **kwargs)


def single_env_like(venv: BatchedGuessEnv) -> GuessEnv:
    """A :class:`GuessEnv` with the same game and reward settings as ``venv`` (for checks)."""
    return GuessEnv(
        game=venv.game,
        reward_mode=venv.reward_mode,
        win_reward=venv.win_reward,
        loss_reward=venv.loss_reward,
        step_penalty=venv.step_penalty,
        invalid_action_penalty=venv.invalid_action_penalty,
        matrix_cache=venv.matrix_cache,
    )


__all__ = ["BatchedGuessEnv", "make_batched", "single_env_like", "RESET_OPTIONS"]
