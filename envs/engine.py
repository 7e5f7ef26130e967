"""The game engine: the state of N games of one :class:`~guessgym.envs.game.Game` and the rules of a step.

Every rule of a step lives here, once: answer lookup, hard-mode rejection, scoring through the
pattern matrix, the board and tile rows, candidate filtering, attempts, rewards and the end of a
game. :class:`~guessgym.envs.env.GuessEnv` is this engine with ``num_games=1``;
:class:`~guessgym.envs.vector.BatchedGuessEnv` (and through it the stable-baselines3 adapter) is the
same engine with many games. The adapters only draw answers, build observations and infos, and
auto-reset (Gymnasium's functional-env design: one transition core, thin single and batched
wrappers).

A step of any number of games is one compiled (numba) call, whose argument list is kept short on
purpose: numba's dispatch costs about 0.1 microsecond per argument, which matters when a single
environment makes well over a hundred thousand steps a second. Everything a game is made of
(answer, attempt, done flag, candidate count, board, tiles, history) is therefore one int64 row of
:attr:`GameEngine.state` (the attributes ``status``, ``board``, ``tiles`` and ``history`` are views
of it), the two lookup tables one array, and the settings one float vector.

Examples:
    >>> import numpy as np
    >>> from guessgym.envs.game import nerdle
    >>> engine = GameEngine(nerdle(6), num_games=2)
    >>> engine.start(np.array([0, 1]), np.array([5, 7]))
    >>> step = engine.play(np.array([5, 0]))
    >>> step.terminated.tolist(), step.rewards.tolist(), engine.attempt.tolist()
    ([True, False], [1.0, 0.0], [1, 1])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numba import njit

from .answer_stream import AnswerStream
from .candidates import HardModeRule, filter_candidates
from .game import GAME_KEYS, Game, make_game
from .hosts import HOSTS, host_choice
from .matrix import PatternMatrix
from .options import check_bool, check_choice
from .rewards import REWARD_KEYS, REWARD_MODES, RewardConfig, RewardMode
from .scoring import pattern_to_tiles

# Columns of GameEngine.status (the first four of a game's state row; the board starts at BOARD).
ANSWER, ATTEMPT, DONE, COUNT = 0, 1, 2, 3
BOARD = 4
# Entries of the float parameter vector of the kernels.
_WIN, _LOSS, _STEP, _LOG_POOL, _SHAPED, _TRACK, _SOLVED, _MAX_ATTEMPTS, _N_GUESSES, _CELLS = range(10)
_N_PARAMS = 10



@dataclass
class StepResult:
    """What one step did to each of the games it was asked to play (arrays of length N).

    Attributes:
        rewards: float64 rewards (0 for games not played).
        terminated: the games that ended with this step.
        patterns: the feedback pattern of each played guess (-1 where none was played).
        invalid: the guesses rejected by hard mode (they use no attempt).
        reasons: why each was rejected (object array of str), or ``None`` if none could be.
    """

    rewards: np.ndarray
    terminated: np.ndarray
    patterns: np.ndarray
    invalid: np.ndarray
    reasons: np.ndarray | None


@njit(cache=True, nogil=True, inline="always")
def _play_game(
    row: np.ndarray, i: int, a: int, state: np.ndarray, tables: np.ndarray, candidates: np.ndarray, params: np.ndarray
) -> tuple[float, int, bool]:  # pragma: no cover - compiled
    """The rule of a step, for guess ``a`` in game ``i`` whose pattern row is ``row``.

    Writes the board and tile rows and the history (while the board has rows), the candidates (if
    tracked), the attempt and done flag into ``state[i]``; returns ``(reward, pattern, ended)``.
    The pattern is the guess's against the game's answer: who picks that answer is the engine's
    ``host`` (fixed at the start, or re-picked before every step by the Absurdle host). ``tables`` holds the board
    symbols of every guess, then the tiles of every pattern (from row ``params[_N_GUESSES]``).
    """
    game = state[i]
    length = tables.shape[1]
    cells = np.int64(params[_CELLS])
    p = np.int64(row[game[ANSWER]])
    turn = game[ATTEMPT]
    start = BOARD + turn * length
    if start < BOARD + cells:  # a row left on the board (a game without a limit shows its first rows)
        tiles_row = np.int64(params[_N_GUESSES]) + p
        for c in range(length):
            game[start + c] = tables[a, c]
            game[start + cells + c] = tables[tiles_row, c]
        history = BOARD + 2 * cells + 2 * turn
        game[history] = a
        game[history + 1] = p
    turn += 1
    game[ATTEMPT] = turn
    reward = 0.0 + params[_STEP]  # step_penalty (0 or negative); 0.0 + x: no reward of -0.0
    if params[_TRACK] > 0.0:
        before = game[COUNT]
        after = filter_candidates(row, candidates[i], before, p)
        game[COUNT] = after
        if params[_SHAPED] > 0.0:
            reward += (math.log(before) - math.log(max(after, 1))) / params[_LOG_POOL]
    won = p == np.int64(params[_SOLVED])
    ended = won or turn >= params[_MAX_ATTEMPTS]  # a float: infinite for a game without a limit
    if won:
        reward += params[_WIN]
    elif ended:
        reward += params[_LOSS]
    game[DONE] = ended
    return reward, p, ended


@njit(cache=True, nogil=True)
def _play_kernel(
    rows: np.ndarray, row_of: np.ndarray, idx: np.ndarray, actions: np.ndarray, state: np.ndarray,
    tables: np.ndarray, candidates: np.ndarray, params: np.ndarray, rewards: np.ndarray, patterns: np.ndarray,
    terminated: np.ndarray,
) -> int:  # pragma: no cover - compiled
    """Play ``actions[k]`` in game ``idx[k]`` (pattern row ``rows[row_of[k]]``) for every ``k``;
    ``rewards``, ``patterns`` and ``terminated`` (one entry per game) receive the results. Returns
    the number of games in ``idx`` that had already ended; if any, nothing is played."""
    ended_before = 0
    for k in range(idx.shape[0]):
        ended_before += state[idx[k], DONE] != 0
    if ended_before:
        return ended_before
    for k in range(idx.shape[0]):
        i = idx[k]
        reward, p, ended = _play_game(rows[row_of[k]], i, actions[k], state, tables, candidates, params)
        rewards[i] = reward
        patterns[i] = p
        terminated[i] = ended
    return 0


@njit(cache=True, nogil=True)
def _play_one_kernel(
    rows: np.ndarray, r: int, i: int, a: int, state: np.ndarray, tables: np.ndarray, candidates: np.ndarray,
    params: np.ndarray,
) -> tuple[float, int, bool, int, int]:  # pragma: no cover - compiled
    """:func:`_play_game` for one game, with scalars in and out (no plan or result arrays):
    ``(reward, pattern, ended, attempt, candidates)``; pattern -2 if the game had already ended."""
    if state[i, DONE]:
        return 0.0, -2, False, state[i, ATTEMPT], state[i, COUNT]
    reward, p, ended = _play_game(rows[r], i, a, state, tables, candidates, params)
    return reward, p, ended, state[i, ATTEMPT], state[i, COUNT]


@njit(cache=True, nogil=True, inline="always")
def _start_game(
    i: int, answer: int, state: np.ndarray, candidates: np.ndarray, pool: np.ndarray, params: np.ndarray
) -> None:  # pragma: no cover - compiled
    """A new game in slot ``i``: empty board, every pool answer a candidate (if tracked)."""
    game = state[i]
    for j in range(game.shape[0]):
        game[j] = 0
    game[ANSWER] = answer
    if params[_TRACK] > 0.0:
        # explicit loops: numba's slice assignment is about 3x slower than numpy's copy here
        row = candidates[i]
        for j in range(pool.shape[0]):
            row[j] = pool[j]
        game[COUNT] = pool.shape[0]
    else:
        game[COUNT] = -1


@njit(cache=True, nogil=True)
def _start_kernel(
    idx: np.ndarray, answers: np.ndarray, state: np.ndarray, candidates: np.ndarray, pool: np.ndarray,
    params: np.ndarray,
) -> None:  # pragma: no cover - compiled
    for k in range(idx.shape[0]):
        _start_game(idx[k], answers[k], state, candidates, pool, params)


@njit(cache=True, nogil=True)
def _start_one_kernel(
    i: int, answer: int, state: np.ndarray, candidates: np.ndarray, pool: np.ndarray, params: np.ndarray
) -> None:  # pragma: no cover - compiled
    _start_game(i, answer, state, candidates, pool, params)


class GameEngine:
    """The state of ``num_games`` games of one :class:`~guessgym.envs.game.Game`, and their rules.

    Args:
        game: the game every slot plays.
        num_games: how many games are held (1 for a single environment).
        rewards: the reward settings (default :class:`RewardConfig`).
        matrix_cache: keep the pattern matrix in the disk cache (default True).
        build_matrix: compute the whole pattern matrix if it is not in memory or the disk cache
            (default True: the fastest steps); ``False`` computes each guess's row when it is
            played (the chat game, whose server is then ready at once). The patterns are the same.
        track_candidates: keep every game's candidate set (default True). Needed for the
            candidate count and shaped rewards; training with sparse rewards may turn it off.
        host: who picks the answer (:data:`HOSTS`): ``"fixed"`` (default) or ``"absurdle"``.
        attempt_limit: guesses after which a game ends unless won; ``None`` for no limit (the
            board then shows the first ``game.max_attempts`` guesses). Default: the game's.

    Attributes:
        state: ``(num_games, 4 + 2 * cells + 2 * max_attempts)`` int64, one row per game; the
            following are views of it.
        status: ``(num_games, 4)``: answer index, attempts used, done flag, candidate count
            (``-1`` when candidates are not tracked); also read through the properties.
        board: ``(num_games, cells)``: 0 empty, ``k + 1`` is ``alphabet[k]`` (``cells =
            max_attempts * length``).
        tiles: ``(num_games, cells)``: 0 empty, 1 grey, 2 yellow, 3 green.
        history: ``(num_games, max_attempts, 2)``: (action, pattern) of each valid guess.
    """

    def __init__(
        self,
        game: Game,
        num_games: int = 1,
        *,
        rewards: RewardConfig | None = None,
        matrix_cache: bool = True,
        track_candidates: bool = True,
        host: str = "fixed",
        attempt_limit: int | None | Literal["game"] = "game",
        build_matrix: bool = True,
    ) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        self.host = check_choice("host", host, HOSTS)
        #: Guesses after which a game ends unless won (``None``: never; default the game's own).
        self.attempt_limit = game.max_attempts if attempt_limit == "game" else attempt_limit
        if self.host == "absurdle" and (game.hard_mode or not track_candidates):
            raise ValueError("the Absurdle host needs the candidate sets and is not defined for hard mode")
        self.game = game
        self.num_games = n = int(num_games)
        self.rewards = rewards if rewards is not None else RewardConfig()
        self.matrix_cache = bool(matrix_cache)
        self.track_candidates = bool(track_candidates)
        if self.rewards.shaped and not self.track_candidates:
            raise ValueError("reward_mode='shaped' needs the candidate sets: keep track_candidates=True")
        self.build_matrix = bool(build_matrix)
        self.matrix = PatternMatrix.for_game(game, cache=self.matrix_cache, build=self.build_matrix)
        self._dense = self.matrix.dense
        self._hard_mode = game.hard_mode

        length, cells = game.length, game.max_attempts * game.length
        self.n_guesses = len(game.guesses)
        self.n_answers = len(game.answers)
        # Lookup tables: the board symbols of every guess, then the tiles of every pattern code
        # (both +1, as on the board); and the tile strings of every pattern code.
        codes = np.arange(3**length, dtype=np.int64)
        pattern_tiles = np.stack([codes // 3**i % 3 for i in range(length)], axis=1) + 1
        self.tables = np.concatenate([game.guess_codes.astype(np.int64) + 1, pattern_tiles])
        #: Tile strings by pattern code; the extra last entry ``""`` is what index -1 reads.
        self.tile_strings: tuple[str, ...] = (*(pattern_to_tiles(int(p), length) for p in codes), "")

        self.cells = cells
        width = BOARD + 2 * cells + 2 * game.max_attempts
        kept = self.n_answers if self.track_candidates else 1
        try:
            self.state = np.zeros((n, width), dtype=np.int64)
            # Game i's candidates are candidates[i, :status[i, COUNT]], in answer order.
            self.candidates = np.zeros((n, kept), dtype=np.int32)
        except MemoryError:
            need = n * (8 * width + 4 * kept)
            raise ValueError(f"{n:,} games of {game.name} need {need / 2**30:,.1f} GiB for their boards and "
                             "candidates, more than can be allocated; use fewer games") from None
        self.state[:, DONE] = 1
        self.hard: list[HardModeRule | None] = [None] * n
        self.pool: np.ndarray | None = None
        self._pool_list = np.arange(self.n_answers, dtype=np.int32)
        self._params = np.zeros(_N_PARAMS, dtype=np.float64)
        self._set_params()
        self._views()
        self._all = np.arange(n, dtype=np.int64)
        # Masks handed out while a game runs (easy mode) or after it ended: shared and read-only.
        self._allowed = np.ones(self.n_guesses, dtype=np.int8)
        self._none = np.zeros(self.n_guesses, dtype=np.int8)
        self._allowed.flags.writeable = False
        self._none.flags.writeable = False

    @classmethod
    def from_options(
        cls,
        num_games: int = 1,
        *,
        game: Game | None = None,
        matrix_cache: bool = True,
        track_candidates: bool = True,
        build_matrix: bool = True,
        **options: Any,
    ) -> GameEngine:
        """Build an engine from environment keyword arguments.

        ``options`` are the game's (``kind``, ``length``, ``word_list``, ``answers``, ``guesses``,
        ``max_attempts``, ``hard_mode``; ignored beside a ready ``game``, which is how
        ``gymnasium.make(id, game=...)`` overrides the id's own) and the reward's
        (:class:`RewardConfig` fields).

        Raises:
            TypeError: for an unknown keyword argument (the message lists the allowed ones).
        """
        unknown = sorted(set(options) - set(GAME_KEYS) - set(REWARD_KEYS))
        if unknown:
            allowed = ["game", *GAME_KEYS, *REWARD_KEYS, "matrix_cache"]
            raise TypeError(f"unknown environment argument(s) {unknown}; allowed: {', '.join(allowed)}")
        matrix_cache = check_bool("matrix_cache", matrix_cache)
        track_candidates = check_bool("track_candidates", track_candidates)
        game_options = {k: v for k, v in options.items() if k in GAME_KEYS}
        if game is None:
            game = make_game(**game_options)
        elif not isinstance(game, Game):
            raise TypeError(f"game must be a guessgym Game (see guessgym.envs.make_game), got {type(game).__name__}")
        rewards = RewardConfig(**{k: v for k, v in options.items() if k in REWARD_KEYS})
        return cls(game, num_games, rewards=rewards, matrix_cache=matrix_cache, track_candidates=track_candidates,
                   build_matrix=check_bool("build_matrix", build_matrix))

    def options(self) -> dict[str, Any]:
        """The keyword arguments that rebuild an engine with this game and these settings."""
        return {
            "game": self.game,
            "matrix_cache": self.matrix_cache,
            **{k: getattr(self.rewards, k) for k in REWARD_KEYS},
        }

    def _set_params(self) -> None:
        r, g, pool = self.rewards, self.game, len(self._pool_list)
        self._params[:] = (
            r.win_reward, r.loss_reward, r.step_penalty, math.log(pool) if pool > 1 else 1.0,
            float(r.shaped), float(self.track_candidates), float(g.solved_pattern),
            math.inf if self.attempt_limit is None else float(self.attempt_limit),
            float(self.n_guesses), float(self.cells),
        )

    def _views(self) -> None:
        """The named views of :attr:`state` (rebuilt after unpickling, which copies arrays)."""
        cells, state = self.cells, self.state
        self.status = state[:, :BOARD]
        self.board = state[:, BOARD : BOARD + cells]
        self.tiles = state[:, BOARD + cells : BOARD + 2 * cells]
        self.history = state[:, BOARD + 2 * cells :].reshape(self.num_games, self.game.max_attempts, 2)
        # the trailing arguments of every one-game kernel call, looked up once
        self._kernel_state = (self.state, self.tables, self.candidates, self._params)

    # ---- views of the state ---------------------------------------------------------------------
    @property
    def answer(self) -> np.ndarray:
        """Hidden answer index of every game (a view)."""
        return self.status[:, ANSWER]

    @property
    def attempt(self) -> np.ndarray:
        """Valid guesses played in every game (a view)."""
        return self.status[:, ATTEMPT]

    def candidates_of(self, i: int) -> np.ndarray:
        """Indices into ``game.answers`` still consistent with game ``i``'s tiles (a copy)."""
        if not self.track_candidates:
            raise RuntimeError("candidate sets are not tracked (track_candidates=False)")
        return self.candidates[i, : self.status[i, COUNT]].astype(np.int64)

    def history_of(self, i: int) -> list[tuple[int, int]]:
        """(action, pattern) of every valid guess of game ``i``, oldest first."""
        return [(int(a), int(p)) for a, p in self.history[i, : self.status[i, ATTEMPT]]]

    def board_rows(self, i: int) -> list[tuple[str, str]]:
        """The guesses of game ``i`` with their tile strings, oldest first."""
        return [(self.game.guesses[a], self.tile_strings[p]) for a, p in self.history_of(i)]

    # ---- answers ----------------------------------------------------------------------------------
    def set_answer_pool(self, pool: np.ndarray | list[int] | None) -> None:
        """Make new games draw their answers from ``pool`` (indices into ``game.answers``).

        Candidate sets and the shaped reward of new games then count only pool answers: each
        game plays the game whose answer list is the pool. ``None`` restores the full list; games
        in progress keep their answer.
        """
        if pool is None:
            self.pool = None
            self._pool_list = np.arange(self.n_answers, dtype=np.int32)
        else:
            arr = np.unique(np.asarray(pool, dtype=np.int64))
            if arr.size == 0:
                raise ValueError("the answer pool must contain at least one answer")
            if arr[0] < 0 or arr[-1] >= self.n_answers:
                raise ValueError(f"answer pool indices must be in 0..{self.n_answers - 1}")
            self.pool = None if arr.size == self.n_answers else arr
            self._pool_list = arr.astype(np.int32)
        self._set_params()

    def draw_answer(self, stream: AnswerStream) -> int:
        """An answer index drawn uniformly from the pool with ``stream``."""
        if self.pool is None:
            return stream.draw(self.n_answers)
        return int(self.pool[stream.draw(len(self.pool))])

    # ---- the rules --------------------------------------------------------------------------------
    def start(self, idx: np.ndarray, answers: np.ndarray) -> None:
        """Start new games in slots ``idx`` with the given answer indices."""
        idx = np.asarray(idx, dtype=np.int64)
        _start_kernel(idx, np.asarray(answers, dtype=np.int64), self.state, self.candidates, self._pool_list,
                      self._params)
        if self._hard_mode:
            for i in idx:
                self.hard[int(i)] = HardModeRule(self.game)

    def start_one(self, i: int, answer: int) -> None:
        """Start a new game in slot ``i`` (the one-game fast path of :meth:`start`)."""
        _start_one_kernel(i, answer, self.state, self.candidates, self._pool_list, self._params)
        if self._hard_mode:
            self.hard[i] = HardModeRule(self.game)

    def violation(self, i: int, action: int) -> str | None:
        """Why hard mode rejects ``action`` in game ``i`` now (``None``: allowed, or easy mode)."""
        rule = self.hard[i]
        if rule is None or rule.legal_mask()[action]:
            return None
        reason = rule.violation(action)
        return None if reason is None else f"hard mode: {self.game.guesses[action]!r} is not allowed: {reason}"

    def play_one(self, i: int, action: int) -> tuple[float, bool, int, int, int, str | None]:
        """Play ``action`` in game ``i``.

        Returns ``(reward, terminated, pattern, attempt, candidates, invalid_reason)``: the
        one-game fast path of :meth:`play`, with the same rules and the same compiled rule. A
        guess that hard mode rejects returns the invalid-action penalty, pattern -1 and the
        reason, and changes nothing.

        Raises:
            RuntimeError: if game ``i`` has ended (or never started).
        """
        if self._hard_mode:
            if self.status[i, DONE]:
                raise RuntimeError("a game was stepped after it ended without a reset")
            reason = self.violation(i, action)
            if reason is not None:
                attempt, count = int(self.status[i, ATTEMPT]), int(self.status[i, COUNT])
                return self.rewards.invalid_action_penalty, False, -1, attempt, count, reason
        if self.host == "absurdle":
            self._host_picks(i, action)
        dense = self._dense
        if dense is not None:
            result = _play_one_kernel(dense, action, i, action, *self._kernel_state)
        else:  # the rule reads the pattern of the answer and of the candidates only: score just those
            read = (self.candidates[i, : self.status[i, COUNT]] if self.track_candidates
                    else self.state[i, ANSWER : ANSWER + 1])
            result = _play_one_kernel(self.matrix.row_over(action, read)[None, :], 0, i, action, *self._kernel_state)
        reward, pattern, ended, attempt, count = result
        if pattern == -2:
            raise RuntimeError("a game was stepped after it ended without a reset")
        if self._hard_mode:
            self.hard[i].add(action, pattern)  # type: ignore[union-attr]
        return reward, ended, pattern, attempt, count, None

    def play(self, actions: np.ndarray, idx: np.ndarray | None = None) -> StepResult:
        """Play ``actions[i]`` in every game ``i`` of ``idx`` (all games if ``None``).

        ``actions`` has one entry per game (entries of games not in ``idx`` are ignored) and must
        already be valid action indices. Returns per-game arrays (see :class:`StepResult`).

        Raises:
            RuntimeError: if a game in ``idx`` has already ended.
        """
        n = self.num_games
        rewards = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=bool)
        patterns = np.full(n, -1, dtype=np.int64)
        invalid = np.zeros(n, dtype=bool)
        reasons: np.ndarray | None = None
        if idx is None:
            idx, chosen = self._all, actions
        else:
            idx = np.asarray(idx, dtype=np.int64)
            chosen = actions[idx]
        if self._hard_mode and idx.size:
            if self.status[idx, DONE].any():
                raise RuntimeError("a game was stepped after it ended without a reset")
            reasons = np.full(n, "", dtype=object)
            keep = np.ones(idx.size, dtype=bool)
            for k, i in enumerate(idx):
                reason = self.violation(int(i), int(chosen[k]))
                if reason is not None:
                    keep[k] = False
                    invalid[i] = True
                    reasons[i] = reason
                    rewards[i] = self.rewards.invalid_action_penalty
            idx, chosen = idx[keep], chosen[keep]
        if idx.size:
            if self.host == "absurdle":
                if self.status[idx, DONE].any():
                    raise RuntimeError("a game was stepped after it ended without a reset")
                for k, i in enumerate(idx):
                    self._host_picks(int(i), int(chosen[k]))
            if self._dense is not None:
                rows, row_of = self._dense, chosen
            else:  # on-demand matrix (too large to hold): the rows of the guesses played, stacked
                unique, inverse = np.unique(chosen, return_inverse=True)
                rows = np.stack([self.matrix.row(int(a)) for a in unique])
                row_of = inverse.astype(np.int64)
            if _play_kernel(rows, row_of, idx, chosen, *self._kernel_state, rewards, patterns, terminated):
                raise RuntimeError("a game was stepped after it ended without a reset")
            if self._hard_mode:
                for k, i in enumerate(idx):
                    self.hard[int(i)].add(int(chosen[k]), int(patterns[i]))  # type: ignore[union-attr]
        return StepResult(rewards, terminated, patterns, invalid, reasons)

    def _host_picks(self, i: int, action: int) -> None:
        """The Absurdle host's move before guess ``action`` of game ``i``: the answer becomes one
        of the largest bucket the guess leaves (:func:`host_choice`); the step's rule then scores
        the guess against it and keeps that bucket as the candidates."""
        candidates = self.candidates[i, : self.status[i, COUNT]]
        patterns = self.matrix.row(action)[candidates].astype(np.int64)
        pattern = host_choice(patterns, self.game.length)
        self.state[i, ANSWER] = candidates[int(np.argmax(patterns == pattern))]

    # ---- masks ------------------------------------------------------------------------------------
    def restricted(self, i: int) -> bool:
        """Whether hard mode currently forbids some guesses in game ``i``."""
        rule = self.hard[i]
        return rule is not None and rule.active

    def mask(self, i: int, ended: bool | None = None) -> np.ndarray:
        """Game ``i``'s int8 mask of allowed guesses (1 allowed; all 0 once it ended).

        Read-only: outside hard-mode restrictions it is one of two arrays shared by every call.
        ``ended`` saves reading the done flag when the caller knows it.
        """
        if self.status[i, DONE] if ended is None else ended:
            return self._none
        rule = self.hard[i]
        if rule is None or not rule.active:
            return self._allowed
        mask = rule.legal_mask().astype(np.int8)
        mask.flags.writeable = False
        return mask

    def write_masks(self, out: np.ndarray) -> None:
        """Fill ``out`` (``(num_games, n_guesses)``) with every game's mask."""
        out[...] = 1
        for i, rule in enumerate(self.hard):
            if rule is not None and rule.active:
                out[i] = rule.legal_mask()
        out[self.status[:, DONE].astype(bool)] = 0

    # ---- checkpoints --------------------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        """Everything needed to continue exactly from here (arrays copied)."""
        return {
            "game_fingerprint": self.game.fingerprint,
            "state": self.state.copy(),
            "candidates": None
            if not self.track_candidates
            else [self.candidates[i, : self.status[i, COUNT]].copy() for i in range(self.num_games)],
            "hard": [None if r is None else r.to_state() for r in self.hard],
            "pool": None if self.pool is None else self.pool.copy(),
        }

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore a state returned by :meth:`get_state` (same game and number of games)."""
        if state["game_fingerprint"] != self.game.fingerprint:
            raise ValueError("the saved engine state belongs to a different game")
        if len(state["state"]) != self.num_games:
            raise ValueError(f"the saved state has {len(state['state'])} games, this engine has {self.num_games}")
        self._check_rows(state["state"])
        self.state[:] = state["state"]
        if self.track_candidates:
            if state["candidates"] is None:
                raise ValueError("the saved state has no candidate sets but this engine tracks them")
            for i, kept in enumerate(state["candidates"]):
                self.candidates[i, : len(kept)] = kept
        self.hard = [None if r is None else HardModeRule.from_state(self.game, r) for r in state["hard"]]
        self.set_answer_pool(state["pool"])

    def _check_rows(self, rows: Any) -> None:
        """Refuse saved game rows that this engine's game could not have: another shape, an answer
        or a count outside the answers, an attempt past the limit, a board cell or a played guess
        or pattern outside the game's (a kernel would read past its tables with them)."""
        rows = np.asarray(rows)
        if rows.shape != self.state.shape or rows.dtype.kind not in "iu":
            raise ValueError(f"the saved game rows are {rows.dtype} {rows.shape}, this engine's are int "
                             f"{self.state.shape}")
        limit = self.attempt_limit
        history = rows[:, BOARD + 2 * self.cells:]
        checks = (
            ("an answer", rows[:, ANSWER], 0, self.n_answers - 1),
            ("an attempt", rows[:, ATTEMPT], 0, limit if limit is not None else np.iinfo(np.int64).max),
            ("an end flag", rows[:, DONE], 0, 1),
            ("a candidate count", rows[:, COUNT], -1, self.n_answers),
            ("a board cell", rows[:, BOARD:BOARD + 2 * self.cells], 0, int(self.tables.max())),
            ("a played guess", history[:, 0::2], 0, self.n_guesses - 1),
            ("a played pattern", history[:, 1::2], 0, len(self.tile_strings) - 2),
        )
        for what, values, low, high in checks:
            if values.size and (values.min() < low or values.max() > high):
                raise ValueError(f"the saved game rows hold {what} outside {low}..{high}")

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["matrix"] = state["_dense"] = None  # rebuilt (from the disk cache) on unpickling
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._views()
        self._allowed.flags.writeable = False
        self._none.flags.writeable = False
        self.matrix = PatternMatrix.for_game(self.game, cache=self.matrix_cache,
                                             build=getattr(self, "build_matrix", True))
        self._dense = self.matrix.dense


__all__ = [
    "ANSWER", "ATTEMPT", "BOARD", "COUNT", "DONE", "HOSTS", "REWARD_KEYS", "REWARD_MODES", "GameEngine",
    "RewardConfig", "RewardMode", "StepResult", "host_choice",
]
